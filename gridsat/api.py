"""The Python API: solve, count, enumerate and cross-check a puzzle instance.

Every function takes the puzzle (a registered name such as ``"tatami"``, or a ``Puzzle`` object),
the instance as the same text the command line takes (``"4x7"``) or as ``load`` parsed it, and
``params`` as a dict (``{"max": 10}``; values may be numbers or booleans). Bad input raises ``InvalidInstance``,
``UnknownName`` or ``InvalidOption`` (all ``ValueError``) with the message the CLI prints.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from gridsat.models import get_puzzle
from gridsat.models.errors import InvalidOption, UnknownName
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import BACKENDS, Request, backend_class
from gridsat.solvers.crosscheck import SCOPES, Config, Report, configurations
from gridsat.solvers.crosscheck import crosscheck as run_crosscheck
from gridsat.solvers.orbits import METHODS, Variant, count_orbits, crosscheck_orbits
from gridsat.solvers.parallel import Split, launch
from gridsat.solvers.run import Outcome, Progress, Run, consume, execute

Params = Mapping[str, Any]


def load(puzzle: str | Puzzle, instance: str | Instance, params: Params | None = None) -> tuple[Puzzle, Instance]:
    """The puzzle object and its parsed instance (an instance parsed already is passed through)."""
    chosen = get_puzzle(puzzle) if isinstance(puzzle, str) else puzzle
    if not isinstance(instance, str):
        if params:
            raise InvalidOption("params go with instance text; this instance is parsed already")
        return chosen, instance
    return chosen, chosen.parse(instance, texts(params))


def texts(params: Params | None) -> dict[str, str]:
    """Parameters as the text ``-p KEY=VALUE`` gives (``True`` becomes ``"true"``)."""
    out = {}
    for key, value in (params or {}).items():
        out[str(key)] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def solve(
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backend: str = "cpsat",
    encoding: str | None = None,
    solver: str | None = None,
    algorithm: str | None = None,
    time_limit: float | None = None,
) -> Outcome:
    """One solution: ``.solution`` (canonical form, or None), ``.complete``, ``.reason``, ``.seconds``.

    The answer is complete when a solution was found or the search proved there is none.
    """
    chosen, parsed = load(puzzle, instance, params)
    check_limits(None, time_limit)
    outcome = execute(chosen, parsed, backend, Request(encoding, solver, algorithm), limit=1, time_limit=time_limit,
                      keep=True)
    if outcome.solution is not None:  # what stopped the search after it (the limit of one, a method) is no gap
        outcome.complete, outcome.reason = True, None
    return outcome


def count(
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backend: str = "cpsat",
    encoding: str | None = None,
    solver: str | None = None,
    algorithm: str | None = None,
    time_limit: float | None = None,
    limit: int | None = None,
    up_to: str | None = None,
    method: str | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    checkpoint: str | Path | None = None,
    parts: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> Outcome:
    """Count the solutions: ``.count`` (valid ones), ``.complete``, ``.reason``, ``.duplicates``, ``.invalid``,
    ``.seconds``, ``.build_seconds`` and ``.size`` (the formulation's variables and clauses or constraints).

    ``up_to="symmetry"`` (or ``"reversal"``, knight's tours) counts orbits instead, by ``method``
    ``"canonical"`` (the default: canonical representatives) or ``"burnside"``; the outcome is an
    ``OrbitOutcome`` (see ``gridsat.solvers.orbits``).

    ``jobs`` worker processes (0: one per core) or a Dask ``scheduler`` address split the count into
    disjoint parts (``.parts``, ``.parts_done``); ``checkpoint`` records each finished part in that
    file, and the same call resumes from it; ``parts`` names how many parts to aim for.
    """
    chosen, parsed = load(puzzle, instance, params)
    check_limits(limit, time_limit)
    request = Request(encoding, solver, algorithm)
    split = splitting(jobs, scheduler, checkpoint, parts)
    if method is not None and method not in METHODS:
        raise UnknownName("orbit counting method", method, METHODS)
    if up_to is not None and method == "burnside":
        if checkpoint is not None:
            raise InvalidOption("--checkpoint records one count: Burnside's lemma makes one per group element")
        return count_orbits(chosen, parsed, backend, request, up_to=up_to, method="burnside", limit=limit,
                            time_limit=time_limit, split=split)
    if up_to is None and method is not None:
        raise InvalidOption(f"method {method!r} counts orbits: it needs up_to (--up-to symmetry or reversal)")
    run = launch(chosen, parsed, backend, request, split, variant=Variant(up_to), limit=limit, time_limit=time_limit,
                 on_progress=on_progress)
    return consume(run, on_progress=on_progress if split is None else None)


def enumerate(  # noqa: A001 - the verb users expect, next to solve and count
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backend: str = "cpsat",
    encoding: str | None = None,
    solver: str | None = None,
    algorithm: str | None = None,
    time_limit: float | None = None,
    limit: int | None = None,
    up_to: str | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    parts: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> Run:
    """An iterator of canonical solutions, each verified; ``.outcome`` says whether it saw them all.

    Closing it early (``close()``, a ``with`` block, or dropping it) stops the solver. With ``up_to``
    it yields one ``Orbit`` per orbit instead (``.solution``, the canonical representative, and
    ``.size``). With ``jobs`` or a ``scheduler`` the items come part by part, in the order the parts
    finish.
    """
    chosen, parsed = load(puzzle, instance, params)
    check_limits(limit, time_limit)
    split = splitting(jobs, scheduler, None, parts)
    return launch(chosen, parsed, backend, Request(encoding, solver, algorithm), split, variant=Variant(up_to),
                  limit=limit, time_limit=time_limit, deliver=True, on_progress=on_progress)


def crosscheck(
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backends: Iterable[str] | None = None,
    encodings: str = "default",
    solver: str | None = None,
    time_limit: float | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
    up_to: str | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    parts: int | None = None,
) -> Report:
    """Run every backend (or those named) and compare the solution sets: ``.agree``, ``.problems``, ``.outcomes``.

    ``encodings`` is ``"default"`` (each backend's default), ``"each"`` (every choice once) or ``"all"``
    (every combination); ``solver`` is the PySAT solver of the sat runs; ``on_outcome`` sees each run
    as it finishes; ``jobs``/``scheduler``/``parts`` split each run. With ``up_to`` every run counts
    orbits by canonical representatives and, where it has a formulation, by Burnside's lemma, and
    the counts and representatives are compared.
    """
    chosen, parsed = load(puzzle, instance, params)
    names = list(backends) if backends is not None else None
    for name in names or []:
        if name not in BACKENDS:
            raise UnknownName("backend", name, list(BACKENDS), " in --backends")
    if encodings not in SCOPES:
        raise UnknownName("encodings scope", encodings, SCOPES)
    check_limits(None, time_limit)
    split = splitting(jobs, scheduler, None, parts)
    configs = configurations(chosen, names, encodings, solver)
    if solver is not None:
        check_counting_solver(chosen, configs, solver)
    if up_to is not None:
        return crosscheck_orbits(chosen, parsed, configs, up_to=up_to, time_limit=time_limit, on_outcome=on_outcome,
                                 split=split)

    def run(config: Config) -> Outcome:
        return consume(launch(chosen, parsed, config.backend, config.request, split, time_limit=time_limit,
                              keep=True))

    return run_crosscheck(chosen, parsed, configs, time_limit=time_limit, on_outcome=on_outcome, run=run)


def splitting(jobs: int, scheduler: str | None, checkpoint: str | Path | None, parts: int | None) -> Split | None:
    """How to split a run, or None for one plain search in this process (the default)."""
    if not is_whole_number(jobs, 0):
        raise InvalidOption(f"jobs {jobs!r} must be a whole number: 0 for one per core, or at least 1")
    if parts is not None and not is_whole_number(parts, 1):
        raise InvalidOption(f"parts {parts!r} must be a whole number of at least 1")
    workers = cores() if jobs == 0 else jobs
    if workers == 1 and scheduler is None and checkpoint is None and parts is None:
        return None
    return Split(workers, scheduler, None if checkpoint is None else Path(checkpoint), parts)


def is_whole_number(value: object, floor: int) -> bool:
    """A whole number of at least ``floor`` (True and False are not numbers of anything here)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= floor


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_counting_solver(puzzle: Puzzle, configs: list[Config], solver: str) -> None:
    """A cross-check's ``solver`` must be known to the runs that take it, and able to count."""
    from gridsat.solvers.sat import ONE_SHOT

    takers = sorted({c.backend for c in configs if c.request.solver is not None})
    if not takers:
        raise InvalidOption(f"--solver {solver!r} applies to the sat backend, which this cross-check does not run")
    for name in takers:
        valid = backend_class(name)().choices(puzzle)["solver"]
        if solver not in valid:
            raise UnknownName("solver", solver, valid)
    if solver in ONE_SHOT:
        raise InvalidOption(f"solver {solver!r} cannot solve incrementally, so it cannot count: use it with 'solve'")


def check_limits(limit: int | None, time_limit: float | None) -> None:
    """A solution limit is a whole number of at least 1; a time limit a positive number of seconds."""
    if limit is not None and not is_whole_number(limit, 1):
        raise InvalidOption(f"limit {limit!r} must be a whole number of at least 1")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise InvalidOption(f"time limit {time_limit!r} must be a positive number of seconds")
