"""The order and log encodings of integers and the all-different decompositions (models/constraints/),
checked by enumerating every model of small formulas and reading the integers back."""

from __future__ import annotations

import itertools

import pytest

from gridsat.models.constraints import Formula, alldiff
from gridsat.models.constraints.domains import DOMAINS, LogInt, OrderInt, forbid, runs


def solutions(formula: Formula, xs) -> list[tuple[int, ...]]:
    """Every assignment of the integers ``xs`` the formula allows, each once (projected on their literals)."""
    from pysat.solvers import Solver

    projection = [v for x in xs for v in x.projection()]
    found = []
    with Solver(name="cadical195", bootstrap_with=formula.close().clauses) as solver:
        while solver.solve():
            model = set(lit for lit in solver.get_model() if lit > 0)
            true = {formula.pool.obj(v) for v in projection if v in model}
            found.append(tuple(x.value(true) for x in xs))
            solver.add_clause([-v if v in model else v for v in projection])
            if not projection:
                break
    return found


def integers(kind: str, count: int, low: int, high: int) -> tuple[Formula, list]:
    formula = Formula("test:cnf")
    xs = [DOMAINS[kind].new(formula, (i, 0), low, high) for i in range(count)]
    for x in xs:
        x.restrict(formula, set(range(low, high + 1)))
    return formula, xs


@pytest.mark.parametrize("kind", ["order", "log"])
@pytest.mark.parametrize("low, high", [(1, 1), (1, 2), (3, 7), (2, 10)])
def test_a_restricted_integer_takes_exactly_its_allowed_values_once_each(kind, low, high):
    allowed = {v for v in range(low, high + 1) if v % 3 != 1} or {low}
    formula = Formula("test:cnf")
    x = DOMAINS[kind].new(formula, (0, 0), low, high)
    x.restrict(formula, allowed)
    assert sorted(v for (v,) in solutions(formula, [x])) == sorted(allowed)


@pytest.mark.parametrize("kind", ["order", "log"])
def test_below_allows_exactly_the_smaller_pairs(kind):
    formula, (x, y) = integers(kind, 2, 3, 9)
    x.below(formula, y)
    assert sorted(solutions(formula, [x, y])) == [(a, b) for a in range(3, 10) for b in range(3, 10) if a < b]


def test_below_on_one_value_is_impossible():
    for kind in ("order", "log"):
        formula, (x, y) = integers(kind, 2, 4, 4)
        x.below(formula, y)
        assert solutions(formula, [x, y]) == []


@pytest.mark.parametrize("kind", ["order", "log"])
def test_a_cover_holds_for_the_excluded_values_and_never_for_the_kept_ones(kind):
    formula, (x, y) = integers(kind, 2, 1, 13)
    excluded, keep = {2, 3, 4, 9, 12}, {1, 5, 6, 10, 13}
    for conj in x.cover(excluded, keep):
        forbid(formula, conj, y.equals(1))  # y = 1 rules out x's excluded values (and perhaps don't-cares)
    values = {a for a, b in solutions(formula, [x, y]) if b == 1}
    assert not values & excluded and keep <= values


def test_covers_are_as_small_as_the_literals_allow():
    assert runs(range(1, 11), {2, 3, 4, 7, 10}) == [(2, 4), (7, 7), (10, 10)]
    formula = Formula("test:cnf")
    x = OrderInt.new(formula, (0, 0), 1, 10)
    assert len(x.cover({2, 3, 4, 7, 10}, {1, 5, 6, 8, 9})) == 3  # three runs: three intervals
    y = LogInt.new(formula, (1, 0), 0, 15)
    assert [len(c) for c in y.cover(set(range(8, 16)), set(range(8)))] == [1]  # one aligned block: one bit
    assert len(y.cover({12, 13, 14, 15, 3}, set(range(12)) - {3})) == 2


@pytest.mark.parametrize("kind, pairwise", [("order", True), ("order", False), ("log", True), ("log", False)])
@pytest.mark.parametrize("count, high", [(3, 3), (3, 4), (4, 4)])
def test_per_value_all_different_allows_exactly_the_injections(kind, pairwise, count, high):
    formula, xs = integers(kind, count, 1, high)
    allowed = [set(range(1, high + 1))] * count
    alldiff.per_value(formula, xs, allowed, "pairwise" if pairwise else "ladder")
    expected = sorted(itertools.permutations(range(1, high + 1), count))
    assert sorted(solutions(formula, xs)) == expected


@pytest.mark.parametrize("count, high, gaps", [(3, 3, False), (3, 5, False), (4, 5, True), (5, 5, True)])
def test_hall_intervals_allow_exactly_the_injections(count, high, gaps):
    formula, xs = integers("order", count, 1, high)
    allowed = [set(range(1, high + 1)) - ({i % high + 1} if gaps else set()) for i in range(count)]
    for x, ok in zip(xs, allowed, strict=True):
        x.restrict(formula, ok)
    alldiff.hall(formula, xs, allowed, "pairwise")
    expected = sorted(p for p in itertools.permutations(range(1, high + 1), count)
                      if all(v in ok for v, ok in zip(p, allowed, strict=True)))
    assert sorted(solutions(formula, xs)) == expected


def test_hall_intervals_propagate_a_hall_set_that_per_value_clauses_miss():
    """x1, x2 <= 2 make {1, 2} a Hall interval: x3 in 1..3 must be 3. Unit propagation on the Hall
    decomposition finds it; on the per-value clauses it does not."""
    from pysat.solvers import Solver

    for hall, expected in ((True, True), (False, False)):
        formula, xs = integers("order", 3, 1, 3)
        ok = [{1, 2, 3}] * 3
        if hall:
            alldiff.hall(formula, xs, ok, "pairwise")
        else:
            alldiff.per_value(formula, xs, ok, "pairwise")
        with Solver(name="cadical195", bootstrap_with=formula.close().clauses) as solver:
            status, implied = solver.propagate(assumptions=[-xs[0].ge[3], -xs[1].ge[3]])
        assert status and (xs[2].ge[3] in implied) == expected
