"""gridsat's LRAT checker (solvers/proof/lrat.py): CaDiCaL's proofs accepted, planted bugs refused, and never a
proof of a satisfiable formula accepted."""
from __future__ import annotations

import random

import pytest

from gridsat.solvers.proof.lrat import check, numbered
from gridsat.solvers.proof.prover import proof_of, prover

# (x1 or x2), (-x1 or x2), (x1 or -x2), (-x1 or -x2): unsatisfiable; lemma 5 is x2 (from 1 and 2), 6 the empty
# clause (from 5, 3 and 4)
FORMULA = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
PROOF = b"5 2 0 1 2 0\n5 d 1 0\n6 0 5 3 4 0\n"


def lrat_proof(clauses: list[list[int]]) -> bytes | None:
    """CaDiCaL's LRAT proof that ``clauses`` are unsatisfiable (None: they are not), as gridsat asks for it."""
    with prover("cadical195", clauses) as oracle:
        return None if oracle.solve() else proof_of(oracle)


def random_unsat(rng: random.Random, variables: int = 12) -> list[list[int]]:
    """Random 3-clauses, with a few units and repeated literals, until they are unsatisfiable."""
    from pysat.solvers import Solver

    clauses: list[list[int]] = []
    with Solver(name="minisat22") as solver:
        while solver.solve():
            size = rng.choice([1, 2, 3, 3, 3, 3]) if rng.random() < 0.1 else 3
            clause = [rng.choice([-1, 1]) * rng.randint(1, variables) for _ in range(size)]
            if rng.random() < 0.05:
                clause.append(clause[0])  # a literal twice
            clauses.append(clause)
            solver.add_clause(clause)
    return clauses


def test_a_proof_with_hints_is_accepted_and_steps_counted() -> None:
    verdict = check(FORMULA, PROOF)
    assert (verdict.accepted, verdict.steps, verdict.lemmas, verdict.failure) == (True, 3, 2, "")


@pytest.mark.parametrize("proof, named", [
    (b"5 2 0 1 0\n6 0 5 3 4 0\n", "step 1: the hints end without a conflict"),
    (b"5 2 0 1 2 0\n5 d 1 0\n6 0 5 1 4 0\n", "step 3: a hint names a clause that does not exist or was deleted"),
    (b"5 2 0 1 2 0\n", "the proof ends without deriving the empty clause"),
    (b"5 2 0 1 2 0\n4 0 5 3 4 0\n", "step 2: a lemma's number is not above every number before it"),
    (b"5 2 0 -1 2 0\n6 0 5 3 4 0\n", "step 1: a hint is negative"),
    (b"5 2 0 3 2 0\n6 0 5 3 4 0\n", "step 1: a hint clause is neither unit nor falsified"),
    (b"5 2 7 0 1 2 0\n6 0 5 3 4 0\n", "step 1: a lemma names a variable the formula does not have"),
    (b"5 2 0 1 2 0\n6 0 5 3 x 0\n", "unreadable LRAT at byte 20"),
    (b"5 2 0 1 2 0\n6 0 5 3 4", "step 2: the proof ends inside a step"),
    (b"5 2 0 1 2 0\n6 0 3 4 5 0\n", "step 2: a hint clause is neither unit nor falsified"),  # hints out of order
    (b"5 2 0 1 2\n5 d 1 0\n6 0 5 3 4 0\n", "step 1: a 'd' stands where"),  # a hint list's 0 lost: no step swallowed
    (b"d" * 100_000, "step 1: the proof ends inside a step"),  # a token a byte: past a well-formed proof's room
    (b"5 2 0 1 2 0\n" + b"d1" * 50_000, "step 2: a lemma's number is not above"),
], ids=["no-conflict", "deleted-hint", "no-empty", "number-down", "rat", "not-unit", "new-variable", "unreadable",
        "cut-short", "hint-order", "lost-zero",
        "d-a-byte", "d-and-digits"])
def test_a_planted_bug_is_refused_and_named(proof: bytes, named: str) -> None:
    verdict = check(FORMULA, proof)
    assert not verdict.accepted and named in verdict.failure, verdict.failure


def test_the_checker_propagates_only_the_hints_it_is_given() -> None:
    """A lemma that unit propagation on all clauses proves, but whose hints leave a unit out, is refused:
    the checker searches for nothing (a DRAT checker would accept the same step)."""
    assert not check(FORMULA, b"5 2 0 1 0\n6 0 5 3 4 0\n").accepted
    assert check(FORMULA + [[]], b"").accepted  # the formula holds the empty clause: nothing to prove


def test_units_and_repeated_literals_are_numbered_as_cadical_numbers_them() -> None:
    """A unit clause set before other clauses are added makes CaDiCaL write lemmas among the clauses'
    numbers; ``numbered`` gives it none (each unit as two clauses over a fresh variable), so its proof checks."""
    clauses = [[1], [2], [-1, -2, 3, 3], [-3]]
    assert numbered(clauses) == [[1, 4], [1, -4], [2, 5], [2, -5], [-1, -2, 3], [-3, 6], [-3, -6]]
    proof = lrat_proof(clauses)
    assert proof is not None and check(numbered(clauses), proof).accepted


def test_cadicals_proofs_of_random_unsatisfiable_formulas_are_accepted() -> None:
    rng = random.Random(5)
    for _ in range(40):
        clauses = random_unsat(rng)
        proof = lrat_proof(clauses)
        assert proof is not None
        verdict = check(numbered(clauses), proof)
        assert verdict.accepted, (clauses, verdict.failure)


def test_no_proof_of_a_satisfiable_formula_is_accepted() -> None:
    """Each unsatisfiable formula with one clause made satisfied (a tautology in its place, so that the numbers
    stay) is satisfiable: the proof of the original must then be refused, whichever clause it was."""
    from pysat.solvers import Solver

    rng = random.Random(11)
    refused = 0
    for _ in range(30):
        clauses = random_unsat(rng)
        proof = lrat_proof(clauses)
        assert proof is not None
        steps = numbered(clauses)
        top = max(abs(lit) for clause in steps for lit in clause)
        for i in range(len(steps)):
            weakened = [*steps[:i], [top, -top], *steps[i + 1:]]
            with Solver(name="minisat22", bootstrap_with=weakened) as solver:
                if not solver.solve():
                    continue  # still unsatisfiable without it: a proof may be right to pass
            assert not check(weakened, proof).accepted, (clauses, i)
            refused += 1
    assert refused > 100  # the test tried enough satisfiable formulas to mean something


def written_both_ways(clauses: list[list[int]]) -> tuple[bytes, bytes]:
    """CaDiCaL's proof of ``clauses`` in binary LRAT (as gridsat asks for it) and in text, from two runs of
    the same deterministic search."""
    from gridsat.solvers.proof import prover as module

    binary = lrat_proof(clauses)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(module.LRAT_OPTIONS, "binary", 0)
        text = lrat_proof(clauses)
    assert binary is not None and text is not None
    return binary, text


def test_a_binary_proof_is_read_as_its_text_and_kept_as_that_text() -> None:
    from gridsat.solvers.proof.external import as_text
    from gridsat.solvers.proof.lrat import tokenized

    rng = random.Random(3)
    for _ in range(10):
        clauses = random_unsat(rng, variables=20)
        binary, text = written_both_ways(clauses)
        assert binary[:1] in (b"a", b"d") and len(binary) < len(text)
        (a, n, error), (b, m, other) = tokenized(binary), tokenized(text)
        assert error == other == -1 and n == m and (a[:n] == b[:m]).all()
        assert as_text(binary) == text  # byte for byte what CaDiCaL writes as text
        assert check(numbered(clauses), binary).accepted


def test_a_binary_proof_cut_short_or_changed_is_refused() -> None:
    rng = random.Random(4)
    clauses = random_unsat(rng, variables=20)
    binary, _ = written_both_ways(clauses)
    assert "the proof ends" in check(numbered(clauses), binary[:-1]).failure  # the last 0 of its hints cut
    assert "unreadable LRAT at byte 1" in check(numbered(clauses), b"a\x80").failure  # a number cut short
    assert "unreadable LRAT at byte 1" in check(numbered(clauses), b"a\x03\x00\x00").failure  # a negative number
    # deletions alone, each two bytes and three numbers: read whole (the tokens outgrow the bytes), and refused
    assert "without deriving the empty clause" in check(numbered(clauses), b"d\x00" * 5000).failure
    wrong = bytearray(binary)
    wrong[0] = ord("x")  # no step starts so, and as text it is unreadable too
    assert not check(numbered(clauses), bytes(wrong)).accepted


def test_the_tokenizers_never_write_past_their_array() -> None:
    """numba checks no bounds: a proof with more tokens than a well-formed one has room for wrote past the array
    (``d\\0`` repeated, binary: a glibc abort). Run as plain Python (``NUMBA_DISABLE_JIT``), where numpy checks
    every index, the tokenizers read such proofs whole."""
    import os
    import subprocess
    import sys

    probe = ("import numpy as np\n"
             "from gridsat.solvers.proof.lrat import _binary_tokens, _tokens\n"
             "read = lambda tokens, proof: tokens(np.frombuffer(proof, np.uint8))[1:]\n"
             "print([read(_tokens, b'd' * 1000), read(_tokens, b'd1' * 1000), read(_binary_tokens, b'd\\x00' * 1000),"
             " read(_binary_tokens, b'a\\x02\\x00\\x00' * 9)])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert done.stdout.strip() == "[(1000, -1), (2000, -1), (3000, -1), (27, -1)]", (done.stdout, done.stderr[-500:])


def test_a_huge_clause_number_is_written_as_it_is_and_never_sized_an_array() -> None:
    """Rewriting a proof as text reads no table of its numbers, and renumbering refuses a lemma number past what
    its clauses can reach before it makes one (a number of 10**12 asked for 8 TB: a MemoryError)."""
    from gridsat.solvers.proof.external import as_text, renumbered

    huge = b"5 2 0 1 2 0\n1000000000000 0 5 3 4 0\n"
    assert as_text(huge) == huge
    assert renumbered(huge, 4, []) is None
    assert not check(FORMULA, huge).accepted
