"""The report's statistics: spread over seeds, the virtual best, the paired test; and the folder and
scatter checks that run before any run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridsat.benchmarks import report, spread
from gridsat.benchmarks.command import main

HEAD = {"suite": "mine", "description": "", "limits": {"timeout": 10.0, "memory": 100, "seeds": 5},
        "machine": {"system": "Linux", "cpus": 2}, "python": "3.11", "packages": {}}


def record(config: str, case: str, seed: int, solve: float, status: str = "ok", **more: object) -> dict:
    backend, encoding = config.split(":")
    return {"kind": "run", "puzzle": "tatami", "instance": case, "params": {}, "backend": backend,
            "encoding": encoding, "solver": None, "algorithm": None, "config": config, "mode": "count",
            "repeat": 0, "seed": seed, "status": status, "count": 1, "seconds": solve + 0.01, "solve_seconds": solve,
            "build_seconds": 0.01, "wall_seconds": 1.0, "cpu_seconds": 0.5, "max_rss_bytes": 1 << 20,
            "variables": 10, "clauses": 20, "constraints": None, **more}


def test_quartiles_and_the_bootstrap_interval_surround_the_median() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 100.0]
    assert spread.quartiles(values) == (2.0, 3.0, 4.0)
    low, high = spread.bootstrap(values)
    assert low <= 3.0 <= high and (low, high) == spread.bootstrap(values)  # fixed seed: the same report twice
    assert spread.bootstrap([5.0]) == (5.0, 5.0)


def test_the_virtual_best_takes_each_instance_from_its_fastest_configuration() -> None:
    records = [record("sat:a", "3x4", 1, 1.0), record("sat:b", "3x4", 1, 2.0),
               record("sat:a", "4x7", 1, 5.0), record("sat:b", "4x7", 1, 3.0),
               record("sat:a", "5x5", 1, 1.0, "timeout"), record("sat:b", "5x5", 1, 9.0, "timeout")]
    best = spread.virtual_best(records, ["sat:a", "sat:b"], ["3x4", "4x7", "5x5"])
    assert [(b.seconds, b.winners) for b in best] == [(1.0, ("sat:a",)), (3.0, ("sat:b",)), (None, ())]
    assert spread.vbs_wins(best, "sat:a") == 1 and spread.vbs_wins(best, "sat:b") == 1


def test_the_paired_test_says_its_p_value_in_words() -> None:
    pytest.importorskip("scipy")
    records = [record("sat:a", case, seed, 1.0 + seed / 10) for case in ("3x4", "4x7") for seed in range(1, 6)]
    records += [record("sat:b", case, seed, 2.0 + seed / 7) for case in ("3x4", "4x7") for seed in range(1, 6)]
    test = spread.paired_test(records, "sat:a", "sat:b", 10.0)
    assert (test.pairs, test.first_faster, test.second_faster) == (10, 10, 0)
    assert test.p is not None and test.p < 0.01
    assert "the difference is significant at the 5% level" in test.words()
    same = spread.paired_test(records, "sat:a", "sat:a", 10.0)
    assert same.p is None and "no pair differs" in same.words()


def test_the_report_shows_spread_vbs_statistics_and_the_p_value(tmp_path: Path) -> None:
    stats = {"conflicts": 10, "decisions": 20, "propagations": 300, "restarts": 1}
    runs = [(case, seed) for case in ("3x4", "4x7") for seed in range(1, 6)]
    records = [record("sat:pairwise", case, seed, 0.2 * seed, **stats) for case, seed in runs]
    records += [record("reference:rowscan", case, seed, 0.3 * seed) for case, seed in runs]
    text = report.write(tmp_path, records, HEAD, scatter=("sat", "reference"), plots=False).read_text()
    assert "| *VBS* | 2/2 |" in text and "VBS wins" in text
    assert "| `sat:pairwise` | 10/10 | 0 | 0.600 | 0.400–0.800 |" in text
    assert "| configuration | conflicts | decisions | propagations | restarts |" in text
    assert "No statistics (the solver gives none): `reference:rowscan`." in text
    assert "95% interval s" in text and "Wilcoxon signed-rank p = " in text
    assert "pairwise PC" in text  # the strength column


def test_a_folder_of_another_suite_is_refused_and_left_unchanged(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.jsonl").write_text(json.dumps({**HEAD, "kind": "header", "suite": "smoke"}) + "\n")
    (out / "report.md").write_text("# Benchmark: smoke\n")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert main(["encodings", "--out", str(out), "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "belongs to one suite" in err and "'smoke'" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_scatter_pair_matching_nothing_is_refused_before_any_run(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["encodings", "--out", str(out), "--scatter", "sat:pairwse", "sat:crt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'sat:pairwse' matches no configuration" in err
    assert not out.exists()


def test_seeded_runs_record_statistics_seeds_and_one_cpsat_worker(tmp_path: Path) -> None:
    suite = tmp_path / "tours.toml"
    suite.write_text('mode = "solve"\nseeds = 2\n[[entry]]\npuzzle = "knights-tour"\ninstances = ["3x4"]\n'
                     'backends = ["cpsat", "sat"]\nencodings = { sat = ["cutset", "crt"] }\n')
    assert main([str(suite), "--out", str(tmp_path / "out"), "--no-plots", "--jobs", "2"]) == 0
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    runs = [json.loads(line) for line in lines[1:]]
    named = sorted((r["backend"] if r["backend"] == "cpsat" else r["config"].split("+")[0], r["seed"]) for r in runs)
    assert named == [("cpsat", 1), ("cpsat", 2), ("sat:crt", 1), ("sat:crt", 2), ("sat:cutset", 1), ("sat:cutset", 2)]
    for run in runs:
        assert run["status"] == "ok" and run["workers"] == 1
        assert all(isinstance(run[k], int) for k in ("conflicts", "decisions", "propagations", "restarts"))
        assert run["warm_seconds"] > 0 and run["solve_seconds"] > 0 and run["build_seconds"] > 0  # >= 0 never fails
        assert run["seconds"] == round(run["build_seconds"] + run["solve_seconds"], 6)
        lazy = run["config"].startswith("sat:cutset")
        assert (run["refinements"] is not None, run["added_clauses"] is not None) == (lazy, lazy)
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| configuration | conflicts | decisions | propagations | restarts | refinements | added clauses |" in report


def test_a_scrambled_formula_counts_the_same_through_the_sat_backend() -> None:
    from conftest import execute
    from gridsat import api
    from gridsat.solvers.backend import Request

    puzzle = api.get_puzzle("knights-tour")
    board = puzzle.parse("3x4", {})
    counts = {execute(puzzle, board, "sat", Request("cutset", seed=seed)).count for seed in (None, 1, 2, 3)}
    assert counts == {16}


@pytest.mark.parametrize("counter", ["d4", "ganak"])
def test_a_counter_counts_the_scrambled_formula_of_a_seed(counter: str) -> None:
    from gridsat import api
    from gridsat.models.errors import GridsatError
    from gridsat.solvers.backend import COUNT, Request
    from gridsat.solvers.gate import Job, bind
    from gridsat.solvers.run import tally

    puzzle = api.get_puzzle("knights-tour")
    board = puzzle.parse("3x4", {})
    try:
        bound = [bind(counter, puzzle, Job(COUNT, Request("crt", seed=seed))) for seed in (1, 2)]
    except GridsatError:  # the counters' extra is missing here
        pytest.skip(f"{counter} is not installed")
    found = [tally(puzzle, board, one) for one in bound]
    assert [t.count for t in found] == [16, 16] and found[1].details["scrambled_from"] == 2


def test_the_report_ranks_the_encodings_on_each_solver(tmp_path: Path) -> None:
    times = {("a", "s1"): 1.0, ("b", "s1"): 2.0, ("a", "s2"): 3.0, ("b", "s2"): 0.5}
    records = [{**record(f"sat:{e}/{s}", case, 1, t), "encoding": e, "solver": s}
               for (e, s), t in times.items() for case in ("4x7", "6x6")]
    text = report.write(tmp_path, records, HEAD, plots=False).read_text()
    assert "| `s1` | `a` < `b` |" in text and "| `s2` | `b` < `a` |" in text
    assert "The ranking changes with the solver: the best encoding is `a` on s1, `b` on s2." in text


def test_a_series_gets_cactus_scatter_and_growth_plots(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    records = [record(config, case, seed, size * seed / 100, conflicts=size * 10)
               for config in ("sat:a", "sat:b") for size, case in ((12, "3x4"), (20, "4x5"), (30, "5x6"))
               for seed in (1, 2)]
    text = report.write(tmp_path, records, HEAD, scatter=("sat:a", "sat:b")).read_text()
    for name in ("tatami-cactus.png", "tatami-scatter.png", "tatami-growth.png"):
        assert f"(plots/{name})" in text and (tmp_path / "plots" / name).stat().st_size > 1000


@pytest.mark.parametrize("name", ["encodings", "solvers", "smoke", "seeds"])
def test_every_builtin_suites_scatter_pair_matches_its_plan(name: str) -> None:
    from gridsat.benchmarks.command import check_scatter
    from gridsat.benchmarks.suite import load, plan

    suite = load(name)
    runs, _ = plan(suite)
    check_scatter(suite.scatter, runs, given=False)  # raises when a prefix matches nothing
