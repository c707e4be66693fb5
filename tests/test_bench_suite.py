"""Benchmark suites as data: the TOML loader's checks, the built-in suites, and the command's input errors."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from gridsat.benchmarks import command
from gridsat.benchmarks.results import judge
from gridsat.benchmarks.suite import SuiteError, builtin_suites, load, plan
from gridsat.models import names
from gridsat.models.errors import GridsatError, UnknownName


def suite_file(tmp_path: Path, text: str, name: str = "mine.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_builtin_suites_exist() -> None:
    assert {"smoke", "seeds", "scaling"} <= set(builtin_suites())


def test_unknown_top_level_key_is_named(tmp_path: Path) -> None:
    path = suite_file(tmp_path, 'timeout = 5\ntimout = 5\n')
    with pytest.raises(SuiteError, match=r"unknown key 'timout'; valid: description, mode, timeout"):
        load(path)


def test_unknown_entry_key_names_the_entry(tmp_path: Path) -> None:
    path = suite_file(tmp_path, '[[entry]]\npuzzle = "tatami"\ninstances = ["4x7"]\nencoding = "each"\n')
    with pytest.raises(SuiteError, match=r"mine.toml: entry 1: unknown key 'encoding'; valid: .*encodings"):
        load(path)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('puzzle = "tatami"\ninstances = ["4x7"]\nbackends = ["nope"]', r"unknown backend 'nope'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nencodings = ["nope"]', r"unknown encoding 'nope'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nsolvers = ["nope"]', r"unknown solver 'nope'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nalgorithms = ["nope"]', r"unknown algorithm 'nope'"),
        ('puzzle = "tatami"\ninstances = ["4y7"]', r"instance '4y7'"),
        ('puzzle = "tatami"\ninstances = [{ name = "4x7", expect = 3 }]', r"unknown key 'expect'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nmode = "race"', r"unknown mode 'race'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nencodings = "eech"', r"encodings must be one of 'default', "),
        ('puzzle = "no-such-puzzle"\ninstances = ["1"]', r"unknown puzzle 'no-such-puzzle'"),
    ],
)
def test_bad_entries_fail_before_any_run(tmp_path: Path, entry: str, message: str) -> None:
    with pytest.raises(GridsatError, match=message):
        plan(load(suite_file(tmp_path, f"[[entry]]\n{entry}\n")))


def test_bad_toml_and_unknown_suite(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="not valid TOML"):
        load(suite_file(tmp_path, "timeout = = 3\n"))
    with pytest.raises(UnknownName, match="unknown suite 'nope'; valid: .*smoke"):
        load("nope")


def test_optional_entry_of_a_missing_puzzle_is_skipped_with_a_note(tmp_path: Path) -> None:
    text = '[[entry]]\npuzzle = "not-yet"\ninstances = ["1"]\noptional = true\n'
    text += '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nbackends = ["reference"]\n'
    runs, notes = plan(load(suite_file(tmp_path, text)))
    assert [r.config for r in runs] == ["reference:rowscan"]
    assert any("'not-yet' skipped" in n for n in notes)


def test_encodings_scopes_and_per_backend_tables(tmp_path: Path) -> None:
    text = '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4", { name = "4x7", expected = 3 }]\n'
    text += 'backends = ["cpsat", "sat"]\nencodings = { sat = ["ladder", "totalizer"] }\nsolvers = ["minisat22"]\n'
    runs, _ = plan(load(suite_file(tmp_path, text)), repeat=2)
    configs = sorted({r.config for r in runs})
    assert configs == ["cpsat:default", "sat:ladder/minisat22", "sat:totalizer/minisat22"]
    assert len(runs) == 2 * 3 * 2
    assert {r.expected for r in runs if r.instance == "4x7"} == {3}


def test_smoke_covers_every_registered_puzzle_with_two_encodings() -> None:
    runs, _ = plan(load("smoke"))
    for puzzle in names():
        encodings = {(r.backend, r.encoding) for r in runs if r.puzzle == puzzle and r.encoding is not None}
        assert len(encodings) >= 2, f"smoke suite: give puzzle {puzzle!r} an entry with at least two encodings"


@pytest.mark.parametrize("name", ["seeds", "scaling"])
def test_builtin_suites_plan(name: str) -> None:
    runs, _ = plan(load(name))
    assert runs


def args(**given: object) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return parser.parse_args(["smoke", "--out", "unused", *[f"--{k}={v}" for k, v in given.items()]])


@pytest.mark.parametrize(("option", "value"), [("jobs", 0), ("jobs", 10_000), ("timeout", -1), ("repeat", 0)])
def test_bad_options_are_input_errors(option: str, value: int) -> None:
    with pytest.raises(GridsatError, match=f"--{option}"):
        command.run(args(**{option: value}))


def rec(backend: str, count: int, *, mode: str = "count", invalid: int = 0, status: str = "ok") -> dict:
    return {"puzzle": "p", "instance": "i", "params": {}, "mode": mode, "backend": backend, "config": backend,
            "count": count, "invalid": invalid, "status": status, "expected": None, "message": None}


def test_judge_majority_reference_and_ties() -> None:
    records = [rec("a", 4), rec("b", 4), rec("c", 3), rec("d", 9, status="timeout")]
    assert len(judge(records)) == 1 and [r["status"] for r in records] == ["ok", "ok", "wrong", "timeout"]
    records = [rec("reference", 4), rec("c", 3)]
    judge(records)
    assert [r["status"] for r in records] == ["ok", "wrong"]
    records = [rec("a", 4), rec("c", 3)]  # nobody can break the tie: both are reported
    assert len(judge(records)) == 2 and "4 vs 3" in records[0]["message"]
    records = [rec("a", 4, invalid=1), rec("b", 4)]
    judge(records)
    assert [r["status"] for r in records] == ["wrong", "ok"]


def test_judge_in_solve_mode_compares_satisfiability() -> None:
    records = [rec("a", 1, mode="solve"), rec("b", 1, mode="solve"), rec("c", 0, mode="solve")]
    judge(records)
    assert [r["status"] for r in records] == ["ok", "ok", "wrong"]
    assert judge(records[:2]) == []


def test_a_star_entry_runs_every_puzzle_no_other_entry_names_on_its_example(tmp_path: Path) -> None:
    path = tmp_path / "star.toml"
    path.write_text('[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\n\n[[entry]]\npuzzle = "*"\n')
    runs, _ = plan(load(str(path)))
    cases = {(r.puzzle, r.instance) for r in runs}
    assert cases == {("tatami", "3x4"), ("prime-grid", "3x3"), ("shikaku", "seed"), ("knights-tour", "3x4")}
