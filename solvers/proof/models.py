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
CELLS = 4_000_000  # booleans a batch of models is evaluated in (``satisfied``)


def satisfies(formula: Clauses, model: list[int]) -> bool:
    """Whether ``model`` (DIMACS literals, variables 1..n in order) satisfies every clause of ``formula``."""
    return satisfied(formula, [model]) is None


def satisfied(formula: Clauses, models: list[list[int]]) -> int | None:
    """The 0-based index of the first of ``models`` (each DIMACS literals) that fails a clause of
    ``formula``, or None when each satisfies every clause: all of them evaluated at once (numpy)."""
    if not len(formula) or not models:
        return None
    if (np.diff(formula.starts) == 0).any():
        return 0  # an empty clause: no model satisfies it
    top = max(max((len(m) for m in models), default=0), int(formula.lits.max()) >> 1) + 1
    batch = max(1, CELLS // max(2 * top, len(formula.lits)))  # models a batch evaluates, memory bounded
    for first in range(0, len(models), batch):
        chunk = models[first:first + batch]
        truth = np.zeros((len(chunk), 2 * top), bool)
        for row, model in enumerate(chunk):
            literals = np.asarray(model, np.int64)
            truth[row, 2 * np.abs(literals) + (literals < 0)] = True
        holds = np.logical_or.reduceat(truth[:, formula.lits], formula.starts[:-1], axis=1).all(axis=1)
        failing = np.flatnonzero(~holds)
        if len(failing):
            return first + int(failing[0])
    return None


def first_non_model(clauses: list[list[int]], blocking: list[list[int]]) -> int | None:
    """The 1-based index of the first blocking clause whose assignment is no model of ``clauses``, or None.
    The solver only finds the other variables; its models are then evaluated together (``satisfied``)."""
    from pysat.solvers import Solver

    models: list[list[int]] = []
    with Solver(name=FINDER, bootstrap_with=clauses) as solver:
        for i, clause in enumerate(blocking, 1):
            blocked = [-lit for lit in clause]
            if not solver.solve(assumptions=blocked):
                return i
            model = solver.get_model() or []
            if not set(blocked) <= set(model):
                return i
            models.append(model)
    failing = satisfied(from_lists(clauses), models)
    return None if failing is None else failing + 1
