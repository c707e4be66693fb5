"""N-Queens cross-checked: every backend finds the same placements, as many as OEIS A000170 says."""

from __future__ import annotations

import pytest
from gridsat_nqueens import PUZZLE

import gridsat
from gridsat.plugin import InvalidInstance

A000170 = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4}


@pytest.mark.parametrize("size", sorted(A000170))
def test_every_backend_agrees_and_counts_a000170(size: int) -> None:
    report = gridsat.crosscheck(PUZZLE, str(size), backends=["cpsat", "sat", "reference"])
    assert report.agree, report.problems
    assert {outcome.count for outcome in report.outcomes} == {A000170[size]}


def test_every_cnf_encoding_agrees() -> None:
    assert gridsat.crosscheck(PUZZLE, "5", encodings="each").agree


def test_a_bad_board_is_one_clear_error() -> None:
    with pytest.raises(InvalidInstance, match="bad board"):
        PUZZLE.parse("8x9", {})


def test_the_oracle_counts_a000170_and_fuzz_finds_no_difference() -> None:
    for case in PUZZLE.mutation.corpus():
        assert len(list(PUZZLE.oracle.solutions(PUZZLE.parse(case.text, {})))) == case.count, case.text
    report = gridsat.api.fuzz([PUZZLE], seed=1, pairs=30, budget=120)
    assert report.agree and report.pairs >= 30
