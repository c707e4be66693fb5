"""Blocked assignments checked to be models: each one a certificate blocks extends to an assignment of all
the formula's variables that satisfies every clause.

A blocking clause fixes only the projection (the puzzle's own variables); the auxiliary variables are found
by a SAT solver under the projection as assumptions, and the model it returns is then evaluated against
every clause here, so that nothing rests on the solver's "satisfiable": a solver that is wrong can only
make a model go unfound, and the certificate refused.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from gridsat.solvers.proof.clausal import Clauses, from_lists

FINDER = "cadical195"  # any PySAT solver would do: its answer is checked here


def unnamed_false(clause: list[int], projection: list[int]) -> list[int]:
    """The projection variables a blocking clause does not name, each as its negative literal."""
    named = {abs(lit) for lit in clause}
    return [-v for v in projection if v not in named]


def short_clause(model: list[int], projection: list[int], finder: Any) -> list[int]:
    """The clause that blocks ``model``'s projection by its true variables, and by those of its false ones
    that unit propagation on ``finder``'s clauses (a PySAT solver holding the formula) does not set false
    from the true ones: it rules out that projection only, and ``first_non_model`` checks why."""
    true = [v for v in projection if model[v - 1] > 0]
    held, implied = finder.propagate(assumptions=true)
    fixed = set(implied) if held else set()
    return [-v for v in true] + [v for v in projection if model[v - 1] < 0 and -v not in fixed]


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
    projection variable false, or None: each then rules out exactly one projection of their models. The
    solver is never asked to solve (a solver's propagation leaves out what it fixed at its top level,
    which a search, or a unit clause given, can only add to: a short clause is then refused, never
    accepted wrongly), as in ``short_clause``."""
    from pysat.solvers import Solver

    with Solver(name=FINDER, bootstrap_with=clauses) as solver:
        for i, clause in enumerate(blocking, 1):
            if len(clause) < len(projection):
                held, implied = solver.propagate(assumptions=[-lit for lit in clause])
                if not held or not set(unnamed_false(clause, projection)) <= set(implied):
                    return i
    return None


def first_non_model(clauses: list[list[int]], blocking: list[list[int]]) -> int | None:
    """The 1-based index of the first blocking clause whose assignment is no model of ``clauses``, or None.
    The solver only finds the other variables (by unit propagation when that sets them all, else by a
    search); its models are then evaluated together (``satisfied``)."""
    from pysat.solvers import Solver

    variables = len({abs(lit) for clause in clauses for lit in clause})
    models: list[list[int]] = []
    with Solver(name=FINDER, bootstrap_with=clauses) as solver:
        for i, clause in enumerate(blocking, 1):
            blocked = [-lit for lit in clause]
            held, model = solver.propagate(assumptions=blocked)
            if held and len(model) < variables:
                held, model = solver.solve(assumptions=blocked), solver.get_model() or []
            if not held or not set(blocked) <= set(model):
                return i
            models.append(model)
    failing = satisfied(from_lists(clauses), models)
    return None if failing is None else failing + 1
