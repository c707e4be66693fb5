"""``gridsat.scaffold.write_plugin``: the skeleton it writes is a working plugin, and bad input writes nothing."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from math import comb
from pathlib import Path

import pytest

import gridsat.api
from conftest import gridsat as run_gridsat
from gridsat.models import ENTRY_POINTS
from gridsat.models.errors import InvalidOption
from gridsat.plugin import Puzzle
from gridsat.scaffold import write_plugin


@pytest.fixture
def skeleton(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The skeleton of a puzzle called ``no-two`` written into tmp_path; its package importable."""
    written = write_plugin("no-two", tmp_path)
    root = tmp_path / "gridsat-no-two"
    package = "gridsat_no_two"
    assert sorted(p.relative_to(root).as_posix() for p in written) == [
        "README.md", f"{package}/__init__.py", f"{package}/reference.py", "pyproject.toml", f"tests/test_{package}.py"]
    monkeypatch.syspath_prepend(str(root))
    yield root
    for module in [m for m in sys.modules if m == "gridsat_no_two" or m.startswith("gridsat_no_two.")]:
        del sys.modules[module]


def test_the_written_puzzle_cross_checks_on_every_backend(skeleton: Path) -> None:
    puzzle = importlib.import_module("gridsat_no_two").PUZZLE
    assert isinstance(puzzle, Puzzle) and puzzle.name == "no-two"
    report = gridsat.api.crosscheck(puzzle, "7", params={"k": "3"}, backends=["cpsat", "sat", "reference"])
    assert report.agree, report.problems
    assert {outcome.count for outcome in report.outcomes} == {comb(7 - 3 + 1, 3)}
    assert gridsat.api.count(puzzle, "12", params={"k": "4"}, backend="sat").count == comb(12 - 4 + 1, 4)


def test_the_written_pyproject_registers_the_puzzle_in_gridsats_entry_point_group(skeleton: Path) -> None:
    project = tomllib.loads((skeleton / "pyproject.toml").read_text())
    assert project["project"]["entry-points"][ENTRY_POINTS] == {"no-two": "gridsat_no_two:PUZZLE"}
    assert project["tool"]["setuptools"]["packages"] == ["gridsat_no_two"]


def test_the_written_plugin_imports_only_the_public_plugin_module(skeleton: Path) -> None:
    text = "\n".join(p.read_text() for p in (skeleton / "gridsat_no_two").glob("*.py"))
    assert "gridsat.plugin" in text and "gridsat.models" not in text and "gridsat.solvers" not in text


@pytest.mark.slow
def test_the_written_tests_pass(skeleton: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=skeleton,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout


@pytest.mark.parametrize("name", ["", "Queens", "1queens", "no--two", "no two", "no-", "nø", "a" * 41, "tatami"])
def test_a_bad_name_is_one_line_and_writes_nothing(tmp_path: Path, name: str) -> None:
    with pytest.raises(InvalidOption, match="bad puzzle name") as caught:
        write_plugin(name, tmp_path)
    assert "\n" not in str(caught.value) and list(tmp_path.iterdir()) == []


def test_an_existing_target_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "gridsat-no-two").mkdir()
    (tmp_path / "gridsat-no-two" / "mine.txt").write_text("keep me")
    with pytest.raises(InvalidOption, match="already exists") as caught:
        write_plugin("no-two", tmp_path)
    assert "\n" not in str(caught.value)
    assert [p.name for p in (tmp_path / "gridsat-no-two").iterdir()] == ["mine.txt"]


def test_the_new_puzzle_command_prints_each_file_it_wrote(tmp_path: Path) -> None:
    run = run_gridsat("new-puzzle", "latin", "--dir", str(tmp_path))
    assert run.returncode == 0, run.stderr
    written = run.stdout.splitlines()
    assert len(written) == 5 and all(Path(line).is_file() for line in written)
    assert (tmp_path / "gridsat-latin" / "gridsat_latin" / "__init__.py").as_posix() in {
        Path(line).as_posix() for line in written}


@pytest.mark.parametrize("name", ["Bad Name", "tatami"])
def test_the_new_puzzle_command_refuses_a_bad_name_in_one_line(tmp_path: Path, name: str) -> None:
    run = run_gridsat("new-puzzle", name, "--dir", str(tmp_path))
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and name in run.stderr
    assert list(tmp_path.iterdir()) == []
