"""The Python API: solve, count, enumerate and cross-check a puzzle instance.

Every function takes the puzzle (a registered name such as ``"tatami"``, or a ``Puzzle`` object),
the instance as the same text the command line takes (``"4x7"``) or as ``load`` parsed it, and
``params`` as a dict (``{"max": 10}``; values may be numbers or booleans). Bad input raises ``InvalidInstance``,
``UnknownName`` or ``InvalidOption`` (all ``ValueError``) with the message the CLI prints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gridsat.models import get_puzzle
from gridsat.models.errors import InvalidOption, UnknownName
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import BACKENDS, Request
from gridsat.solvers.crosscheck import SCOPES, Report, configurations
from gridsat.solvers.crosscheck import crosscheck as run_crosscheck
from gridsat.solvers.orbits import Orbits, count_orbits, crosscheck_orbits
from gridsat.solvers.run import Enumeration, Outcome, execute

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
    """One solution: ``.solution`` (canonical form, or None), ``.complete``, ``.reason``, ``.seconds``."""
    chosen, parsed = load(puzzle, instance, params)
    check_limits(None, time_limit)
    return execute(chosen, parsed, backend, Request(encoding, solver, algorithm), limit=1, time_limit=time_limit,
                   keep=True)


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
) -> Outcome:
    """Count the solutions: ``.count`` (valid ones), ``.complete``, ``.reason``, ``.duplicates``, ``.invalid``,
    ``.seconds``, ``.build_seconds`` and ``.size`` (the formulation's variables and clauses or constraints).

    ``up_to="symmetry"`` (or ``"reversal"``, knight's tours) counts orbits instead, by ``method``
    ``"canonical"`` (the default: canonical representatives) or ``"burnside"``; the outcome is an
    ``OrbitOutcome`` (see ``gridsat.solvers.orbits``).
    """
    chosen, parsed = load(puzzle, instance, params)
    check_limits(limit, time_limit)
    request = Request(encoding, solver, algorithm)
    if up_to is not None:
        return count_orbits(chosen, parsed, backend, request, up_to=up_to, method=method or "canonical",
                            limit=limit, time_limit=time_limit)
    if method is not None:
        raise InvalidOption(f"method {method!r} counts orbits: it needs up_to (--up-to symmetry or reversal)")
    return execute(chosen, parsed, backend, request, limit=limit, time_limit=time_limit)


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
) -> Enumeration | Orbits:
    """An iterator of canonical solutions, each verified; ``.outcome`` says whether it saw them all.

    Closing it early (``close()``, a ``with`` block, or dropping it) stops the solver. With ``up_to``
    it yields one ``Orbit`` per orbit instead (``.solution``, the canonical representative, and ``.size``).
    """
    chosen, parsed = load(puzzle, instance, params)
    check_limits(limit, time_limit)
    request = Request(encoding, solver, algorithm)
    if up_to is not None:
        return Orbits(chosen, parsed, backend, request, up_to=up_to, limit=limit, time_limit=time_limit)
    return Enumeration(chosen, parsed, backend, request, limit=limit, time_limit=time_limit)


def crosscheck(
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backends: Iterable[str] | None = None,
    encodings: str = "default",
    time_limit: float | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
    up_to: str | None = None,
) -> Report:
    """Run every backend (or those named) and compare the solution sets: ``.agree``, ``.problems``, ``.outcomes``.

    ``encodings`` is ``"default"`` (each backend's default), ``"each"`` (every choice once) or ``"all"``
    (every combination); ``on_outcome`` sees each run as it finishes. With ``up_to`` every run counts
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
    configs = configurations(chosen, names, encodings)
    if up_to is not None:
        return crosscheck_orbits(chosen, parsed, configs, up_to=up_to, time_limit=time_limit, on_outcome=on_outcome)
    return run_crosscheck(chosen, parsed, configs, time_limit=time_limit, on_outcome=on_outcome)


def check_limits(limit: int | None, time_limit: float | None) -> None:
    """A solution limit is a whole number of at least 1; a time limit a positive number of seconds."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidOption(f"limit {limit!r} must be a whole number of at least 1")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise InvalidOption(f"time limit {time_limit!r} must be a positive number of seconds")
