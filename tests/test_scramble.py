"""Scrambles as the competitions' shufflers make them: renamed, polarities flipped, clauses and literals
shuffled; the count is unchanged and the decoder maps flipped polarities back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_export import projected_count

from conftest import execute, split_run_of
from conftest import gridsat as run_gridsat
from gridsat import api
from gridsat.models.scramble import ScrambledCnf, scramble
from gridsat.solvers.backend import Request


def positives(path: Path) -> int:
    """How many positive literals the clauses of a DIMACS file hold."""
    lines = [line for line in path.read_text().splitlines() if line and line[0] not in "cp"]
    return sum(int(lit) > 0 for line in lines for lit in line.split()[:-1])


def test_five_scrambles_of_tatami_4x7_count_3_and_flip_polarities(tmp_path: Path) -> None:
    plain = tmp_path / "plain.cnf"
    assert run_gridsat("export", "tatami", "4x7", "--format", "dimacs", "-o", str(plain)).returncode == 0
    changed = 0
    for seed in range(1, 6):
        path = tmp_path / f"s{seed}.cnf"
        assert run_gridsat("export", "tatami", "4x7", "--format", "dimacs", "--scramble", str(seed),
                           "-o", str(path)).returncode == 0
        assert projected_count(path) == 3
        changed += positives(path) != positives(plain)
    assert changed >= 3  # a renaming and shuffles alone never change the number of positive literals


def solutions(puzzle: str, instance: str, encoding: str, seed: int | None) -> set:
    chosen = api.get_puzzle(puzzle)
    solver = "minicard" if encoding == "native" else None
    found = execute(chosen, chosen.parse(instance, {}), "sat", Request(encoding, solver, seed=seed), keep=True)
    assert found.complete and not found.invalid and not found.duplicates
    return {repr(s) for s in found.solutions}


@pytest.mark.parametrize(("puzzle", "instance", "encoding"), [
    ("tatami", "4x7", None),  # block_true_only: the blocking clause over the literals that make a key true
    ("knights-tour", "3x4", "cutset"),  # lazy: the refinement reads and writes flipped variables
    ("prime-grid", "3x3", None),
    ("tatami", "4x7", "native"),  # CNF+: the native at-most-ones are scrambled with the clauses
])
def test_the_decoder_maps_flipped_polarities_back(puzzle: str, instance: str, encoding: str | None) -> None:
    plain = solutions(puzzle, instance, encoding, None)
    for seed in (1, 2, 3):
        assert solutions(puzzle, instance, encoding, seed) == plain


def test_a_scramble_flips_projection_variables_and_its_rows_map_back() -> None:
    puzzle = api.get_puzzle("tatami")
    room = puzzle.parse("3x4", {})
    f = scramble(puzzle.cnf(room, puzzle.cnf_encodings.resolve(None)), 7)
    assert isinstance(f, ScrambledCnf) and set(f.projection) & f.flipped and set(f.projection) - f.flipped
    row = tuple(i % 2 for i in range(len(f.projection)))
    assert f.row_of(f.blocking_of(row)) == row or f.block_true_only
    keys = dict(zip(f.keys, row, strict=True))
    model = sorted((f.literal(k, v) for k, v in keys.items()), key=abs)
    full = [lit for lit in range(1, f.cnf.nv + 1)]
    for lit in model:
        full[abs(lit) - 1] = lit
    assert f.values(full) == keys
    with pytest.raises(ValueError, match="already scrambled"):
        scramble(f, 1)


def test_a_split_count_of_a_scrambled_formula_counts_the_same() -> None:
    """A part's fixed keys become unit literals of the scrambled formula, flipped where the variable is."""
    from gridsat.solvers.run import consume
    from gridsat.solvers.splitting.parallel import Split

    puzzle = api.get_puzzle("prime-grid")
    grid = puzzle.parse("3x3", {})
    outcome = consume(split_run_of(puzzle, grid, "sat", Request(seed=3), Split(jobs=1, probe=0, parts=6)))
    assert (outcome.count, outcome.complete, outcome.duplicates) == (128, True, 0) and outcome.parts > 1


def test_bench_scramble_runs_every_configuration_from_that_seed(tmp_path: Path, capsys) -> None:
    from gridsat.benchmarks.command import main

    suite = tmp_path / "tiny.toml"
    suite.write_text('[[entry]]\npuzzle = "tatami"\ninstances = [{ name = "4x7", expected = 3 }]\n'
                     'backends = ["sat"]\nencodings = ["pairwise", "seqcounter"]\n')
    assert main([str(suite), "--out", str(tmp_path / "out"), "--no-plots", "--scramble", "4"]) == 0
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()[1:]
    assert [(r["seed"], r["count"], r["status"]) for r in map(json.loads, lines)] == [(4, 3, "ok"), (4, 3, "ok")]
    assert "seeds: the one seed 4 (--scramble)" in (tmp_path / "out" / "report.md").read_text()
    assert main([str(suite), "--out", str(tmp_path / "no"), "--scramble", "4", "--seeds", "2"]) == 2
    assert "--scramble 4 runs one seed: give it or --seeds 2, not both" in capsys.readouterr().err
