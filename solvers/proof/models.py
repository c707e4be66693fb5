"""Blocked assignments checked to be models: each one a certificate blocks extends to an assignment of all
the formula's variables that satisfies every clause.

A blocking clause fixes only the projection (the puzzle's own variables); the auxiliary variables are found
by unit propagation (``solvers.proof.propagation``, all assignments in one numba call) or, where it leaves
some unset, by a SAT solver under the projection as assumptions, and the model is then evaluated against
every clause here, so that nothing rests on the solver's "satisfiable": a solver that is wrong can only
make a model go unfound, and the certificate refused.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from gridsat.solvers.proof.clausal import Clauses, flattened, from_lists
from gridsat.solvers.proof.propagation import CONFLICT, MODEL, OPEN_PROJECTION, PARTIAL, Propagation

FINDER = "cadical195"  # any PySAT solver would do: its answer is checked here


def unnamed_false(clause: list[int], projection: list[int]) -> list[int]:
    """The projection variables a blocking clause does not name, each as its negative literal."""
    named = {abs(lit) for lit in clause}
    return [-v for v in projection if v not in named]


def short_clause(true: np.ndarray, false: np.ndarray, finder: Propagation) -> list[int]:
    """The clause that blocks a projection by its ``true`` variables, and by those of its ``false`` ones
    that unit propagation on ``finder``'s formula does not set false from the true ones: it rules out that
    projection only, and ``first_not_one`` checks why."""
    return [*(-true).tolist(), *finder.left_open(true, false).tolist()]


def satisfies(formula: Clauses, model: list[int]) -> bool:
    """Whether ``model`` (DIMACS literals, variables 1..n in order) satisfies every clause of ``formula``."""
    return satisfied(formula, [model]) is None


def satisfied(formula: Clauses, models: list[list[int]]) -> int | None:
    """The 0-based index of the first of ``models`` (each DIMACS literals) that fails a clause of
    ``formula``, or None when each satisfies every clause (one numba loop over them all)."""
    if not len(formula) or not models:
        return None
    literals = np.concatenate([np.asarray(m, np.int64) for m in models])
    coded = 2 * np.abs(literals) + (literals < 0)  # the checker's code: 2v true, 2v + 1 false
    starts = np.zeros(len(models) + 1, np.int64)
    np.cumsum([len(m) for m in models], out=starts[1:])
    top = max(int(formula.lits.max()), int(coded.max()) if len(coded) else 0) + 2
    failing = _first_failing(formula.lits, formula.starts, coded, starts, top)
    return None if failing < 0 else int(failing)


@njit(cache=True)
def _first_failing(lits, starts, model_lits, model_starts, top):
    truth = np.zeros(top, np.bool_)
    for m in range(len(model_starts) - 1):
        for j in range(model_starts[m], model_starts[m + 1]):
            truth[model_lits[j]] = True
        for c in range(len(starts) - 1):
            held = False
            for j in range(starts[c], starts[c + 1]):
                if truth[lits[j]]:
                    held = True
                    break
            if not held:
                return m
        for j in range(model_starts[m], model_starts[m + 1]):
            truth[model_lits[j]] = False
    return -1


def first_not_one(clauses: list[list[int]], blocking: list[list[int]], projection: list[int]) -> int | None:
    """The 1-based index of the first blocking clause that names only some ``projection`` variables
    (``short_clause``) and from whose assignment unit propagation on ``clauses`` does not set every other
    projection variable false, or None: each then rules out exactly one projection of their models
    (``solvers.proof.propagation``: the checker's own propagation, the formula's top-level units included)."""
    found = first_unjustified(clauses, blocking, projection, models=False)
    return found[1] if found else None


def first_non_model(clauses: list[list[int]], blocking: list[list[int]]) -> int | None:
    """The 1-based index of the first blocking clause whose assignment is no model of ``clauses``, or None.
    Unit propagation (``solvers.proof.propagation``) finds the other variables, and evaluates every clause
    when it sets them all; where it does not, a solver searches for the rest under the assignment, and its
    model is evaluated here (``satisfied``): nothing rests on the solver's "satisfiable"."""
    found = first_unjustified(clauses, blocking, None)
    return found[1] if found else None


NOT_ONE, NO_MODEL = "not one", "no model"


def first_unjustified(clauses: list[list[int]], blocking: list[list[int]], projection: list[int] | None,
                      models: bool | Sequence[bool] = True, extra: list[list[int]] | None = None
                      ) -> tuple[str, int] | None:
    """The first blocking clause that is not justified, as (``NOT_ONE`` or ``NO_MODEL``, its 1-based index),
    or None: with ``projection``, first a short one that ``first_not_one`` refuses, by propagation on
    ``clauses``; then (``models``: for all, or one flag per blocking clause) the first whose assignment is no
    model (``first_non_model``) of
    ``clauses`` and ``extra`` (a cube's, cut clauses: evaluated on the model propagation on ``clauses``
    found, and searched for with all of them where that model fails one). One propagation pass serves both."""
    from pysat.solvers import Solver

    flat, starts = flattened(blocking)
    sizes = np.diff(starts)
    fixes = sizes < len(projection) if projection is not None else np.zeros(len(blocking), np.bool_)
    extra = extra or []
    top = max(max(projection or [0]), int(np.abs(flat).max()) if len(flat) else 0,
              max((abs(lit) for clause in extra for lit in clause), default=0))
    formula = from_lists(clauses)
    found = Propagation(formula, top).settle(blocking, projection, fixes, models, negated=True,
                                             extra=from_lists(extra))
    not_one = np.flatnonzero(fixes & ((found == CONFLICT) | (found == OPEN_PROJECTION)))
    if len(not_one):
        return NOT_ONE, int(not_one[0]) + 1
    asked = np.broadcast_to(np.asarray(models, np.bool_), (len(blocking),))
    if not asked.any():
        return None
    if not (found == PARTIAL).any():
        failing = np.flatnonzero(asked & (found != MODEL))
        return (NO_MODEL, int(failing[0]) + 1) if len(failing) else None
    whole = from_lists([*clauses, *extra]) if extra else formula
    with Solver(name=FINDER, bootstrap_with=[*clauses, *extra]) as solver:
        for i, (clause, status) in enumerate(zip(blocking, found, strict=True), 1):
            if status == PARTIAL:
                assumed = [-lit for lit in clause]
                model = solver.get_model() if solver.solve(assumptions=assumed) else None
                status = MODEL if model and set(assumed) <= set(model) and satisfies(whole, model) else CONFLICT
            if asked[i - 1] and status != MODEL:
                return NO_MODEL, i
    return None
