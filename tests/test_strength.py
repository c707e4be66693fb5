"""gridsat strength: the checker finds what unit propagation misses, and its verdicts on gridsat's encodings."""

from __future__ import annotations

import itertools
import json

import pytest

from conftest import gridsat
from gridsat.models.errors import InvalidOption
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


@pytest.mark.parametrize(("name", "k"), [("at-most-one pairwise", 10), ("at-most-one ladder", 10),
                                         ("exactly-one seqcounter", 10), ("tour transitive", 7), ("lex-leader", 8)])
def test_these_encodings_are_propagation_complete_exhaustively(name: str, k: int) -> None:
    (found,) = strengths([name], k=k)
    assert found.holds and found.exhaustive and found.upto == found.n
    assert found.strength == "propagation-complete"


@pytest.mark.parametrize("name", ["tour rank", "tour distance", "tour cutset"])
def test_a_tour_claim_names_its_part_and_says_subtours_were_not_checked(name: str) -> None:
    (found,) = strengths([name], k=3)
    assert found.holds and not found.exhaustive
    assert found.verdict == f"{found.case.part}: holds for every assignment of at most 3 literals; " \
                            f"{found.case.unchecked}: not checked"
    assert "subtour elimination" in found.case.unchecked and "propagation-complete" not in found.verdict


def test_below_the_number_of_primaries_a_verdict_says_up_to_which_n_it_is_exhaustive() -> None:
    (found,) = strengths(["at-most-one pairwise"], k=4)
    assert (found.n, found.upto, found.exhaustive) == (10, 4, False)
    assert found.verdict == ("propagation-complete up to n = 4; "
                             "up to n = 10 holds for every assignment of at most 4 literals")


def test_support_is_arc_consistent_and_conflict_is_not() -> None:
    support, conflict = strengths(["adjacency support", "adjacency conflict"], k=3)
    assert support.holds and support.verdict == "holds for every assignment of at most 3 literals"
    assert conflict.strength == "not arc-consistent" and conflict.uc
    witness = conflict.witness
    assert witness is not None
    # The witness is real: every model extending it sets the missed literal, and propagation does not.
    assert witness.missed in implied(witness.constraint, witness.assignment)
    from pysat.solvers import Solver

    with Solver(name="minisat22", bootstrap_with=witness.constraint.clauses) as solver:
        consistent, derived = solver.propagate(assumptions=list(witness.assignment))
    assert consistent and witness.missed not in derived


def test_tatami_models_miss_the_same_mat_and_shikaku_rules_an_unusable_rectangle() -> None:
    """Neither tatami model rules out by propagation a mat that no tiling of 3x4 uses (h(1,0) is the mat
    on (1,0)-(1,1), which directions name from (1,0) pointing east); Shikaku's cell rules keep a rectangle
    that no solution uses, with nothing set."""
    mats, directions, cover, pack = strengths(["tatami corners", "tatami directions", "shikaku cover",
                                               "shikaku pack"], k=2)
    assert [s.witness.constraint.literal(s.witness.missed) for s in (mats, directions)] == ["-h(1,0)", "-to(1,0,e)"]
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
        assert found.line() == ("test implication  not propagation-complete: after nothing, unit propagation "
                                "misses x1; unit-refutation complete (holds for every assignment of at most 1 literal)")
    finally:
        del CASES["test implication"]


def test_the_command_prints_one_line_per_encoding() -> None:
    done = gridsat("strength", "at-most-one", "adjacency", "-k", "3")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == sum(name.startswith(("at-most-one ", "adjacency ")) for name in CASES)
    assert lines[0].split(None, 2) == ["at-most-one", "pairwise", "propagation-complete up to n = 3; up to n = 10 "
                                                                  "holds for every assignment of at most 3 literals"]
    assert lines[-1].split(None, 2)[:2] == ["adjacency", "conflict"]
    assert lines[-1].split(None, 2)[2].startswith("not arc-consistent: after -x(0,0,")


def test_the_command_prints_json_and_refuses_an_unknown_name() -> None:
    done = gridsat("strength", "adjacency conflict", "-k", "3", "--json")
    (record,) = json.loads(done.stdout)
    assert record["holds"] is False and record["witness"]["missed"].startswith("-x(")
    bad = gridsat("strength", "pairwize")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "pairwize" in bad.stderr


def test_hall_intervals_are_propagation_complete_where_per_value_clauses_are_not() -> None:
    """On a 1x3 row of values 1..4 (k = 4: bounds of all three cells): Bessiere et al.'s decomposition
    derives every bound the all-different implies; the per-value conflict clauses miss a Hall set."""
    hall, order, domain = strengths(["prime-grid all-different hall", "prime-grid all-different order",
                                     "prime-grid domain order"], k=4)
    assert hall.holds and domain.holds
    assert not order.holds and order.witness is not None
    assert order.witness.missed in implied(order.witness.constraint, order.witness.assignment)


def test_every_claim_holds_a_clause_of_each_family_it_names() -> None:
    """``gridsat strength --json``: every record has clauses, and every family its claim names."""
    done = gridsat("strength", "-k", "1", "--json")
    records = json.loads(done.stdout)
    assert [r["name"] for r in records] == list(CASES)
    for record in records:
        assert record["clauses"] > 0 and record["k"] == 1 and record["n"] >= 1, record["name"]
        assert record["clauses"] == sum(record["families"].values())
        for family in CASES[record["name"]].families:
            assert any(label.startswith(family) for label in record["families"]), (record["name"], family)


def test_tour_claims_hold_the_families_that_make_them_testable() -> None:
    """On 3x4 the transitive claim holds its ordering-cycle clauses (2x4 had none), and the log domain
    its comparator (``rank below n``)."""
    (transitive,) = strengths(["tour transitive"], k=1)
    assert any(label.startswith("no ordering cycle") for label in transitive.families)
    (log,) = strengths(["domain log"], k=1)
    assert log.families.get("rank below n", 0) > 0


def test_a_claim_whose_instance_lacks_a_family_is_refused() -> None:
    register(Claim("test hollow", "propagation", lambda: [Constraint([[1, 2]], [1, 2], about="two literals",
                                                                    families={"at least one": 1})],
                   families=("at least one", "comparator")))
    register(Claim("test empty", "propagation", lambda: [Constraint([], [1, 2], about="nothing")]))
    try:
        with pytest.raises(InvalidOption, match="lacks a clause of 'comparator'"):
            strengths(["test hollow"], k=2)
        with pytest.raises(InvalidOption, match="lacks any clause"):
            strengths(["test empty"], k=2)
    finally:
        del CASES["test hollow"], CASES["test empty"]


def test_k_below_one_is_refused_in_one_line() -> None:
    done = gridsat("strength", "at-most-one pairwise", "-k", "0")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "'0'" in done.stderr
    with pytest.raises(InvalidOption, match="at least 1"):
        strengths(["at-most-one pairwise"], k=0)


@pytest.mark.slow
def test_every_at_most_one_is_checked_exhaustively_at_ten_inputs() -> None:
    """``gridsat strength at-most-one -k 10 --json``: every record exhaustive, n = 10, propagation-complete."""
    records = json.loads(gridsat("strength", "at-most-one", "-k", "10", "--json").stdout)
    assert len(records) == sum(name.startswith("at-most-one ") for name in CASES) >= 12
    for record in records:
        assert record["exhaustive"] and record["n"] >= 10 and record["exhaustive_up_to_n"] >= 10, record["name"]
        assert record["holds"] and record["verdict"] == "propagation-complete" and record["uc"]


def test_the_benchmark_report_never_calls_a_tour_encoding_propagation_complete() -> None:
    """The strength column of a tour encoding names the part checked, in brackets, and what was not."""
    import re

    from gridsat.benchmarks.report import strength_of

    tours = [name.split(" ", 1)[1] for name in CASES if name.startswith("tour ")]
    for tour in tours:
        cell = strength_of({"backend": "sat", "encoding": f"{tour}+pairwise"})
        assert not re.search(rf"\b{tour} (not )?(PC|AC)\b", cell), cell
        assert cell.startswith(f"{tour} (") and "not checked" in cell and cell.endswith(", pairwise PC"), cell
