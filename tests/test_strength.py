"""gridsat strength: the checker finds what unit propagation misses, and its verdicts on gridsat's encodings."""

from __future__ import annotations

import itertools
import json

import pytest

from conftest import gridsat
from gridsat.solvers.strength import CASES, Claim, Constraint, check, register, strengths
from gridsat.solvers.strength.check import CONFLICT


def implied(constraint: Constraint, assignment: tuple[int, ...]) -> set[int] | None:
    """Brute force, independent of the checker: the primary literals every model extending ``assignment``
    sets (None when no model does), over every assignment of all the variables."""
    variables = sorted({abs(lit) for clause in constraint.clauses for lit in clause} | set(constraint.primary))
    common: set[int] | None = None
    for bits in itertools.product((1, -1), repeat=len(variables)):
        model = {s * v for s, v in zip(bits, variables, strict=True)}
        if set(assignment) <= model and all(model & set(clause) for clause in constraint.clauses):
            found = {lit for lit in model if abs(lit) in constraint.primary}
            common = found if common is None else common & found
    return common


def test_a_literal_implied_with_no_unit_clause_is_missed_at_the_empty_assignment() -> None:
    found = check(Constraint([[1, 2], [1, -2]], [1, 2]), k=2)
    assert found.witness is not None
    assert (found.witness.assignment, found.witness.missed) == ((), 1)


def test_a_conflict_propagation_cannot_see_is_a_witness() -> None:
    found = check(Constraint([[1, 2], [1, -2], [-1, 2], [-1, -2]], [1, 2]), k=1)
    assert found.witness is not None and found.witness.missed == CONFLICT
    assert "misses a conflict" in str(found.witness)


def test_binary_clauses_are_propagation_complete_and_exhaustive_when_k_covers_every_variable() -> None:
    found = check(Constraint([[-1, 2], [-2, 3]], [1, 2, 3]), k=3)
    assert found.witness is None and found.exhaustive
    assert found.tried == 1 + 3 * 2 + 3 * 4 + 1 * 8


@pytest.mark.parametrize("name", ["at-most-one pairwise", "at-most-one ladder", "at-most-one seqcounter",
                                  "exactly-one pairwise", "tour rank", "tour distance", "tour transitive",
                                  "lex-leader"])
def test_these_encodings_are_propagation_complete(name: str) -> None:
    (found,) = strengths([name], k=3)
    assert found.holds and found.verdict == "propagation-complete"


def test_support_is_arc_consistent_and_conflict_is_not() -> None:
    support, conflict = strengths(["adjacency support", "adjacency conflict"], k=3)
    assert support.verdict == "arc-consistent"
    assert conflict.verdict == "not arc-consistent"
    witness = conflict.witness
    assert witness is not None
    # The witness is real: every model extending it sets the missed literal, and propagation does not.
    assert witness.missed in implied(witness.constraint, witness.assignment)
    from pysat.solvers import Solver

    with Solver(name="minisat22", bootstrap_with=witness.constraint.clauses) as solver:
        consistent, derived = solver.propagate(assumptions=list(witness.assignment))
    assert consistent and witness.missed not in derived


def test_tatami_models_miss_the_same_mat_and_shikaku_rules_an_unusable_rectangle() -> None:
    """Neither tatami model rules out by propagation a mat that no tiling of 3x4 uses (h(1,2) is the mat
    on (1,2)-(1,3), which directions name from (1,3) pointing west); Shikaku's cell rules keep a rectangle
    that no solution uses, with nothing set."""
    mats, directions, cover, pack = strengths(["tatami corners", "tatami directions", "shikaku cover",
                                               "shikaku pack"], k=2)
    assert [s.witness.constraint.literal(s.witness.missed) for s in (mats, directions)] == ["-h(1,2)", "-to(1,3,w)"]
    from pysat.solvers import Solver

    for found in (mats, directions, cover, pack):
        assert not found.holds and found.witness.assignment == ()
        with Solver(name="minisat22", bootstrap_with=found.witness.constraint.clauses) as solver:
            # Too many variables to enumerate (34 pointers): a SAT call says the missed literal is implied.
            assert solver.solve() and not solver.solve(assumptions=[-found.witness.missed])
            assert found.witness.missed not in solver.propagate()[1]


def test_the_direct_all_different_misses_a_hall_set_of_two_cells() -> None:
    (found,) = strengths(["all-different direct, values at most once"], k=4)
    assert not found.holds and len(found.witness.assignment) == 4
    (weaker,) = strengths(["all-different direct, values at most once"], k=3)
    assert weaker.holds and not weaker.exhaustive  # below k = 4 the witness is out of reach


def test_sliced_constraints_hold_the_formulations_clauses_about_their_variables() -> None:
    (constraint,) = CASES["adjacency support"].build()
    # Two cells of seven values: two exactly-ones (a clause and 21 pairs) and a support clause per value and side.
    assert len(constraint.primary) == 14
    assert len(constraint.clauses) == 2 * (1 + 21) + 2 * 7


def test_a_registered_case_is_checked() -> None:
    register(Claim("test implication", "propagation", lambda: [Constraint([[1, 2], [1, -2]], [1, 2])]))
    try:
        (found,) = strengths(["test implication"], k=1)
        assert found.line() == "test implication  not propagation-complete: after nothing, unit propagation misses x1"
    finally:
        del CASES["test implication"]


def test_the_command_prints_one_line_per_encoding() -> None:
    done = gridsat("strength", "at-most-one", "adjacency", "-k", "3")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == sum(name.startswith(("at-most-one ", "adjacency ")) for name in CASES)
    assert lines[0].split() == ["at-most-one", "pairwise", "propagation-complete"]
    assert lines[-1].split(None, 2)[:2] == ["adjacency", "conflict"]
    assert lines[-1].split(None, 2)[2].startswith("not arc-consistent: after -x(0,0,")


def test_the_command_prints_json_and_refuses_an_unknown_name() -> None:
    done = gridsat("strength", "adjacency conflict", "-k", "3", "--json")
    (record,) = json.loads(done.stdout)
    assert record["holds"] is False and record["witness"]["missed"].startswith("-x(")
    bad = gridsat("strength", "pairwize")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "pairwize" in bad.stderr


def test_the_encodings_page_states_each_at_most_one_strength_as_the_checker_finds_it() -> None:
    from conftest import ROOT

    page = (ROOT / "docs" / "explanation" / "encodings.md").read_text(encoding="utf-8")
    rows = [line.split("|") for line in page.splitlines() if line.startswith("| `") and "exhaustive)" in line]
    stated = {row[1].strip().strip("`"): row[-2].strip() for row in rows}
    assert stated and set(stated) == {name.split(" ", 1)[1] for name in CASES if name.startswith("at-most-one ")}
    found = strengths([f"{kind} {name}" for name in stated for kind in ("at-most-one", "exactly-one")], k=6)
    assert all(s.holds and s.exhaustive for s in found)
    assert set(stated.values()) == {"propagation-complete (at-most-one and exactly-one, n = 2..6, exhaustive)"}


def test_hall_intervals_are_propagation_complete_where_per_value_clauses_are_not() -> None:
    """On a 1x3 row of values 1..4 (k = 4: bounds of all three cells): Bessiere et al.'s decomposition
    derives every bound the all-different implies; the per-value conflict clauses miss a Hall set."""
    hall, order, domain = strengths(["prime-grid all-different hall", "prime-grid all-different order",
                                     "prime-grid domain order"], k=4)
    assert hall.holds and domain.holds
    assert not order.holds and order.witness is not None
    assert order.witness.missed in implied(order.witness.constraint, order.witness.assignment)
