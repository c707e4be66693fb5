"""Redundancy proofs by counting: the LP relaxation proves pigeonholes, and never a clause that is not implied."""

from __future__ import annotations

import itertools
import random

from gridsat.solvers.mutation.redundancy import Budget, first_not_implied, implies
from gridsat.solvers.mutation.relaxation import cliques, conflicts, proved_by_counting


def squares_and_steps(n: int, drop_step_at_most: bool = True) -> tuple[list[list[int]], list[list[int]]]:
    """n steps on n squares, each step on at least one square, each square reached once: the clauses, and
    the step's at-most-one pairs (left out of the clauses when ``drop_step_at_most``)."""
    var = {(s, q): 1 + s * n + q for s in range(n) for q in range(n)}
    clauses = [[var[s, q] for q in range(n)] for s in range(n)]  # every step somewhere
    clauses += [[var[s, q] for s in range(n)] for q in range(n)]  # every square reached
    clauses += [[-var[s, q], -var[t, q]] for q in range(n) for s, t in itertools.combinations(range(n), 2)]
    step_pairs = [[-var[s, q], -var[s, r]] for s in range(n) for q, r in itertools.combinations(range(n), 2)]
    return (clauses if drop_step_at_most else clauses + step_pairs), step_pairs


def test_the_relaxation_proves_a_pigeonhole_resolution_proves_slowly():
    clauses, pairs = squares_and_steps(7)
    assert all(implies(clauses, p) for p in pairs[:3])  # implied, by counting: n steps fill n squares once each
    assert proved_by_counting(clauses, pairs) == pairs
    # And within a proof: with a budget too small for the SAT solver, the relaxation settles them.
    budget = Budget(10)
    assert first_not_implied(clauses, pairs, budget=budget) is None
    assert budget.spent >= 10


def test_the_relaxation_proves_no_clause_that_is_not_implied():
    clauses, _ = squares_and_steps(4)
    # Step 0 on squares 0 and 1 (variables 1, 2) is ruled out; step 1 on square 1 (variable 6) is not.
    assert proved_by_counting(clauses, [[1], [-1], [1, 2], [-1, 6], [-1, -6], [-1, -2]]) == [[-1, -2]]
    # Random small CNFs: whatever the relaxation proves, the SAT solver agrees is implied.
    rng = random.Random(0)
    checked = 0
    for _ in range(300):
        formula = [rng.sample([v * rng.choice((1, -1)) for v in range(1, 7)], rng.choice((1, 2, 2, 3)))
                   for _ in range(rng.randint(3, 12))]
        asked = [rng.sample([v * rng.choice((1, -1)) for v in range(1, 7)], rng.choice((1, 2, 2, 3)))
                 for _ in range(4)]
        for c in proved_by_counting(formula, asked):
            assert implies(formula, c), (formula, c)
            checked += 1
    assert checked > 100  # the check meant something: the relaxation proved many


def test_counting_proves_nothing_about_a_random_formula():
    # A random 3-CNF past the threshold: unsatisfiable, so it implies [1], but its relaxation allows
    # every variable at 1/2 (tests/test_mutate.py: its proof runs out of budget).
    rng = random.Random(1)
    formula = [[v * rng.choice((1, -1)) for v in rng.sample(range(1, 61), 3)] for _ in range(360)]
    assert proved_by_counting(formula, [[1], [1, 2]]) == []


def test_cliques_cover_every_edge_asked_and_grow_whole_groups():
    clauses, pairs = squares_and_steps(5, drop_step_at_most=False)
    graph = conflicts(clauses)
    wanted = [(-a, -b) for a, b in pairs]
    found = cliques(graph, wanted)
    assert len(found) == 5 and all(len(k) == 5 for k in found)  # one per step: its five squares
    inside = {frozenset((x, y)) for k in found for x in k for y in k if x != y}
    assert all(frozenset(e) in inside for e in wanted)
