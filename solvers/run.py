"""Run one backend on one instance: stream, de-duplicate, verify, and say whether the answer is complete."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gridsat.models.formulation import BuildExpired, build_deadline
from gridsat.models.puzzle import Instance, Puzzle, freeze
from gridsat.solvers.backend import Request, check_request, get_backend
from gridsat.solvers.stop import Stop


@dataclass
class Outcome:
    """What one run found; ``complete`` is False when a limit, Ctrl-C or the method cut it short."""

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

    @property
    def label(self) -> str:
        return f"{self.backend}:{self.encoding}"

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
        }


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
    """Stream solutions from ``backend``; every one is verified and duplicates are dropped and counted."""
    chosen = get_backend(backend)
    request = request or Request()
    check_request(chosen, request)
    stop = Stop(time_limit)  # started before building: the build counts against the time limit
    started = time.perf_counter()
    try:
        with build_deadline(stop.deadline):
            job = chosen.prepare(puzzle, instance, Request(request.encoding, request.solver, request.algorithm, limit))
    except (BuildExpired, KeyboardInterrupt) as cut_short:  # nothing found yet, and the answer says so
        stop.request("time limit" if isinstance(cut_short, BuildExpired) else "interrupted")
        chosen_name = request.encoding or request.algorithm or "default"
        return Outcome(puzzle.name, puzzle.describe(instance), backend, chosen_name, complete=False,
                       reason=stop.reason, solutions=[] if keep else None,
                       build_seconds=time.perf_counter() - started)
    outcome = Outcome(puzzle.name, puzzle.describe(instance), backend, job.label, size=job.size())
    outcome.build_seconds = time.perf_counter() - started
    outcome.solutions = [] if keep else None
    seen: set[Any] = set()
    started = time.perf_counter()
    stream = job.solutions(stop)
    try:
        for solution in stream:
            key = freeze(solution)
            if key in seen:
                outcome.duplicates += 1
                continue
            seen.add(key)
            problems = puzzle.verify(instance, solution)
            if problems:
                outcome.invalid.append((solution, problems))
            outcome.count += 1
            if keep:
                outcome.solutions.append(solution)
            if on_solution:
                on_solution(solution)
            if limit is not None and outcome.count >= limit:
                stop.request("solution limit")
                break
    except KeyboardInterrupt:
        stop.request("interrupted")
    finally:
        stream.close()
        outcome.seconds = time.perf_counter() - started
        outcome.size = job.size()  # a lazy formulation has grown while solving
    if not job.exhaustive:
        stop.request(f"{job.label} does not search for every solution")
    outcome.complete = stop.reason is None
    outcome.reason = stop.reason
    return outcome
