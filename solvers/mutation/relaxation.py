"""Redundancy proofs by counting: a CNF's LP relaxation, its binary clauses gathered into at-most-one cliques.

Some clauses follow from the rest only by counting. In the knight's tour's position encoding, n steps
each stand on one square and each of the n squares is reached, so no square is reached twice: a
pigeonhole, which resolution (what a CDCL solver's proofs are) needs exponentially many steps for. An
LP needs none once the pairwise at-most-one clauses are read as the rows they stand for (sum <= 1):
summing the rows proves it. So when a SAT call of a proof runs long, the clauses left are asked of
this relaxation: every clause a row (sum of its literals >= 1), and every binary clause covered by a
clique of literals no two of which hold together (sum <= 1).

The relaxation only ever proves: a bound below what a model would need proves that no model exists.
The LP is solved in floating point, so a bound counts only ``SURE`` below the integer it rules out;
the bounds that prove anything here are integers (1 against 2).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

SURE = 0.5  # an LP bound proves only this far below the integer a model would reach (floating point)
LP_CALLS = 200  # LPs one proof may solve: one per clique of binary clauses, one per longer clause
GIVE_UP = 8  # ... and it stops after this many in a row prove nothing (clauses that do not follow by counting)


def forbidden(clause: list[int]) -> tuple[int, int] | None:
    """The two literals a binary clause forbids together ((-a or -b) forbids a with b), in order; None
    for a clause of another length (or one literal twice)."""
    if len(clause) != 2 or clause[0] == clause[1]:
        return None
    return ordered(-clause[0], -clause[1])


def conflicts(clauses: Iterable[list[int]]) -> dict[int, set[int]]:
    """For each literal, the literals a binary clause forbids beside it."""
    graph: dict[int, set[int]] = defaultdict(set)
    for c in clauses:
        if (pair := forbidden(c)) is not None:
            a, b = pair
            graph[a].add(b)
            graph[b].add(a)
    return graph


def cliques(graph: dict[int, set[int]], edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """Cliques of ``graph`` that cover ``edges``, each grown from an edge not yet covered."""
    covered: set[tuple[int, int]] = set()
    found = []
    for a, b in edges:
        if ordered(a, b) not in covered:
            found.append(grown(graph, a, b))
            covered.update(pairs_in(found[-1]))
    return found


def grown(graph: dict[int, set[int]], a: int, b: int) -> list[int]:
    """A maximal clique of ``graph`` holding the edge (a, b): grown greedily by the common neighbour with
    the most neighbours among the rest, so that an at-most-one group is found whole."""
    clique = [a, b]
    common = graph[a] & graph[b]
    while common:
        best = max(sorted(common), key=lambda lit: len(graph[lit] & common))
        clique.append(best)
        common &= graph[best]
    return clique


def ordered(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def pairs_in(clique: list[int]) -> set[tuple[int, int]]:
    return {ordered(x, y) for i, x in enumerate(clique) for y in clique[i + 1:]}


class Relaxation:
    """The LP relaxation of a CNF (GLOP): the largest sum of a set of literals it allows."""

    def __init__(self, clauses: list[list[int]]) -> None:
        from ortools.linear_solver import pywraplp

        self.solver = pywraplp.Solver.CreateSolver("GLOP")
        self.infeasible = pywraplp.Solver.INFEASIBLE
        self.optimal = pywraplp.Solver.OPTIMAL
        self.x: dict[int, Any] = {}
        for c in clauses:
            if forbidden(c) is None:
                self.row(sorted(set(c)), 1, self.solver.infinity())
        binary = sorted({pair for c in clauses if (pair := forbidden(c)) is not None})
        for clique in cliques(conflicts(clauses), binary):
            self.row(clique, -self.solver.infinity(), 1)

    def var(self, v: int) -> Any:
        if v not in self.x:
            self.x[v] = self.solver.NumVar(0, 1, f"x{v}")
        return self.x[v]

    def row(self, literals: list[int], low: float, high: float) -> None:
        """low <= the sum of the literals <= high, where a negative literal -v counts 1 - v."""
        negative = sum(1 for lit in literals if lit < 0)
        constraint = self.solver.Constraint(low - negative, high - negative)
        for lit in literals:
            x = self.var(abs(lit))
            constraint.SetCoefficient(x, constraint.GetCoefficient(x) + (1 if lit > 0 else -1))

    def most(self, literals: list[int]) -> float | None:
        """The largest sum of the literals the relaxation allows (-inf when it allows nothing), or None
        when the LP gave no answer."""
        objective = self.solver.Objective()
        objective.Clear()
        for lit in literals:
            x = self.var(abs(lit))
            objective.SetCoefficient(x, objective.GetCoefficient(x) + (1 if lit > 0 else -1))
        objective.SetMaximization()
        status = self.solver.Solve()
        if status == self.infeasible:
            return float("-inf")
        if status != self.optimal:
            return None
        return objective.Value() + sum(1 for lit in literals if lit < 0)


def proved_by_counting(clauses: list[list[int]], asked: list[list[int]],
                       beside: Iterable[list[int]] = ()) -> list[list[int]]:
    """The ``asked`` clauses the relaxation of ``clauses`` proves implied: for a binary one, a clique
    holding its two negated literals has a largest sum below 2 (at most one of them holds); for another,
    its negated literals' largest sum is below their number (they are never all true together).
    At most ``LP_CALLS`` LPs, and none after ``GIVE_UP`` in a row proved nothing.

    The cliques are grown in the graph of the binary clauses of ``clauses``, ``asked`` and ``beside``
    (clauses of the same question settled otherwise): which pairs a clique joins decides only how many
    LPs it takes, since its bound proves every pair in it, whether the graph had its edge or not. With
    the pairs settled otherwise left out, an at-most-one group asked about would fall apart into many
    small cliques."""
    graph = conflicts([*clauses, *asked, *beside])
    pairs = [pair for c in asked if (pair := forbidden(c)) is not None]
    relaxation = Relaxation(clauses)
    calls = streak = 0

    def proves(literals: list[int], reach: int) -> bool | None:
        """Whether the literals' largest sum is below ``reach`` (None: no LPs left to ask)."""
        nonlocal calls, streak
        if calls >= LP_CALLS or streak >= GIVE_UP:
            return None
        calls += 1
        bound = relaxation.most(literals)
        below = bound is not None and bound <= reach - SURE
        streak = 0 if below else streak + 1
        return below

    sure: set[tuple[int, int]] = set()
    for a, b in pairs:
        if (a, b) in sure:
            continue
        # A clique may hold a pair that is not implied, and then proves none of its pairs: the pair
        # alone is tried next, and a pair that fails alone too is kept out of the cliques after it.
        clique = grown(graph, a, b)
        answer = proves(clique, 2)
        if answer is False and len(clique) > 2:
            clique = [a, b]
            answer = proves(clique, 2)
        if answer is None:
            break
        if answer:
            sure.update(pairs_in(clique))
        else:
            graph[a].discard(b)
            graph[b].discard(a)
    proved = [c for c in asked if forbidden(c) in sure]
    for c in asked:
        if forbidden(c) is not None:
            continue
        negated = sorted({-lit for lit in c})
        answer = proves(negated, len(negated))
        if answer is None:
            break
        if answer:
            proved.append(c)
    return proved
