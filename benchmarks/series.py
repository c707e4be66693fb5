"""Side-by-side timing of backends and encodings on a series of instances, with ratios to a baseline.

Every configuration runs on the same instance in the same process, one after the other, so the
ratios printed compare like with like on this (noisy, shared) machine.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from gridsat.models import get_puzzle
from gridsat.solvers.crosscheck import Config
from gridsat.solvers.run import Outcome, execute


@dataclass
class Row:
    """One configuration on one instance: the best of ``repeat`` runs."""

    instance: str
    config: Config
    outcome: Outcome
    seconds: float


def label(config: Config) -> str:
    """``backend`` or ``backend:encoding/solver/algorithm`` for the choices that were made."""
    r = config.request
    extra = "/".join(x for x in (r.encoding, r.solver, r.algorithm) if x)
    return f"{config.backend}:{extra}" if extra else config.backend


def measure(puzzle_name: str, instance_text: str, params: dict[str, str], configs: Sequence[Config],
            time_limit: float, repeat: int = 1, mode: str = "count") -> Iterator[Row]:
    """Run each configuration ``repeat`` times (best time kept) on one instance, yielding as it goes."""
    puzzle = get_puzzle(puzzle_name)
    instance = puzzle.parse(instance_text, params)
    for config in configs:
        times, outcome = [], None
        for _ in range(repeat):
            outcome = execute(puzzle, instance, config.backend, config.request, time_limit=time_limit,
                              limit=1 if mode == "solve" else None)
            times.append(outcome.seconds + outcome.build_seconds)
            if not outcome.complete and outcome.reason == "time limit":
                break  # repeating a timeout only repeats the limit
        yield Row(puzzle.describe(instance), config, outcome, min(times))


def ratio(baseline: Row | None, row: Row) -> str:
    """How many times faster ``row`` is than ``baseline``; ``>=`` when the baseline hit its limit."""
    if baseline is None or row.seconds <= 0:
        return "-"
    value = baseline.seconds / row.seconds
    lower_bound = not baseline.outcome.complete and baseline.outcome.reason == "time limit"
    return f"{'>=' if lower_bound else ''}{value:,.1f}x"


def print_table(rows: Iterable[Row], baseline: str = "reference") -> list[Row]:
    """Print rows as they arrive: count, seconds and the speed-up over the instance's ``baseline`` row.

    ``baseline`` names a backend; the first row of that backend on each instance is the baseline,
    so it should come first in the configurations.
    """
    header = f"{'instance':<10} {'configuration':<36} {'count':>10} {'done':>5} {'seconds':>10} {'vs ' + baseline:>14}"
    print(header)
    print("-" * len(header), flush=True)
    done: list[Row] = []
    bases: dict[str, Row] = {}
    for row in rows:
        if row.config.backend == baseline:
            bases.setdefault(row.instance, row)
        flag = "yes" if row.outcome.complete else "NO"
        print(f"{row.instance:<10} {label(row.config):<36} {row.outcome.count:>10} {flag:>5} {row.seconds:>10.3f} "
              f"{ratio(bases.get(row.instance), row):>14}", flush=True)
        done.append(row)
    for instance in dict.fromkeys(r.instance for r in done):
        counts = {r.outcome.count for r in done if r.instance == instance and r.outcome.complete}
        if len(counts) > 1:
            print(f"{instance:<10} DISAGREEMENT: complete runs counted {sorted(counts)}")
    print()
    return done


def common_arguments(parser: argparse.ArgumentParser, sizes: Sequence[str], time_limit: float) -> None:
    parser.add_argument("--sizes", nargs="+", default=list(sizes), metavar="RxC")
    parser.add_argument("--time-limit", type=float, default=time_limit, metavar="SEC", help="per run")
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (best time kept)")
