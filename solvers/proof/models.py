"""Blocked assignments checked to be models: each one a certificate blocks extends to an assignment of all
the formula's variables that satisfies every clause.

A blocking clause fixes only the projection (the puzzle's own variables); the auxiliary variables are found
by a SAT solver under the projection as assumptions, and the model it returns is then evaluated against
every clause here, so that nothing rests on the solver's "satisfiable": a solver that is wrong can only
make a model go unfound, and the certificate refused.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gridsat.solvers.proof.clausal import Clauses, from_lists

FINDER = "cadical195"  # any PySAT solver would do: its answer is checked here


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
