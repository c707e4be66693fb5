"""A forecast of the 9x10 board's tour counts on the frontier, from the layers this machine reaches.

    python -m gridsat.benchmarks.compare.forecast                 # 240 s on each of 9x10 closed and open
    python -m gridsat.benchmarks.compare.forecast --seconds 60

The frontier walks 9x10 along its columns of 9 squares; its first layers are those of every 9xn board
long enough (a square's moves reach two columns on, so the state at a column does not see how far the
board goes on). Each count runs until ``--seconds`` and reports the layers it reached. The calibration
is the 8x8 closed count, walked here to the same share of its layers (31%), whose widest layer and
total are known from its whole run (``PROFILES``); 7x7 open tours give the open profile. The forecast
carries each profile's ratios over: the widest layer is the layer at 30% of the walk times the ratio the
calibration board had, the whole walk the widest times its ratio. Ten times more or fewer would not
surprise: a wider frontier grows for longer.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, replace

from gridsat.models.knights_tour.board import Board
from gridsat.solvers.frontier_engine.layers import run_spec
from gridsat.solvers.stop import Stop

SHARE = 0.31  # of the walk: where a profile's layer is compared (52 of 9x10 closed's 168 layers)
NS_PER_STATE = 423  # core-nanoseconds a state: the 8x8 closed run, 2,663 s on 2 cores for 12.6e9 states
LANE = 8  # bytes of a count lane; a row holds the state's words and one lane per residue


@dataclass(frozen=True)
class Profile:
    """A whole run's shape: its widest layer over the layer at ``SHARE`` of its walk, its total over its widest."""

    board: str
    closed: bool
    widest: int  # from its whole run (docs/explanation/frontier.md)
    total: int
    widest_over_share: float | None = None  # when known from that run's record, else measured here


PROFILES = {
    True: Profile("8x8", True, widest=797_879_283, total=12_600_000_000),  # the moonshot run
    False: Profile("7x7", False, widest=145_000_000, total=4_070_000_000, widest_over_share=140.0),
}


def walk(rows: int, cols: int, closed: bool, seconds: float, share: float = 1.0) -> tuple[list[int], int, float, int]:
    """The layers a count reaches in ``seconds`` (and within ``share`` of its walk): states per layer, the
    layers in all, bytes a state, words."""
    from gridsat.models.knights_tour.frontier import build

    # the order and the states of the walks before the mirror (the default until 2026-11-29), as in the whole
    # runs the profiles were taken from (the mirror about halves later layers: docs/explanation/frontier.md)
    spec = build(Board(rows, cols, closed), rule="mixed", mirrored=False)
    run = run_spec(replace(spec, elements=min(spec.elements, round(share * spec.elements) + 1)), Stop(seconds))
    return run.states, spec.elements, run.bytes_per_state, spec.words


def at_share(states: list[int], layers: int) -> tuple[float, str]:
    """The states at ``SHARE`` of the walk: measured, or carried on at the growth of the last ten layers reached."""
    layer = round(SHARE * layers)
    if layer < len(states):
        return float(states[layer]), f"measured at layer {layer}"
    rate = (states[-1] / states[-11]) ** 0.1
    return states[-1] * rate ** (layer - len(states) + 1), f"layer {layer} carried on at {rate:.3f}x a layer"


def forecast(closed: bool, seconds: float) -> list[str]:
    profile = PROFILES[closed]
    ratio = profile.widest_over_share
    if ratio is None:
        rows, cols = map(int, profile.board.split("x"))
        seen, layers, _, _ = walk(rows, cols, closed, seconds, SHARE)
        ratio = profile.widest / at_share(seen, layers)[0]
    states, layers, per_state, words = walk(9, 10, closed, seconds)
    share, how = at_share(states, layers)
    widest = share * ratio
    total = widest * profile.total / profile.widest
    lanes = 3  # the count's bound needs the 2**64 lane and two primes once the totals pass 2**63
    row = words * 8 + lanes * LANE
    per_wide = per_state * row / (words * 8 + LANE)  # the measured overhead, on wider rows
    wide_bytes = widest * per_wide
    kind = "closed" if closed else "open"
    return [f"9x10 {kind}: {len(states)} of {layers} layers in {seconds:g} s, {states[-1]:,} states at the last",
            f"  at {SHARE:.0%} of the walk: {share:.3g} states ({how}); "
            f"{profile.board} {kind}: widest / that = {ratio:.0f}",
            f"  widest layer ~{widest:.2g} states, ~{wide_bytes / 1e12:.2g} TB at {per_wide:.0f} bytes a state; "
            f"whole walk ~{total:.2g} states",
            f"  ~{total * NS_PER_STATE / 3.6e12:.3g} core-hours at {NS_PER_STATE} ns a state; "
            f"spill files of the widest layer's children ~{2 * widest * row / 1e12:.2g} TB; "
            f"a cluster of 16 GB workers needs {math.ceil(wide_bytes / 16e9):,} of them"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=240.0, help="how long each count runs")
    args = parser.parse_args(argv)
    for closed in (True, False):
        for line in forecast(closed, args.seconds):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
