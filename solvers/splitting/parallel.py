"""Counting and enumerating in disjoint parts, on local worker processes or a Dask cluster: the runner.

A split run first searches alone (the probe) until splitting can pay, as solvers.splitting.split_policy
says, while its local workers start and measure what starting a part costs (with the run, or late:
in a probe that keeps its work, forked held at its start where that is safe; in a probe whose work is
thrown away, forked once it has searched ``PROBE`` where that is safe): a count finished by then
is answered without splitting (the workers,
if started, are stopped unused). Otherwise the backend splits the run into parts (``solvers.splitting.cubes``),
many more than workers so that uneven parts balance, and the workers conquer them, each part verified
and de-duplicated like any run (``conquer``, in a worker). A formulation backend's probe keeps what it
counted: it stops between two models and the first split's parts leave its models out, as the
sub-parts of a part split again do (the whole run, part 0, split again while it ran); a reference
search's probe cannot, and its parts count its solutions again. Beside local workers, a plain count's
kept probe has all of them but one count pieces of the first split's parts while it searches on, and
takes the models it counted in those off its count when the run splits (solvers.splitting.beside).

The parts wait in the run's ``Partition`` (solvers.splitting.partition), which hands them out and splits them
further, before they start and while they run, as the policy says; every part's run is recorded in
the run's ``Ledger`` (solvers.splitting.schedule), which the policy reads. How many parts a run ends in
follows from its expected length, not from the number of workers alone.

Every part carries the puzzle's name and the parsed instance, never a local path, so a remote
worker needs only gridsat itself.

Solutions arrive part by part, in the order parts finish (not the order of a sequential run).
With a checkpoint, each finished part is recorded as it finishes, and so is each part split again,
and a rerun of the same command skips the recorded parts (``solvers.splitting.checkpoint``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gridsat.models import get_puzzle
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import digest
from gridsat.models.version import VERSION
from gridsat.solvers.backend import Request
from gridsat.solvers.cubes import RESPLIT, Handback, Part, StopSplitting, shared_out
from gridsat.solvers.gate import Bound
from gridsat.solvers.proof.claim import withdraw
from gridsat.solvers.run import REPORT, SOLUTIONS, Outcome, Plain, Progress, Run
from gridsat.solvers.splitting import split_policy
from gridsat.solvers.splitting.beside import Beside, BesideProbe, keeps_models, stands_for
from gridsat.solvers.splitting.checkpoint import Checkpoint
from gridsat.solvers.splitting.idle import IdleCores
from gridsat.solvers.splitting.partition import Partition, kept_record
from gridsat.solvers.splitting.pool import DaskPool, LocalPool, Message, WorkerDied, start_method
from gridsat.solvers.splitting.schedule import Ledger
from gridsat.solvers.splitting.split_policy import AHEAD, OVERSHOOT, RESPLIT_AGE, first_parts
from gridsat.solvers.stop import CLOSED, INTERRUPTED, SOLUTION_LIMIT, TIME_LIMIT, Stop


class Variant(Protocol):
    """What a run counts (``run.Plain``: solutions; orbit counts add theirs in solvers.orbits): plain,
    picklable data that opens the run, here for the probe and in a worker for each part."""

    def open(self, puzzle: Puzzle, instance: Instance, bound: Bound, *, in_part: bool = False) -> Run: ...


# The most local worker processes and parts a split run takes: each worker loads OR-Tools and PySAT
# (about 100 MB), so more than this many are a typo (1000 started over 158 processes before failing),
# and parts past this many cost more to hand out than they save.
MAX_JOBS = 128
MAX_PARTS = 100_000
# Seconds between the policy's looks at the running parts (``_drive``) while no part ends: a running part is split
# again at most this long after its budget ran out (the pool's POLL, a tick with no message, is longer).
LOOK = 0.02


@dataclass(frozen=True)
class Split:
    """How to split a run: ``jobs`` local worker processes (0 in the API: one per core) or a Dask
    ``scheduler``'s workers, a ``checkpoint`` file that records finished parts, and how many ``parts``."""

    jobs: int = 1
    scheduler: str | None = None
    checkpoint: Path | str | None = None
    # the number of parts to aim for, kept; None: as solvers.splitting.split_policy says, first and as the run goes on
    parts: int | None = None
    # seconds of plain search first, the probe's processor time beside local workers (0: split at once;
    # None: until splitting can pay, as solvers.splitting.split_policy says)
    probe: float | None = None
    # seconds a part runs before it may be split again (None: never split a part after the first split)
    resplit: float | None = RESPLIT_AGE

    def target(self, kept: bool = False) -> int:
        """The first split's parts (``kept``: after a probe that kept its work, as long as the policy says)."""
        return self.parts or first_parts(self.jobs, kept)


@dataclass(frozen=True)
class Task:
    """One part to conquer, with everything a worker needs (nothing from the parent's disk)."""

    puzzle: str
    instance: Instance
    bound: Bound  # the run's backend and job; its request's ``part`` says which part
    variant: Variant  # what is counted: solutions, orbit representatives, or an element's fixed points
    deadline: float | None  # wall-clock time.time() when the run's time limit ends
    keep: bool  # send the solutions back (enumerate, cross-check)

    @property
    def request(self) -> Request:
        return self.bound.request


@dataclass
class PartResult:
    """What a worker found in one part: the part's outcome (None: queued past the time limit, never
    started) and, when the caller reads them, the items its run streamed."""

    index: int
    outcome: Outcome | None
    items: list[Any] | None
    # handed back when split again: the primary assignments of the models it counted (formulation
    # backends; empty for a reference part, which hands back ``upto``); None when it finished, or its
    # run was stopped and is thrown away (a reference part that could not hand back the rest)
    found: list[tuple[int, ...]] | None = None
    # processor seconds from taking the part to its first solution (None: it found none): what a part costs
    # to start (building, loading, presolving) and a little search, for sizing parts (solvers.splitting.schedule)
    first: float | None = None
    took: float | None = None  # seconds the worker spent on the part, as the worker measured them
    upto: int | None = None  # a reference part split again: its decisions below this were searched in full
    cpu: float | None = None  # processor seconds the worker's process spent on the part (threads included)

    @property
    def complete(self) -> bool:
        return self.outcome is not None and self.outcome.complete

    @property
    def reason(self) -> str | None:
        return TIME_LIMIT if self.outcome is None else self.outcome.reason


def conquer(task: Task, report: Callable[[int], None] | None = None, halted: Callable[[], bool] | None = None,
            poll: float = 0.1) -> PartResult:
    """Run one part to its end (in a worker process, or a Dask worker), or until ``halted()`` says the
    parent split it again (its result is then thrown away: the sub-parts count it)."""
    index = task.request.part.index
    took, cpu = time.monotonic(), time.process_time()
    left = None if task.deadline is None else task.deadline - time.time()
    if left is not None and left <= 0:  # queued past the time limit: nothing to build or search
        return PartResult(index, None, None)
    puzzle = get_puzzle(task.puzzle)
    run = task.variant.open(puzzle, task.instance, task.bound.narrowed(time_limit=left), in_part=True)
    items: list[Any] | None = [] if task.keep else None
    last = time.monotonic()
    handback: Handback | None = getattr(run.search, "handback", None)

    def halt() -> None:
        if handback is not None:
            handback.drain()  # it ends between two models, and says which it counted
        else:
            run.stop.request(RESPLIT)  # it ends soon, and what it counted is thrown away

    first = None
    with run, Watch(halted, halt, poll):
        for item in run:
            if first is None:
                first = time.process_time() - cpu
            if run.stop.reason == RESPLIT:
                break
            if items is not None:
                items.append(item)
            if report is not None and time.monotonic() - last >= REPORT:
                report(run.outcome.count)
                last = time.monotonic()
    spent, used = time.monotonic() - took, time.process_time() - cpu
    if handback is not None and handback.cut:
        run.outcome.complete, run.outcome.reason = False, RESPLIT
        return PartResult(index, run.outcome, items, handback.rows(), first, spent, handback.upto, used)
    return PartResult(index, run.outcome, items, first=first, took=spent, cpu=used)


def warm(task: Task) -> float:
    """Load and build, in a worker before its first part, what the run's parts need: the puzzle's
    module, the backend's solver library and the formulation a worker keeps for its parts
    (solvers.backend.part_formulation: a CNF, or a CP-SAT model each part copies). Its first part then takes its
    own time, not the loading's, which would make the first estimate of the run's length far too long, and its
    parts far too many.
    ``task`` is for the whole run (``Part()``). Then measure what starting a part costs, for the
    probe's length (solvers.splitting.split_policy): open the run again as a part would be, and search
    it to its first solution, for ``PROBE`` seconds at most; return the processor seconds that took,
    as the probe's length is counted beside local workers (wall seconds on a loaded machine were
    three times as many: 0.1 s against 0.03 s for cpsat on prime-grid 5x5 at a load of 5, and each
    wall second there made the probe ten seconds longer)."""
    puzzle = get_puzzle(task.puzzle)
    task.variant.open(puzzle, task.instance, task.bound, in_part=True).close()
    started = time.process_time()
    with task.variant.open(puzzle, task.instance, task.bound.narrowed(time_limit=split_policy.PROBE),
                           in_part=True) as run:
        next(run, None)
    return time.process_time() - started


class Watch:
    """A thread that calls ``halt`` once ``halted()`` turns true, polling every ``poll`` seconds: a run
    that finds no solution for a while still notices."""

    def __init__(self, halted: Callable[[], bool] | None, halt: Callable[[], None], poll: float) -> None:
        self.halted, self.halt, self.poll = halted, halt, poll
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="gridsat-halt", daemon=True)

    def _watch(self) -> None:
        while not self.done.wait(self.poll):
            if self.halted is not None and self.halted():
                self.halt()
                return

    def __enter__(self) -> Watch:
        if self.halted is not None:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()


def fingerprint(puzzle: Puzzle, instance: Instance, bound: Bound, label: str, variant: Variant) -> dict[str, Any]:
    """What identifies a run for its checkpoint: a checkpoint of any other run is refused."""
    return {
        "puzzle": puzzle.name,
        "instance": puzzle.describe(instance),
        "instance_sha256": hashlib.sha256(repr(instance).encode()).hexdigest(),
        "backend": bound.name,
        "configuration": label,
        "counts": str(variant),
        "gridsat": VERSION,
    }


class Collector:
    """What the probe and the parts found, gathered into the run's outcome: their counts merged and,
    when the caller reads them (``keeps``), their items de-duplicated across parts."""

    def __init__(self, outcome: Outcome, limit: int | None, keeps: bool) -> None:
        self.outcome, self.limit = outcome, limit
        self.seen: set[Any] | None = set() if keeps else None  # solutions already delivered
        self.redelivered: set[Any] = set()  # the probe's solutions, which its parts find again

    def probed(self) -> None:
        """The run splits after its probe: its parts find the probe's solutions again."""
        self.redelivered = set(self.seen or ())

    def take(self, found: Outcome) -> None:
        """Adopt a run's counts (its items are delivered one by one, as they come)."""
        self.outcome._merge(found, counts=self.seen is None)

    def abandon(self, flying: dict[int, int]) -> None:
        """A count stopped early keeps what the parts in flight had verified so far (a lower bound)."""
        if self.seen is None:
            self.outcome.count += sum(flying.values())

    def deliver(self, item: Any) -> bool:
        """Whether a verified item (a solution, or an orbit's representative) is new to the caller; it
        is then counted and kept."""
        if self.seen is None:
            return False
        key = digest(self.outcome._solution_of(item))
        if key in self.seen:
            if key in self.redelivered:  # found by the probe, then again by its part: not a duplicate
                self.redelivered.discard(key)
            else:
                self.outcome.duplicates += 1
            return False
        if self.limit is not None and len(self.seen) >= self.limit:
            return False
        self.seen.add(key)
        self.outcome.count = len(self.seen)
        self.outcome._deliver(item)
        return True


def forks_late(split: Split, keeps: bool, alone: str | None) -> bool:
    """Whether a probe whose work is thrown away (``keeps`` False), in a process that forks, forks the local workers
    once it has searched split_policy.PROBE, not with the run: a count that ends sooner starts none. Its search runs
    in the thread that reads it, so a fork then is as safe as now (``LocalPool`` spawns them should a thread have
    started meanwhile)."""
    return split_policy.FORK_LATE and not keeps and alone is None and split.probe is None and not split.scheduler \
        and start_method() == "fork"


class ProbeClock:
    """When a probe beside local workers ends (its stop's ``early``): once it has searched ``seconds`` of
    processor time (None: as long as solvers.splitting.split_policy says, from what starting a part costs
    as the first worker ready measured it) and a worker is ready (``cost()`` is not None). It reads the
    clock first, which costs nothing, and the workers at most every ``LOOK`` seconds: the probe asks
    after every model. ``launch``: starts the workers, once the probe has searched as long as
    split_policy.launch_seconds says (None: they started with the run), or at ``launch_at`` if that is sooner.
    ``prolong``: asked, once its time is up, for seconds more (split_policy.prolonging; 0: it ends), which also
    push back the wall-clock deadline of its ``stop`` (never past ``limit``, the run's own)."""

    LOOK = 0.01

    def __init__(self, seconds: float | None, cost: Callable[[], float | None], workers: int, parts: int,
                 keeps: bool, launch: Callable[[], None] | None = None, least: float = split_policy.SHORT,
                 launch_at: float | None = None, prolong: Callable[[float], float] | None = None,
                 stop: Stop | None = None, limit: float | None = None) -> None:
        self.seconds, self.cost, self.workers, self.parts, self.keeps = seconds, cost, workers, parts, keeps
        self.prolong, self.stop, self.limit = prolong, stop, limit
        self.lock = threading.Lock()  # the probe's searching thread and its reader both ask
        self.least = least  # the kept probe's shortest length (split_policy.probe_seconds)
        self.launch = launch
        self.regular = split_policy.launch_seconds(workers, parts, least, keeps=keeps)
        self.launch_at = min(self.regular, float("inf") if launch_at is None else launch_at)
        self.started, self.used = time.monotonic(), time.process_time()
        self.reader = threading.get_ident()  # the thread that may fork (``launch_if_due``): the one made in
        # processor time never runs ahead of the clock in one searching thread
        self.look = self.started + (split_policy.PROBE if seconds is None else seconds)

    def launch_if_due(self) -> None:
        """Start the workers if their time has come (from the thread that reads the probe: it may fork). A launch
        that answers False did not start them yet: they start at the time they would have without ``launch_at``."""
        if self.launch is not None and time.process_time() - self.used >= self.launch_at:
            if self.launch() is False:  # asked again at that time, or at the next look if it has come
                self.launch_at = self.regular
                return
            self.launch = None

    def __call__(self) -> bool:
        now = time.monotonic()
        if now < self.look:
            return False
        self.look = now + self.LOOK
        if self.launch is not None and threading.get_ident() == self.reader:
            self.launch_if_due()  # a search in the reading thread that finds nothing for a while (a reference one)
        if self.seconds is None:
            start = self.cost()
            if start is None:
                return False
            self.seconds = split_policy.probe_seconds(start, self.workers, self.parts, keeps=self.keeps,
                                                      least=self.least)
            self.look = max(self.look, self.started + self.seconds)
            return False
        return time.process_time() - self.used >= self.seconds and self.cost() is not None and not self._prolonged()

    def _prolonged(self) -> bool:
        """Whether the probe, its time up, searches on (``prolong``)."""
        if self.prolong is None:
            return False
        with self.lock:
            searched = time.process_time() - self.used
            if self.seconds is None or searched < self.seconds:  # the other thread prolonged it just now
                return True
            extra = self.prolong(searched)
            if extra <= 0:
                self.prolong = None
                return False
            self.seconds = searched + extra
            if self.stop is not None:
                end = split_policy.probe_deadline(self.started, self.seconds, True)
                self.stop.deadline = end if self.limit is None else min(self.limit, end)
            return True


def time_probe(probe: Run, split: Split, cost: Callable[[], float | None], *, keeps: bool,
               launch: Callable[[], None] | None = None, launch_at: float | None = None,
               prolong: Callable[[float], float] | None = None) -> None:
    """Give the probe's search ``split.probe`` seconds or (None) as long as splitting needs to pay
    (``keeps``: its work is kept when the run splits); beside local workers, seconds of its processor
    time, as ``ProbeClock`` says, and on until the first worker is ready (``cost()``, what starting a part
    costs as it measured, is not None), as long as solvers.splitting.split_policy allows. A Dask
    cluster's workers measure nothing: its probe is ``PROBE`` seconds unless told. ``launch``: starts the
    local workers when due (``ProbeClock``; ``launch_at``: that soon at the latest; ``prolong``: asked for more
    time once its time is up). Its building counts against the run's own limit."""
    workers, parts = max(1, split.jobs), split.target(kept=keeps and launch is not None)
    # a named number of parts: each at least PART_FLOOR were the rest as long as the probe
    least = split.parts * split_policy.PART_FLOOR if split.parts else split_policy.SHORT
    waits = split.probe != 0 and not split.scheduler
    seconds = split.probe if split.probe is not None or waits else split_policy.PROBE
    longest = seconds if seconds is not None else split_policy.probe_seconds(split_policy.PROBE, workers, parts,
                                                                             keeps=keeps, least=least)
    end = split_policy.probe_deadline(time.monotonic(), longest, waits)
    ends = probe.stop
    limit = ends.deadline
    ends.deadline = end if limit is None else min(limit, end)
    if waits:
        ends.early = ProbeClock(seconds, cost, workers, parts, keeps, launch, least, launch_at, prolong, ends, limit)


def search_probe(probe: Run, collector: Collector, on_progress: Callable[[Progress], None] | None,
                 started: float, *, splitting: bool, keeps: bool, beside: Callable[[], None] | None = None
                 ) -> Iterator[Any]:
    """Yield the probe's new solutions until it ends: it finished, its time is up, or a worker is ready
    (``splitting``: the run will split if it goes on, as the progress line says). A probe that
    ``keeps`` its work is drained (it ends between two models, each of which it read whole). ``beside``: called
    as often as the clock is read, to keep workers on parts beside it."""
    last = look = time.monotonic()
    probed, ends = probe.outcome, probe.stop
    handback = getattr(probe.search, "handback", None)
    for solution in probe:
        if collector.deliver(solution):
            yield solution
        now = time.monotonic()
        if now < look:  # the probe may stream thousands of solutions a second: it looks every LOOK seconds
            continue
        look = now + ProbeClock.LOOK
        if isinstance(ends.early, ProbeClock):
            ends.early.launch_if_due()
        if beside is not None:
            beside()
        if on_progress and now - last >= REPORT:
            on_progress(Progress(probed.count, 0, None, now - started, splitting=splitting))
            last = now
        if keeps and ends.expired() and not handback.draining:
            # Its time is up: a search that streams solutions is asked to end between two models (one
            # that finds none for a while ends at the time limit, also between two models), and the
            # rest of the model it is in is read here, so that it hands back each model it counted.
            handback.drain()
        elif not keeps and ends.early is not None and ends.expired():
            # A worker is ready: a search that streams solutions is stopped here (one that
            # finds none for a while, by the thread that reads it), its outcome a time limit's.
            probe.close()
            break


def split_details(ledger: Ledger, pool: LocalPool | DaskPool | None, probe_seconds: float | None,
                  now: float, probe_kept: bool = False, cpu: dict[str, float | None] | None = None) -> dict[str, Any]:
    """How a run was split (``--json``: "split"): the first split's parts, the estimates of the run's
    part time that split parts before they started (the first and the last: when, the run's part
    time, a part's target time, the parts that makes), the estimate at the end (none when no part
    finished), how many parts were split before they started and while they ran, how long the
    probe searched and whether its count was kept, how the workers started (forked, spawned, or a
    Dask cluster's), and the processor seconds spent (``cpu``: the probe's and the parent's, to which the
    parts' are added here, summed over the workers: a loaded machine stretches wall times, not these)."""
    before, running = ledger.split_counts()
    estimates = ledger.plans if len(ledger.plans) < 2 else [ledger.plans[0], ledger.plans[-1]]
    whole = ledger.estimate(now)
    size = 1 if pool is None else pool.size
    end = None if whole is None else {"run_seconds": round(whole, 3),
                                      "part_seconds": round(split_policy.part_seconds(ledger, whole, size), 3)}
    workers = "dask" if not isinstance(pool, LocalPool) else f"{pool.method}ed"
    return {"first_parts": len(ledger.roots), "estimates": estimates, "estimate_at_end": end,
            "split_before_start": before, "split_while_running": running,
            "probe_seconds": None if probe_seconds is None else round(probe_seconds, 3), "probe_kept": probe_kept,
            "workers": workers, "cpu_seconds": {
                **{k: None if v is None else round(v, 3) for k, v in (cpu or {}).items()},
                "parts": round(sum(s.cpu or 0.0 for s in ledger.spans), 3)}}


class Planning(BesideProbe):
    """The first phase of a ``SplitRun``: the probe searches, then its answer stands, or the run is split into
    parts (keeping what the probe counted when it can), or a checkpoint's parts are taken up again."""

    outcome: Outcome
    stop: Stop
    checkpoint: Checkpoint | None
    probe: Run
    collector: Collector
    partition: Partition
    split: Split
    alone: str | None
    keeps: bool
    late: bool
    started: float
    on_progress: Callable[[Progress], None] | None
    probe_seconds: float | None
    probe_cpu: float | None
    cpu_started: float
    probe_kept: bool
    resumed: int
    beside: Beside
    idle: IdleCores
    speculates: bool
    pool: LocalPool | DaskPool | None
    _tasks: Callable[[list[Part]], list[Task]]
    counted_twice: int

    def _plan(self) -> Iterator[Any]:
        """Yield the probe's solutions; return the parts to conquer, or None when the probe answered."""
        outcome, stop, checkpoint = self.outcome, self.stop, self.checkpoint
        if checkpoint is not None and checkpoint.load():
            self._resume(checkpoint)
            return checkpoint.live()
        probed = self.probe.outcome
        try:
            yield from search_probe(self.probe, self.collector, self.on_progress, self.started,
                                    splitting=self.alone is None, keeps=self.keeps,
                                    beside=self._beside if self.speculates else None)
        except KeyboardInterrupt:
            self.collector.take(probed)
            raise
        self.probe_seconds = time.monotonic() - self.started
        self.probe_cpu = time.process_time() - self.cpu_started
        if probed.complete or probed.reason != TIME_LIMIT or stop.expired() or self.probe.search is None:
            # Tiny (finished within the probe), or stopped for good: the probe's answer is the answer.
            self.collector.take(probed)
            if not probed.complete and stop.reason is None:
                stop.request(probed.reason or "stopped")
            if probed.complete and checkpoint is not None:
                checkpoint.start([Part()])
                checkpoint.record(0, probed.count, probed.duplicates, probed.seconds)
            outcome.parts, outcome.parts_done = 1, int(probed.complete)
            if probed.complete and self.alone is None:
                self.alone = split_policy.PROBE_FINISHED.format(seconds=self.probe_seconds)
            return None
        try:
            target = self.split.target(kept=self.late)
            parts = self.beside.first_split or self.probe.search.split(target, OVERSHOOT * target, stop)
        except (StopSplitting, KeyboardInterrupt) as stopped:
            self.collector.take(probed)  # what the probe counted is still a correct lower bound
            if isinstance(stopped, KeyboardInterrupt):
                raise
            stop.request(str(stopped))
            return None
        if parts == [Part()]:  # the backend found nothing to split on: one worker runs the whole search
            self.alone = split_policy.NO_PARTS
        rows = self.probe.search.handback.rows() if self.keeps else []
        if rows:
            parts = self._keep_probe(parts, rows)
        else:
            self.collector.probed()
            if checkpoint is not None:
                checkpoint.start(parts)
        self.partition.know(parts)
        return parts

    def _keep_probe(self, parts: list[Part], rows: list[tuple[int, ...]]) -> list[Part]:
        """The probe's count stays: the first split's ``parts`` become the sub-parts of the whole run
        (part 0) split again while it ran, each leaving out the probe's models (``rows``) that fall in
        it, and a checkpoint records that split with the probe's count, as it records a part split again."""
        probed = self.probe.outcome
        self.collector.take(probed)
        self.probe_kept = True
        self.partition.pilots = False  # split_policy's docstring says why
        near = self.beside
        into = shared_out(parts if near.first_split else [p.renumbered(1 + i) for i, p in enumerate(parts)], rows)
        if near.early:  # counted whole beside the probe (``_speculate``): its models in them were counted twice
            running = {p.index for p in near.early}
            near.counted_twice = stands_for(self.probe.search) * sum(len(p.blocked) for p in into if p.index in running)
            self.outcome.count -= near.counted_twice
            into = [dataclasses.replace(p, blocked=()) if p.index in running else p for p in into]
        if self.checkpoint is not None:
            self.checkpoint.start([Part()])
            self.checkpoint.resplit(0, into, kept_record(probed))
        return into

    def _pool(self, held: bool = False) -> LocalPool:
        """The local workers (each warms up on the whole run's task; ``held``: once released)."""
        return LocalPool(self.split.jobs, conquer, functools.partial(warm, self._tasks([Part()])[0]), held=held)

    def _launch(self) -> bool:
        """Start the local workers, or release those started held (``_run``): while the probe searches on beside
        them, only the workers that count parts beside it (all but one): the last would warm up beside them and the
        probe, and wait idle (prime-grid 4x5 on sat, --jobs 2, a count its probe ends alone: 7.1 processor seconds
        in all against 7.7, the median of 9 runs; its wall time the same, 5.3 s). Not yet (False) where parts were
        to be counted beside the probe but fewer than split_policy.FREE_CORES cores sat idle while it searched:
        then the workers start when they would have without them (``ProbeClock.launch_if_due``)."""
        beside = self.speculates and self.probe_seconds is None
        if beside and not self._cores_free():
            self.speculates, self.beside.busy = False, True
            return False
        if self.pool is None and self.late and beside and start_method() == "fork":  # forked now, not with the run
            self.pool = self._pool(held=True)  # (``_run``): all but the last released below
        if isinstance(self.pool, LocalPool) and self.pool.held:
            self.pool.release(self.pool.size - 1 if beside else None)
        elif self.pool is None:
            self.pool = self._pool()
        else:
            return
        if beside:  # the probe searches on: parts beside it
            self._speculate()
            self._beside()
        return True

    def _holds(self) -> bool:
        """Whether the probe is expected to end alone before its time is up, or within what ``_prolong`` would give
        it (split_policy.ends_alone, from the parts finished beside it): then no more parts are handed out beside
        it. Looked at every split_policy.HOLD_LOOK seconds, and not where ``--parts`` fixes the split's shape."""
        near, clock = self.beside, self.probe.stop.early
        if not split_policy.HOLD_BESIDE or self.split.parts is not None or not isinstance(clock, ProbeClock):
            return False
        now = time.monotonic()
        if now < near.look:
            return near.holds
        near.look = now + split_policy.HOLD_LOOK
        searched = time.process_time() - clock.used
        seconds = split_policy.LONGEST if clock.seconds is None else clock.seconds
        near.holds = split_policy.ends_alone(searched, seconds, *self._tally())
        if near.holds and near.held is None:
            near.held, near.held_parts = searched, len(near.early)
        return near.holds

    def _prolong(self, searched: float) -> float:
        """Seconds more the probe searches, its time up after ``searched`` seconds (0: the run splits now): as
        split_policy.prolonging says from the parts finished beside it (``_tally``). Not asked where a named
        number of parts (``--parts``) fixes the split's shape."""
        if not isinstance(self.pool, LocalPool):
            return 0.0
        extra = split_policy.prolonging(searched, *self._tally(), self.beside.prolonged)
        self.beside.prolonged += extra
        return extra

    def _resume(self, checkpoint: Checkpoint) -> None:
        """Take in what the checkpoint's file holds: its parts, and the counts of its finished parts and of
        the parts split again that kept theirs (a checkpoint is only kept by counts, which deliver nothing)."""
        self.partition.know(checkpoint.parts)
        for record in [*checkpoint.done.values(), *checkpoint.kept.values()]:
            self.outcome._merge_record(record)
        self.resumed = self.outcome.count if self.collector.seen is None else 0


class SplitRun(Planning, Run):
    """A count or enumeration split into parts; iterate it for the items (when ``deliver``).

    The probe searches first (``_plan``); then the pool's workers conquer the parts (``_conquer``), one
    message at a time (``_receive``). The parts wait and are split in the run's ``partition``, as
    solvers.splitting.split_policy says; the ``ledger`` records where and how long each ran; the ``collector``
    gathers what they found."""

    def __init__(
        self,
        puzzle: Puzzle,
        instance: Instance,
        bound: Bound,
        *,
        variant: Variant = SOLUTIONS,
        deliver: bool = False,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        job = bound.job
        split, limit, time_limit, keep = job.split, job.limit, job.time_limit, job.keep
        self.cpu_started = time.process_time()  # this process's processor time: the probe's, then the parent's
        assert isinstance(split, Split)  # a split run's job has its split
        self.stop = Stop(time_limit)
        self.deadline = None if time_limit is None else time.time() + time_limit
        # The probe builds the formulation once; splitting reuses it.
        self.probe = variant.open(puzzle, instance, bound)
        self.pool: LocalPool | DaskPool | None = None
        # Why the run is not split, when it is not (``--json``'s "split"): a search with nothing to
        # split on runs alone from the start, with no worker and no probe's work thrown away.
        self.alone = split_policy.unsplittable(self.probe.search)
        # A formulation backend's probe records its models, so that its count is kept when the run splits.
        self.keeps = self.alone is None and keeps_models(self.probe.search)
        if self.keeps:
            self.probe.search.handback.recording = True
        # A probe that keeps its work and runs until splitting can pay starts the local workers late: a
        # count that ends sooner starts none (split_policy.launch_seconds).
        self.late = self.keeps and split.probe is None and not split.scheduler
        self.forks_late = forks_late(split, self.keeps, self.alone)  # ... or, its work thrown away, forked late
        # ... and its workers but one count parts beside it (``_speculate``), in a plain count whose parts' models
        # need no digest (nothing kept or delivered), no certificate and no checkpoint
        self.speculates = self.late and split.jobs > 1 and isinstance(variant, Plain) and not (keep or deliver) \
            and split.checkpoint is None and bound.request.certify is None and stands_for(self.probe.search) > 0
        self.beside, self.idle = Beside(), IdleCores()  # idle cores from the probe's start: a core free beside it?
        if self.alone is None:
            time_probe(self.probe, split, lambda: self.pool.start_cost() if isinstance(self.pool, LocalPool) else None,
                       keeps=self.keeps, launch=self._launch if self.late or self.forks_late else None,
                       launch_at=split_policy.SPECULATE if self.speculates else None,
                       prolong=self._prolong if self.speculates and split.parts is None else None)
        self.outcome = self.probe.outcome._emptied(keep)  # its own tallies, not the probe's
        self.variant = variant
        self.puzzle, self.instance, self.bound, self.split = puzzle, instance, bound, split
        self.limit, self.keep, self.deliver, self.on_progress = limit, keep, deliver, on_progress
        self.collector = Collector(self.outcome, limit, keep or deliver)
        self.checkpoint = None if split.checkpoint is None else Checkpoint(
            split.checkpoint, fingerprint(puzzle, instance, bound, self.probe.search.label, variant))
        self.part_seconds: dict[int, float] = {}  # per finished part, for statistics
        self.probe_seconds: float | None = None  # how long the probe searched (None: it did not)
        self.probe_cpu: float | None = None  # ... in processor seconds, its formulation's building included
        self.probe_kept = False  # whether the run split and kept what the probe had counted
        # What a checkpoint file held when the run started (none for a file this run writes afresh):
        # progress counts them apart, so that a new checkpoint's own parts never show as resumed.
        self.resumed = 0  # solutions
        self.parts_resumed = 0
        self.ledger = Ledger()  # the tree of parts and where they ran (solvers.splitting.schedule)
        self.started = time.monotonic()
        self.partition = Partition(self.probe.search, self.stop, self.ledger, self.checkpoint, self.outcome,
                                   refine=split.parts is None, resplit=split.resplit, started=self.started)
        self._items = self._run()

    def _run(self) -> Iterator[Any]:
        outcome, stop = self.outcome, self.stop
        # Local workers start at once (or, ``late`` or ``forks_late``, while the probe searches): they load gridsat
        # and warm up while it searches, so a split run does not wait for them afterwards (a run the probe answers
        # stops them unused).
        if not self.split.scheduler and self.alone is None and not self.late and not self.forks_late:
            self._launch()
        elif self.late and start_method() == "fork" and getattr(self.probe.search, "threaded", True):
            # Forked now, while this process runs one thread (a cpsat probe searches in a thread of its own, and
            # beside it they would be spawned, each loading Python, gridsat and OR-Tools again: about 0.9 s of
            # processor time on the run's cores), held idle until they are due (``_launch``). A probe that searches
            # in this thread (the sat backend's on CaDiCaL) forks them when they are due: a count that ends sooner
            # forks none (knights-tour 5x5 on sat, 0.19 s of search: the fork cost it about 40 ms).
            self.pool = self._pool(held=True)
        try:
            parts = yield from self._plan()
            if parts is not None:
                yield from self._conquer(parts)
        except KeyboardInterrupt:
            stop.request(INTERRUPTED)
            raise
        except GeneratorExit:
            stop.request(CLOSED)
            raise
        finally:
            self.probe.close()
            if self.pool is not None:
                self.pool.close()
            if self.checkpoint is not None:
                self.checkpoint.close()
                if self.checkpoint.lost is not None:  # the answer stands; only the file is not kept
                    outcome.details["checkpoint"] = f"not kept: {self.checkpoint.lost}"
            outcome.seconds = time.monotonic() - self.started
            if outcome.parts and outcome.parts > 1 and stop.reason is None:
                outcome._check_parts()
            if outcome.parts is not None and outcome.parts_done != outcome.parts and stop.reason is None:
                stop.request("not every part finished")
            outcome.complete = stop.reason is None
            outcome.reason = stop.reason
            if not outcome.complete:
                withdraw(outcome.details)
            if outcome.parts is not None and outcome.parts > 1:
                cpu = {"probe": self.probe_cpu, "parent": time.process_time() - self.cpu_started}
                outcome.details["split"] = split_details(self.ledger, self.pool, self.probe_seconds,
                                                         time.monotonic() - self.started, self.probe_kept, cpu)
                outcome.details["split"] |= self.beside.reading(split=True)
            elif self.alone is not None:
                outcome.details["split"] = {"alone": self.alone, **self.beside.reading(split=False)}

    def _conquer(self, parts: list[Part]) -> Iterator[Any]:
        outcome, checkpoint = self.outcome, self.checkpoint
        done = checkpoint.done if checkpoint is not None else {}
        outcome.parts, outcome.parts_done = len(parts), len(done)
        self.partition.plant(parts, checkpoint.parts if checkpoint is not None else [])
        self.parts_resumed = len(done)  # a count now: ``done`` grows as this run records its parts
        near = self.beside
        if near.divided:  # the first split's shares, those of parts split beside the probe passed to their sub-parts
            pieces = {index for into in near.divided.values() for index in into}
            self.ledger.planted([p.index for p in parts if p.index not in pieces] + list(near.divided))
            for index, into in near.divided.items():
                self.ledger.divided(index, into)
        early = {p.index for p in near.early}  # running already, beside the probe
        for index in near.halted:  # ... and asked to stop there: split again once back (``_resplit``)
            self.partition.halted(index, split_policy.RESPLIT_PARTS)
        todo = [p for p in parts if p.index not in done and p.index not in early]
        if not todo and not early:
            return
        if self.split.scheduler:
            if self.pool is None:
                self.pool = DaskPool(self.split.scheduler, conquer)
        else:
            self._launch()  # started or released now, unless they were already
        # Parts are handed out in a shuffled order, so that the parts run first are a fair sample of
        # the run for the estimate of its length (solvers.splitting.schedule), and only a few ahead of need, so
        # that those still waiting here can be split before they start.
        random.Random(len(todo)).shuffle(todo)
        self.partition.queue.extend(todo)
        yield from self._drive(self.pool)

    def _drive(self, pool: LocalPool | DaskPool) -> Iterator[Any]:
        """Hand out parts and read the pool's messages until every part is back or the run stops."""
        outcome, stop = self.outcome, self.stop
        flying: dict[int, int] = {}  # part -> solutions it reported so far
        look = 0.0  # when the policy looks at the running parts again, unless a part ends sooner
        self._feed(pool)
        try:
            for message in pool.messages():
                yield from self._receive(message, flying)
                self._feed(pool)
                if self.limit is not None and outcome.count >= self.limit:
                    stop.request(SOLUTION_LIMIT)
                    outcome.count = min(outcome.count, self.limit)
                    return
                if stop.expired():  # the time limit: parts in flight end with it, the rest never start
                    self.collector.abandon(flying)
                    return
                # A part's end may leave a worker idle; otherwise only the clock moves what the policy reads: a
                # look after each of the 2 to 3 messages a part sends took 0.2 s of the parent's processor time
                # in a sat count of 3,350 parts (loaded), and as many looks of the clock are under a millisecond.
                if message.kind == "done" or time.monotonic() >= look:
                    look = time.monotonic() + LOOK
                    index = self.partition.choose_resplit(pool.pending, pool.size)
                    if index is not None:
                        pool.halt(index)
                self._feed(pool)
                if self.on_progress:
                    self.on_progress(Progress(outcome.count + sum(flying.values()), outcome.parts_done,
                                              outcome.parts, time.monotonic() - self.started, self.resumed,
                                              self.parts_resumed, split_again=len(self.ledger.children)))
        except KeyboardInterrupt:
            stop.request(INTERRUPTED)
            self.collector.abandon(flying)
            raise
        except WorkerDied as died:
            stop.request(str(died))
            self.collector.abandon(flying)

    def _tasks(self, parts: list[Part]) -> list[Task]:
        request, keep = self.bound.request, self.keep or self.deliver
        return [Task(self.puzzle.name, self.instance,
                     self.bound.narrowed(request=dataclasses.replace(request, part=p), time_limit=None, keep=False,
                                        split=None),
                     self.variant, self.deadline, keep) for p in parts]

    def _feed(self, pool: LocalPool | DaskPool) -> None:
        """Hand parts to the pool, ``AHEAD`` per worker beyond those running; each part expected to run
        much longer than a part should (solvers.splitting.split_policy) is split first, before it starts."""
        while self.partition.queue and pool.pending < pool.size * (1 + AHEAD):
            pool.submit(self._tasks([self.partition.next_part(pool.size)]))

    def _receive(self, message: Message, flying: dict[int, int]) -> Iterator[Any]:
        """Account for one message from the pool; yield the solutions of a finished part."""
        now = time.monotonic() - self.started
        if message.kind == "start":
            self.ledger.started(message.index, self.beside.began(message.index, now, self.started), str(message.value))
        if message.kind in ("start", "progress"):
            flying[message.index] = message.value if message.kind == "progress" else 0
            return
        if message.kind != "done":
            return
        flying.pop(message.index, None)
        result: PartResult = message.value
        if result.first is not None:
            self.ledger.found_first(result.first)
        if message.index in self.partition.halting:
            if result.complete:  # it ended before it noticed: nothing to split
                self.partition.kept_whole(message.index)
            elif self.stop.reason is None:
                yield from self._resplit(message.index, result, now)
                return
        self.ledger.ended(message.index, now, took=result.took, cpu=result.cpu)
        found = result.outcome
        if found is not None:
            self.collector.take(found)
        for item in result.items or []:
            if self.collector.deliver(item):
                yield item
        if result.complete:
            self.partition.finished(result.index)
            self.outcome.parts_done += 1
            self.part_seconds[result.index] = found.seconds
            if self.checkpoint is not None:
                self.checkpoint.record(result.index, found.count, found.duplicates, found.seconds, **found._record())
        elif self.stop.reason is None and result.reason != SOLUTION_LIMIT:
            self.stop.request(result.reason or f"part {result.index} did not finish")

    def _resplit(self, index: int, result: PartResult, now: float) -> Iterator[Any]:
        """A part stopped to be split again is back: it keeps its count and items when it handed back
        what it counted (else they are thrown away), and its sub-parts are handed out next."""
        self.ledger.ended(index, now, thrown=result.found is None, took=result.took, cpu=result.cpu)
        kept = result.outcome if result.found is not None else None
        if kept is not None:
            self.collector.take(kept)
        into = self.partition.resplit(index, result.found, result.upto, kept)
        for item in (result.items or []) if result.found is not None else []:  # kept with the count, or dropped
            if self.collector.deliver(item):
                yield item
        self.partition.queue.extendleft(reversed(into))  # handed out next (``_feed``)


def launch(puzzle: Puzzle, instance: Instance, bound: Bound, *, variant: Variant = SOLUTIONS, deliver: bool = False,
           on_progress: Callable[[Progress], None] | None = None) -> Run:
    """The one place that chooses: one plain search in this process (the job has no split), or a split run
    (``deliver``: the caller reads the items as they come)."""
    if bound.job.split is None:
        return variant.open(puzzle, instance, bound)
    return SplitRun(puzzle, instance, bound, variant=variant, deliver=deliver, on_progress=on_progress)
