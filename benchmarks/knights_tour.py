"""Knight's tours: one tour per backend, CNF encoding and algorithm on growing boards; small-board counts.

    python -m gridsat.benchmarks.knights_tour                       # the quick series: about two minutes
    python -m gridsat.benchmarks.knights_tour --full                # one tour on 8x8 .. 20x20, 60 s per run
    python -m gridsat.benchmarks.knights_tour --sizes 9x10 --repeat 3
    python -m gridsat.benchmarks.knights_tour --six --time-limit 900  # add the 6x6 closed count (19,724 directed)

Targets: the default CNF encoding (``rank``) finds a 9x10 tour at least 3x faster than
``position``, measured side by side; every method's tour is verified (a run whose tour breaks a
rule is reported). Ratios in the tour table are against ``sat:position`` (its default pairwise
at-most-ones; past 12x12 that CNF has tens of millions of clauses, so there the baseline is
``position+seqcounter``); in the count tables against the seed's plain backtracking.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator

from gridsat.benchmarks.series import Row, Series, measure, print_table
from gridsat.models.knights_tour import Board
from gridsat.models.params import parse_size
from gridsat.solvers.backend import Request
from gridsat.solvers.crosscheck import Config
from gridsat.solvers.reference.knights_tour import blocks

SERIES = Series(module="gridsat.benchmarks.knights_tour", quick=["8x8", "9x10", "12x12"], quick_limit=10,
                full=["8x8", "9x10", "12x12", "16x16", "20x20"], full_limit=60, full_takes="about half an hour")
# Each a board and its -p parameters; the golden counts are in tests/data/knights_tour.toml.
COUNTS = [("3x4", {}), ("3x8", {}), ("5x5", {"start": "0,0"}), ("5x5", {}), ("3x10", {"closed": "true"})]
SIX = ("6x6", {"closed": "true"})

POSITION = Config("sat", Request(encoding="position"))  # pairwise at-most-ones: only up to 12x12
POSITION_AREA = 144
TOUR_CONFIGS = [
    Config("sat", Request(encoding="position+seqcounter")),
    Config("sat"),  # the default encoding, rank+pairwise
    Config("sat", Request(encoding="ordering")),
    Config("sat", Request(encoding="binary")),
    Config("cpsat"),
    Config("reference", Request(algorithm="warnsdorff")),
    Config("reference", Request(algorithm="divide")),
    Config("reference", Request(algorithm="backtrack")),
]
COUNT_CONFIGS = [
    Config("reference", Request(algorithm="backtrack")),  # the baseline
    Config("cpsat"),
    Config("sat", Request(encoding="rank")),
    Config("sat", Request(encoding="ordering")),
    Config("sat", Request(encoding="position+seqcounter")),
]


def tour_configs(size: str, closed: bool) -> list[Config]:
    """The one-tour runs on a board (divide only where it can cut the board); the first sat row is the baseline."""
    rows, cols = parse_size(size)
    covered = not closed and blocks(Board(rows, cols)) is not None
    configs = [c for c in TOUR_CONFIGS if covered or c.request.algorithm != "divide"]
    return ([POSITION] if rows * cols <= POSITION_AREA else []) + configs


def checked(rows: Iterable[Row]) -> Iterator[Row]:
    """Pass rows through, saying so loudly when a run's solution broke a rule."""
    for row in rows:
        for solution, problems in row.outcome.invalid[:1]:
            print(f"INVALID {row.instance} {row.config}: {problems[0]} in {solution}")
        yield row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    SERIES.add_arguments(parser, "boards for the one-tour table")
    parser.add_argument("--closed", action="store_true", help="closed tours in the one-tour table")
    parser.add_argument("--no-counts", action="store_true", help="skip the small-board counts")
    parser.add_argument("--six", action="store_true", help="also count the 6x6 closed tours (minutes)")
    args = parser.parse_args(argv)
    SERIES.settle(args)
    params = {"closed": "true"} if args.closed else {}
    print(f"One {'closed' if args.closed else 'open'} tour, time limit {args.time_limit:g} s per run")
    tours = (
        row
        for size in args.sizes
        for row in measure(
            "knights-tour", size, params, tour_configs(size, args.closed), args.time_limit, args.repeat, mode="solve"
        )
    )
    print_table(checked(tours), baseline="sat")
    boards = ([] if args.no_counts else COUNTS) + ([SIX] if args.six else [])
    if boards:
        print(f"Counts (directed tours), time limit {args.time_limit:g} s per run")
        counts = (
            row
            for text, board_params in boards
            for row in measure("knights-tour", text, board_params, COUNT_CONFIGS, args.time_limit, args.repeat)
        )
        print_table(checked(counts), baseline="reference")


if __name__ == "__main__":
    main()
