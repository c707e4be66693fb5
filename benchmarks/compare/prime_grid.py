"""Prime-sum grid counting series: every backend, encoding and redundancy switch beside the seed's DFS.

    python -m gridsat.benchmarks.compare.prime_grid                               # the quick series: about two minutes
    python -m gridsat.benchmarks.compare.prime_grid --full                        # up to 5x5/25, 60 s per run
    python -m gridsat.benchmarks.compare.prime_grid --sizes 4x5/20 --repeat 3     # one instance, best of 3
    python -m gridsat.benchmarks.compare.prime_grid --sizes 5x5/25 --configs sat cpsat --time-limit 600
    python -m gridsat.benchmarks.compare.prime_grid --scope each                  # every single encoding choice

A size is ``RxC`` (values 1..R*C+1), ``RxC/M`` (values 1..M) or ``RxC/L..M``. Every configuration
counts the same instance in this process, one after the other, so the ratios compare like with like
on this shared machine: the ratio is the seed's DFS (reference) total time over the run's, ``>=``
when the seed's run hit the time limit; "per s" is fillings per second, the fair comparison when
runs hit the limit. Counts are checked against the golden counts that ship with gridsat
(models/golden/prime_grid.toml), installed or not.
Targets: 5x5/25 (917,848 fillings) in under 60 s (the full series); at least 2x the seed's speed on 4x5/20.
"""

from __future__ import annotations

import argparse
import re

from gridsat.benchmarks.compare.series import Row, Series, Setup, label, measure, ratio
from gridsat.models import get_puzzle
from gridsat.models.errors import InvalidInstance
from gridsat.models.golden import counts
from gridsat.solvers.backend import Request
from gridsat.solvers.checks.crosscheck import configurations

SERIES = Series(module="gridsat.benchmarks.compare.prime_grid", quick=["3x3/10", "4x4/16", "4x4/17", "4x5/20"],
                quick_limit=10,
                full=["3x3/10", "4x4/16", "4x4/17", "4x5/20", "5x5/25"], full_limit=60, full_takes="about 12 minutes")
# The redundancy switches side by side: each backend's default, then one switch (or model) changed.
SWITCHES = [
    Setup.named("reference", Request(algorithm="dfs")),
    Setup.named("cpsat", Request(encoding="integer")),
    Setup.named("cpsat", Request(encoding="boolean")),
    Setup.named("cpsat", Request(encoding="integer+noparity")),
    Setup.named("cpsat", Request(encoding="integer+nosymmetry")),
    Setup.named("sat", Request(encoding="support")),
    Setup.named("sat", Request(encoding="conflict")),
    Setup.named("sat", Request(encoding="support+noparity")),
    Setup.named("sat", Request(encoding="support+nosymmetry")),
    Setup.named("sat", Request(encoding="support", solver="minisat22")),
]


def instance_params(size: str) -> tuple[str, dict[str, str]]:
    """``RxC``, ``RxC/M`` or ``RxC/L..M`` as instance text and ``-p`` parameters."""
    match = re.fullmatch(r"(\d+x\d+)(?:/(?:(\d+)\.\.)?(\d+))?", size)
    if not match:
        raise InvalidInstance(f"bad size {size!r}: expected RxC, RxC/M or RxC/L..M")
    params = {key: value for key, value in (("min", match[2]), ("max", match[3])) if value}
    return match[1], params


def golden_counts() -> dict[str, int]:
    """Known counts by instance description, e.g. ``{"3x3/1..10": 128}``."""
    puzzle = get_puzzle("prime-grid")
    known = {}
    for entry in counts("prime_grid"):
        params = {key: str(entry[key]) for key in ("min", "max") if key in entry}
        known[puzzle.describe(puzzle.parse(entry["grid"], params))] = entry["count"]
    return known


def chosen(args: argparse.Namespace) -> list[Setup]:
    """The configurations to run: the switch table, a scope of encodings, or named backends."""
    puzzle = get_puzzle("prime-grid")
    if args.scope:
        configs = configurations(puzzle, scope=args.scope)
    else:
        configs = list(SWITCHES)
    if args.configs:
        configs = [c for c in configs if c.backend.name in args.configs or label(c) in args.configs]
    if args.solver:
        configs += [Setup.named("sat", Request(solver=s)) for s in args.solver]
    configs = [c for c in configs if c.backend.name != "reference"]
    return configs if args.no_reference else [SWITCHES[0], *configs]


def line(row: Row, base: Row | None, known: dict[str, int]) -> str:
    """Count, completeness, the check against the golden count and the speed-up over the seed's DFS."""
    o = row.outcome
    done = "yes" if o.complete else f"NO ({o.reason})"
    expected = known.get(row.instance)
    check = "-" if expected is None or not o.complete else "ok" if o.count == expected else f"WRONG ({expected})"
    if o.invalid or o.duplicates:
        check = f"{len(o.invalid)} invalid, {o.duplicates} duplicates"
    rate = o.count / row.seconds if row.seconds > 0 else 0.0
    return (f"{row.instance:<11} {label(row.config):<38} {o.count:>8} {done:<17} {check:<6} {row.seconds:>9.3f} "
            f"{rate:>9,.0f} {ratio(base, row):>10}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    SERIES.add_arguments(parser, "grids: RxC, RxC/M or RxC/L..M")
    parser.add_argument("--scope", choices=("default", "each", "all"), help="run these encodings, not the switches")
    parser.add_argument("--configs", nargs="+", metavar="NAME", help="keep these backends or labels (cpsat:boolean)")
    parser.add_argument("--solver", nargs="+", metavar="NAME", help="also run these PySAT solvers (default encoding)")
    parser.add_argument("--no-reference", action="store_true", help="skip the seed's DFS (no ratios)")
    args = parser.parse_args(argv)
    SERIES.settle(args)
    configs, known = chosen(args), golden_counts()
    header = (f"{'instance':<11} {'configuration':<38} {'count':>8} {'complete':<17} {'check':<6} "
              f"{'total s':>9} {'per s':>9} {'vs seed':>10}")
    print(header)
    print("-" * len(header), flush=True)
    for size in args.sizes:
        text, params = instance_params(size)
        base, counts = None, set()
        for row in measure("prime-grid", text, params, configs, args.time_limit, args.repeat):
            if row.config.backend.name == "reference" and base is None:
                base = row
            if row.outcome.complete:
                counts.add(row.outcome.count)
            print(line(row, base, known), flush=True)
        if len(counts) > 1:
            print(f"DISAGREEMENT: complete runs counted {sorted(counts)}")


if __name__ == "__main__":
    main()
