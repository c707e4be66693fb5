"""Shikaku on generated puzzles from 10x10 to 40x40: every backend and encoding beside the seed's search.

    python -m gridsat.benchmarks.compare.shikaku                         # one puzzle a size, each encoding once: ~1 min
    python -m gridsat.benchmarks.compare.shikaku --seeds 1 2 3 --scope all  # the full series (three a size): ~3 min
    python -m gridsat.benchmarks.compare.shikaku --sizes 12x12 40x40 --time-limit 20 --scope all
    python -m gridsat.benchmarks.compare.shikaku --seeds 1 2 3 --scope default # three puzzles a size, default encodings
    python -m gridsat.benchmarks.compare.shikaku --any                      # puzzles as drawn (often several solutions)
    python -m gridsat.benchmarks.compare.shikaku --sizes seed --repeat 5     # the seed's own 12x12 puzzle, best of 5

Each puzzle comes from ``gridsat generate shikaku RxC --seed S --max-area A [--unique]`` with fixed
seeds, so runs repeat. Every configuration counts all solutions of the same puzzle in this process,
one after the other, so the ratios compare like with like; the ratio is the seed's algorithm
(reference:propagate) time over the run's time, ``>=`` when the seed's run hit the time limit.
The seed reports 2 to 3 s for its 12x12 puzzle with its own (Python 2) program.
"""

from __future__ import annotations

import argparse
import time

from gridsat.models import get_puzzle
from gridsat.solvers.backend import ENUMERATE
from gridsat.solvers.checks.crosscheck import configurations
from gridsat.solvers.gate import Bound, Job, admit
from gridsat.solvers.run import Outcome, execute

SIZES = ["10x10", "15x15", "20x20", "25x25", "30x30", "35x35", "40x40"]
BASELINE = "reference:propagate"


def label(config: Bound) -> str:
    """The configuration as a user would name it: backend, then its encoding or algorithm."""
    choice = config.request.encoding or config.request.algorithm
    default = "propagate" if config.name == "reference" else "default"
    return f"{config.name}:{choice or default}"


def run(size: str, seed: int, args: argparse.Namespace) -> list[tuple[str, Outcome]]:
    """Generate one puzzle and count it with every configuration of the chosen scope."""
    shikaku = get_puzzle("shikaku")
    started = time.perf_counter()
    unique = not args.any
    text = "seed" if size == "seed" else shikaku.generate(size, seed=seed, max_area=args.max_area, unique=unique)
    board = shikaku.parse(text, {})
    made = time.perf_counter() - started
    print(f"# {len(board.clues)} clues, made in {made:.2f} s: {text.splitlines()[0].lstrip('# ')}", flush=True)
    results = []
    for config in configurations(shikaku, scope=args.scope):
        runs = []
        for _ in range(args.repeat):
            job = Job(ENUMERATE, config.request, time_limit=args.time_limit)
            runs.append(execute(shikaku, board, admit(config.backend, shikaku, job)))
            if not runs[-1].complete:
                break  # a timeout: repeating it only repeats the limit
        results.append((label(config), min(runs, key=lambda o: o.build_seconds + o.seconds)))
    return results


def table(size: str, results: list[tuple[str, Outcome]]) -> list[str]:
    """One line per configuration: count, whether complete, build and total (build + solve) seconds,
    and the seed's total time over this one's."""
    base = dict(results).get(BASELINE)
    lines = []
    for name, o in results:
        seconds = o.build_seconds + o.seconds
        ratio = "-"
        if base is not None and seconds > 0:
            bound = ">=" if not base.complete and o is not base else ""
            ratio = f"{bound}{(base.build_seconds + base.seconds) / seconds:,.1f}x"
        done = "yes" if o.complete else f"NO ({o.reason})"
        line = f"{size:<11} {name:<36} {o.count:>6} {done:<18} {o.build_seconds:>8.3f} {seconds:>9.3f} {ratio:>10}"
        lines.append(line)
    counts = {o.count for _, o in results if o.complete}
    if len(counts) > 1:
        lines.append(f"{size:<11} DISAGREEMENT: complete runs counted {sorted(counts)}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=SIZES, metavar="RxC", help="grid sizes, or 'seed'")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1], help="generator seeds (default 1)")
    parser.add_argument("--max-area", type=int, default=None, help="largest rectangle (generator default 12)")
    parser.add_argument("--any", action="store_true", help="keep puzzles as drawn instead of making them unique")
    parser.add_argument("--scope", choices=("default", "each", "all"), default="each", help="encodings to run")
    parser.add_argument("--time-limit", type=float, default=60.0, metavar="SEC", help="per run (default 60)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration, the fastest kept")
    args = parser.parse_args(argv)
    print(f"# {' '.join(args.sizes)}; seeds {' '.join(map(str, args.seeds))}; encodings: {args.scope}; "
          f"time limit {args.time_limit:g} s per run", flush=True)
    if args.seeds == [1] and args.scope == "each":
        print("# the quick series (about a minute); the full one (about three minutes): "
              "python -m gridsat.benchmarks.compare.shikaku --seeds 1 2 3 --scope all", flush=True)
    header = f"{'puzzle':<11} {'configuration':<36} {'count':>6} {'complete':<18} {'build s':>8} {'total s':>9}"
    header += f" {'vs seed':>10}"
    print(header)
    print("-" * len(header))
    for size in args.sizes:
        for seed in [0] if size == "seed" else args.seeds:
            name = size if size == "seed" or len(args.seeds) == 1 else f"{size}/{seed}"
            for line in table(name, run(size, seed, args)):
                print(line, flush=True)


if __name__ == "__main__":
    main()
