"""benchmarks/compare/peers.py (graphillion and the frontier count the same undirected tours) and forecast.py."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")
pytest.importorskip("graphillion")

from gridsat.benchmarks.compare import peers  # noqa: E402


@pytest.mark.parametrize("text, closed, tours", [("3x4", False, 8), ("3x10", True, 16), ("5x6", True, 8)])
def test_both_tools_count_the_undirected_tours(text, closed, tours):
    """8 undirected open 3x4 tours (OEIS A169696), 16 closed 3x10 (A169764) and 8 closed 5x6 (16 directed:
    the frontier and sat agree, tests/test_frontier_orbits.py)."""
    assert peers.graphillion_count(text, closed) == peers.frontier_count(text, closed) == tours


@pytest.mark.slow  # a child process a tool a board, each loading gridsat: about a minute on a busy machine
def test_a_run_prints_one_row_a_board_with_a_ratio(capsys):
    assert peers.main(["--quick", "--time-limit", "120"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert len(rows) == peers.QUICK and all(row.endswith("yes") and "x  " in row for row in rows)


def test_the_forecast_reads_the_layer_at_its_share_or_carries_the_growth_on():
    from gridsat.benchmarks.compare import forecast

    states = [2 ** k for k in range(20)]
    assert forecast.at_share(states, 40) == (float(2 ** 12), "measured at layer 12")
    carried, how = forecast.at_share(states, 100)  # layer 31: eleven layers past the last, doubling each
    assert carried == pytest.approx(2 ** 31) and how == "layer 31 carried on at 2.000x a layer"
