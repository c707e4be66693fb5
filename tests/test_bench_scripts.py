"""The per-puzzle benchmark scripts: a quick series by default that says how to run the full one."""

from __future__ import annotations

import argparse

from gridsat.benchmarks.compare import knights_tour, prime_grid, tatami


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
