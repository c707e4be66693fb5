"""Third-party puzzles through the ``gridsat.puzzles`` entry point group: the N-Queens example plugin,
installed for real, and plugins that are broken in every way a plugin can be."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

EXAMPLE = ROOT / "examples" / "nqueens"
# OEIS A000170: the number of ways to place n non-attacking queens on an n x n board.
A000170 = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92}


def run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with ``site`` first on the path, from a folder that holds no gridsat source."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=site, timeout=300)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example plugin installed (not editable) into a folder of its own."""
    site = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(site), str(EXAMPLE)], check=True, capture_output=True, timeout=300)
    return site


def test_the_installed_plugin_is_listed_and_cross_checks_on_every_backend(installed: Path) -> None:
    listing = run(installed, "-m", "gridsat", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    found = json.loads(listing.stdout)
    assert [p["name"] for p in found["puzzles"]][-1] == "nqueens" and found["plugin_errors"] == []
    check = run(installed, "-m", "gridsat", "crosscheck", "nqueens", "8", "--json")
    assert check.returncode == 0, check.stdout + check.stderr
    report = json.loads(check.stdout)
    # Every installed backend that counts a puzzle with a CNF; it has no frontier spec, which a note says.
    counters = {b["name"] for b in found["backends"] if b["available"] and b["name"] in ("d4", "ganak")}
    assert report["agree"] and {r["backend"] for r in report["results"]} == {"cpsat", "sat", "reference", *counters}
    assert any(note.startswith("frontier: not run: ") for note in report["notes"])
    assert {r["count"] for r in report["results"]} == {A000170[8]}


def test_the_plugin_counts_the_oeis_values_through_the_python_api(installed: Path) -> None:
    code = "import gridsat; print([gridsat.count('nqueens', str(n), backend='sat').count for n in range(1, 9)])"
    done = run(installed, "-c", code)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [A000170[n] for n in range(1, 9)]


def test_the_plugin_joins_every_encoding_of_a_crosscheck(installed: Path) -> None:
    done = run(installed, "-m", "gridsat", "crosscheck", "nqueens", "6", "--encodings", "each",
               "--backends", "cpsat,sat,reference,d4")
    assert done.returncode == 0, done.stdout + done.stderr
    # cpsat, every at-most-one encoding on sat and on d4 (but native, which d4 cannot count), reference
    from gridsat.models.constraints import amo

    assert f"{1 + 2 * len(amo.axis().choices)} runs agree: 4 solutions" in done.stdout


def fake_distribution(site: Path, name: str, entry_points: str, modules: dict[str, str]) -> None:
    """A minimal installed distribution: its modules and a dist-info folder with entry points."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for module, text in modules.items():
        (site / f"{module}.py").write_text(textwrap.dedent(text))


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """Four bad plugins: one that fails to import, one that is not a Puzzle, one whose name does not
    match, and one that tries to replace a built-in puzzle."""
    fake_distribution(tmp_path, "bad_plugins", """
        [gridsat.puzzles]
        crashes = crashing_plugin:PUZZLE
        notapuzzle = odd_plugin:THING
        misnamed = odd_plugin:OTHER
        tatami = odd_plugin:THING
    """, {
        "crashing_plugin": "raise RuntimeError('the plugin is\\nbroken')\n",
        "odd_plugin": """
            from gridsat.models import get_puzzle
            THING = 42
            OTHER = get_puzzle("knights-tour")
        """,
    })
    return tmp_path


def test_broken_plugins_are_one_line_each_and_builtins_still_work(broken: Path) -> None:
    done = run(broken, "-m", "gridsat", "list")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("broken plugin:")]
    assert len(lines) == 4, done.stdout
    text = "\n".join(lines)
    assert "'crashes'" in text and "RuntimeError: the plugin is broken" in text
    assert "'notapuzzle'" in text and "is a int, not a gridsat Puzzle" in text
    assert "'misnamed'" in text and "named 'knights-tour'" in text
    assert "'tatami'" in text and "a built-in puzzle has that name" in text
    assert "tatami" in done.stdout.split("backends:")[0] and "Traceback" not in done.stderr
    count = run(broken, "-m", "gridsat", "count", "tatami", "3x4")
    assert (count.returncode, count.stdout) == (0, "4\n")


def test_running_a_broken_plugin_is_one_line_and_status_2(broken: Path) -> None:
    done = run(broken, "-m", "gridsat", "count", "crashes", "3")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "gridsat: error: plugin 'crashes' (crashing_plugin:PUZZLE, from bad_plugins) failed to load: "
        "RuntimeError: the plugin is broken"]


def test_the_plugin_joins_a_benchmark_suite_through_its_example(installed: Path, tmp_path: Path) -> None:
    suite = tmp_path / "plugins.toml"
    suite.write_text('[[entry]]\npuzzle = "*"\nbackends = ["sat", "reference"]\n')
    done = run(installed, "-m", "gridsat", "bench", str(suite), "--out", str(tmp_path / "out"), "--no-plots")
    assert done.returncode == 0, done.stdout + done.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()[1:]]
    queens = [r for r in records if r["puzzle"] == "nqueens"]
    assert len(queens) == 2 and {(r["status"], r["count"]) for r in queens} == {("ok", A000170[6])}


@pytest.mark.parametrize("field", ["symmetries", "draw", "sketch", "corpus", "ladder", "cells"])
def test_the_old_flat_fields_are_gone(field: str) -> None:
    # Deprecated for the alpha and removed: a puzzle declares its parts (symmetry=, pictures=, mutation=).
    from gridsat.models import get_puzzle
    from gridsat.plugin import Puzzle

    new = get_puzzle("tatami")
    core = {name: getattr(new, name) for name in ("summary", "instance_help", "params", "parse", "cpsat", "cnf",
                                                  "verify", "render", "describe", "cnf_encodings", "reference")}
    with pytest.raises(TypeError, match=f"'{field}'"):
        Puzzle(name="tatami-old", **core, **{field: None})


def test_a_plugin_declaring_the_parts_does_not_warn() -> None:
    import warnings

    from gridsat.models import get_puzzle
    from gridsat.plugin import Puzzle

    new = get_puzzle("tatami")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Puzzle(name="tatami-new", summary="", instance_help="", params={}, parse=new.parse, cpsat=new.cpsat,
               cnf=new.cnf, verify=new.verify, render=new.render, describe=new.describe, pictures=new.pictures,
               symmetry=new.symmetry, frontier=new.frontier, mutation=new.mutation)


def test_decode_sees_every_primary_key_from_every_backend() -> None:
    """The CNF side hands decode the value of every projection key, like CP-SAT does, so a decoder
    never asks which backend ran (the N-Queens example's two decoders rely on it)."""
    from pysat.solvers import Solver

    from gridsat.models import get_puzzle

    tatami = get_puzzle("tatami")
    room = tatami.parse("2x3", {})
    f = tatami.cnf(room, tatami.cnf_encodings.resolve(None))
    with Solver(name="minisat22", bootstrap_with=f.cnf.clauses) as oracle:
        assert oracle.solve()
        values = f.values(oracle.get_model())
    assert list(values) == f.keys and set(values.values()) == {0, 1}
    assert sum(values.values()) == 3 and tatami.verify(room, f.decode(values)) == []
