"""The statistics of a benchmark's report, all from one aggregation per instance.

- **Per-instance figure**: a configuration's time on an instance is the median over its runs there
  (seeds and repeats), a run that did not end ``ok`` counted as censored, at or above the limit, and
  never dropped. When the upper middle run is censored the figure is censored too (``None``: at or
  above the limit); so A solving 3 of 4 seeds in 1 s has the figure 1 s, and 2 of 4 has none.
- **VBS** (virtual best solver): per instance the minimum of the configurations' figures, so it is
  never worse than a member; each configuration's share of VBS wins (ties credit every one tied).
- **PAR-2** (the SAT competitions' penalised average runtime): the mean over instances of the
  figure, a censored one counted at twice the limit.
- **Spread**: per configuration and instance, the median, its interquartile range (censored runs
  in place, shown as ``≥ limit``) and a bootstrap 95% interval of the median (percentile bootstrap,
  Efron and Tibshirani 1993; from a fixed seed) only when there are at least ``BOOTSTRAP_LEAST``
  runs: over fewer, the interval is close to [min, max] and says nothing.
- **Paired test**: the Wilcoxon signed-rank test (scipy.stats.wilcoxon, two-sided) on the two
  configurations' figures paired by instance (never by seed: seed k scrambles each configuration's
  formula independently, so pairs of seeds are arbitrary), censored figures at twice the limit.
  It says n (instances), the method (exact, or the normal approximation when differences are zero
  or tied), and the effect: the geometric-mean ratio of the figures with a bootstrap interval over
  instances. Under ``TEST_LEAST`` instances there is no test (with 5, the smallest two-sided exact
  p is 0.0625). Several pairs are corrected with Holm's step-down method (Holm 1979).

A run's time is the headline clock's (``run_time``): the CPU time of building and solving, as the
limit is CPU time, or the wall time of the same part.
"""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gridsat.benchmarks.results import record_case

ROUNDS = 2000  # bootstrap resamples: the interval's ends move by well under 1% between seeds
LEVEL = 0.95
SIGNIFICANT = 0.05
BOOTSTRAP_LEAST = 10  # values a bootstrap interval needs before it is shown
TEST_LEAST = 6  # instances a paired test needs (with 6, the smallest two-sided exact p is 0.03125)
EXACT_MOST = 50  # instances up to which the exact Wilcoxon distribution is used (scipy's own bound)
CLOCKS = ("cpu", "wall")


def run_time(record: dict[str, Any], clock: str = "cpu") -> float:
    """A run's time on ``clock``: ``cpu`` the CPU seconds of building and solving (``run_cpu_seconds``,
    the child's threads and waited-for processes included), ``wall`` their wall seconds (``seconds``).
    A record made before CPU was recorded has only the wall time."""
    if clock == "cpu" and record.get("run_cpu_seconds") is not None:
        return record["run_cpu_seconds"]
    return record["seconds"]


def censored_median(values: Sequence[float]) -> float | None:
    """The median of ``values`` where ``math.inf`` stands for a censored run (at or above the limit):
    None when the upper middle value is censored, since the median is then not known."""
    ordered = sorted(values)
    if not ordered or math.isinf(ordered[len(ordered) // 2]):
        return None
    return statistics.median(ordered)


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """The first quartile, the median and the third quartile (all three equal for one value)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def bootstrap(values: Sequence[float], statistic: Callable[[list[float]], float] = statistics.median,
              rounds: int = ROUNDS, level: float = LEVEL, seed: int = 0) -> tuple[float, float] | None:
    """A percentile bootstrap interval of ``statistic`` (the median); None over fewer than ``BOOTSTRAP_LEAST``
    values, where it is close to [min, max] and says nothing."""
    if len(values) < BOOTSTRAP_LEAST:
        return None
    rng = random.Random(seed)
    medians = sorted(statistic(rng.choices(values, k=len(values))) for _ in range(rounds))
    tail = (1 - level) / 2
    return medians[int(tail * (rounds - 1))], medians[int((1 - tail) * (rounds - 1))]


def times_of(runs: Iterable[dict[str, Any]], clock: str = "cpu") -> list[float]:
    """The runs' times, a run that did not end ``ok`` as ``math.inf`` (censored)."""
    return [run_time(r, clock) if r["status"] == "ok" else math.inf for r in runs]


def cell_time(runs: list[dict[str, Any]], clock: str = "cpu") -> float | None:
    """A configuration's figure on a case: the censored median of its runs (None: at or above the limit)."""
    return censored_median(times_of(runs, clock))


@dataclass(frozen=True)
class Spread:
    """One configuration on one instance: its runs' times, summarised (censored ones in place)."""

    config: str
    case: str
    runs: int
    ok: int
    q1: float | None  # None: censored (at or above the limit)
    median: float | None
    q3: float | None
    interval: tuple[float, float] | None  # None: fewer than BOOTSTRAP_LEAST runs, or censored values in it


def spread(config: str, case: str, runs: list[dict[str, Any]], clock: str = "cpu") -> Spread:
    """The spread of one configuration's runs on one case."""
    times = sorted(times_of(runs, clock))
    if any(map(math.isinf, times)):  # censored runs: quartiles read off the order (nearest rank), no interval
        rank = (len(times) - 1) // 4
        q1, q3, interval = times[rank], times[-1 - rank], None
    else:
        q1, _, q3 = quartiles(times)
        interval = bootstrap(times)
    q1, q3 = (None if math.isinf(q) else q for q in (q1, q3))
    return Spread(config, case, len(runs), sum(r["status"] == "ok" for r in runs), q1, censored_median(times), q3,
                  interval)


@dataclass(frozen=True)
class Best:
    """The virtual best solver on one case: its figure (None: every configuration censored) and who reaches it."""

    case: str
    seconds: float | None
    winners: tuple[str, ...]


def figures(records: list[dict[str, Any]], configs: Iterable[str], cases: Iterable[str],
            clock: str = "cpu") -> dict[tuple[str, str], float | None]:
    """Each (configuration, case)'s figure, for the pairs that ran."""
    found = {}
    for config in configs:
        for case in cases:
            runs = [r for r in records if r["config"] == config and record_case(r) == case]
            if runs:
                found[config, case] = cell_time(runs, clock)
    return found


def virtual_best(records: list[dict[str, Any]], configs: Iterable[str], cases: Iterable[str],
                 clock: str = "cpu") -> list[Best]:
    """Per case, the minimum of the configurations' figures (None when all are censored) and who reaches it."""
    configs, cases = list(configs), list(cases)
    table = figures(records, configs, cases, clock)
    found = []
    for case in cases:
        solved = {c: table[c, case] for c in configs if table.get((c, case)) is not None}
        if not solved:
            found.append(Best(case, None, ()))
            continue
        best = min(solved.values())
        found.append(Best(case, best, tuple(c for c, t in solved.items() if t == best)))
    return found


def vbs_wins(best: list[Best], config: str) -> int:
    """On how many cases ``config`` is (one of) the virtual best."""
    return sum(config in b.winners for b in best)


def penalised(figure: float | None, timeout: float) -> float:
    """A figure as PAR-2 counts it: a censored one at twice the limit."""
    return 2 * timeout if figure is None else figure


def par2(per_case: Iterable[float | None], timeout: float) -> float | None:
    """The mean over instances of the figures, censored ones at twice the limit (None over no instance)."""
    values = [penalised(f, timeout) for f in per_case]
    return sum(values) / len(values) if values else None


def median_over(per_case: Iterable[float | None]) -> float | None:
    """The median over instances of the figures, censored ones at or above the limit (None if it is censored)."""
    return censored_median([math.inf if f is None else f for f in per_case])


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (Holm 1979, "A simple sequentially rejective multiple test
    procedure"): the k-th smallest times (m - k + 1), kept monotone, at most 1."""
    order = sorted(range(len(pvalues)), key=pvalues.__getitem__)
    adjusted, running = [0.0] * len(pvalues), 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


@dataclass(frozen=True)
class Paired:
    """The Wilcoxon signed-rank test of two configurations' figures, paired by instance."""

    first: str
    second: str
    instances: int
    first_faster: int
    second_faster: int
    p: float | None  # None: too few instances, no instance differs, or scipy is missing (``missing`` says which)
    method: str = ""  # "exact", or the normal approximation and why
    ratio: float | None = None  # geometric mean over instances of first / second
    interval: tuple[float, float] | None = None  # its bootstrap 95% interval over instances (>= BOOTSTRAP_LEAST)
    missing: str = ""
    adjusted: float | None = None  # Holm's adjusted p when several pairs were tested

    def significant(self) -> bool:
        """Whether the (Holm-adjusted) p is below the level."""
        p = self.p if self.adjusted is None else self.adjusted
        return p is not None and p < SIGNIFICANT

    def effect(self) -> str:
        """The geometric-mean ratio in words, with its interval when there are enough instances."""
        if self.ratio is None:
            return ""
        shown = (f"; bootstrap 95% interval {self.interval[0]:.3g}–{self.interval[1]:.3g}" if self.interval
                 else f"; no interval under {BOOTSTRAP_LEAST} instances")
        return f"geometric-mean time ratio `{self.first}`/`{self.second}` {self.ratio:.3g}{shown}"

    def words(self) -> str:
        """The test's outcome as a sentence for the report."""
        head = (f"Paired test, `{self.first}` against `{self.second}` on n = {self.instances} instances (each "
                f"configuration's median over its runs there; a censored one at twice the limit): "
                f"`{self.first}` faster on {self.first_faster}, `{self.second}` on {self.second_faster}")
        effect = f"; {self.effect()}" if self.ratio is not None else ""
        if self.p is None:
            return f"{head}{effect}; no p-value: {self.missing}."
        holm_part = "" if self.adjusted is None else f", Holm-adjusted p = {self.adjusted:.3g}"
        verdict = "significant" if self.significant() else "not significant"
        return (f"{head}{effect}; Wilcoxon signed-rank ({self.method}) p = {self.p:.3g}{holm_part}: the difference "
                f"is {verdict} at the {SIGNIFICANT:.0%} level.")


def pairs_of(records: list[dict[str, Any]], first: str, second: str, timeout: float,
             clock: str = "cpu") -> list[tuple[float, float]]:
    """The two configurations' figures on each instance both ran, censored ones at twice the limit."""
    cases = list(dict.fromkeys(record_case(r) for r in records))
    table = figures(records, (first, second), cases, clock)
    return [(penalised(table[first, c], timeout), penalised(table[second, c], timeout)) for c in cases
            if (first, c) in table and (second, c) in table]


def wilcoxon_method(pairs: list[tuple[float, float]]) -> str:
    """``exact`` when no difference is zero or tied and there are at most ``EXACT_MOST`` instances, else
    the normal approximation (with the tie correction) and why."""
    differences = [abs(x - y) for x, y in pairs]
    if len(pairs) > EXACT_MOST:
        return f"normal approximation: over {EXACT_MOST} instances"
    if 0 in differences:
        return "normal approximation: zero differences (Pratt's treatment)"
    if len(set(differences)) < len(differences):
        return "normal approximation: tied differences"
    return "exact"


def geometric_ratio(pairs: list[tuple[float, float]]) -> tuple[float, tuple[float, float] | None]:
    """The geometric mean of first/second over the pairs, and its bootstrap interval over them."""
    logs = [math.log(max(x, 1e-6) / max(y, 1e-6)) for x, y in pairs]
    interval = bootstrap(logs, statistics.fmean)
    return math.exp(statistics.fmean(logs)), None if interval is None else (math.exp(interval[0]),
                                                                            math.exp(interval[1]))


def paired_test(records: list[dict[str, Any]], first: str, second: str, timeout: float,
                clock: str = "cpu") -> Paired:
    """The Wilcoxon signed-rank test of ``first`` against ``second`` over instances (two-sided)."""
    pairs = pairs_of(records, first, second, timeout, clock)
    faster = sum(x < y for x, y in pairs), sum(y < x for x, y in pairs)
    ratio, interval = geometric_ratio(pairs) if pairs else (None, None)
    found = Paired(first, second, len(pairs), faster[0], faster[1], None, ratio=ratio, interval=interval)
    if len(pairs) < TEST_LEAST:
        return dataclasses.replace(found, missing=f"too few instances for a test (at least {TEST_LEAST})")
    if not faster[0] + faster[1]:
        return dataclasses.replace(found, missing="no instance differs")
    try:
        p, method = signed_rank(pairs)
    except ImportError:
        return dataclasses.replace(found, missing="scipy is not installed: pip install 'gridsat[plot]'")
    return dataclasses.replace(found, p=p, method=method)


def signed_rank(pairs: list[tuple[float, float]]) -> tuple[float, str]:
    """The two-sided Wilcoxon signed-rank p of the pairs and its method (ImportError without scipy)."""
    from scipy.stats import wilcoxon

    method = wilcoxon_method(pairs)
    result = wilcoxon([x for x, _ in pairs], [y for _, y in pairs], zero_method="pratt",
                      method="exact" if method == "exact" else "approx", correction=False)
    return float(result.pvalue), method


def best_adjusted_p(instances: int, tests: int) -> float:
    """The smallest Holm-adjusted p that ``tests`` paired tests over ``instances`` instances can give: each
    first configuration faster on every instance, by distinct margins (the exact test's smallest p, twice
    0.5 to the power of the instances, then Holm's correction over the tests)."""
    sweep = [(1.0, 2.0 + i) for i in range(instances)]
    return max(holm([signed_rank(sweep)[0]] * tests))


def paired_tests(records: list[dict[str, Any]], pairs: list[tuple[str, str]], timeout: float,
                 clock: str = "cpu") -> list[Paired]:
    """Each pair's test; over several tested pairs, each with its Holm-adjusted p."""
    tests = [paired_test(records, a, b, timeout, clock) for a, b in pairs]
    tested = [i for i, t in enumerate(tests) if t.p is not None]
    if len(tested) > 1:
        adjusted = holm([tests[i].p for i in tested])
        for i, p in zip(tested, adjusted, strict=True):
            tests[i] = dataclasses.replace(tests[i], adjusted=p)
    return tests
