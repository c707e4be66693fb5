"""gridsat's frontier against graphillion (its ZDD frontier search, TdZdd's method) on Hamiltonian-cycle
counts they both make: knight's tours of boards up to 6x6, in one run on this machine, with ratios.

    python -m gridsat.benchmarks.compare.peers            # every board (about a minute on two free cores)
    python -m gridsat.benchmarks.compare.peers --quick    # the small boards only

Closed tours are graphillion's Hamiltonian cycles of the knight graph (``GraphSet.cycles(is_hamilton=True)``);
open tours are its Hamiltonian cycles of the knight graph plus a hub square joined to every square (each
undirected path is one such cycle through the hub). Both counts are undirected, the frontier's with
``--up-to reversal``; each row checks that the two agree. Each tool is timed from the board's text to the
count, in a child process of its own that has counted the 3x4 board first (imports and the frontier's
compiled kernels loaded), and that this script waits for at most ``--time-limit`` seconds (graphillion
cannot be stopped from within). A tool's child counts one board after another (each process start
loads gridsat, OR-Tools and numba again: seconds a board on a busy machine), and a child that ran
out of time is ended and a new one started for the next board. graphillion is optional (``pip install
'gridsat[peers]'``): without it the script says so and stops with status 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import sys
import time
from collections.abc import Callable
from typing import Any

import gridsat
from gridsat.models.knights_tour.board import Board

BOARDS = (("3x4", False), ("3x10", True), ("4x5", False), ("3x12", True), ("5x5", False), ("5x6", True),
          ("4x7", False), ("3x16", True), ("6x6", True))
QUICK = 5  # --quick: the first boards only


def knight_edges(board: Board, hub: bool) -> list[tuple[int, int]]:
    """The knight graph's moves as graphillion's edges (squares numbered from 1), and the hub's when ``hub``."""
    number = {s: i + 1 for i, s in enumerate(board.squares())}
    edges = sorted({(min(number[s], number[t]), max(number[s], number[t]))
                    for s in board.squares() for t in board.jumps(s)})
    return edges + [(number[s], board.area + 1) for s in board.squares()] if hub else edges


def graphillion_count(text: str, closed: bool) -> int:
    """Undirected tours by graphillion: Hamiltonian cycles (through a hub square for open tours)."""
    from graphillion import GraphSet

    rows, cols = map(int, text.split("x"))
    GraphSet.set_universe(knight_edges(Board(rows, cols, closed), hub=not closed))
    return GraphSet.cycles(is_hamilton=True).len()


def frontier_count(text: str, closed: bool) -> int:
    outcome = gridsat.count("knights-tour", text, params={"closed": str(closed).lower()}, backend="frontier",
                            up_to="reversal")
    return outcome.count


def timed(count: Callable[[str, bool], int], text: str, closed: bool) -> tuple[int, float]:
    """``count`` timed after one count of the 3x4 board in the same process (imports, numba's kernels loaded)."""
    count("3x4", False)
    started = time.perf_counter()
    found = count(text, closed)
    return found, time.perf_counter() - started


class Child:
    """One tool's child process, kept from board to board; ended when a count runs out of time (and
    started again for the next board)."""

    def __init__(self, count: Callable[[str, bool], int]) -> None:
        self.count = count
        self.pool: Any = None

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()

    def end(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None

    def timed(self, text: str, closed: bool, limit: float) -> tuple[int | None, float]:
        """``count`` timed in the child process, or (None, limit) when it takes longer than ``limit`` seconds."""
        if self.pool is None:
            self.pool = multiprocessing.get_context("spawn").Pool(1)
        pending = self.pool.apply_async(timed, (self.count, text, closed))
        try:
            return pending.get(timeout=limit)
        except multiprocessing.TimeoutError:
            self.end()
            return None, limit


def compare(boards: tuple[tuple[str, bool], ...], limit: float) -> list[str]:
    """One line per board: both counts, both times, graphillion's time over the frontier's, and agreement."""
    frontier_count("3x4", False)  # numba's kernels compiled into its cache before any child loads them
    lines = [f"{'board':<12}{'tours':>16}{'frontier s':>12}{'graphillion s':>15}{'ratio':>8}  agree"]
    with Child(graphillion_count) as their_child, Child(frontier_count) as our_child:
        lines += [row(text, closed, their_child.timed(text, closed, limit), our_child.timed(text, closed, limit))
                  for text, closed in boards]
    return lines


def row(text: str, closed: bool, their_run: tuple[int | None, float], our_run: tuple[int | None, float]) -> str:
    """A board's line: both counts, both times, the ratio, and whether the counts agree."""
    (theirs, their_time), (ours, our_time) = their_run, our_run
    ratio = f"{their_time / our_time:.1f}x" if ours is not None and theirs is not None else "-"
    agree = "yes" if ours == theirs else "NO" if None not in (ours, theirs) else "-"
    shown = ours if ours is not None else theirs
    name = f"{text} {'closed' if closed else 'open'}"
    return (f"{name:<12}{shown if shown is not None else '-':>16}{our_time:>12.2f}{their_time:>15.2f}"
            f"{ratio:>8}  {agree}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small boards only")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds a tool may take on one board")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("graphillion") is None:
        print("graphillion is not installed: pip install 'gridsat[peers]'", file=sys.stderr)
        return 2
    boards = BOARDS[:QUICK] if args.quick else BOARDS
    print(f"undirected knight's tours, each tool in a child process; ratio: graphillion's time over the frontier's "
          f"(more than 1x: the frontier is faster); at most {args.time_limit:g} s a run")
    for line in compare(boards, args.time_limit):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
