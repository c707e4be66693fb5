"""Results tied to the code: each record's fingerprint, a rerun of the runs whose code changed,
``--fresh``, ``gridsat bench compare A B`` and ``gridsat.bench``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridsat.benchmarks import fingerprint
from gridsat.benchmarks.command import main

SUITE = ('[[entry]]\npuzzle = "tatami"\ninstances = [{ name = "3x4", expected = 4 }, "4x7"]\nbackends = ["sat"]\n'
         'encodings = ["pairwise"]\n')


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()[1:]]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("suite") / "tiny.toml"
    path.write_text(SUITE)
    return path


def test_a_changed_fingerprint_reruns_its_runs_and_fresh_reruns_all(suite: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main([str(suite), "--out", str(out), "--no-plots"]) == 0
    first = records(out)
    assert {tuple(sorted(r["fingerprint"])) for r in first} == {("backend", "encoding", "gridsat", "plugins", "solver")}
    assert first[0]["fingerprint"] == fingerprint.fingerprint("tatami", "sat")
    assert main([str(suite), "--out", str(out), "--no-plots"]) == 0
    assert "(2 already recorded)" in capsys.readouterr().err
    # A record made by other encoding code: its run is made again, the other one kept.
    lines = (out / "results.jsonl").read_text().splitlines()
    planted = json.loads(lines[1])
    planted["fingerprint"] = {**planted["fingerprint"], "encoding": "0123456789abcdef"}
    (out / "results.jsonl").write_text("\n".join([lines[0], json.dumps(planted), *lines[2:]]) + "\n")
    assert main([str(suite), "--out", str(out), "--no-plots"]) == 0
    err = capsys.readouterr().err
    assert "note: 1 recorded runs were made with other code or versions (their fingerprint changed: encoding)" in err
    assert "(1 already recorded)" in err
    again = records(out)
    assert len(again) == 2 and all(r["fingerprint"]["encoding"] != "0123456789abcdef" for r in again)
    # --fresh: everything again, even under other limits (which a resume refuses).
    assert main([str(suite), "--out", str(out), "--no-plots", "--time-limit", "30"]) == 2
    capsys.readouterr()
    assert main([str(suite), "--out", str(out), "--no-plots", "--fresh", "--time-limit", "30"]) == 0
    assert "(0 already recorded)" in capsys.readouterr().err and len(records(out)) == 2


def test_the_encoding_digest_follows_the_source(tmp_path: Path) -> None:
    source = tmp_path / "encoding.py"
    source.write_text("x = 1\n")
    before = fingerprint.digest([source])
    source.write_text("x = 2\n")
    assert fingerprint.digest([source]) != before and fingerprint.digest([tmp_path]) == fingerprint.digest([source])
    assert any(p.name == "formulations.py" for p in fingerprint.puzzle_files("tatami"))


def test_compare_puts_two_folders_side_by_side(suite: Path, tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert main([str(suite), "--out", str(out), "--no-plots"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b)]) == 0
    text = capsys.readouterr().out
    assert "| puzzle | instance | configuration | A s | B s | B/A |" in text
    assert text.count("| tatami | `") == 2 and "too few instances for a test (at least 6)" in text


def test_compare_exits_1_and_names_a_folder_s_wrong_run(suite: Path, tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert main([str(suite), "--out", str(out), "--no-plots"]) == 0
    # Plant a count that disagrees with the suite's expected 4 on 3x4, its status left "ok" as if written so
    lines = (b / "results.jsonl").read_text().splitlines()
    planted = [json.loads(line) for line in lines]
    for record in planted[1:]:
        if record["instance"] == "3x4":
            record["count"] = 5
    (b / "results.jsonl").write_text("\n".join(json.dumps(r) for r in planted) + "\n")
    capsys.readouterr()
    assert main(["compare", str(a), str(b)]) == 1
    out, err = capsys.readouterr()
    assert "## Wrong runs: 1" in out
    assert err.count("\n") == 1 and err.startswith("B: WRONG tatami 3x4 `sat:mats+pairwise+nosymmetry/cadical195`")
    assert "answered 5" in err and "says 4" in err
    assert main(["compare", str(a), str(a)]) == 0  # the same folders, unplanted: no failure
    import gridsat

    side = gridsat.bench("compare", a, b)
    assert side.status == 1 and "B: WRONG tatami 3x4" in side.notes


@pytest.mark.parametrize(("argv", "said"), [
    (["compare", "nowhere-a", "nowhere-b"], "'nowhere-a' holds no results.jsonl"),
    (["compare", "one"], "compare takes two results folders (A B), not 1"),
    (["smoke"], "--out DIR is required to run a suite"),
    (["smoke", "extra", "--out", "x"], "unexpected 'extra' after the suite"),
])
def test_compare_and_bench_refuse_bad_input_in_one_line(argv: list[str], said: str, tmp_path: Path,
                                                        monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and not list(tmp_path.iterdir())


def test_gridsat_bench_runs_a_suite_and_compares_folders(suite: Path, tmp_path: Path) -> None:
    import gridsat

    done = gridsat.bench(suite, out=tmp_path / "a")
    assert done.status == 0 and done.text.startswith("2 ok; report: ") and done.report.is_file()
    assert [r["count"] for r in done.records()] == [4, 3] and all(r["fingerprint"] for r in done.records())
    again = gridsat.bench(suite, out=tmp_path / "a", fresh=True)
    assert "(0 already recorded)" in again.notes
    side = gridsat.bench("compare", tmp_path / "a", tmp_path / "a")
    assert side.status == 0 and side.out is None and "| A s | B s | B/A |" in side.text
    with pytest.raises(gridsat.GridsatError, match="holds no results.jsonl"):
        gridsat.bench("compare", tmp_path / "nothing", tmp_path / "a")
