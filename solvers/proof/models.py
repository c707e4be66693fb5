"""Blocked assignments checked to be models: each one a certificate blocks extends to an assignment of all
the formula's variables that satisfies every clause.

A blocking clause fixes only the projection (the puzzle's own variables); the auxiliary variables are found
by a SAT solver under the projection as assumptions, and the model it returns is then evaluated against
every clause here, so that nothing rests on the solver's "satisfiable": a solver that is wrong can only
make a model go unfound, and the certificate refused.
"""
from __future__ import annotations

import numpy as np

from gridsat.solvers.proof.clausal import Clauses, from_lists

FINDER = "cadical195"  # any PySAT solver would do: its answer is checked here


def satisfies(formula: Clauses, model: list[int]) -> bool:
    """Whether ``model`` (DIMACS literals, variables 1..n in order) satisfies every clause of ``formula``."""
    if not len(formula):
        return True
    truth = np.zeros(2 * (max(len(model), int(formula.lits.max()) >> 1) + 1), bool)
    positive = np.array([v for v in model if v > 0], np.int64)
    negative = -np.array([v for v in model if v < 0], np.int64)
    truth[2 * positive] = True
    truth[2 * negative + 1] = True
    sizes = np.diff(formula.starts)
    if (sizes == 0).any():
        return False
    return bool(np.logical_or.reduceat(truth[formula.lits], formula.starts[:-1]).all())


def first_non_model(clauses: list[list[int]], blocking: list[list[int]]) -> int | None:
    """The 1-based index of the first blocking clause whose assignment is no model of ``clauses``, or None."""
    from pysat.solvers import Solver

    formula = from_lists(clauses)
    with Solver(name=FINDER, bootstrap_with=clauses) as solver:
        for i, clause in enumerate(blocking, 1):
            blocked = [-lit for lit in clause]
            if not solver.solve(assumptions=blocked):
                return i
            model = solver.get_model() or []
            if not satisfies(formula, model) or not set(blocked) <= set(model):
                return i
    return None
