"""Run one backend on one instance: stream, de-duplicate, verify, and say whether the answer is complete."""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gridsat.models.formulation import BuildExpired, build_deadline
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import digest, freeze
from gridsat.solvers import reprs
from gridsat.solvers.backend import Search, Tally
from gridsat.solvers.gate import Bound
from gridsat.solvers.proof.claim import merge
from gridsat.solvers.stop import CLOSED, INTERRUPTED, SOLUTION_LIMIT, TIME_LIMIT, Stop
from gridsat.solvers.threaded import Closing

REPORT = 0.25  # seconds between progress reports


@dataclass(frozen=True)
class Progress:
    """A snapshot for a progress display: valid solutions so far, parts finished of all, seconds."""

    solutions: int
    parts_done: int
    parts: int | None  # None when the run is not split (or not yet)
    elapsed: float
    resumed: int = 0  # of the solutions, those a checkpoint recorded in an earlier run
    parts_resumed: int = 0  # of the parts done, those a checkpoint recorded
    note: str | None = None  # a counting backend's own words (e.g. its layer and states), in place of solutions
    split_again: int = 0  # parts split again while they ran (each replaced by its sub-parts)
    splitting: bool = False  # a split run before its parts are known (a plain run never splits)


@dataclass
class Outcome:
    """What one run found; ``complete`` is False when a limit, Ctrl-C or the method cut it short.

    ``count`` counts the valid solutions only; a solution that breaks a rule is kept apart in
    ``invalid`` with the rules it breaks (and makes the command fail). Read also ``solution`` (or
    ``solutions``, when the run kept them), ``seconds``, ``build_seconds``, ``size`` (the formulation's
    variables and clauses or constraints) and ``summary()``, the JSON record.
    """

    puzzle: str
    instance: str
    backend: str
    encoding: str
    count: int = 0
    complete: bool = True
    reason: str | None = None
    duplicates: int = 0
    invalid: list[tuple[Any, list[str]]] = field(default_factory=list)
    solutions: list[Any] | None = None
    seconds: float = 0.0  # solving, after the formulation was built
    build_seconds: float = 0.0  # a time limit counts these too
    # CPU seconds of this process (all its threads) over the same part as ``seconds``; None where not measured
    # (a counter's tally, whose count runs in a child process)
    solve_cpu_seconds: float | None = None
    size: dict[str, int] = field(default_factory=dict)
    parts: int | None = None  # when the run was split (solvers.splitting.parallel): how many parts, how many finished
    parts_done: int | None = None

    # The solver's own counters (conflicts, decisions, propagations, restarts), None where it gives no such number
    statistics: dict[str, int | None] = field(default_factory=dict)
    known: bool = True  # False when a counting backend stopped before it knew any count (``count`` means nothing)
    details: dict[str, Any] = field(default_factory=dict)  # what a counting backend reports (peak states, versions)
    # the puzzle and parsed instance, for a notebook's picture of the solutions (see solvers.reprs)
    board: reprs.Scene | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:  # the dataclass's own would print every solution kept
        return reprs.brief(type(self).__name__, reprs.glance(self))

    def _repr_html_(self) -> str:
        return reprs.outcome_html(self)

    @property
    def label(self) -> str:
        """``backend:encoding``, the run's name in reports."""
        return f"{self.backend}:{self.encoding}"

    # How a run split into parts (solvers.splitting.parallel) adds up: the split runner calls these and never
    # asks what kind of outcome it holds, so an orbit count (solvers.orbits) merges its own tallies.
    # Underscored: a user reading help() sees the fields, not this machinery.

    def _emptied(self, keep: bool) -> Outcome:
        """A copy with nothing counted yet (``keep``: with an empty list of solutions)."""
        return dataclasses.replace(self, count=0, duplicates=0, invalid=[], solutions=[] if keep else None)

    def _merge(self, part: Outcome, *, counts: bool = True) -> None:
        """Add what a part (or the probe) found; ``counts``: also its count, when its items are not delivered."""
        self.duplicates += part.duplicates
        self.invalid += part.invalid
        if counts:
            self.count += part.count
        merge(self.details, part.details)  # --certify: the parts' certificates

    def _record(self) -> dict[str, Any]:
        """What a checkpoint keeps of this outcome as one finished part, besides count and duplicates."""
        return {}

    def _merge_record(self, record: dict[str, Any]) -> None:
        """Add a part a checkpoint recorded (``count``, ``duplicates`` and what ``record`` wrote)."""
        self.count += int(record["count"])
        self.duplicates += int(record.get("duplicates", 0))

    @staticmethod
    def _solution_of(item: Any) -> Any:
        """The solution an item of the run's stream stands for (here the item itself)."""
        return item

    def _deliver(self, item: Any) -> None:
        """Keep an item delivered to the caller (the caller counted it)."""
        if self.solutions is not None:
            self.solutions.append(self._solution_of(item))

    def _check_parts(self) -> None:
        """After a complete split run: check what each whole run checks of itself (nothing here)."""

    @property
    def solution(self) -> Any:
        """The first solution kept (``solve`` keeps the one it found), or None."""
        return self.solutions[0] if self.solutions else None

    def summary(self) -> dict[str, Any]:
        """The JSON-ready record of this run (without the solutions)."""
        return {
            "puzzle": self.puzzle,
            "instance": self.instance,
            "backend": self.backend,
            "encoding": self.encoding,
            "count": self.count if self.known else None,
            "complete": self.complete,
            "reason": self.reason,
            "duplicates": self.duplicates,
            "invalid": len(self.invalid),
            "seconds": round(self.seconds, 6),
            "build_seconds": round(self.build_seconds, 6),
            **self.size,
            **({"parts": self.parts, "parts_done": self.parts_done} if self.parts is not None else {}),
            **({"statistics": self.statistics} if self.statistics else {}),
            **self.details,
        }


class Run(Closing[Any]):
    """A run: its items as they come, the ``outcome`` it builds and its ``stop``.
    Closing it (``close()``, leaving a ``with`` block, or dropping it) stops the run."""

    outcome: Outcome
    stop: Stop
    _drawn: list[Any] | None = None  # the first items, for a notebook's picture (the outcome keeps none)

    def __next__(self) -> Any:
        item = super().__next__()
        if self._drawn is None:
            self._drawn = []
        if len(self._drawn) < reprs.DRAWN:
            self._drawn.append(item)
        return item

    def __repr__(self) -> str:
        return reprs.brief(type(self).__name__, reprs.glance(self.outcome, self.ended))

    def _repr_html_(self) -> str:
        drawn = [self.outcome._solution_of(item) for item in self._drawn or []]
        return reprs.outcome_html(self.outcome, self.ended, drawn)

    @property
    def ended(self) -> bool:
        """Whether the run has ended (read to its end, or closed): until then ``complete`` means nothing."""
        return inspect.getgeneratorstate(self._items) == inspect.GEN_CLOSED


@dataclass(frozen=True)
class Plain:
    """What a plain run counts: the solutions. Plain data (like the orbit variants of
    solvers.orbits), so that a worker process opens the same kind of run for one part."""

    def open(self, puzzle: Puzzle, instance: Instance, bound: Bound, *, in_part: bool = False) -> Run:
        """The run (``in_part``: for one part of a split run)."""
        return Enumeration(puzzle, instance, bound)

    def __str__(self) -> str:
        return "solutions"


SOLUTIONS = Plain()


class Enumeration(Run):
    """The verified, de-duplicated solutions of one run, as they come; ``outcome`` tells what was seen.

    An iterator: closing it (``close()``, leaving a ``with`` block, or dropping it) stops the solver,
    and the outcome then says the run is incomplete. The formulation is built on construction, so
    bad input fails before the first solution is asked for.
    """

    def __init__(self, puzzle: Puzzle, instance: Instance, bound: Bound) -> None:
        request, limit, time_limit, keep = bound.request, bound.job.limit, bound.job.time_limit, bound.job.keep
        self.stop = Stop(time_limit)  # started before building: the build counts against the time limit
        started = time.perf_counter()
        self.search: Search | None = None
        try:
            with build_deadline(self.stop.deadline):
                self.search = bound.backend.prepare(puzzle, instance, dataclasses.replace(request, limit=limit))
        except (BuildExpired, KeyboardInterrupt) as cut_short:  # nothing found yet, and the answer says so
            self.stop.request(TIME_LIMIT if isinstance(cut_short, BuildExpired) else INTERRUPTED)
        except ImportError as failed:
            # A Ctrl-C while a compiled module initialises (OR-Tools' pybind11 ones, loaded here) comes
            # out as "ImportError: initialization failed", the KeyboardInterrupt as its cause.
            if not isinstance(failed.__cause__, KeyboardInterrupt):
                raise
            self.stop.request(INTERRUPTED)
        label = self.search.label if self.search else request.encoding or request.algorithm or "default"
        self.outcome = Outcome(puzzle.name, puzzle.describe(instance), bound.name, label,
                               size=self.search.size() if self.search else {}, board=reprs.Scene(puzzle, instance))
        self.outcome.build_seconds = time.perf_counter() - started
        self.outcome.solutions = [] if keep else None
        self.puzzle, self.instance, self.limit = puzzle, instance, limit
        self._items = self._stream()

    def _stream(self) -> Iterator[Any]:
        outcome, stop, puzzle, instance = self.outcome, self.stop, self.puzzle, self.instance
        seen: set[Any] = set()
        started, cpu = time.perf_counter(), time.process_time()
        search = self.search
        if search is None:  # the time limit (or Ctrl-C) came while the formulation was built
            outcome.complete, outcome.reason = False, stop.reason
            return
        solutions = search.solutions(stop)
        # a certified search is told each solution the verifier accepted: its judge then asks the verifier
        # no second time (it still decodes each blocking clause and compares)
        accept = getattr(search, "accept", None)
        try:
            for solution in solutions:
                frozen = freeze(solution)  # once: for the digest, and for a certificate's judge
                key = digest(solution, frozen)
                if key in seen:
                    outcome.duplicates += 1
                    continue
                seen.add(key)
                problems = puzzle.verify(instance, solution)
                if problems:
                    outcome.invalid.append((solution, problems))
                    continue
                if accept is not None:
                    accept(solution, frozen)
                outcome.count += 1
                if outcome.solutions is not None:
                    outcome.solutions.append(solution)
                yield solution
                if self.limit is not None and outcome.count >= self.limit:
                    stop.request(SOLUTION_LIMIT)
                    break
        except KeyboardInterrupt:
            stop.request(INTERRUPTED)
            raise
        except GeneratorExit:
            stop.request(CLOSED)
            raise
        finally:
            solutions.close()
            outcome.seconds = time.perf_counter() - started
            outcome.solve_cpu_seconds = time.process_time() - cpu
            outcome.size = search.size()  # a lazy formulation has grown while solving
            outcome.statistics = search.statistics() if hasattr(search, "statistics") else {}
            if not search.exhaustive:
                stop.request(f"{search.label} does not search for every solution")
            outcome.complete = stop.reason is None
            outcome.reason = stop.reason
            certification = getattr(search, "certification", None)  # a certified search's (--certify)
            if certification is not None:
                # An answer cut short says nothing certified: a time limit or Ctrl-C that came while a finished
                # search was certified leaves "at least N", of which a certificate of exactly N would say more.
                outcome.details.update(certification() if outcome.complete else {"certified": None})


def execute(puzzle: Puzzle, instance: Instance, bound: Bound,
            on_solution: Callable[[Any], None] | None = None) -> Outcome:
    """Run the bound backend to the end (or a limit, or Ctrl-C); every solution verified, duplicates dropped."""
    return consume(Enumeration(puzzle, instance, bound), on_solution)


def consume(
    run: Run,
    on_solution: Callable[[Any], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> Outcome:
    """Read a stream to its end (or a limit, or Ctrl-C) and return its outcome; ``on_progress`` sees
    the count every ``REPORT`` seconds while solutions come (a split run reports on its own)."""
    started = last = time.monotonic()
    try:
        for solution in run:
            if on_solution:
                on_solution(solution)
            if on_progress is not None and time.monotonic() - last >= REPORT:
                last = time.monotonic()
                on_progress(Progress(run.outcome.count, 0, None, last - started))
    except KeyboardInterrupt:
        run.stop.request(INTERRUPTED)  # also when it arrived in ``on_solution``, outside the stream
    finally:
        run.close()
    return run.outcome


def tally(puzzle: Puzzle, instance: Instance, bound: Bound, progress: Callable[[str], None] | None = None) -> Outcome:
    """Count with a backend that never lists solutions (a frontier DP, a model counter): an exact
    count, or, stopped by the time limit or Ctrl-C first, none (``known`` False, never 0). The
    ``Tally`` it answers becomes the ``Outcome`` every run gives, so reports, exit statuses and the
    cross-check treat it like any count (the job's ``up_to``: the backend counts orbits itself)."""
    backend, request, up_to = bound.backend, bound.request, bound.job.up_to
    stop = Stop(bound.job.time_limit)
    try:
        found = backend.tally(puzzle, instance, request, stop, up_to=up_to, progress=progress)
    except KeyboardInterrupt:
        stop.request(INTERRUPTED)
        found = Tally(None, request.encoding or "default")
    outcome = Outcome(puzzle.name, puzzle.describe(instance), backend.name, found.label,
                      count=found.count or 0, known=found.count is not None, size=found.size,
                      details=found.details, seconds=found.seconds, build_seconds=found.build_seconds)
    outcome.complete = outcome.known
    outcome.reason = None if outcome.known else stop.reason or "no count known"
    return outcome
