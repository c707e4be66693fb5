"""Every knight's-tour model side by side: each CNF tour encoding and both CP-SAT models, in one table.

    python -m gridsat.benchmarks.compare.tour_encodings                  # about five minutes at most
    python -m gridsat.benchmarks.compare.tour_encodings --tour-limit 30 --count-limit 120

Three instances, every configuration on each, one after the other in this process (the ratios
compare like with like): one open tour on 30x30 and on 50x50 (``gridsat solve``: done at the first
tour), and the count of the 6x6 closed tours (19,724 directed, OEIS A001230; a complete count that
differs prints WRONG). The CNF encodings run with their default at-most-one; a CNF too large to
build is refused up front (the note says so, at no solving time). Each cell has its time limit
(``--tour-limit``, ``--count-limit``), building included, so the defaults end within about five
minutes; a run cut by its limit shows ``NO`` and "time limit". Ratios are against CP-SAT's
``circuit`` (AddCircuit) on the same instance. The last lines name the fastest finished model on
each instance.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence

from gridsat.benchmarks.compare.series import Row, Setup, finished, label, measure, print_table
from gridsat.models import get_puzzle, golden
from gridsat.solvers.backend import Request

TOUR = get_puzzle("knights-tour")
CPSAT = [Setup.named("cpsat", Request(encoding=name)) for name in TOUR.cpsat_encodings.axes[0].choices]
CNF = [Setup.named("sat", Request(encoding=name)) for name in TOUR.cnf_encodings.axes[0].choices]
TOURS = [("30x30", {}), ("50x50", {})]
COUNT = ("6x6", {"closed": "true"})


def six_count() -> int:
    """The golden count of the 6x6 closed tours (models/golden/knights_tour.toml)."""
    wanted = TOUR.describe(TOUR.parse(*COUNT))
    return next(e["count"] for e in golden.counts("knights_tour")
                if TOUR.describe(TOUR.parse(e["board"], e["params"])) == wanted)


def rows(configs: Sequence[Setup], tour_limit: float, count_limit: float) -> Iterator[Row]:
    """Every configuration on the tours, then on the count (a wrong complete count says so)."""
    for text, params in TOURS:
        yield from measure("knights-tour", text, params, configs, tour_limit, mode="solve")
    expected = six_count()
    for row in measure("knights-tour", *COUNT, configs, count_limit):
        if row.outcome.complete and row.outcome.count != expected:
            print(f"WRONG {row.instance} {label(row.config)}: counted {row.outcome.count}, golden {expected}")
        yield row


def winners(done: list[Row]) -> None:
    """The fastest finished configuration on each instance, and how far ahead of the next it is."""
    for instance in dict.fromkeys(r.instance for r in done):
        ranked = sorted((r for r in done if r.instance == instance and finished(r.outcome)), key=lambda r: r.seconds)
        if not ranked:
            print(f"{instance}: nothing finished within its limit")
            continue
        best, rest = ranked[0], ranked[1:]
        after = f", {rest[0].seconds / best.seconds:.1f}x ahead of {label(rest[0].config)}" if rest else ""
        print(f"{instance}: fastest {label(best.config)} {best.seconds:.2f} s{after}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tour-limit", type=float, default=15, metavar="SEC", help="per one-tour run (default 15)")
    parser.add_argument("--count-limit", type=float, default=15, metavar="SEC", help="per count (default 15)")
    args = parser.parse_args(argv)
    print(f"# one open tour on {' and '.join(t for t, _ in TOURS)} ({args.tour_limit:g} s per run), the 6x6 closed "
          f"tours counted ({args.count_limit:g} s per run); times include building", flush=True)
    done = print_table(rows([*CPSAT, *CNF], args.tour_limit, args.count_limit), baseline="cpsat:circuit", sizes=True)
    winners(done)


if __name__ == "__main__":
    main()
