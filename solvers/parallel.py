"""Counting and enumerating in disjoint parts, on local worker processes or a Dask cluster.

A split run first searches alone while its local workers start: for ``PROBE`` seconds, and on until
the first worker has started and loaded what parts need (``warm``), since a part handed out sooner
would only wait for it. An instance finished by then is tiny, and is answered without splitting
(the workers are stopped unused).
Otherwise the backend splits the run into parts (``solvers.parts``), many more than workers so that
uneven parts balance, and the workers conquer them, each part verified and de-duplicated like any
run.

How many parts follows from the run's expected length, not from the number of workers alone. The
first split aims at ``PARTS_PER_WORKER`` per worker (at least ``MIN_PARTS``; ``Split.parts`` names
it and keeps it). The parts wait here, in a shuffled order, and are handed to the pool ``AHEAD``
per worker ahead of need (``_feed``). From the first finished part on, solvers.schedule estimates
the run's whole part time from the parts run so far (a fair sample, being shuffled) and a part's
target time from what starting a part costs; a waiting part expected to run more than ``REFINE``
target times is split before it starts (``_refine``: no restart, nothing thrown away), into as many
sub-parts as it needs. Parts that go out before any estimate exists are split into ``PILOT``
sub-parts each, which end soon and give the first estimate (a first-split part handed out whole
held the run's longest chain of runs: prime-grid 5x5 sat, 0.28 s of a 0.49 s chain). So a count of
seconds keeps its first split and a count of hours ends in many more parts, each a multiple of its start-up cost.

Every part carries the puzzle's name and the parsed instance, never a local path, so a remote
worker needs only gridsat itself.

A part that runs long is split again while it runs (``_balance``; when, solvers.schedule says):
its sub-parts are found here from the probe's formulation (``Search.split(within=part)``), its
worker is asked to stop it, and its sub-parts are handed out once its result is back. A cpsat or
sat part stops between two models and hands back their primary assignments: its count is kept and
each sub-part leaves those models out. A reference part finishes the decision of its last level
it is in and hands back the rest of its range (``upto``): its count is kept, and its sub-parts are
that rest, split here once it is back. A reference part that cannot (solvers.reference.backend.Resume)
is stopped, its count thrown away, and its sub-parts count all of it. Either way every solution is
counted by exactly one run.

Solutions arrive part by part, in the order parts finish (not the order of a sequential run).
With a checkpoint, each finished part is recorded as it finishes, and so is each part split again,
and a rerun of the same command skips the recorded parts (``solvers.checkpoint``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gridsat.models import get_puzzle
from gridsat.models.errors import GridsatError, InvalidOption
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import digest
from gridsat.models.version import VERSION
from gridsat.solvers.backend import Request
from gridsat.solvers.checkpoint import Checkpoint, check_writable
from gridsat.solvers.parts import RESPLIT, Handback, Part, StopSplitting, shared_out
from gridsat.solvers.pool import DaskPool, LocalPool, Message, WorkerDied
from gridsat.solvers.run import REPORT, SOLUTIONS, Outcome, Progress, Run
from gridsat.solvers.schedule import REFINE, RESPLIT_AGE, Ledger
from gridsat.solvers.stop import CLOSED, INTERRUPTED, SOLUTION_LIMIT, TIME_LIMIT, Stop


class Variant(Protocol):
    """What a run counts (``run.Plain``: solutions; orbit counts add theirs in solvers.orbits): plain,
    picklable data that opens the run, here for the probe and in a worker for each part."""

    def open(self, puzzle: Puzzle, instance: Instance, backend: str, request: Request, *, limit: int | None = None,
             time_limit: float | None = None, keep: bool = False, in_part: bool = False) -> Run: ...

# Seconds of plain search before a run is split, at least: a count that ends sooner is tiny. The
# probe then goes on until the first local worker is ready, at most PROBE_WAIT more: a forked worker
# is ready at once, a spawned one takes 0.25 s (sat) to 0.5 s (cpsat: OR-Tools loads in 0.24 s), and
# a part handed out before would only wait (at 0.2 s flat, knights-tour 5x5 on cpsat took 0.5 s alone
# and 1.3 s split: its parts waited for spawned workers). The probe's work is thrown away when the
# run splits: at 0.2, knights-tour 6x6 closed on sat took 1.66-2.01 s, at 0.1 1.48-1.50 s, at 0.05
# 1.36 s; but at 0.05 counts of 0.06-0.1 s split and took 0.1-0.15 s more (compare.parallel, and
# ``gridsat count knights-tour 4x5 --backend cpsat --jobs 2``).
PROBE = 0.1
PROBE_WAIT = 1.0
PARTS_PER_WORKER, MIN_PARTS = 16, 32  # the split's target, unless the caller names one
OVERSHOOT = 8  # a prefix whose projections number more than OVERSHOOT x target is not used
RESPLIT_PER_WORKER = 4  # a part split again for an idle worker: about this many sub-parts per worker (at least 8)
RESPLIT_PARTS = 8  # a part split again for running past its budget (solvers.schedule)
# A part split again is small already: a prefix that gives many more sub-parts than asked costs
# more in restarts (each sub-part builds and presolves the model again) than it gains in balance.
RESPLIT_OVERSHOOT = 2
# Parts per worker handed to the pool ahead of need; the rest wait here, where they can still be split.
# At 2 a worker waited for its next part 0.4-0.7 s in a 17 s count (prime-grid 5x5 sat), while this
# process split parts: parts are split before they are handed out, so more ahead costs no balance.
AHEAD = 4
REFINE_MAX = 64  # a queued part is split before it starts into at most this many sub-parts
# ... and a part handed out before any part has finished (no estimate yet), into this many: they end
# soon, so the estimate of the run's length comes early
PILOT = 4


@dataclass(frozen=True)
class Split:
    """How to split a run: ``jobs`` local worker processes (0 in the API: one per core) or a Dask
    ``scheduler``'s workers, a ``checkpoint`` file that records finished parts, and how many ``parts``."""

    jobs: int = 1
    scheduler: str | None = None
    checkpoint: Path | str | None = None
    # the number of parts to aim for, kept; None: PARTS_PER_WORKER per worker first, then as the run's length says
    parts: int | None = None
    probe: float = PROBE  # seconds of plain search first (0: split at once)
    # seconds a part runs before it may be split again (None: never split a part after the first split)
    resplit: float | None = RESPLIT_AGE

    def target(self) -> int:
        return self.parts or max(MIN_PARTS, PARTS_PER_WORKER * self.jobs)


@dataclass(frozen=True)
class Task:
    """One part to conquer, with everything a worker needs (nothing from the parent's disk)."""

    puzzle: str
    instance: Instance
    backend: str
    request: Request  # its ``part`` says which part
    variant: Variant  # what is counted: solutions, orbit representatives, or an element's fixed points
    deadline: float | None  # wall-clock time.time() when the run's time limit ends
    keep: bool  # send the solutions back (enumerate, cross-check)
    limit: int | None


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
    # seconds from taking the part to its first solution (None: it found none): what a part costs to
    # start (building, loading, presolving) and a little search, for sizing parts (solvers.schedule)
    first: float | None = None
    took: float | None = None  # seconds the worker spent on the part, as the worker measured them
    upto: int | None = None  # a reference part split again: its decisions below this were searched in full

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
    took = time.monotonic()
    left = None if task.deadline is None else task.deadline - time.time()
    if left is not None and left <= 0:  # queued past the time limit: nothing to build or search
        return PartResult(index, None, None)
    puzzle = get_puzzle(task.puzzle)
    run = task.variant.open(puzzle, task.instance, task.backend, task.request, limit=task.limit, time_limit=left,
                            in_part=True)
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
                first = time.monotonic() - took
            if run.stop.reason == RESPLIT:
                break
            if items is not None:
                items.append(item)
            if report is not None and time.monotonic() - last >= REPORT:
                report(run.outcome.count)
                last = time.monotonic()
    spent = time.monotonic() - took
    if handback is not None and handback.cut:
        run.outcome.complete, run.outcome.reason = False, RESPLIT
        return PartResult(index, run.outcome, items, handback.found, first, spent, handback.upto)
    return PartResult(index, run.outcome, items, first=first, took=spent)


def warm(task: Task) -> None:
    """Load and build, in a worker before its first part, what the run's parts need: the puzzle's
    module, the backend's solver library (OR-Tools: 0.24 s) and the formulation a worker keeps for its
    parts (solvers.sat.part_formulation). Its first part then takes its own time, not the loading's
    (which once made the first estimate of a run's length 40x too long, and its parts far too many).
    ``task`` is for the whole run (``Part()``); nothing is searched."""
    task.variant.open(get_puzzle(task.puzzle), task.instance, task.backend, task.request, limit=task.limit,
                      in_part=True).close()


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


def registered(puzzle: Puzzle) -> bool:
    """Whether a worker that looks ``puzzle`` up by name gets this very puzzle."""
    try:
        return get_puzzle(puzzle.name) is puzzle
    except GridsatError:
        return False


def fingerprint(puzzle: Puzzle, instance: Instance, backend: str, label: str, variant: Variant) -> dict[str, Any]:
    """What identifies a run for its checkpoint: a checkpoint of any other run is refused."""
    return {
        "puzzle": puzzle.name,
        "instance": puzzle.describe(instance),
        "instance_sha256": hashlib.sha256(repr(instance).encode()).hexdigest(),
        "backend": backend,
        "configuration": label,
        "counts": str(variant),
        "gridsat": VERSION,
    }


class SplitRun(Run):
    """A count or enumeration split into parts; iterate it for the items (when ``deliver``)."""

    def __init__(
        self,
        puzzle: Puzzle,
        instance: Instance,
        backend: str,
        request: Request,
        split: Split,
        *,
        variant: Variant = SOLUTIONS,
        limit: int | None = None,
        time_limit: float | None = None,
        keep: bool = False,
        deliver: bool = False,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> None:
        if split.jobs < 1:
            raise InvalidOption(f"--jobs {split.jobs}: must be at least 1")
        if not registered(puzzle):
            raise InvalidOption(f"puzzle {puzzle.name!r} is not a built-in or plugin puzzle: workers find a "
                                "puzzle by its name, so a split run needs one registered (see Adding a puzzle)")
        if split.checkpoint is not None:
            if limit is not None or deliver or keep:
                raise InvalidOption("--checkpoint records counts: it goes with count, without --limit")
            check_writable(split.checkpoint)
        self.stop = Stop(time_limit)
        self.deadline = None if time_limit is None else time.time() + time_limit
        # The probe builds the formulation once; splitting reuses it.
        self.probe = variant.open(puzzle, instance, backend, request, limit=limit, time_limit=time_limit, keep=keep)
        # Building counted against the run's own limit; the probe's search gets ``split.probe`` seconds,
        # then (local workers) until the first worker is ready, at most PROBE_WAIT more.
        probe_end = time.monotonic() + split.probe
        waits = split.probe > 0 and not split.scheduler
        end = probe_end + PROBE_WAIT if waits else probe_end
        ends = self.probe.stop
        ends.deadline = end if ends.deadline is None else min(ends.deadline, end)
        self.pool: LocalPool | DaskPool | None = None
        if waits:
            ends.early = lambda: time.monotonic() >= probe_end and isinstance(self.pool, LocalPool) \
                and self.pool.ready()
        self.outcome = self.probe.outcome._emptied(keep)  # its own tallies, not the probe's
        self.variant = variant
        self.puzzle, self.instance, self.backend, self.request, self.split = puzzle, instance, backend, request, split
        self.limit, self.keep, self.deliver, self.on_progress = limit, keep, deliver, on_progress
        self.seen: set[Any] | None = set() if keep or deliver else None  # solutions already delivered
        self.checkpoint = None if split.checkpoint is None else Checkpoint(
            split.checkpoint, fingerprint(puzzle, instance, backend, self.probe.search.label, variant))
        self.part_seconds: dict[int, float] = {}  # per finished part, for statistics
        self.split_seconds = 0.0  # the first split's, then every split again's
        self.probe_seconds: float | None = None  # how long the probe searched (None: it did not)
        self.ledger = Ledger()  # the tree of parts and where they ran (solvers.schedule)
        self.known: dict[int, Part] = {}  # every part not yet finished or split, by index, for splitting it again
        self.halting: dict[int, list[Part]] = {}  # parts asked to stop -> their sub-parts, not yet numbered
        self.next_index = 0  # the index the next sub-part takes
        self.redelivered: set[Any] = set()
        self.queue: deque[Part] = deque()  # parts not yet handed to the pool
        self.started = time.monotonic()
        self._items = self._run()

    def _run(self) -> Iterator[Any]:
        outcome, stop = self.outcome, self.stop
        # Local workers start at once: they load gridsat and warm up while the probe searches, so a
        # split run does not wait for them afterwards (a run the probe answers stops them unused).
        if not self.split.scheduler:
            self.pool = LocalPool(self.split.jobs, conquer, functools.partial(warm, self._tasks([Part()])[0]))
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
            outcome.seconds = time.monotonic() - self.started
            if outcome.parts and outcome.parts > 1 and stop.reason is None:
                outcome._check_parts()
            if outcome.parts is not None and outcome.parts_done != outcome.parts and stop.reason is None:
                stop.request("not every part finished")
            outcome.complete = stop.reason is None
            outcome.reason = stop.reason
            if outcome.parts is not None and outcome.parts > 1:
                outcome.details["split"] = self.plan()

    def plan(self) -> dict[str, Any]:
        """How the run was split (``--json``: "split"): the first split's parts, the estimates of the run's
        part time that split parts before they started (the first and the last: when, the run's part
        time, a part's target time, the parts that makes), the estimate at the end (none when no part
        finished), how many parts were split before they started and while they ran, how long the
        probe searched, and how the workers started (forked, spawned, or a Dask cluster's)."""
        ledger = self.ledger
        ran = {s.index for s in ledger.spans}
        before = sum(1 for i in ledger.children if i not in ran)
        estimates = ledger.plans if len(ledger.plans) < 2 else [ledger.plans[0], ledger.plans[-1]]
        now = time.monotonic() - self.started
        whole = ledger.estimate(now)
        size = 1 if self.pool is None else self.pool.size
        end = None if whole is None else {"run_seconds": round(whole, 3),
                                          "part_seconds": round(ledger.part_seconds(whole, size), 3)}
        workers = "dask" if not isinstance(self.pool, LocalPool) else f"{self.pool.method}ed"
        return {"first_parts": len(ledger.roots), "estimates": estimates, "estimate_at_end": end,
                "split_before_start": before, "split_while_running": len(ledger.children) - before,
                "probe_seconds": None if self.probe_seconds is None else round(self.probe_seconds, 3),
                "workers": workers}

    def _plan(self) -> Iterator[Any]:
        """Yield the probe's solutions; return the parts to conquer, or None when the probe answered."""
        outcome, stop, checkpoint = self.outcome, self.stop, self.checkpoint
        if checkpoint is not None and checkpoint.load():
            self.known = {p.index: p for p in checkpoint.parts}
            return checkpoint.live()
        last = time.monotonic()
        probed, ends = self.probe.outcome, self.probe.stop
        try:
            for solution in self.probe:
                if self._deliver(solution):
                    yield solution
                if self.on_progress and time.monotonic() - last >= REPORT:
                    self.on_progress(Progress(probed.count, 0, None, time.monotonic() - self.started))
                    last = time.monotonic()
                if ends.early is not None and ends.expired():
                    # A worker is ready: a search that streams solutions is stopped here (one that
                    # finds none for a while, by the thread that reads it), its outcome a time limit's.
                    self.probe.close()
                    break
        except KeyboardInterrupt:
            self._take(probed)
            raise
        self.probe_seconds = time.monotonic() - self.started
        if probed.complete or probed.reason != TIME_LIMIT or stop.expired() or self.probe.search is None:
            # Tiny (finished within the probe), or stopped for good: the probe's answer is the answer.
            self._take(probed)
            if not probed.complete and stop.reason is None:
                stop.request(probed.reason or "stopped")
            if probed.complete and checkpoint is not None:
                checkpoint.start([Part()])
                checkpoint.record(0, probed.count, probed.duplicates, probed.seconds)
            outcome.parts, outcome.parts_done = 1, int(probed.complete)
            return None
        started = time.monotonic()
        try:
            parts = self.probe.search.split(self.split.target(), OVERSHOOT * self.split.target(), stop)
        except (StopSplitting, KeyboardInterrupt) as stopped:
            self._take(probed)  # what the probe counted is still a correct lower bound
            if isinstance(stopped, KeyboardInterrupt):
                raise
            stop.request(str(stopped))
            return None
        self.split_seconds = time.monotonic() - started
        self.redelivered = set(self.seen or ())  # the parts find the probe's solutions again
        if checkpoint is not None:
            checkpoint.start(parts)
        self.known = {p.index: p for p in parts}
        return parts

    def _conquer(self, parts: list[Part]) -> Iterator[Any]:
        outcome, stop, checkpoint = self.outcome, self.stop, self.checkpoint
        done = checkpoint.done if checkpoint is not None else {}
        kept = checkpoint.kept.values() if checkpoint is not None else ()
        for record in [*done.values(), *kept]:  # a checkpoint is only kept by counts, which deliver nothing
            outcome._merge_record(record)
        outcome.parts, outcome.parts_done = len(parts), len(done)
        self.ledger.planted([p.index for p in parts])
        every = [*parts, *(checkpoint.parts if checkpoint is not None else ())]
        self.next_index = 1 + max((p.index for p in every), default=-1)
        self.resumed = outcome.count if self.seen is None else 0
        todo = [p for p in parts if p.index not in done]
        if not todo:
            return
        flying: dict[int, int] = {}  # part -> solutions it reported so far
        if self.pool is None:
            self.pool = DaskPool(self.split.scheduler, conquer)
        pool = self.pool
        # Parts are handed out in a shuffled order, so that the parts run first are a fair sample of
        # the run for the estimate of its length (solvers.schedule), and only a few ahead of need, so
        # that those still waiting here can be split before they start.
        random.Random(len(todo)).shuffle(todo)
        self.queue.extend(todo)
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
                    self._abandon(flying)
                    return
                self._balance(pool)
                self._feed(pool)
                if self.on_progress:
                    self.on_progress(Progress(outcome.count + sum(flying.values()), outcome.parts_done,
                                              outcome.parts, time.monotonic() - self.started, self.resumed,
                                              len(done), split_again=len(self.ledger.children)))
        except KeyboardInterrupt:
            stop.request(INTERRUPTED)
            self._abandon(flying)
            raise
        except WorkerDied as died:
            stop.request(str(died))
            self._abandon(flying)

    def _tasks(self, parts: list[Part]) -> list[Task]:
        return [Task(self.puzzle.name, self.instance, self.backend, dataclasses.replace(self.request, part=p),
                     self.variant, self.deadline, self.keep or self.deliver, self.limit) for p in parts]

    def _balance(self, pool: LocalPool | DaskPool) -> None:
        """Split a running part again (the policy is solvers.schedule's): its sub-parts are found here,
        from the probe's formulation, and handed out when its worker has stopped it (``_resplit``)."""
        ledger = self.ledger
        now = time.monotonic() - self.started
        idle = not self.queue and pool.pending < pool.size
        if idle and ledger.first_idle is None:
            ledger.first_idle = now
        if self.split.resplit is None or self.probe.search is None:
            return
        # Nothing left to hand out but the parts running: a worker is about to go idle, so a part is
        # split ahead of need (one that has run past its expected time), and split for an idle worker.
        low = not self.queue and pool.pending <= pool.size
        whole = None if idle else ledger.estimate(now)
        if low and whole is not None:
            index = ledger.choose(now, self.split.resplit, whole)
            idle = index is not None
        else:
            index = None
        if index is None:
            index = ledger.choose(now, self.split.resplit if idle else ledger.budget(now, pool.size))
        if index is None:
            return
        target = max(8, RESPLIT_PER_WORKER * pool.size) if idle else RESPLIT_PARTS
        started = time.monotonic()
        try:
            into = self.probe.search.split(target, RESPLIT_OVERSHOOT * target, self.stop, within=self.known[index])
        except StopSplitting:  # the run is ending (its stop says why): the part runs on
            return
        self.split_seconds += time.monotonic() - started
        if len(into) < 2:
            ledger.unsplittable.add(index)
            return
        ledger.children[index] = []  # its sub-parts take their indices when they are handed out
        self.halting[index] = into
        pool.halt(index)

    def _resplit(self, index: int, result: PartResult) -> list[Part]:
        """The sub-parts of a part whose worker stopped it to be split again, with new indices.

        A worker that handed back the models it counted (``found``) keeps its count, and each sub-part
        leaves out those models that fall in it; otherwise its count is thrown away and the sub-parts
        count all of it. The checkpoint records the split (and the kept count) before the sub-parts run."""
        part, into = self.known[index], self.halting.pop(index)
        kept = result.found is not None and result.outcome is not None
        if result.upto is not None and kept:  # a reference part: what it left is the rest of its range
            levels = part.levels()
            rest = dataclasses.replace(part, lo=result.upto) if len(levels) == 1 else dataclasses.replace(
                part, deeper=(*part.deeper[:-1], levels[-1]._replace(lo=result.upto)))
            try:
                into = self.probe.search.split(len(into), RESPLIT_OVERSHOOT * len(into), self.stop, within=rest)
            except StopSplitting:
                into = [rest]
        blocked = [*part.blocked, *(result.found or [])] if kept else list(part.blocked)
        found = result.outcome
        record = None
        if kept and found is not None:
            self.outcome._merge(found, counts=self.seen is None)
            record = {"count": found.count, "duplicates": found.duplicates, "seconds": found.seconds,
                      **found._record()}
        return self._adopt(index, into, blocked, record)

    def _adopt(self, index: int, into: list[Part], blocked: list[Any] | tuple[Any, ...],
               record: dict[str, Any] | None = None) -> list[Part]:
        """Number the sub-parts of part ``index``, each leaving out the ``blocked`` models that fall in it;
        the checkpoint records the split (with the count the part kept, if any) before they run."""
        into = shared_out([p.renumbered(self.next_index + i) for i, p in enumerate(into)], blocked)
        self.next_index += len(into)
        if self.checkpoint is not None:
            self.checkpoint.resplit(index, into, record)
        self.ledger.divided(index, [p.index for p in into])
        self.known.pop(index, None)  # replaced by its sub-parts: it is never split again
        self.known.update((p.index, p) for p in into)
        self.outcome.parts = (self.outcome.parts or 0) + len(into) - 1
        return into

    def _feed(self, pool: LocalPool | DaskPool) -> None:
        """Hand parts to the pool, ``AHEAD`` per worker beyond those running; each part expected to run
        much longer than a part should (solvers.schedule) is split first, before it starts."""
        while self.queue and pool.pending < pool.size * (1 + AHEAD):
            part = self.queue.popleft()
            into = self._refine(part, pool.size)
            if into:
                part = into[0]
                self.queue.extendleft(reversed(into[1:]))
            pool.submit(self._tasks([part]))

    def _refine(self, part: Part, workers: int) -> list[Part] | None:
        """Sub-parts of a part that has not started, when it is expected to run more than ``REFINE`` part
        durations, or a first-split part more than one (None: it runs as it is). The first split was made
        before any part had run, and the early estimates lean short (heavy parts are the ones still
        running), so its parts get the benefit of the doubt: at least ``PILOT`` sub-parts. A named
        ``--parts`` is kept, and so is a run never split again."""
        ledger = self.ledger
        if self.split.parts is not None or self.split.resplit is None or self.probe.search is None \
                or part.index in ledger.unsplittable:
            return None
        now = time.monotonic() - self.started
        whole = ledger.estimate(now)
        if whole is None:
            if part.index not in ledger.roots:
                return None
            target = PILOT
        else:
            seconds = ledger.part_seconds(whole, workers)
            expected = ledger.expected(part.index, whole)
            root = part.index in ledger.roots
            if expected <= (1 if root else REFINE) * seconds:
                return None
            needed = math.ceil(expected / seconds)
            target = min(REFINE_MAX, max(PILOT, needed) if root else needed)
        started = time.monotonic()
        try:
            into = self.probe.search.split(target, RESPLIT_OVERSHOOT * target, self.stop, within=part)
        except StopSplitting:
            return None
        self.split_seconds += time.monotonic() - started
        if len(into) < 2:
            ledger.unsplittable.add(part.index)
            return None
        if whole is not None:
            ledger.plans.append({"at": round(now, 3), "run_seconds": round(whole, 3),
                                 "part_seconds": round(seconds, 3), "parts": math.ceil(whole / seconds)})
        return self._adopt(part.index, into, part.blocked)

    def _abandon(self, flying: dict[int, int]) -> None:
        """A count stopped early keeps what the parts in flight had verified so far (a lower bound)."""
        if self.seen is None:
            self.outcome.count += sum(flying.values())

    def _receive(self, message: Message, flying: dict[int, int]) -> Iterator[Any]:
        """Account for one message from the pool; yield the solutions of a finished part."""
        now = time.monotonic() - self.started
        if message.kind == "start":
            self.ledger.started(message.index, now, str(message.value))
        if message.kind in ("start", "progress"):
            flying[message.index] = message.value if message.kind == "progress" else 0
            return
        if message.kind != "done":
            return
        flying.pop(message.index, None)
        result: PartResult = message.value
        if result.first is not None:
            self.ledger.found_first(result.first)
        if message.index in self.halting:
            if result.complete:  # it ended before it noticed: nothing to split
                del self.halting[message.index]
                del self.ledger.children[message.index]
            elif self.stop.reason is None:
                self.ledger.ended(message.index, now, thrown=result.found is None, took=result.took)
                items = result.items if result.found is not None else None  # kept with the count, or dropped
                into = self._resplit(message.index, result)
                for item in items or []:
                    if self._deliver(item):
                        yield item
                self.queue.extendleft(reversed(into))  # handed out next (``_feed``)
                return
        self.ledger.ended(message.index, now, took=result.took)
        outcome, found = self.outcome, result.outcome
        if found is not None:
            outcome._merge(found, counts=self.seen is None)
        for item in result.items or []:
            if self._deliver(item):
                yield item
        if result.complete:
            self.known.pop(result.index, None)  # its blocked models go with it (a long count hands back millions)
            outcome.parts_done += 1
            self.part_seconds[result.index] = found.seconds
            if self.checkpoint is not None:
                self.checkpoint.record(result.index, found.count, found.duplicates, found.seconds, **found._record())
        elif self.stop.reason is None and result.reason != SOLUTION_LIMIT:
            self.stop.request(result.reason or f"part {result.index} did not finish")

    def _deliver(self, item: Any) -> bool:
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

    def _take(self, probed: Outcome) -> None:
        """Adopt the probe's counts (its items were delivered as they came)."""
        self.outcome._merge(probed, counts=self.seen is None)


def launch(puzzle: Puzzle, instance: Instance, backend: str, request: Request, split: Split | None, *,
           variant: Variant = SOLUTIONS, limit: int | None = None, time_limit: float | None = None,
           keep: bool = False, deliver: bool = False, on_progress: Callable[[Progress], None] | None = None) -> Run:
    """The one place that chooses: one plain search in this process (``split`` None), or a split run
    (``deliver``: the caller reads the items as they come)."""
    if split is None:
        return variant.open(puzzle, instance, backend, request, limit=limit, time_limit=time_limit, keep=keep)
    return SplitRun(puzzle, instance, backend, request, split, variant=variant, limit=limit, time_limit=time_limit,
                    keep=keep, deliver=deliver, on_progress=on_progress)
