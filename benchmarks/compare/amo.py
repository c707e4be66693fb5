"""Every at-most-one encoding (the ``amo`` axis) side by side: sizes and times, to choose each puzzle's default.

    python -m gridsat.benchmarks.compare.amo                 # about three minutes on a loaded two-core machine
    python -m gridsat.benchmarks.compare.amo --repeat 1 --time-limit 30

Each workload runs with every encoding in this process, round after round of every encoding once (the
best time of each kept), so the ratios compare like with like on a shared machine: one open knight's
tour on 8x8 in the ``position`` encoding (one-hot square x step: 128 exactly-ones over 64 literals
each, where the encodings differ most), found by the sat backend; all solutions of the Shikaku seed
puzzle (12x12: exactly-ones over a clue's candidate rectangles and over the rectangles covering a
cell); and, since the seed takes a few milliseconds whatever the encoding, a generated unique 30x30
Shikaku (seed 1) as well. Times are building plus solving, best of the workload's rounds (``--repeat``
multiplies them); the ratio is pairwise's time over the encoding's. An encoding that needs CNF+ runs on
MiniCard (the first solver that takes it), so pairwise runs there too; the fastest named leaves both out
(a solver apart).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gridsat.benchmarks.compare.series import Row, Setup, finished, measure
from gridsat.models import get_puzzle
from gridsat.models.constraints.amo import ENCODINGS
from gridsat.solvers.backend import Request, backend_class


@dataclass(frozen=True)
class Workload:
    title: str
    puzzle: str
    instance: Callable[[], str]  # the instance text (a generated puzzle is made when the workload runs)
    pattern: str  # the encoding's name around the amo choice
    mode: str  # "solve" (one solution) or "count"
    repeat: int  # runs per encoding, best time kept


def generated_shikaku() -> str:
    return get_puzzle("shikaku").generate("30x30", seed=1, unique=True)


WORKLOADS = (
    Workload("knight's tour 8x8, position, one tour", "knights-tour", lambda: "8x8", "position+{}", "solve", 3),
    Workload("Shikaku seed (12x12), all solutions", "shikaku", lambda: "seed", "{}", "count", 60),
    Workload("Shikaku 30x30 (seed 1), all solutions", "shikaku", generated_shikaku, "{}", "count", 5),
)
MINICARD = backend_class("sat").cnf_plus_solvers[0]


def configs(puzzle: str, pattern: str) -> list[tuple[str, Setup]]:
    """Every amo encoding of the puzzle's CNF on the default solver; those that need CNF+ (and pairwise) on
    MiniCard."""
    names = next(a.choices for a in get_puzzle(puzzle).cnf_encodings.axes if a.name == "amo")
    plus = [name for name in names if ENCODINGS.needs.get(name)]
    out = [(name, Setup.named("sat", Request(encoding=pattern.format(name)))) for name in names if name not in plus]
    if plus:
        out += [(f"{name}/{MINICARD}", Setup.named("sat", Request(encoding=pattern.format(name), solver=MINICARD)))
                for name in ("pairwise", *plus)]
    return out


def cells(row: Row | None, base: Row | None) -> str:
    """Variables, clauses, build and total seconds, and pairwise's time over this one's."""
    if row is None:
        return f"{'':>9} {'':>9} {'':>7} {'':>8} {'':>7}"
    size = row.outcome.size
    seconds = f"{row.seconds:8.3f}" if finished(row.outcome) else f"{'>' + format(row.seconds, '.1f'):>8}"
    ratio = f"{base.seconds / row.seconds:6.2f}x" if base and row.seconds > 0 and finished(row.outcome) else "      -"
    return (f"{size.get('variables', 0):>9,} {size.get('clauses', 0):>9,} {row.outcome.build_seconds:7.2f} "
            f"{seconds} {ratio}")


def run(workload: Workload, time_limit: float, repeat: int) -> dict[str, Row]:
    puzzle, mode = workload.puzzle, workload.mode
    print(f"# {workload.title}: measuring", flush=True)
    named, instance = configs(puzzle, workload.pattern), workload.instance()
    found: dict[str, Row] = {}
    # Round after round of every encoding once, the best time kept: the load of a shared machine changes
    # from second to second, and interleaving spreads it over every encoding alike.
    for _ in range(workload.repeat * repeat):
        rows = measure(puzzle, instance, {}, [c for _, c in named], time_limit, 1, mode=mode)
        for (name, _), row in zip(named, rows, strict=True):
            if name not in found or (finished(row.outcome) and row.seconds < found[name].seconds):
                found[name] = row
    for name, row in found.items():
        for solution, problems in row.outcome.invalid[:1]:
            print(f"INVALID {puzzle} {name}: {problems[0]} in {solution}")
    counts = {row.outcome.count for row in found.values() if row.outcome.complete}
    if mode == "count" and len(counts) > 1:
        print(f"DISAGREEMENT {puzzle}: complete counts {sorted(counts)}")
    return found


def print_side_by_side(results: Sequence[dict[str, Row]]) -> None:
    head = f"{'variables':>9} {'clauses':>9} {'build s':>7} {'total s':>8} {'ratio':>7}"
    print(f"{'amo encoding':<20} " + " | ".join(f"{w.title[:len(head)]:<{len(head)}}" for w in WORKLOADS))
    print(f"{'':<20} " + " | ".join(head for _ in results))
    print("-" * (21 + len(results) * (len(head) + 3)))
    names = list(dict.fromkeys(name for found in results for name in found))
    for name in names:
        print(f"{name:<20} " + " | ".join(cells(found.get(name), found.get("pairwise")) for found in results))
    for workload, found in zip(WORKLOADS, results, strict=True):
        done = {n: r for n, r in found.items() if finished(r.outcome) and "/" not in n}
        if done:
            best = min(done, key=lambda n: done[n].seconds)
            print(f"fastest on {workload.title}: {best} ({done[best].seconds:.3f} s)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--time-limit", type=float, default=60.0, metavar="SEC", help="per run (default 60)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="multiplies each workload's runs per encoding (3 tours, 60 and 5 Shikaku counts)")
    args = parser.parse_args(argv)
    results = [run(workload, args.time_limit, args.repeat) for workload in WORKLOADS]
    print()
    print_side_by_side(results)


if __name__ == "__main__":
    main()
