"""Run one backend on one instance: stream, de-duplicate, verify, and say whether the answer is complete."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gridsat.models.formulation import BuildExpired, build_deadline
from gridsat.models.puzzle import Instance, Puzzle, digest
from gridsat.solvers.backend import Job, Request, check_request, get_backend
from gridsat.solvers.stop import CLOSED, INTERRUPTED, SOLUTION_LIMIT, TIME_LIMIT, Stop
from gridsat.solvers.stream import Closing

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


@dataclass
class Outcome:
    """What one run found; ``complete`` is False when a limit, Ctrl-C or the method cut it short.

    ``count`` counts the valid solutions only; a solution that breaks a rule is kept apart in
    ``invalid`` with the rules it breaks (and makes the command fail).
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
    size: dict[str, int] = field(default_factory=dict)
    parts: int | None = None  # when the run was split (solvers.parallel): how many parts, how many finished
    parts_done: int | None = None

    @property
    def label(self) -> str:
        return f"{self.backend}:{self.encoding}"

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
            "count": self.count,
            "complete": self.complete,
            "reason": self.reason,
            "duplicates": self.duplicates,
            "invalid": len(self.invalid),
            "seconds": round(self.seconds, 6),
            "build_seconds": round(self.build_seconds, 6),
            **self.size,
            **({"parts": self.parts, "parts_done": self.parts_done} if self.parts is not None else {}),
        }


class Stream(Closing[Any]):
    """Solutions as they come, with the ``outcome`` of the run that makes them and its ``stop``.
    Closing it (``close()``, leaving a ``with`` block, or dropping it) stops the run."""

    outcome: Outcome
    stop: Stop


class Enumeration(Stream):
    """The verified, de-duplicated solutions of one run, as they come; ``outcome`` tells what was seen.

    An iterator: closing it (``close()``, leaving a ``with`` block, or dropping it) stops the solver,
    and the outcome then says the run is incomplete. The formulation is built on construction, so
    bad input fails before the first solution is asked for.
    """

    def __init__(
        self,
        puzzle: Puzzle,
        instance: Instance,
        backend: str,
        request: Request | None = None,
        *,
        limit: int | None = None,
        time_limit: float | None = None,
        keep: bool = False,
    ) -> None:
        chosen = get_backend(backend)
        request = request or Request()
        check_request(chosen, request)
        self.stop = Stop(time_limit)  # started before building: the build counts against the time limit
        started = time.perf_counter()
        self.job: Job | None = None
        try:
            with build_deadline(self.stop.deadline):
                self.job = chosen.prepare(puzzle, instance, dataclasses.replace(request, limit=limit))
        except (BuildExpired, KeyboardInterrupt) as cut_short:  # nothing found yet, and the answer says so
            self.stop.request(TIME_LIMIT if isinstance(cut_short, BuildExpired) else INTERRUPTED)
        label = self.job.label if self.job else request.encoding or request.algorithm or "default"
        self.outcome = Outcome(puzzle.name, puzzle.describe(instance), backend, label,
                               size=self.job.size() if self.job else {})
        self.outcome.build_seconds = time.perf_counter() - started
        self.outcome.solutions = [] if keep else None
        self.puzzle, self.instance, self.limit = puzzle, instance, limit
        self._items = self._stream()

    def _stream(self) -> Iterator[Any]:
        outcome, stop, puzzle, instance = self.outcome, self.stop, self.puzzle, self.instance
        seen: set[Any] = set()
        started = time.perf_counter()
        job = self.job
        if job is None:  # the time limit (or Ctrl-C) came while the formulation was built
            outcome.complete, outcome.reason = False, stop.reason
            return
        solutions = job.solutions(stop)
        try:
            for solution in solutions:
                key = digest(solution)
                if key in seen:
                    outcome.duplicates += 1
                    continue
                seen.add(key)
                problems = puzzle.verify(instance, solution)
                if problems:
                    outcome.invalid.append((solution, problems))
                    continue
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
            outcome.size = job.size()  # a lazy formulation has grown while solving
            if not job.exhaustive:
                stop.request(f"{job.label} does not search for every solution")
            outcome.complete = stop.reason is None
            outcome.reason = stop.reason


def execute(
    puzzle: Puzzle,
    instance: Instance,
    backend: str,
    request: Request | None = None,
    *,
    limit: int | None = None,
    time_limit: float | None = None,
    keep: bool = False,
    on_solution: Callable[[Any], None] | None = None,
) -> Outcome:
    """Run ``backend`` to the end (or a limit, or Ctrl-C); every solution verified, duplicates dropped."""
    return consume(Enumeration(puzzle, instance, backend, request, limit=limit, time_limit=time_limit, keep=keep),
                   on_solution)


def consume(
    run: Stream,
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
