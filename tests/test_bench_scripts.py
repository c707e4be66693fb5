"""The per-puzzle benchmark scripts: a quick series by default that says how to run the full one."""

from __future__ import annotations

import argparse
import json

import pytest

from gridsat.benchmarks.compare import amo, certify, knights_tour, mutation, prime_grid, tatami


def test_the_default_run_is_quick_and_names_the_full_series(capsys):
    prime_grid.main(["--sizes", "3x3/10", "--configs", "sat:support"])
    out = capsys.readouterr().out
    assert "# 3x3/10; time limit 10 s per run" in out
    assert "python -m gridsat.benchmarks.compare.prime_grid --full" in out
    assert "3x3/1..10   reference:dfs" in out and "ok" in out


def test_full_takes_the_whole_series_and_longer_limits():
    for series in (tatami.SERIES, prime_grid.SERIES, knights_tour.SERIES):
        parser = argparse.ArgumentParser()
        series.add_arguments(parser)
        quick, full = parser.parse_args([]), parser.parse_args(["--full"])
        series.settle(quick)
        series.settle(full)
        assert (quick.sizes, quick.time_limit) == (list(series.quick), series.quick_limit)
        assert (full.sizes, full.time_limit) == (list(series.full), series.full_limit)
        assert full.time_limit > quick.time_limit and set(quick.sizes) <= set(full.sizes)
        assert "issue" not in parser.format_help()


def test_the_mutation_run_prints_the_scores_table_and_its_time(capsys, tmp_path):
    out_file = tmp_path / "runs.json"
    # A seeded sample: the table and the JSON are made alike from 20 mutants or from all 172 (which took
    # a minute of the suite's time, and crosscheck-ci.md's example judges them all already).
    assert mutation.main(["--puzzles", "tatami", "--backends", "cpsat", "--jobs", "1", "--mutants", "20",
                          "--json", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "| puzzle | backend | encoding | drop |" in out
    assert "| **tatami** | **cpsat** | **total** |" in out and "full run:" in out
    (report,) = json.loads(out_file.read_text())
    assert report["puzzle"] == "tatami" and report["mutants"] == report["killed"] + report["redundant"] + \
        report["survived"] == 20
    assert report["catalogue"] > 20 and report["sample_seed"] == 0  # a sample of the catalogue, said so
    for wrong in (["--puzzles", "nope"], ["--backends", "dimacs"], ["--jobs", "0"], ["--fail-under", "101"],
                  ["--mutants", "0"],
                  ["--json", str(tmp_path / "missing" / "x.json")]):
        with pytest.raises(SystemExit) as stop:
            mutation.main(wrong)
        assert stop.value.code == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_the_certify_run_prints_each_target_certified_and_the_ratio(capsys):
    pytest.importorskip("numba")
    certify.main(["--repeat", "1"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("prime-grid", "tatami", "shikaku", "knights-tour"))]
    assert len(rows) == len(certify.CASES) * len(certify.BACKENDS) and all(" True " in row for row in rows)
    assert "worst check/plain ratio" in out and "worst certified/plain ratio" in out
    assert "worst certified/plain CPU seconds ratio" in out  # steadier than wall time on a loaded machine
    assert "worst certified/plain, searches alone ratio" in out


def test_a_certified_run_is_timed_with_what_it_builds_to_certify_with(monkeypatch):
    """``cert. s`` is the whole run: a recorder that takes a second longer to build (the formula without symmetry
    breaking, before the search) shows there, and not in the searches alone, which leave the builds out."""
    pytest.importorskip("numba")
    import time

    from gridsat.solvers.proof import certified

    built = certified.unbroken_of

    def slower(*args):
        time.sleep(1.0)
        return built(*args)

    monkeypatch.setattr(certified, "unbroken_of", slower)
    row = certify.measure(certify.CASES[0], "sat", 1)
    assert row.certified and row.whole >= 1.0 > row.whole_search and row.overhead > row.search_overhead


def test_the_amo_comparison_runs_every_at_most_one_encoding_and_native_on_minicard():
    from gridsat.models import get_puzzle

    named = amo.configs("knights-tour", "position+{}")
    axis = next(a for a in get_puzzle("knights-tour").cnf_encodings.axes if a.name == "amo")
    on_cadical = [c for c in axis.choices if c != "native"]
    assert [n for n, _ in named] == [*on_cadical, "pairwise/minicard", "native/minicard"]
    assert all(c.request.encoding.startswith("position+") for _, c in named)
    assert {c.request.solver for n, c in named if "/" in n} == {"minicard"}


def test_the_domains_script_enumerates_with_each_domain_and_prints_sizes(capsys):
    from gridsat.benchmarks.compare import domains

    domains.main(["--sizes", "3x3/10"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("3x3/1..10")]
    assert [row.split()[1] for row in rows] == [f"sat:{d}+symmetry" for d in ("direct", "order", "log", "hall")]
    assert all(row.split()[2:4] == ["128", "yes"] for row in rows) and "WRONG" not in out
    assert "variables" in out and "DISAGREEMENT" not in out


def test_the_split_benchmark_judges_its_speed_up_on_the_median_of_pairs():
    from gridsat.benchmarks.compare.parallel import Timing, paired_ratios

    def pairs(*seconds: tuple[float, float], complete: bool = True) -> list[Timing]:
        rows = []
        for turn, (one, two) in enumerate(seconds, 1):
            rows += [Timing(f"sat --jobs 1 #{turn}", 917848, one, True),
                     Timing(f"sat --jobs 2 #{turn}", 917848, two, complete)]
        return rows

    # one lucky pair (2.5x) moves the mean past 1.9x, not the median
    [line] = paired_ratios(pairs((45.0, 25.0), (40.0, 21.6), (50.0, 20.0)), "prime")
    assert line == ("sat: --jobs 1 over --jobs 2, pair by pair 1.80x, 1.85x, 2.50x; median 1.85x; target at least "
                    "1.9x: NOT met")
    [line] = paired_ratios(pairs((45.0, 23.0), (40.0, 20.0), (50.0, 32.0)), "prime")
    assert line.endswith("median 1.96x; target at least 1.9x: met")
    # an incomplete split run is no pair; one run alone is its own median (--repeat 1)
    assert paired_ratios(pairs((45.0, 20.0), complete=False), "prime") == []
    rows = [Timing("cpsat --jobs 1", 917848, 60.0, True), Timing("cpsat --jobs 2", 917848, 40.0, True)]
    assert paired_ratios(rows, "prime") == ["cpsat: --jobs 1 over --jobs 2, pair by pair 1.50x; median 1.50x; "
                                            "target at least 1.7x: NOT met"]


@pytest.mark.parametrize("module", ["parallel", "certify", "jobs", "frontier_layers"])
def test_a_benchmarks_help_says_how_to_run_it_not_its_past_runs(module, capsys):
    # Their measurement logs are in docs/measurements/: parallel's --help printed 460 lines, most of them past runs.
    import importlib

    main = importlib.import_module(f"gridsat.benchmarks.compare.{module}").main
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    page = module.replace("_", "-")
    assert f"docs/measurements/{page}.md" in out and len(out.splitlines()) < 80
