"""The frontier benchmark script's targets table: verdicts, the Dask ratios, the exit status (no counting here)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gridsat.benchmarks.compare import frontier
from gridsat.benchmarks.compare.frontier import MB, Case, Measure

SIX = Case("knights-tour", "6x6", frontier.CLOSED, 19_724)


def measure(count: int | None, seconds: list[float], **details: object) -> Measure:
    return Measure(SIX, count=count, seconds=seconds, details=dict(details))


def test_a_time_target_takes_the_median_and_shows_the_min():
    row = frontier.time_target(measure(19_724, [0.3, 0.05, 0.08]), 0.1)
    assert (row.measured, row.limit, row.verdict) == ("0.080 s (min 0.050 s)", "<= 0.1 s", "met")
    assert frontier.time_target(measure(19_724, [0.3, 0.05, 0.2]), 0.1).verdict == "missed"
    assert frontier.time_target(measure(19_723, [0.01]), 0.1).verdict == "WRONG"
    assert frontier.time_target(measure(None, [0.2]), 0.1).verdict == "missed"


def test_limits_on_what_a_run_held_are_met_so_far_when_it_did_not_finish():
    done, stopped = measure(19_724, [1.0], peak_memory=2 * MB), measure(None, [1.0], peak_memory=2 * MB)
    assert frontier.memory_target(done, 3 * MB).verdict == "met"
    assert frontier.memory_target(stopped, 3 * MB).verdict == "met so far"
    assert frontier.memory_target(done, MB).verdict == "missed"
    assert frontier.memory_target(Measure(SIX), MB, rss=True).verdict == "missed"  # a child that reported nothing
    row = frontier.bytes_target(measure(19_724, [1.0], bytes_per_state=41.0, peak_states=10, peak_memory=410))
    assert row.verdict == "missed" and row.measured.startswith("41.0 B (10 states")


def test_the_dask_targets_compare_the_count_and_each_workers_peak():
    single = measure(19_724, [1.0], peak_memory=100 * MB)
    spread = measure(19_724, [2.0], workers=[{"worker": "a", "peak_memory": 50 * MB},
                                             {"worker": "b", "peak_memory": 61 * MB}])
    rows = frontier.dask_targets(single, spread)
    assert [r.verdict for r in rows] == ["met", "met", "missed"]
    assert rows[1].measured == "0.500 (50.0 of 100.0 MB)"
    assert frontier.dask_targets(single, measure(19_000, [2.0]))[0].verdict == "WRONG"


def test_the_tables_are_aligned_and_the_case_is_a_command_line():
    text = frontier.targets_table([frontier.Target("a", "1", "<= 2", "met"), frontier.Target("long name", "", "", "")])
    head, rule, first, _ = text.splitlines()
    assert head.index("measured") == first.index("1") == rule.index("  -") + 2
    assert frontier.MOONSHOT.cli_args() == ["knights-tour", "8x8", "-p", "closed=true", "--up-to", "reversal"]


def test_reap_gives_a_childs_status_and_peak_rss():
    child = subprocess.Popen([sys.executable, "-c", "x = bytearray(50_000_000); raise SystemExit(3)"])
    status, rss = frontier.reap(child, 60)
    assert status == 3 and rss > 50_000_000


def test_a_wrong_count_prints_wrong_and_exits_1(monkeypatch, capsys):
    def quick(targets, measures):
        measures.append(measure(19_723, [0.01], peak_states=10, peak_memory=100, bytes_per_state=10.0))
        targets.append(frontier.time_target(measures[-1], 0.1))

    monkeypatch.setattr(frontier, "warm_up", lambda: None)
    monkeypatch.setattr(frontier, "quick", quick)
    assert frontier.main(["--no-sat"]) == 1
    out = capsys.readouterr().out
    assert out.index("target") < out.index("case ")  # the targets table first
    assert "skipped: --full runs it" in out and "skipped: --moonshot runs it" in out
    assert "WRONG: golden 19,724" in out and out.rstrip().endswith("WRONG: knights-tour 6x6 closed (in process); "
                                                                   "knights-tour 6x6 closed: count time")


def test_the_cases_take_the_issues_counts_from_the_golden_files():
    assert [frontier.SIX_CLOSED.golden, frontier.SIX_OPEN.golden, frontier.SEVEN_CLOSED.golden,
            frontier.EIGHT_SIX_CLOSED.golden, frontier.SEVEN_OPEN.golden, frontier.MOONSHOT.golden] == \
        [19_724, 6_637_920, 0, 110_976_284, 165_575_218_320, 13_267_364_410_532]
    assert all(case.golden is not None for case in frontier.TATAMI)


def test_the_layer_profile_has_a_row_a_layer_and_packs_what_it_says():
    """frontier_layers: a row a layer with its parents, both row layouts walk the same states, and the
    packed run made its layers packed (3x16 closed tours: a state of 7 nibbles leaves 36 bits spare)."""
    pytest.importorskip("numba")
    from gridsat.benchmarks.compare import frontier_layers
    from gridsat.models.knights_tour.board import Board

    packed = frontier_layers.profile(Board(3, 16, closed=True), None, 100, packed=True)
    plain = frontier_layers.profile(Board(3, 16, closed=True), None, 100, packed=False)
    lines = frontier_layers.report("packed rows", packed)
    assert len(lines) == 2 + len(packed.run.layer_seconds) == 2 + packed.run.layers
    assert lines[2].startswith("1 | 1 | ") and packed.run.states == plain.run.states
    assert packed.run.count == plain.run.count and packed.run.packed > 0 == plain.run.packed
    assert min(packed.rss) > 0 and len(packed.rss) == packed.run.layers
    # each layer's system seconds and minor page faults, in its row
    assert len(packed.run.layer_system) == len(packed.run.layer_faults) == packed.run.layers
    assert lines[1].endswith("| system s | minor faults")
    assert all(s >= 0 for s in packed.run.layer_system) and all(f >= 0 for f in packed.run.layer_faults)
    assert lines[2].endswith(f" | {packed.run.layer_faults[0]:,}")


def test_the_layer_profile_prints_mirror_images_merged_against_kept_apart(capsys):
    """frontier_layers --unmirrored: both runs' tables, then the ratios, with the counts equal and fewer states
    merged (6x6 closed tours)."""
    pytest.importorskip("numba")
    from gridsat.benchmarks.compare import frontier_layers

    assert frontier_layers.main(["6x6", "--closed", "--unmirrored", "--memory", "100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("packed rows: ") and "\nmirror images kept apart: " in out
    ratios = out.strip().splitlines()[-1]
    assert ratios.startswith("merged / apart: states 0.") and ratios.endswith("count equal: True")


def test_the_orders_benchmark_prints_a_row_an_order_with_one_count(capsys):
    """frontier_orders: every line order counts 6x6's closed tours the same, each with its own states;
    an unknown order is refused by name."""
    pytest.importorskip("numba")
    from gridsat.benchmarks.compare import frontier_orders
    from gridsat.models.knights_tour.frontier import LINE_ORDERS

    assert frontier_orders.main(["6x6", "--closed", "--memory", "100"]) == 0
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]]
    assert [row[0] for row in rows] == list(LINE_ORDERS) and {row[1] for row in rows} == {"9862"}
    states = {row[0]: row[2] for row in rows}
    # no 8-square lines here: tuned and mixed are colour
    assert states["mixed"] == states["tuned"] == states["colour"] != states["parity"] != states["plain"]
    with pytest.raises(SystemExit) as refused:
        frontier_orders.main(["6x6", "--orders", "tuned,zigzag"])
    assert refused.value.code == 2 and "no line order 'zigzag'" in capsys.readouterr().err
