"""Prime-sum grids enumerated with each CNF domain encoding of the numbers: direct, order, log and hall
(the order encoding with the Hall-interval all-different), times and sizes side by side in one run.

    python -m gridsat.benchmarks.compare.domains                         # 4x5 over 1..20: about a minute
    python -m gridsat.benchmarks.compare.domains --sizes 3x3/10 4x4/16   # other grids (RxC, RxC/M, RxC/L..M)
    python -m gridsat.benchmarks.compare.domains --symmetry nosymmetry   # every filling a model of its own

Every domain runs with the CNF's other defaults (support clauses, pairwise at-most-ones, parity and
symmetry breaking), one after the other in this process, so the ratios (over ``direct``) compare like
with like on this shared machine. A complete count that differs from the golden count
(models/golden/prime_grid.toml) prints WRONG.
Target: 4x5 over 1..20, 5,232 fillings, with direct, order and log: times and sizes side by side.
"""

from __future__ import annotations

import argparse

from gridsat.benchmarks.compare.prime_grid import golden_counts, instance_params
from gridsat.benchmarks.compare.series import Series, Setup, label, measure, print_table
from gridsat.solvers.backend import Request

DOMAINS = ("direct", "order", "log", "hall")
SERIES = Series(module="gridsat.benchmarks.compare.domains", quick=["4x5/20"], quick_limit=120,
                full=["3x3/10", "4x4/16", "4x4/17", "4x5/20", "4x5/21"], full_limit=600, full_takes="about 20 minutes")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    SERIES.add_arguments(parser, "grids: RxC, RxC/M or RxC/L..M")
    parser.add_argument("--symmetry", choices=("symmetry", "nosymmetry"), default="symmetry",
                        help="the CNF's symmetry axis (default symmetry: one leader per orbit, its images listed)")
    parser.add_argument("--solver", help="the PySAT solver (default the sat backend's)")
    args = parser.parse_args(argv)
    SERIES.settle(args)
    configs = [Setup.named("sat", Request(encoding=f"{domain}+{args.symmetry}", solver=args.solver))
               for domain in DOMAINS]
    known = golden_counts()
    rows = (row for size in args.sizes
            for row in measure("prime-grid", *instance_params(size), configs, args.time_limit, args.repeat))
    for row in print_table(rows, baseline=label(configs[0]), sizes=True):
        expected = known.get(row.instance)
        if row.outcome.complete and expected is not None and row.outcome.count != expected:
            print(f"WRONG {row.instance} {label(row.config)}: counted {row.outcome.count}, golden {expected}")


if __name__ == "__main__":
    main()
