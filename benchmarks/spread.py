"""The statistics of a benchmark's report: spread over seeds, the virtual best solver, a paired test.

- **Spread**: per configuration and instance, the median solve time, the interquartile range and a
  bootstrap 95% interval of the median (percentile bootstrap, Efron and Tibshirani 1993; resampled
  from a fixed seed, so a report is the same each time it is written).
- **VBS** (virtual best solver, as SAT competitions report it): per instance the best configuration's
  median solve time; each configuration's share of VBS wins (ties credit every configuration tied).
- **Paired test**: the Wilcoxon signed-rank test (scipy.stats.wilcoxon, two-sided) on the scatter
  pair's solve times paired by instance and seed, a failed run counted at twice the time limit.

Times are ``solve_seconds``: the solver's work, without building the formulation (``build_seconds``).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gridsat.benchmarks.results import record_case

ROUNDS = 2000  # bootstrap resamples: the interval's ends move by well under 1% between seeds
LEVEL = 0.95
SIGNIFICANT = 0.05


def solve_time(record: dict[str, Any]) -> float:
    """A run's headline time: its solve seconds (the whole ``seconds`` for records made before the split)."""
    value = record.get("solve_seconds")
    return record["seconds"] if value is None else value


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """The first quartile, the median and the third quartile (all three equal for one value)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def bootstrap(values: Sequence[float], rounds: int = ROUNDS, level: float = LEVEL,
              seed: int = 0) -> tuple[float, float]:
    """A percentile bootstrap interval of the median (both ends the value itself for one value)."""
    if len(values) == 1:
        return values[0], values[0]
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(rounds))
    tail = (1 - level) / 2
    return medians[int(tail * (rounds - 1))], medians[int((1 - tail) * (rounds - 1))]


@dataclass(frozen=True)
class Spread:
    """One configuration on one instance: its ok runs' solve times, summarised."""

    config: str
    case: str
    runs: int
    ok: int
    q1: float | None
    median: float | None
    q3: float | None
    low: float | None
    high: float | None


def spread(config: str, case: str, runs: list[dict[str, Any]]) -> Spread:
    """The spread of one configuration's runs on one case (times of the ``ok`` runs only)."""
    times = sorted(solve_time(r) for r in runs if r["status"] == "ok")
    if not times:
        return Spread(config, case, len(runs), 0, None, None, None, None, None)
    q1, median, q3 = quartiles(times)
    low, high = bootstrap(times)
    return Spread(config, case, len(runs), len(times), q1, median, q3, low, high)


def cell_time(runs: list[dict[str, Any]]) -> float | None:
    """A configuration's time on a case: the median solve time when every run is ok, else None (failed)."""
    if not runs or any(r["status"] != "ok" for r in runs):
        return None
    return statistics.median(solve_time(r) for r in runs)


@dataclass(frozen=True)
class Best:
    """The virtual best solver on one case: its time and the configurations that reach it."""

    case: str
    seconds: float | None
    winners: tuple[str, ...]


def virtual_best(records: list[dict[str, Any]], configs: Iterable[str], cases: Iterable[str]) -> list[Best]:
    """Per case, the best configuration's time (None when no configuration solved it) and who reaches it."""
    configs = list(configs)
    found = []
    for case in cases:
        times = {c: cell_time([r for r in records if r["config"] == c and record_case(r) == case]) for c in configs}
        solved = {c: t for c, t in times.items() if t is not None}
        if not solved:
            found.append(Best(case, None, ()))
            continue
        best = min(solved.values())
        found.append(Best(case, best, tuple(c for c, t in solved.items() if t == best)))
    return found


def vbs_wins(best: list[Best], config: str) -> int:
    """On how many cases ``config`` is (one of) the virtual best."""
    return sum(config in b.winners for b in best)


@dataclass(frozen=True)
class Paired:
    """The Wilcoxon signed-rank test of two configurations' paired solve times."""

    first: str
    second: str
    pairs: int
    first_faster: int
    second_faster: int
    p: float | None  # None: scipy is missing, or no pair differs

    def words(self) -> str:
        """The test's outcome as a sentence for the report."""
        head = (f"Paired test, `{self.first}` against `{self.second}` on {self.pairs} pairs (instance and seed; "
                f"a failed run counts twice the limit): `{self.first}` faster on {self.first_faster}, "
                f"`{self.second}` on {self.second_faster}")
        if self.p is None:
            return head + "; no Wilcoxon p-value (" + ("scipy is not installed: pip install 'gridsat[plot]')."
                                                       if self.pairs and self.first_faster + self.second_faster
                                                       else "no pair differs).")
        verdict = "significant" if self.p < SIGNIFICANT else "not significant"
        return (head + f"; Wilcoxon signed-rank p = {self.p:.3g}: the difference is {verdict} at the "
                f"{SIGNIFICANT:.0%} level.")


def pairs_of(records: list[dict[str, Any]], first: str, second: str, timeout: float) -> list[tuple[float, float]]:
    """The two configurations' solve times on each instance and seed (repeat) both ran."""
    def key(r: dict[str, Any]) -> tuple:
        return record_case(r), r.get("seed"), r.get("repeat")

    def penalised(r: dict[str, Any]) -> float:
        return solve_time(r) if r["status"] == "ok" else 2 * timeout

    a = {key(r): penalised(r) for r in records if r["config"] == first}
    b = {key(r): penalised(r) for r in records if r["config"] == second}
    return [(a[k], b[k]) for k in a if k in b]


def paired_test(records: list[dict[str, Any]], first: str, second: str, timeout: float) -> Paired:
    """The Wilcoxon signed-rank test of ``first`` against ``second`` (two-sided)."""
    pairs = pairs_of(records, first, second, timeout)
    faster = sum(x < y for x, y in pairs), sum(y < x for x, y in pairs)
    p = None
    if faster[0] + faster[1]:
        try:
            from scipy.stats import wilcoxon
        except ImportError:
            pass
        else:
            p = float(wilcoxon([x for x, _ in pairs], [y for _, y in pairs]).pvalue)
    return Paired(first, second, len(pairs), faster[0], faster[1], p)
