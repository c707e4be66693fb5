"""Tatami counting on rooms up to 30x30: every backend beside the seed's row-scan search.

    python -m gridsat.benchmarks.compare.tatami                     # rooms up to 30x30, 20 s per run: under two minutes
    python -m gridsat.benchmarks.compare.tatami --full               # the same with 600 s per run: about 35 minutes
    python -m gridsat.benchmarks.compare.tatami --encodings          # every at-most-one encoding (chose the default)
    python -m gridsat.benchmarks.compare.tatami --sizes 4x7 18x30 --time-limit 600

Target: on 18x30 and 30x30 a CP-SAT or CNF count is at least 100x faster than the seed's search
(the full series; the seed's search runs into its time limit there, so the ratio is a lower bound).
Every complete count is checked against the golden counts that ship with gridsat
(models/golden/tatami.toml): a wrong one prints WRONG.
"""

from __future__ import annotations

import argparse

from gridsat.benchmarks.compare.series import Series, Setup, label, measure, print_table
from gridsat.models import get_puzzle
from gridsat.models.golden import counts
from gridsat.solvers.backend import Request

SIZES = ["4x7", "8x8", "10x16", "12x20", "14x24", "16x28", "18x30", "30x30"]
# The seed's search passes any limit from 16x28 on, so the quick series differs only in the limit:
# 20 s per run already shows the >= 100x bound; --full lets the seed's search run ten minutes.
SERIES = Series(module="gridsat.benchmarks.compare.tatami", quick=SIZES, quick_limit=20, full=SIZES, full_limit=600,
                full_takes="about 35 minutes")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    SERIES.add_arguments(parser, "rooms")
    parser.add_argument("--encodings", action="store_true", help="every CNF at-most-one (amo) encoding, no reference")
    args = parser.parse_args(argv)
    SERIES.settle(args)
    tatami = get_puzzle("tatami")
    if args.encodings:
        configs = [Setup.named("sat", Request(encoding=e.name)) for e in tatami.cnf_encodings.variants()]
        baseline = "sat"
    else:
        configs = [Setup.named("reference"), Setup.named("cpsat"), Setup.named("sat"),
                   Setup.named("sat", Request(solver="glucose4"))]
        baseline = "reference"
    rows = (row for size in args.sizes for row in measure("tatami", size, {}, configs, args.time_limit, args.repeat))
    known = {tatami.describe(tatami.parse(e["room"], {})): e["count"] for e in counts("tatami")}
    for row in print_table(rows, baseline):
        expected = known.get(row.instance)
        if row.outcome.complete and expected is not None and row.outcome.count != expected:
            print(f"WRONG {row.instance} {label(row.config)}: counted {row.outcome.count}, golden {expected}")


if __name__ == "__main__":
    main()
