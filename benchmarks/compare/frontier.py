"""The frontier counter side by side with sat enumeration on two cores (and graphillion where installed).

    python -m gridsat.benchmarks.compare.frontier            # the targets: a few minutes (sat stops at 120 s)
    python -m gridsat.benchmarks.compare.frontier --full     # adds 7x7 open tours and the ladders: how far
                                                             # the frontier gets in 10 minutes a board (hours)
    python -m gridsat.benchmarks.compare.frontier --no-sat   # the frontier alone

Each row is one instance: the frontier's count, its time (counting, and building with the JIT
cache loaded), the widest layer in states, the memory it held; sat enumeration's count and time
(``gridsat.count(..., backend="sat", split=Split(jobs=2))`` with a time limit); graphillion's count where it
applies (closed tours: its Hamiltonian cycles; 6x6 only unless --full). Counts are checked against
the golden counts.
Targets: 6x6 closed tours in 0.1 s, 6x6 open in 10 s, 8x6 and 6x8 closed in 10 s and 1 GB.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from dataclasses import dataclass, field

import gridsat
from gridsat import Split
from gridsat.models.errors import GridsatError

MB = 1 << 20


@dataclass(frozen=True)
class Case:
    """One instance, its golden count (None: unknown) and whether sat enumeration is worth starting."""

    puzzle: str
    instance: str
    params: dict[str, str] = field(default_factory=dict)
    golden: int | None = None
    sat: bool = True

    @property
    def name(self) -> str:
        extra = " closed" if self.params.get("closed") == "true" else " open" if self.puzzle == "knights-tour" else ""
        return f"{self.puzzle} {self.instance}{extra}"


CLOSED = {"closed": "true"}
TARGETS = [
    Case("knights-tour", "6x6", CLOSED, 19_724),
    Case("knights-tour", "6x6", {}, 6_637_920),
    Case("knights-tour", "8x6", CLOSED, 110_976_284),
    Case("knights-tour", "6x8", CLOSED, 110_976_284, sat=False),
    Case("tatami", "2x40", {}, 3_914_488),
    Case("tatami", "2x200", {}, 1_424_898_759_677_182_306_122_208_910_181_724, sat=False),
    Case("tatami", "3x200", {}, 1_146_295_688_027_634_168_202, sat=False),
    Case("tatami", "8x100", {}, 3_021, sat=False),
]
FULL = [Case("knights-tour", "7x7", {}, 165_575_218_320, sat=False)]
# Ladders for --full: each climbs until a board does not finish in the time a board gets.
LADDERS = [
    [Case("knights-tour", size, CLOSED, sat=False) for size in ("6x10", "6x12", "7x8", "7x10", "8x8")],
    [Case("tatami", f"{n}x{n}", {}, sat=False) for n in (16, 20, 24, 28, 30)],
]


@dataclass
class Row:
    """What each method gave on one case."""

    case: Case
    count: int | None = None
    seconds: float = 0.0
    build: float = 0.0
    peak_states: int = 0
    peak_mb: float = 0.0
    note: str = ""
    sat: str = "-"
    sat_seconds: str = "-"
    graphillion: str = "-"


def frontier(case: Case, time_limit: float) -> Row:
    """The frontier backend's count and what it held."""
    row = Row(case)
    try:
        outcome = gridsat.count(case.puzzle, case.instance, params=case.params, backend="frontier",
                                time_limit=time_limit)
    except GridsatError as error:
        row.note = str(error)
        return row
    details = getattr(outcome, "details", {}) or {}
    row.count = outcome.count if outcome.complete else None
    row.seconds, row.build = outcome.seconds, outcome.build_seconds
    row.peak_states = details.get("peak_states", 0)
    row.peak_mb = details.get("peak_memory", 0) / MB
    if not outcome.complete:
        row.note = f"not finished: {outcome.reason}"
    elif case.golden is not None and row.count != case.golden:
        row.note = f"WRONG: golden {case.golden:,}"
    return row


def sat(row: Row, time_limit: float) -> None:
    """Enumeration with the sat backend on two cores, stopped at the time limit."""
    case = row.case
    started = time.perf_counter()
    outcome = gridsat.count(case.puzzle, case.instance, params=case.params, backend="sat", split=Split(jobs=2),
                            time_limit=time_limit)
    took = time.perf_counter() - started
    if outcome.complete:
        row.sat, row.sat_seconds = f"{outcome.count:,}", f"{took:.2f}"
    else:
        row.sat, row.sat_seconds = f"not finished in {time_limit:g} s", f"{took:.0f}"


def graphillion(row: Row) -> None:
    """Closed tours as graphillion's Hamiltonian cycles of the knight graph (undirected, so doubled)."""
    case = row.case
    if case.puzzle != "knights-tour" or case.params.get("closed") != "true":
        return
    from graphillion import GraphSet

    rows, cols = map(int, case.instance.split("x"))
    jumps = ((1, 2), (2, 1), (2, -1), (1, -2))
    edges = [((r, c), (r + dr, c + dc)) for r in range(rows) for c in range(cols) for dr, dc in jumps
             if 0 <= r + dr < rows and 0 <= c + dc < cols]
    GraphSet.set_universe(edges)
    started = time.perf_counter()
    count = 2 * len(GraphSet.cycles(is_hamilton=True))
    row.graphillion = f"{count:,} in {time.perf_counter() - started:.2f} s"


def table(rows: list[Row]) -> str:
    """The rows as an aligned text table."""
    head = ["instance", "frontier count", "count s", "build s", "peak states", "peak MB", "sat (2 jobs)", "sat s",
            "graphillion", "note"]
    body = [[r.case.name, "-" if r.count is None else f"{r.count:,}", f"{r.seconds:.3f}", f"{r.build:.2f}",
             f"{r.peak_states:,}", f"{r.peak_mb:,.0f}", r.sat, r.sat_seconds, r.graphillion, r.note] for r in rows]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(x[i].ljust(widths[i]) for i in range(len(head))).rstrip() for x in [head, *body]]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gridsat.benchmarks.compare.frontier", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="also 7x7 open tours and the 10-minute ladders")
    parser.add_argument("--no-sat", action="store_true", help="leave out sat enumeration")
    parser.add_argument("--sat-limit", type=float, default=120.0, help="seconds sat enumeration gets (default 120)")
    parser.add_argument("--board-limit", type=float, default=600.0, help="seconds a ladder board gets (default 600)")
    args = parser.parse_args(argv)
    has_graphillion = importlib.util.find_spec("graphillion") is not None
    if not has_graphillion:
        print("skipped graphillion: not installed (pip install graphillion)")
    # Compile or load the numba kernels once, so that no row pays for them.
    started = time.perf_counter()
    gridsat.count("knights-tour", "3x4", backend="frontier")
    took = time.perf_counter() - started
    print(f"frontier kernels ready (JIT compile or cache load, imports included): {took:.2f} s")
    rows = []
    for case in TARGETS + (FULL if args.full else []):
        row = frontier(case, args.board_limit)
        if case.sat and not args.no_sat:
            sat(row, args.sat_limit)
        if has_graphillion and (args.full or case.instance == "6x6"):  # 8x6 takes graphillion minutes
            graphillion(row)
        rows.append(row)
        print(table(rows).splitlines()[-1], flush=True)
    if args.full:
        for ladder in LADDERS:
            for case in ladder:
                row = frontier(case, args.board_limit)
                rows.append(row)
                print(table(rows).splitlines()[-1], flush=True)
                if row.count is None:
                    break
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
