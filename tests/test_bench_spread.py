"""The report's statistics: spread over seeds, the virtual best, the paired test; and the folder and
scatter checks that run before any run."""

from __future__ import annotations

import csv
import io
import json
import random
import statistics
from pathlib import Path

import pytest

from gridsat.benchmarks import report, spread
from gridsat.benchmarks.command import main

HEAD = {"suite": "mine", "description": "", "limits": {"timeout": 10.0, "memory": 100, "seeds": 5},
        "machine": {"system": "Linux", "cpus": 2}, "python": "3.11", "packages": {}}


def record(config: str, case: str, seed: int, solve: float, status: str = "ok", cpu: bool = False,
           **more: object) -> dict:
    """A run's record; ``cpu``: with the CPU time of build and solve (1.1 times their wall time) and of the
    solve alone (0.9 times it)."""
    backend, encoding = config.split(":")
    timed = {"run_cpu_seconds": round(1.1 * solve, 6), "solve_cpu_seconds": round(0.9 * solve, 6)} if cpu else {}
    return {**timed, "kind": "run", "puzzle": "tatami", "instance": case, "params": {}, "backend": backend,
            "encoding": encoding, "solver": None, "algorithm": None, "config": config, "mode": "count",
            "repeat": 0, "seed": seed, "status": status, "count": 1, "seconds": solve, "solve_seconds": solve,
            "build_seconds": 0.0, "wall_seconds": 1.0, "cpu_seconds": 0.5, "max_rss_bytes": 1 << 20,
            "variables": 10, "clauses": 20, "constraints": None, **more}


def test_quartiles_and_the_bootstrap_interval_need_ten_values() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 100.0]
    assert spread.quartiles(values) == (2.0, 3.0, 4.0)
    assert spread.bootstrap(values) is None  # over 5 values the interval is nearly [min, max]: not shown
    values = [1.0 + i / 10 for i in range(12)]
    low, high = spread.bootstrap(values)
    assert low <= statistics.median(values) <= high and (low, high) == spread.bootstrap(values)  # fixed seed


def test_a_figure_is_the_median_with_timeouts_censored_never_dropped() -> None:
    runs = [record("sat:a", "4x7", s, 1.0) for s in (1, 2, 3)] + [record("sat:a", "4x7", 4, 9.0, "timeout")]
    assert spread.cell_time(runs) == 1.0  # 3 of 4 solved in 1 s: the median is 1 s
    half = runs[:2] + [record("sat:a", "4x7", s, 9.0, "timeout") for s in (3, 4)]
    assert spread.cell_time(half) is None  # the upper middle run timed out: the median is at or above the limit
    slow = [record("sat:a", "4x7", 1, 1.0), record("sat:a", "4x7", 2, 5.0), record("sat:a", "4x7", 3, 9.0, "memout")]
    assert spread.cell_time(slow) == 5.0  # the unsolved run still counts: not the median of the ok runs (3.0)
    found = spread.spread("sat:a", "4x7", half)
    assert (found.ok, found.median, found.q1, found.q3, found.interval) == (2, None, 1.0, None, None)


def test_the_vbs_is_never_worse_than_a_member_in_the_issue_case() -> None:
    """A solves 3 of 4 seeds in 1 s, B always times out, 10 s limit: the VBS's PAR-2 was 20, A's 5.75."""
    records = [record("sat:a", "4x7", s, 1.0) for s in (1, 2, 3)] + [record("sat:a", "4x7", 4, 10.0, "timeout")]
    records += [record("sat:b", "4x7", s, 10.0, "timeout") for s in (1, 2, 3, 4)]
    best = spread.virtual_best(records, ["sat:a", "sat:b"], ["4x7"])
    assert [(b.seconds, b.winners) for b in best] == [(1.0, ("sat:a",))]
    rows = {r["config"]: r for r in report.summarize(records, 10.0, best)}
    vbs = spread.par2([b.seconds for b in best], 10.0)
    assert (rows["sat:a"]["par2_seconds"], rows["sat:b"]["par2_seconds"], vbs) == (1.0, 20.0, 1.0)


def test_the_vbs_median_and_par2_are_never_worse_than_any_member_on_random_runs() -> None:
    rng = random.Random(52)
    cases = [f"{n}x{n}" for n in range(3, 9)]
    for _ in range(200):
        records = [record(config, case, seed, rng.choice([0.001, 0.1, 1.0, 3.0, 9.0]) * rng.random(),
                          rng.choice(["ok", "ok", "ok", "timeout"]), cpu=True)
                   for config in ("sat:a", "sat:b", "sat:c") for case in cases for seed in range(1, 6)]
        best = spread.virtual_best(records, ["sat:a", "sat:b", "sat:c"], cases)
        figures = [b.seconds for b in best]
        vbs_median, vbs_par2 = spread.median_over(figures), spread.par2(figures, 10.0)
        for row in report.summarize(records, 10.0, best):
            assert vbs_par2 <= row["par2_seconds"]
            assert row["median_cpu_seconds"] is None or vbs_median <= row["median_cpu_seconds"]


def tour(config: str, case: str, seed: int, solve: float) -> dict:
    return record(config, case, seed, solve, cpu=True)


def test_the_paired_test_runs_on_instances_not_seeds() -> None:
    pytest.importorskip("scipy")
    few = [tour(c, case, seed, t * seed) for case in ("4x7", "6x6", "5x8") for seed in range(1, 5)
           for c, t in (("sat:a", 1.0), ("sat:b", 2.0))]
    test = spread.paired_test(few, "sat:a", "sat:b", 10.0)
    assert (test.instances, test.first_faster, test.p) == (3, 3, None)  # 12 (instance, seed) pairs: still 3
    assert "too few instances for a test" in test.words() and "significant" not in test.words()
    cases = [f"{n}x7" for n in range(3, 11)]
    many = [tour(c, case, seed, (i + 1) * t + seed / 100) for i, case in enumerate(cases) for seed in range(1, 6)
            for c, t in (("sat:a", 1.0), ("sat:b", 1.5))]
    test = spread.paired_test(many, "sat:a", "sat:b", 100.0)
    assert (test.instances, test.first_faster, test.method) == (8, 8, "exact")
    assert test.p == pytest.approx(2 / 2**8)  # exact: all 8 signs one way
    assert test.ratio == pytest.approx(1 / 1.5, rel=0.01) and test.interval is None  # 8 instances: no interval
    assert "n = 8 instances" in test.words() and "is significant" in test.words()


def test_holm_corrects_several_pairs() -> None:
    assert spread.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    pytest.importorskip("scipy")
    cases = [f"{n}x7" for n in range(3, 9)]  # 6 instances: the smallest exact p is 0.03125
    records = [tour(c, case, 1, (i + 1) * t) for i, case in enumerate(cases)
               for c, t in (("sat:a", 1.0), ("sat:b", 2.0), ("sat:c", 3.0))]
    first, second = spread.paired_tests(records, [("sat:a", "sat:b"), ("sat:a", "sat:c")], 100.0)
    assert first.p == pytest.approx(0.03125) and first.adjusted == pytest.approx(0.0625)
    assert not first.significant() and "Holm-adjusted p = 0.0625" in first.words()
    alone = spread.paired_tests(records, [("sat:a", "sat:b")], 100.0)[0]
    assert alone.adjusted is None and alone.significant()


def test_the_report_shows_cpu_and_wall_size_ranges_and_the_vbs(tmp_path: Path) -> None:
    stats = {"conflicts": 10, "decisions": 20, "propagations": 300, "restarts": 1}
    runs = [(case, seed) for case in ("3x4", "4x7") for seed in range(1, 6)]
    records = [record("sat:pairwise", case, seed, 0.2 * seed, cpu=True, variables=10 if case == "3x4" else 13,
                      **stats) for case, seed in runs]
    records += [record("reference:rowscan", case, seed, 0.3 * seed, cpu=True) for case, seed in runs]
    text = report.write(tmp_path, records, HEAD, scatter=("sat", "reference"), plots=False).read_text()
    assert ("| configuration | solved runs | solved instances | wrong | median CPU s | median wall s | solve CPU s "
            "| build s |") in text
    # CPU is 1.1 x the wall time of build and solve here, the solve's own CPU 0.9 x it: each in its column
    assert "| `sat:pairwise` | 10/10 | 2/2 | 0 | 0.660 | 0.600 | 0.540 | 0.000 |" in text
    assert "| *VBS* |  | 2/2 |  | 0.660 |  |  |  | 0.660 |" in text and "VBS wins" in text
    assert "| 10–13 | 20 |" in text  # variables as a range over the instances, never a median
    assert "| configuration | conflicts | decisions | propagations | restarts |" in text
    assert "No statistics (the solver gives none): `reference:rowscan`." in text
    assert "95% interval s" in text and "too few instances for a test (n = 2 instances" in text
    assert "Wilcoxon" not in text.split("Paired test")[-1].split("\n")[0].replace("Wilcoxon signed-rank test", "")
    assert "pairwise PC" in text  # the strength column
    assert "Too short to time" not in text


def test_summary_csv_writes_size_ranges_as_numbers_never_python_tuples(tmp_path: Path) -> None:
    records = [record("sat:pairwise", case, 1, 0.5, variables=v) for case, v in (("3x4", 12), ("4x7", 40))]
    records += [record("sat:ladder", case, 1, 0.5, variables=30) for case in ("3x4", "4x7")]
    report.write(tmp_path, records, HEAD, plots=False)
    text = (tmp_path / "summary.csv").read_text()
    assert "(" not in text  # a tuple's text, "(12, 40)", is what a spreadsheet cannot read
    rows = {row["config"]: row for row in csv.DictReader(io.StringIO(text))}
    pairwise, ladder = rows["sat:pairwise"], rows["sat:ladder"]
    assert (pairwise["variables_min"], pairwise["variables_max"], pairwise["variables_range"]) == ("12", "40", "12-40")
    assert (ladder["variables_min"], ladder["variables_max"], ladder["variables_range"]) == ("30", "30", "30")
    assert (pairwise["clauses_range"], pairwise["constraints_range"], pairwise["constraints_min"]) == ("20", "", "")


def test_runs_under_ten_milliseconds_are_flagged_too_short_to_time(tmp_path: Path) -> None:
    records = [record("sat:a", "3x4", seed, 0.002, cpu=True) for seed in range(1, 4)]
    text = report.write(tmp_path, records, HEAD, plots=False).read_text()
    assert "**Too short to time:** 3 of 3 ok runs took under 10 ms of CPU time (`sat:a` on `3x4`)" in text
    assert "Use a larger instance" in text


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


@pytest.mark.parametrize("name", ["encodings", "solvers", "smoke", "seeds", "paper"])
def test_every_builtin_suites_scatter_pair_matches_its_plan(name: str) -> None:
    from gridsat.benchmarks.command import check_scatter
    from gridsat.benchmarks.suite import load, plan

    suite = load(name)
    runs, _ = plan(suite)
    check_scatter(suite.scatter, runs, given=False)  # raises when a prefix matches nothing


def test_an_instance_a_configuration_did_not_run_counts_as_unsolved() -> None:
    records = [record("sat:a", "3x4", 1, 1.0), record("sat:b", "3x4", 1, 2.0), record("sat:b", "4x7", 1, 3.0)]
    best = spread.virtual_best(records, ["sat:a", "sat:b"], ["3x4", "4x7"])
    rows = {r["config"]: r for r in report.summarize(records, 10.0, best)}
    a = rows["sat:a"]
    assert (a["instances_solved"], a["instances"], a["par2_seconds"]) == (1, 2, 10.5)  # 4x7 at twice the limit
    assert spread.par2([b.seconds for b in best], 10.0) == 2.0 <= rows["sat:b"]["par2_seconds"]
