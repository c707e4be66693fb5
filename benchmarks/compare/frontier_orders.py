"""The knight's-tour frontier's states under each order of the squares, side by side in one run.

    python -m gridsat.benchmarks.compare.frontier_orders 8x5 --closed --along columns
    python -m gridsat.benchmarks.compare.frontier_orders 8x6 --closed --along columns --orders tuned,parity

Counts ``board``'s tours once per line order (``frontier.LINE_ORDERS``: the squares of a line in the
order the moves are decided by), each to the end on one thread, and prints a row an order: the count
(the same in every row, or the order is wrong), the states of the whole walk (what the time follows),
the widest layer (what the memory and the spilling follow) and the processor seconds (a shared
machine's wall seconds are not comparable; the states are). ``--along columns`` sweeps a board's
columns even where its rows are shorter, so that 8xn boards stand in for 8x8's columns of 8 squares.
The states of the whole board, not of its first k layers: a new order walks different layers.

Recorded in docs/explanation/frontier.md ("The order of the moves").
"""

from __future__ import annotations

import argparse
import sys
import time

from gridsat.models.knights_tour.board import Board
from gridsat.models.knights_tour.frontier import LINE_ORDERS, build
from gridsat.solvers.frontier_engine.layers import run_spec
from gridsat.solvers.stop import Stop

MB = 1 << 20


def measure(board: Board, along: str | None, rule: str, memory: int) -> list[str]:
    """One order's row: the count, the states in all, the widest layer and the processor seconds."""
    spec = build(board, along=along, rule=rule)
    started = time.process_time()
    run = run_spec(spec, Stop(), memory=memory * MB, threads=1)
    seconds = time.process_time() - started
    total, peak = sum(run.states), max(run.states, default=0)
    layer = run.states.index(peak) + 1 if run.states else 0
    return [rule, f"{run.count}", f"{total:,}", f"{peak:,} (layer {layer} of {len(run.states)})",
            f"{run.spilled}", f"{seconds:.1f}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("board", help="RxC, e.g. 8x6")
    parser.add_argument("--closed", action="store_true", help="closed tours (default open)")
    parser.add_argument("--along", choices=("columns", "rows"), default=None,
                        help="sweep the columns or the rows (default: along the short side)")
    parser.add_argument("--orders", default=",".join(LINE_ORDERS),
                        help=f"comma-separated line orders, of {', '.join(LINE_ORDERS)} (default all)")
    parser.add_argument("--memory", type=int, default=3000, help="the engine's budget, MB")
    args = parser.parse_args(argv)
    rules = args.orders.split(",")
    wrong = [r for r in rules if r not in LINE_ORDERS]
    if wrong:
        parser.error(f"no line order {wrong[0]!r}: one of {', '.join(LINE_ORDERS)}")
    rows, cols = (int(x) for x in args.board.lower().split("x"))
    board = Board(rows, cols, args.closed)
    kind = "closed" if args.closed else "open"
    print(f"{args.board} {kind} tours, along {args.along or 'the short side'}, one thread")
    print("order | count | states in all | widest | layers spilled | processor s")
    rows_out = []
    for rule in rules:
        row = measure(board, args.along, rule, args.memory)
        rows_out.append(row)
        print(" | ".join(row), flush=True)
    if len({row[1] for row in rows_out}) > 1:
        print("the counts differ: an order is wrong")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
