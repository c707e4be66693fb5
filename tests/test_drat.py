"""gridsat's DRAT checker: the proofs PySAT's solvers write are accepted, broken proofs are refused at the
step that breaks, in text and in binary."""
from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from naive_propagation import propagate  # noqa: E402
from pysat.examples.genhard import PHP  # noqa: E402
from pysat.solvers import Solver  # noqa: E402

from gridsat.solvers.proof.clausal import (  # noqa: E402
    ADD,
    DELETE,
    Clauses,
    from_lists,
    join,
    read_cnf,
    read_drat,
    read_drat_file,
    write_binary,
)
from gridsat.solvers.proof.drat import check  # noqa: E402

PROVERS = ["cadical195", "cadical153", "glucose4", "lingeling", "maplechrono"]
# Unsatisfiable, but not by unit propagation alone: 1 forces 4 and -4, 2 forces 5 and -5, and -1, -2
# leave (3) and (-3).
FORMULA = [[1, 2, 3], [1, 2, -3], [-1, 4], [-1, -4], [-2, 5], [-2, -5]]


def proof(*steps: str) -> Clauses:
    return read_drat("".join(step + " 0\n" for step in steps).encode())


def solver_proof(name: str, clauses: list[list[int]]) -> Clauses:
    with Solver(name=name, bootstrap_with=clauses, with_proof=True) as solver:
        assert solver.solve() is False
        return read_drat(("\n".join(solver.get_proof()) + "\n").encode())


@pytest.mark.parametrize("name", PROVERS)
@pytest.mark.parametrize("holes", [3, 5])
def test_the_pigeonhole_proofs_of_every_solver_are_accepted_in_text_and_binary(name: str, holes: int) -> None:
    formula = PHP(holes).clauses
    steps = solver_proof(name, formula)
    for form in (steps, read_drat(write_binary(steps))):
        verdict = check(formula, form)
        assert verdict.accepted, verdict.failure
        assert verdict.failure == "" and verdict.steps == len(steps)
        assert verdict.lemmas + verdict.deletions + verdict.ignored_unit_deletions + verdict.missing_deletions \
            == verdict.steps


@pytest.mark.parametrize("name", PROVERS)
def test_a_solver_proof_without_its_lemmas_or_cut_in_half_is_refused(name: str) -> None:
    formula = PHP(4).clauses
    steps = solver_proof(name, formula)
    half = steps.starts[len(steps) // 2]
    truncated = Clauses(steps.lits[:half], steps.starts[:len(steps) // 2 + 1], steps.kinds[:len(steps) // 2])
    verdict = check(formula, truncated)
    assert not verdict.accepted and "without deriving the empty clause" in verdict.failure
    assert not check(formula, proof("")).accepted  # the empty clause alone: pigeonhole is not refuted by UP
    early = check(formula, join(proof(""), steps))
    assert not early.accepted and early.failed_step == 1


def test_a_hand_written_proof_is_accepted_and_each_break_is_named() -> None:
    assert check(FORMULA, proof("-1", "-2", "")).accepted
    removed = check(FORMULA, proof("-2", ""))
    assert (removed.accepted, removed.failed_step) == (False, 2)
    assert removed.failure == "step 2 (lemma 0) is neither RUP nor RAT on its first literal"
    flipped = check(FORMULA, proof("1", "-2", ""))
    assert (flipped.accepted, flipped.failed_step) == (False, 1)
    truncated = check(FORMULA, proof("-1", "-2"))
    assert not truncated.accepted and truncated.failed_step == 3
    early = check(FORMULA, proof("-1", "", "-2", ""))
    assert (early.accepted, early.failed_step) == (False, 2)


def test_a_rat_lemma_is_checked_on_its_first_literal_only() -> None:
    # (6 1) is RAT on 6 (no clause holds -6); on 1 it is not: the resolvent with (-1 4) is (6 4), not RUP.
    right = check(FORMULA, proof("6 1", "-1", "-2", ""), extension=True)
    assert right.accepted and right.rat_lemmas == 1
    wrong = check(FORMULA, proof("1 6", "-1", "-2", ""), extension=True)
    assert (wrong.accepted, wrong.failed_step) == (False, 1)


def test_extended_resolution_definitions_are_rat() -> None:
    # 7 <-> (3 and 6), 6 a new variable: each clause RAT on its first literal (none is RUP), the last one
    # by tautological resolvents.
    verdict = check(FORMULA, proof("-7 3", "-7 6", "7 -3 -6", "-1", "-2", ""), extension=True)
    assert verdict.accepted and verdict.rat_lemmas == 3


def test_a_variable_the_formula_lacks_is_refused_unless_extension_and_then_within_the_proofs_length() -> None:
    plain = check(FORMULA, proof("6 1", "-1", "-2", ""))
    assert (plain.accepted, plain.failed_step) == (False, 1)
    assert plain.failure == "step 1 names variable 6, beyond the formula's 5 variables"
    far = check(FORMULA, proof("-1", "10 -2", "-2", ""), extension=True)  # 5 variables and 4 steps: at most 9
    assert (far.accepted, far.failed_step) == (False, 2) and "variable 10, beyond the formula's 5" in far.failure
    huge = check(FORMULA, read_drat(b"536870911 0\n"))  # memory for 2**30 variables is never asked for
    assert (huge.accepted, huge.failed_step) == (False, 1)
    binary = read_drat(b"a\x82\x80\x80\x80\x08\x00a\x00")  # a literal code of 2**31: past int32
    assert binary.error == "binary DRAT unreadable at byte 5" and not check(FORMULA, binary).accepted


def test_deletions_are_honoured_but_not_of_units() -> None:
    deleted = check(FORMULA, proof("d -1 4", "-1", "-2", ""))
    assert (deleted.accepted, deleted.failed_step, deleted.deletions) == (False, 2, 1)
    unit = check(FORMULA + [[-1]], proof("d -1", "-2", ""))  # drat-trim's convention: kept, counted
    assert unit.accepted and (unit.deletions, unit.ignored_unit_deletions) == (0, 1)
    missing = check(FORMULA, proof("d 1 4", "-1", "-2", ""))
    assert missing.accepted and missing.missing_deletions == 1


def test_duplicate_clauses_are_deleted_one_copy_at_a_time() -> None:
    verdict = check(FORMULA + [[-1, 4]], proof("d 4 -1", "-1", "-2", ""))
    assert verdict.accepted and verdict.deletions == 1


def test_dimacs_and_text_drat_read_with_comments_and_binary_round_trips() -> None:
    cnf = read_cnf(b"c a comment\np cnf 5 6\n1 2 3 0 1 2 -3 0\n-1 4 0\nc p show 1 2 0\n-1 -4 0\n-2 5 0 -2 -5 0\n")
    assert [cnf.clause(i) for i in range(len(cnf))] == FORMULA
    steps = read_drat(b"c lemma\n-1 0\nd -2 5 0\n")
    assert list(steps.kinds) == [ADD, DELETE] and steps.clause(1) == [-2, 5]
    assert read_drat(write_binary(steps)).clause(1) == [-2, 5]
    assert from_lists(FORMULA).clause(3) == [-1, -4]


@pytest.mark.parametrize("data", [b"1 x 0\n", b"-1 0\n2 - 0\n", b"- 0\n"])
def test_an_unreadable_proof_is_refused_naming_the_byte(data: bytes) -> None:
    verdict = check(FORMULA, read_drat(data, binary=False))
    assert not verdict.accepted and "unreadable at byte" in verdict.failure


@pytest.mark.parametrize("cut", range(2, 12))  # the text loses its last "0" at 2
def test_a_proof_cut_short_keeps_its_whole_steps_only(cut: int) -> None:
    text = b"-1 0\n-2 0\nd -1 4 0\n0\n"
    assert check(FORMULA, read_drat(text)).accepted
    for data in (text, write_binary(read_drat(text))):
        steps = read_drat(data[:len(data) - cut])
        assert steps.error == "" and len(steps) < 4
        assert [steps.clause(i) for i in range(len(steps))] == [[-1], [-2], [-1, 4]][:len(steps)]
        verdict = check(FORMULA, steps)
        assert not verdict.accepted and "without deriving the empty clause" in verdict.failure


SAMPLES = [b"c lemma\n-1 0\nd -2 5 0\nc a comment longer than a chunk " + b"x" * 40 + b"\n-12 7 0 0\n",
           b"-1 0\n2 - 0\n", b"1 01 0 00 -2 0\n", b"p cnf 1 1\n1 x 0\n", b"-1 0\n-2 0\nd -1 4 0\n0",
           b"c only a comment, no newline"]


@pytest.mark.parametrize("data", [*SAMPLES, *(write_binary(read_drat(d)) for d in SAMPLES[:1] + SAMPLES[2:3])])
def test_a_proof_file_read_in_chunks_of_any_size_reads_as_the_whole(tmp_path, data: bytes) -> None:
    whole = read_drat(data)
    (tmp_path / "proof.drat").write_bytes(data)
    for chunk in (1, 2, 3, 5, 8, 64):
        read = read_drat_file(tmp_path / "proof.drat", chunk)
        assert read.error == whole.error and list(read.kinds) == list(whole.kinds), (chunk, read.error)
        assert [read.clause(i) for i in range(len(read))] == [whole.clause(i) for i in range(len(whole))]
        assert read.starts[-1] == len(read.lits) and read.lits.dtype == np.int32


def random_formula(rng: random.Random, variables: int, clauses: int) -> list[list[int]]:
    return [[v * rng.choice((1, -1)) for v in rng.sample(range(1, variables + 1), 3)] for _ in range(clauses)]


@pytest.mark.parametrize("name", ["cadical195", "glucose4"])
def test_a_proof_for_a_stronger_formula_never_refutes_a_satisfiable_one(name: str) -> None:
    """Soundness: a satisfiable formula has no refutation, so every proof must be refused against it. The
    proofs are real ones, of the formula with its models blocked until none is left (accepted against
    that formula): checked against the formula alone, each must fail at some step."""
    rng = random.Random(44)
    tried = 0
    while tried < 12:
        formula = random_formula(rng, 12, 50)
        with Solver(name="cadical195", bootstrap_with=formula) as oracle:
            models = list(oracle.enum_models())
        if not 0 < len(models) <= 6:
            continue
        tried += 1
        stronger = formula + [[-lit for lit in model] for model in models]
        steps = solver_proof(name, stronger)
        assert check(stronger, steps).accepted
        verdict = check(formula, steps)
        assert not verdict.accepted and verdict.failed_step is not None


def propagates_to_conflict(clauses: list[list[int]], assigned: set[int]) -> bool:
    """Unit propagation the slow, obvious way reaches a conflict."""
    return propagate(clauses, assigned) is None


def reference_verdict(formula: list[list[int]], lemmas: list[list[int]]) -> int | None:
    """A DRAT check written from the definition alone, for additions only: the first failing step (1-based;
    one past the end when no empty clause comes), or None when the proof is accepted."""
    database = [list(c) for c in formula]
    for step, lemma in enumerate(lemmas, 1):
        negated = {-lit for lit in lemma}
        ok = propagates_to_conflict(database, negated)
        if not ok and lemma:
            pivot = lemma[0]
            ok = all(propagates_to_conflict(database, negated | {-lit for lit in d if lit != -pivot})
                     for d in database if -pivot in d)
        if not ok:
            return step
        if not lemma:
            return None
        database.append(lemma)
    return len(lemmas) + 1


def test_the_checker_agrees_with_a_check_written_from_the_definition() -> None:
    """Solver proofs without their deletions, broken at random (a lemma dropped, a literal flipped, an empty
    clause moved up, two lemmas swapped): gridsat's checker and the obvious one accept and refuse alike,
    at the same step."""
    rng = random.Random(7)
    formulas = [PHP(3).clauses]
    while len(formulas) < 4:
        formula = random_formula(rng, 10, 60)
        with Solver(name="cadical195", bootstrap_with=formula) as oracle:
            if not oracle.solve():
                formulas.append(formula)
    refused = 0
    for formula in formulas:
        for name in ("cadical195", "glucose4"):
            steps = solver_proof(name, formula)
            lemmas = [steps.clause(i) for i in range(len(steps)) if steps.kinds[i] == ADD]
            for trial in range(12):
                broken = [list(c) for c in lemmas]
                kind = trial % 4
                at = rng.randrange(len(broken))
                if kind == 0 and trial:
                    del broken[at]
                elif kind == 1 and broken[at]:
                    broken[at][rng.randrange(len(broken[at]))] *= -1
                elif kind == 2:
                    broken.insert(at, [])
                elif kind == 3 and len(broken) > 1:
                    broken[at], broken[at - 1] = broken[at - 1], broken[at]
                expected = reference_verdict(formula, broken)
                verdict = check(formula, from_lists(broken, ADD))
                assert verdict.failed_step == expected, (name, kind, verdict.failure)
                refused += expected is not None
    assert refused > 20  # the breaks do break proofs: the agreement covers refusals, not only acceptances


def test_keep_original_ignores_a_deletion_of_a_formula_clause_and_accepts_nothing_else() -> None:
    # CaDiCaL restores clauses it eliminated without writing them, so its later lemmas may rest on a
    # formula clause the proof deleted: (1 2) is deleted, then the lemma (2) needs it.
    formula = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    proof = read_drat(b"d 1 2 0\n2 0\n0\n")
    plain = check(formula, proof)
    assert not plain.accepted and plain.failed_step == 2
    kept = check(formula, proof, keep_original=True)
    assert kept.accepted and kept.ignored_original_deletions == 1 and kept.deletions == 0
    lemma_deleted = check([[1, 2, 3], [-1, 2]], read_drat(b"2 3 0\nd 2 3 0\n0\n"), keep_original=True)
    assert (lemma_deleted.deletions, lemma_deleted.ignored_original_deletions) == (1, 0)  # a lemma's still goes
    assert not check([[1, 2], [-1, 2]], read_drat(b"d 1 2 0\n0\n"), keep_original=True).accepted
