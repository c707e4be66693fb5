"""Every at-most-one encoding, checked exhaustively on small groups: satisfiable exactly when at most one
input is true, and its models projected onto the inputs are the n + 1 such assignments."""

from __future__ import annotations

import itertools
import math

import pytest
from pysat.solvers import Solver

from conftest import gridsat
from gridsat.models.constraints import Formula
from gridsat.models.constraints.amo import ENCODINGS, at_most_one, exactly_one, measured
from gridsat.models.constraints.amo.papers import bimander_size, commander_size, product_size
from gridsat.models.constraints.cardinality import at_least, at_most
from gridsat.models.errors import InvalidOption
from gridsat.solvers.backends.sat import CNF_PLUS_SOLVERS as NATIVE_SOLVERS

SIZES = range(0, 8)


def loaded(formula: Formula) -> Solver:
    """A solver holding the formula, native constraints included (MiniCard then)."""
    cnf = formula.close()
    solver = Solver(name=NATIVE_SOLVERS[0] if formula.atmosts else "minisat22", bootstrap_with=cnf.clauses)
    for lits, k in formula.atmosts:
        solver.add_atmost(lits, k)
    return solver


def written(name: str, n: int, exactly: bool = False) -> tuple[Formula, list[int]]:
    formula = Formula("test")
    lits = [formula.var(i) for i in range(n)]
    (exactly_one if exactly else at_most_one)(formula, lits, name)
    return formula, lits


def projected_models(solver: Solver, lits: list[int]) -> set[tuple[int, ...]]:
    """Every assignment of ``lits`` some model extends (enumerated with blocking clauses over ``lits``)."""
    found = set()
    while solver.solve():
        model = set(solver.get_model())
        row = tuple(int(lit in model) for lit in lits)
        assert row not in found
        found.add(row)
        if not lits:
            break
        solver.add_clause([-lit if bit else lit for lit, bit in zip(lits, row, strict=True)])
    return found


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_every_assignment_is_allowed_exactly_when_at_most_one_input_is_true(name):
    for n in SIZES:
        formula, lits = written(name, n)
        with loaded(formula) as solver:
            for bits in itertools.product((0, 1), repeat=n):
                assumptions = [lit if bit else -lit for lit, bit in zip(lits, bits, strict=True)]
                assert solver.solve(assumptions=assumptions) == (sum(bits) <= 1), (name, n, bits)
        with loaded(formula) as solver:
            models = projected_models(solver, lits)
        assert len(models) == n + 1 and all(sum(row) <= 1 for row in models), (name, n)


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_exactly_one_has_one_model_per_input(name):
    for n in SIZES:
        formula, lits = written(name, n, exactly=True)
        with loaded(formula) as solver:
            models = projected_models(solver, lits)
        assert sorted(models) == sorted(tuple(int(i == j) for j in range(n)) for i in range(n)), (name, n)


@pytest.mark.parametrize(("name", "size"), [("commander", commander_size), ("product", product_size),
                                            ("bimander", bimander_size)])
def test_the_papers_encodings_have_the_sizes_their_docstrings_give(name, size):
    for n in range(2, 200):
        assert measured(name, n) == size(n), (name, n)
    if name == "commander":  # the closed form for powers of three
        assert all(measured(name, 3**k) == ((3**k - 3) // 2, 3.5 * 3**k - 7.5) for k in range(1, 6))


def test_every_encoding_is_applied_as_named_at_every_size():
    """No encoding stands in for another on large groups: their sizes on 40 and 900 inputs all differ."""
    for n in (40, 900):
        sizes = {name: measured(name, n) for name in ENCODINGS}
        assert len(set(sizes.values())) == len(sizes), sizes
    assert measured("pairwise", 900) == (0, 900 * 899 // 2)


def test_bounds_above_one_take_only_the_encodings_defined_there():
    formula = Formula("test")
    lits = [formula.var(i) for i in range(5)]
    at_most(formula, lits, 2, "totalizer")
    at_least(formula, lits, 2, "native")
    with loaded(formula) as solver:
        assert sorted(sum(row) for row in projected_models(solver, lits)) == [2] * 10
    for name in ("pairwise", "ladder", "bitwise", "commander", "product", "bimander"):
        with pytest.raises(InvalidOption, match=f"the {name} encoding is an at-most-one"):
            at_most(Formula("test"), lits, 2, name)


def test_the_pysat_encodings_have_the_sizes_the_encodings_page_gives():
    """docs/explanation/encodings.md gives these sizes of pysat.card's encodings at a bound of one."""
    for n in range(3, 100):
        log = math.ceil(math.log2(n))
        assert measured("pairwise", n) == (0, n * (n - 1) // 2)
        assert measured("seqcounter", n) == (n - 1, 3 * n - 4)
        assert measured("ladder", n) == (n + 1, 4 * n)
        assert measured("bitwise", n) == (log, n * log)
        assert measured("kmtotalizer", n) == (2 * n - 2, 4 * n - 4)
    for k in range(2, 8):
        n = 2**k
        assert measured("cardnetwrk", n) == (4 * n - 6, 6 * n - 8)
        merges = sum((n >> j) * ((2 ** (j - 1) + 1) ** 2 - 1) for j in range(1, k + 1))
        assert measured("totalizer", n) == (n * k, 1 + merges)


@pytest.mark.parametrize("argv", [
    ("count", "tatami", "4x7", "--backend", "sat", "--encoding", "native"),
    ("count", "tatami", "4x7", "--backend", "sat", "--encoding", "native", "--solver", "glucose4"),
    ("count", "tatami", "4x7", "--backend", "d4", "--encoding", "native"),
    ("export", "tatami", "4x7", "--format", "dimacs", "--encoding", "native"),
])
def test_native_is_refused_in_one_line_where_cnf_plus_cannot_go(argv):
    done = gridsat(*argv)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
    assert "native at-most-one encoding is CNF+" in done.stderr and "solver minicard" in done.stderr


@pytest.mark.parametrize("solver", NATIVE_SOLVERS)
def test_native_counts_on_every_solver_that_takes_cnf_plus(solver):
    done = gridsat("count", "shikaku", "seed", "--backend", "sat", "--encoding", "native", "--solver", solver)
    assert (done.returncode, done.stdout) == (0, "1\n")
    done = gridsat("count", "knights-tour", "5x5", "-p", "start=0,0", "--backend", "sat", "--encoding",
                   "crt+native", "--solver", solver)
    assert (done.returncode, done.stdout) == (0, "304 (tours: directed)\n")
