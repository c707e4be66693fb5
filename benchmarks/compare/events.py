"""What the search-event hook costs: every exhaustive reference algorithm timed side by side with
nobody listening, with a listener that counts events, and with a listener that splits the count
(it vetoes the depth-d decisions of the other parts, as a parallel count would).

    python -m gridsat.benchmarks.compare.events             # the cases below, best of 3
    python -m gridsat.benchmarks.compare.events --quick     # smaller instances, best of 1

Target: nobody listening costs nothing measurable (one comparison per decision); the
listeners' cost is printed as a ratio to the silent run measured in the same process.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from gridsat.models import get_puzzle
from gridsat.models.search import Listener
from gridsat.solvers.backends.algorithms import algorithms
from gridsat.solvers.stop import Stop

# (puzzle, instance, params, algorithm, split depth)
CASES = [
    ("prime-grid", "4x5", {"max": "20"}, "dfs", 3),
    ("tatami", "12x20", {}, "rowscan", 6),
    ("knights-tour", "5x5", {}, "backtrack", 2),
    ("shikaku", "seed", {}, "propagate", 3),
    ("shikaku", "seed", {}, "cells", 2),
]
QUICK = [
    ("prime-grid", "4x4", {"max": "16"}, "dfs", 3),
    ("tatami", "12x20", {}, "rowscan", 6),
    ("knights-tour", "5x5", {"start": "0,0"}, "backtrack", 3),
    ("shikaku", "seed", {}, "propagate", 3),
    ("shikaku", "seed", {}, "cells", 2),
]


def counter() -> Listener:
    """A listener that only counts what it hears."""
    heard = [0]

    def listen(kind: str, depth: int, what: Any) -> None:
        heard[0] += 1

    return listen


def splitter(depth: int, parts: int = 2, part: int = 0) -> Listener:
    """A listener that keeps the depth-``depth`` decisions whose ordinal is ``part`` modulo ``parts``."""
    ordinal = [-1]

    def listen(kind: str, d: int, what: Any) -> bool | None:
        if kind == "place" and d == depth:
            ordinal[0] += 1
            return ordinal[0] % parts == part
        return None

    return listen


def best(run: Callable[[], int], repeat: int) -> tuple[float, int]:
    """The best wall time of ``repeat`` runs, and what the run returned."""
    times, result = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller instances, one run each")
    parser.add_argument("--repeat", type=int, help="runs per measurement, best kept (default 3, 1 with --quick)")
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.quick else 3)
    print(f"{'case':<36} {'silent s':>9} {'counting':>9} {'ratio':>6} {'half':>9} {'ratio':>6}  solutions")
    for puzzle, text, params, name, depth in QUICK if args.quick else CASES:
        instance = get_puzzle(puzzle).parse(text, params)
        run = algorithms(puzzle)[name].run

        def count(listen: Listener | None, run=run, instance=instance) -> int:
            return sum(1 for _ in run(instance, Stop(), listen))

        silent, total = best(lambda: count(None), repeat)
        heard, _ = best(lambda: count(counter()), repeat)
        half, kept = best(lambda d=depth: count(splitter(d)), repeat)
        case = f"{puzzle} {text}{''.join(f' {k}={v}' for k, v in params.items())} {name}"
        print(f"{case:<36} {silent:9.3f} {heard:9.3f} {heard / silent:5.2f}x {half:9.3f} {half / silent:5.2f}x"
              f"  {total} (half: {kept})", flush=True)


if __name__ == "__main__":
    main()
