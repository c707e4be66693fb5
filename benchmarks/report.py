"""``report.md``, ``summary.csv``, ``results.csv`` and plots, from the records of an output directory.

The headline time follows the limit's kind: CPU time (``run_cpu_seconds``) of building the formulation
and solving, measured inside the child after the backend's imports and compiled kernels were loaded;
its wall time (``seconds``) stands beside it, and the CPU time of the solve alone (``solve_cpu_seconds``).
Interpreter start-up is in the whole child's ``wall_seconds`` and ``cpu_seconds``. Every time is from one
aggregation per instance (``spread.py``: the per-instance figure, the VBS, PAR-2 and the paired tests); the
plots are in ``plots.py``.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from gridsat.benchmarks import spread
from gridsat.benchmarks.plots import cases_of, configs_of
from gridsat.benchmarks.results import LOST, NOT_APPLICABLE, STATUSES, record_case, verdicts
from gridsat.benchmarks.spread import Best, Paired

SIZES = ("variables", "clauses", "constraints")
# The solver statistics a record may hold (None where the solver gives no such number).
SOLVER_COUNTERS = ("conflicts", "decisions", "propagations", "restarts")
STATISTICS = (*SOLVER_COUNTERS, "refinements", "added_clauses")
SHORT = 0.01  # seconds: a run shorter than this is too short to time (flagged in the report)
CLOCK_NAMES = {"cpu": "CPU", "wall": "wall"}
STRENGTH_K = 3  # gridsat strength -k for the report's strength column (a few seconds for a suite's encodings)


def by_puzzle(records: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[record["puzzle"]].append(record)
    return dict(groups)


def median_of(values: list[float | int]) -> float | int | None:
    return statistics.median(values) if values else None


def cpu_per_wall(record: dict[str, Any]) -> float | None:
    """CPU over wall time of the run's build and solve (the whole child's when the worker did not say)."""
    if record.get("cpu_wall") is not None:
        return record["cpu_wall"]
    wall = record.get("wall_seconds")
    return record["cpu_seconds"] / wall if wall and record.get("cpu_seconds") is not None else None


def clock_of(head: dict[str, Any]) -> str:
    """The headline clock: the limit's kind (``cpu``, the only limit the runner sets, unless a header says)."""
    return head["limits"].get("clock", "cpu")


def instance_sizes(runs: list[dict[str, Any]], key: str) -> tuple[int, int] | None:
    """The smallest and largest of one size over the instances (a size is the same on every run of an instance)."""
    per_case = {record_case(r): r[key] for r in runs if r.get(key) is not None}
    return (min(per_case.values()), max(per_case.values())) if per_case else None


def instance_median(ok: list[dict[str, Any]], cases: list[str],
                    value: Callable[[dict[str, Any]], float | None]) -> float | None:
    """The median over instances of each instance's median ``value`` over its ok runs (instances with none
    left out): one aggregation per instance, as the times have."""
    per_case = [median_of([v for r in ok if record_case(r) == case and (v := value(r)) is not None])
                for case in cases]
    return median_of([v for v in per_case if v is not None])


def summarize(records: list[dict[str, Any]], timeout: float, best: list[Best],
              clock: str = "cpu") -> list[dict[str, Any]]:
    """One row per configuration, every figure aggregated per instance first (times: ``spread``; build time,
    solver statistics and cpu/wall: medians over each instance's ok runs, then over instances): solved,
    median CPU and wall seconds, build time, PAR-2, VBS wins, solver statistics, cpu/wall, the range of the
    formulation's sizes over instances, peak memory, strength."""
    rows = []
    cases = cases_of(records)
    for config in configs_of(records):
        runs = [r for r in records if r["config"] == config]
        ok = [r for r in runs if r["status"] == "ok"]
        mine = [c for c in cases if any(record_case(r) == c for r in runs)]
        # Every instance of the puzzle counts: one this configuration did not run is unsolved (None), as in
        # a competition, so that the VBS over the same instances is never worse than a configuration.
        figures = {k: spread.figures(runs, [config], mine, k) for k in spread.CLOCKS}
        figures = {k: {c: found.get((config, c)) for c in cases} for k, found in figures.items()}
        first = runs[0]
        rows.append({
            "puzzle": first["puzzle"], "config": config, "backend": first["backend"], "encoding": first["encoding"],
            "solver": first["solver"], "algorithm": first["algorithm"],
            "runs": len(runs), "solved": len(ok), "wrong": sum(r["status"] == "wrong" for r in runs),
            "instances": len(cases), "instances_solved": sum(f is not None for f in figures[clock].values()),
            **{f"median_{k}_seconds": spread.median_over(figures[k].values()) for k in spread.CLOCKS},
            "solve_cpu_seconds": instance_median(ok, mine, lambda r: r.get("solve_cpu_seconds")),
            "build_seconds": instance_median(ok, mine, lambda r: r.get("build_seconds")),
            "par2_seconds": spread.par2(figures[clock].values(), timeout),
            "vbs_wins": spread.vbs_wins(best, config), "cases": len(best),
            **{k: instance_median(ok, mine, lambda r, k=k: r.get(k)) for k in STATISTICS},
            "cpu_wall": instance_median(ok, mine, cpu_per_wall),
            **{f"{k}_range": instance_sizes(runs, k) for k in SIZES},
            "max_rss_mb": max((r.get("max_rss_bytes") or 0) for r in runs) / 2**20,
            "strength": strength_of(first),
        })
    return rows


def seconds(value: float | None, timeout: float | None = None) -> str:
    """A time: three decimals, or three significant digits below 0.1 s (where CNF solves often are); a
    censored one (None, with the limit given) as at or above the limit."""
    if value is None:
        return "—" if timeout is None else f"≥ {timeout:g}"
    return f"{value:.3f}" if value >= 0.1 or value == 0 else f"{value:.3g}"


def span(low: float | None, high: float | None) -> str:
    return "—" if low is None or high is None else f"{seconds(low)}–{seconds(high)}"


def number(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def size_range(found: tuple[int, int] | None, unit: str = "") -> str:
    """A size over instances: one number when every instance has it, else its range (never a median)."""
    if found is None:
        return "—"
    low, high = found
    return (f"{low}" if low == high else f"{low}–{high}") + unit


def size(row: dict[str, Any]) -> str:
    if row["clauses_range"] is not None:
        return size_range(row["clauses_range"])
    return size_range(row["constraints_range"], " constraints")


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def summary_table(rows: list[dict[str, Any]], best: list[Best], timeout: float, clock: str = "cpu") -> list[str]:
    """The main table: a row per configuration and the virtual best's row below them; the headline clock's
    column first."""
    clocks = sorted(spread.CLOCKS, key=lambda k: k != clock)
    header = ["configuration", "solved runs", "solved instances", "wrong",
              *(f"median {CLOCK_NAMES[k]} s" for k in clocks), "solve CPU s", "build s", "PAR-2 s", "VBS wins",
              "cpu/wall", "variables", "clauses", "peak MB", "strength"]
    body = [[
        f"`{r['config']}`", f"{r['solved']}/{r['runs']}", f"{r['instances_solved']}/{r['instances']}", str(r["wrong"]),
        *(seconds(r[f"median_{k}_seconds"], timeout) for k in clocks),
        seconds(r["solve_cpu_seconds"]), seconds(r["build_seconds"]), seconds(r["par2_seconds"]),
        f"{r['vbs_wins']}/{r['cases']} ({r['vbs_wins'] / max(r['cases'], 1):.0%})",
        "—" if r["cpu_wall"] is None else f"{r['cpu_wall']:.2f}",
        size_range(r["variables_range"]), size(r), f"{r['max_rss_mb']:.0f}", r["strength"],
    ] for r in rows]
    figures = [b.seconds for b in best]
    solved = sum(f is not None for f in figures)
    body.append(["*VBS*", "", f"{solved}/{len(best)}", "", seconds(spread.median_over(figures), timeout), "", "", "",
                 seconds(spread.par2(figures, timeout)), "", "", "", "", "", ""])
    return table(header, body)


def too_short(records: list[dict[str, Any]], clock: str) -> list[str]:
    """A note on the runs too short to time (under ``SHORT`` seconds), and what to run instead."""
    short = [r for r in records if r["status"] == "ok" and spread.run_time(r, clock) < SHORT]
    if not short:
        return []
    where = list(dict.fromkeys(f"`{r['config']}` on `{record_case(r)}`" for r in short))
    more = f" and {len(where) - 4} more" if len(where) > 4 else ""
    return [f"**Too short to time:** {len(short)} of {sum(r['status'] == 'ok' for r in records)} ok runs took under "
            f"{SHORT * 1000:g} ms of {CLOCK_NAMES[clock]} time ({', '.join(where[:4])}{more}): at that scale the "
            "timer's resolution, caches and the machine's load decide the order, not the encoding. Use a larger "
            "instance (a bigger board, or a suite of instances that take a second or more) to compare them.", ""]


def statistics_table(rows: list[dict[str, Any]]) -> list[str]:
    """The solver statistics (per instance the median over ok runs, then the median over instances); and
    which configurations give none."""
    present = [k for k in STATISTICS if any(r[k] is not None for r in rows)]
    if not present:
        return ["No configuration here reports solver statistics (conflicts, decisions, propagations, restarts).",
                ""]
    lines = table(["configuration", *(k.replace("_", " ") for k in present)],
                  [[f"`{r['config']}`", *(number(r[k]) for k in present)] for r in rows])
    counters = [k for k in present if k in SOLVER_COUNTERS]
    silent = [f"`{r['config']}`" for r in rows if all(r[k] is None for k in STATISTICS)]
    partly = [f"`{r['config']}` ({', '.join(k for k in counters if r[k] is None)})" for r in rows
              if any(r[k] is None for k in counters) and not all(r[k] is None for k in STATISTICS)]
    lines.append("")
    if silent:
        lines.append(f"No statistics (the solver gives none): {', '.join(silent)}.")
    if partly:
        lines.append(f"Not given by the solver (left empty): {'; '.join(partly)}.")
    if set(present) - set(SOLVER_COUNTERS):
        lines.append("Refinements and added clauses are a lazy encoding's cost (cutset's refinement rounds and the "
                     "cut clauses they added while solving); an eager encoding has none (—).")
    return [*lines, ""]


def cell(runs: list[dict[str, Any]], timeout: float, clock: str) -> str:
    """One configuration on one case: its figure (the censored median of its runs), how many of its runs
    were ok when not all, and WRONG when any run was."""
    if not runs:
        return ""
    bad = [r["status"] for r in runs if r["status"] != "ok"]
    if "wrong" in bad:
        return "WRONG"
    figure = spread.cell_time(runs, clock)
    shown = seconds(figure) if figure is not None else f"{bad[0]} (≥ {timeout:g})"
    return f"{shown} ({len(runs) - len(bad)}/{len(runs)} ok)" if bad and len(runs) > 1 else shown


def answers(records: list[dict[str, Any]]) -> dict[str, str]:
    """Per case, the counts of its ``ok`` runs (one number when they agree)."""
    found = {}
    for case in cases_of(records):
        counts = sorted({r["count"] for r in records if record_case(r) == case and r["status"] == "ok"})
        found[case] = ", ".join(map(str, counts)) or "?"
    return found


def matrix_table(records: list[dict[str, Any]], best: list[Best], timeout: float, clock: str) -> list[str]:
    """Configurations down, cases across: each figure, or its status; the VBS and the counts."""
    cases = cases_of(records)
    counts = answers(records)
    rows = [[f"`{config}`"] + [cell([r for r in records if r["config"] == config and record_case(r) == case],
                                     timeout, clock) for case in cases] for config in configs_of(records)]
    rows.append(["*VBS*"] + [seconds(b.seconds, timeout) for b in best])
    rows.append(["*count*"] + [counts[case] for case in cases])
    return table([f"{CLOCK_NAMES[clock]} seconds"] + [f"`{c}`" for c in cases], rows)


def spread_table(records: list[dict[str, Any]], timeout: float, clock: str) -> list[str]:
    """Per configuration and case with several runs: median, interquartile range, bootstrap 95% interval."""
    found = [spread.spread(config, case, [r for r in records if r["config"] == config and record_case(r) == case],
                           clock) for config in configs_of(records) for case in cases_of(records)]
    found = [s for s in found if s.runs > 1]
    if not found:
        return []
    censored = f"≥ {timeout:g}"
    body = [[f"`{s.config}`", f"`{s.case}`", f"{s.ok}/{s.runs}", seconds(s.median, timeout),
             f"{seconds(s.q1, timeout)}–{seconds(s.q3, timeout)}",
             span(*s.interval) if s.interval else "—"] for s in found]
    return [f"Spread over the runs of each configuration and instance (seeds and repeats), {CLOCK_NAMES[clock]} "
            f"seconds: the median, its interquartile range, a run that did not end ok counted as censored "
            f"({censored}), and a bootstrap 95% interval of the median, shown only over at least "
            f"{spread.BOOTSTRAP_LEAST} runs all ok (over fewer it is close to [min, max] and says nothing).", "",
            *table(["configuration", "instance", "ok", "median s", "IQR s", "95% interval s"], body), ""]


def ranking(rows: list[dict[str, Any]]) -> list[str]:
    """When encodings ran on several solvers: each solver's encodings, best first (PAR-2, then median solve
    time), and whether the order changes with the solver."""
    solvers = list(dict.fromkeys(r["solver"] for r in rows if r["solver"]))
    encodings = list(dict.fromkeys(r["encoding"] for r in rows if r["solver"]))
    if len(solvers) < 2 or len(encodings) < 2:
        return []
    orders = {}
    for solver in solvers:
        mine = sorted((r for r in rows if r["solver"] == solver), key=lambda r: r["par2_seconds"])
        orders[solver] = [r["encoding"] for r in mine]
    body = [[f"`{solver}`", " < ".join(f"`{e}`" for e in order)] for solver, order in orders.items()]
    firsts = {order[0] for order in orders.values()}
    if len({tuple(order) for order in orders.values()}) == 1:
        verdict = "The ranking of the encodings is the same on every solver."
    elif len(firsts) == 1:
        verdict = f"The best encoding is `{firsts.pop()}` on every solver; the order of the others changes."
    else:
        verdict = "The ranking changes with the solver: the best encoding is " + ", ".join(
            f"`{order[0]}` on {solver}" for solver, order in orders.items()) + "."
    return ["Ranking of the encodings per solver (fastest first, by PAR-2):", "",
            *table(["solver", "encodings, fastest first"], body), "", verdict, ""]


def pick_pair(configs: list[str], prefixes: tuple[str, str] | None) -> tuple[tuple[str, str] | None, bool]:
    """The two configurations to scatter, the first matching each prefix (default: cpsat, then sat); and
    whether they are the pair asked for (else the first two configurations, said in the report)."""
    prefixes = prefixes or ("cpsat", "sat")
    chosen: list[str] = []
    for prefix in prefixes:
        match = next((c for c in configs if c.startswith(prefix) and c not in chosen), None)
        if match:
            chosen.append(match)
    asked = len(chosen) == 2
    for config in configs:
        if len(chosen) < 2 and config not in chosen:
            chosen.append(config)
    return ((chosen[0], chosen[1]) if len(chosen) == 2 else None), asked


@cache
def verdict_of(token: str) -> str | None:
    """An encoding token's propagation strength in short (``PC``, ``not AC``, a tour encoding's part in
    brackets with its scope) from ``gridsat strength``'s cases (the exactly-one, adjacency and tour ones),
    or None when no case checks it: exhaustively where that takes seconds, else at ``STRENGTH_K``."""
    from gridsat.solvers.strength import CASES, strength
    from gridsat.solvers.strength.atlas import reach

    names = [name for name in (f"exactly-one {token}", f"adjacency {token}", f"tour {token}") if name in CASES]
    if not names:
        return None
    case = CASES[names[0]]
    return strength(case, reach(case, STRENGTH_K)).short()


def strength_of(record: dict[str, Any]) -> str:
    """The propagation strength of a CNF configuration's encoding choices (``gridsat strength``), else —."""
    if record["backend"] == "cpsat" or not record.get("encoding"):
        return "—"
    named = [f"{token} {verdict_of(token)}" for token in record["encoding"].split("+") if verdict_of(token)]
    return ", ".join(named) or "—"


def intro(records: list[dict[str, Any]], head: dict[str, Any]) -> list[str]:
    """The report's title, what ran where, and how to read the times."""
    from gridsat.solvers.strength.atlas import EXHAUSTIVE_BUDGET

    limits, clock = head["limits"], clock_of(head)
    statuses = {s: sum(r["status"] == s for r in records) for s in STATUSES}
    return [
        f"# Benchmark: {head['suite']}",
        "",
        *([head["description"][:1].upper() + head["description"][1:] + ".", ""] if head.get("description") else []),
        f"{len(records)} runs: " + ", ".join(f"{n} {s}" for s, n in statuses.items() if n) + ".",
        "Cases (each instance and mode): " + ", ".join(f"{n} {v}" for v, n in verdicts(records).items()) + " (checked "
        "against the suite's expected or the golden count; with neither, no majority decides: runs that differ "
        "make a case disputed, and one that only one run answered is unchecked).",
        f"Limits per run: {limits['timeout']:g} s of CPU, {limits['memory']} MB of resident memory; repeats: "
        f"{limits.get('repeat', 1)}; seeds: {limits.get('seeds') or 'none'}; "
        f"CP-SAT workers: {limits.get('workers', 1)}. "
        f"Machine: {head['machine']['system']}, {head['machine']['cpus']} CPUs; Python {head['python']}; "
        + ", ".join(f"{k} {v}" for k, v in head["packages"].items()) + ".",
        "",
        f"**The headline time is {CLOCK_NAMES[clock]} time, as the limit is** (`run_cpu_seconds`, or `seconds` on "
        "the wall clock): the child's work on building the formulation and solving, after the backend's imports "
        "and compiled kernels were loaded; building alone is `build s` (wall), and `solve CPU s` is the CPU time "
        "of the search alone after the formulation was built (`solve_cpu_seconds`: the child's threads, per "
        "instance the median over its ok runs, then over instances; — for a model counter, whose count runs in a "
        "process of its own). Every time is from one aggregation per "
        "instance: a configuration's figure on an instance is the median over its runs there (seeds and "
        "repeats), a run that did not end `ok` counted as censored (at or above the limit, never dropped; a "
        "censored median shows as `≥` the limit). `median s` is the median of the figures over instances; "
        "PAR-2 the mean of the figures, a censored one, or an instance a configuration did not run, at twice "
        "the limit; the VBS (virtual best solver) takes "
        "per instance the smallest figure, so it is never worse than a configuration; `VBS wins` is on how "
        "many instances a configuration is (one of) the best. `cpu/wall` is the CPU time over the wall time "
        "of build and solve (above 1: several threads). `variables` and `clauses` (or CP-SAT's constraints) "
        "are the formulation's size, a range over the instances; `strength` the encoding's propagation "
        "strength as `gridsat strength` finds it (PC propagation-complete, AC arc-consistent; exhaustively where "
        f"a claim's instances have at most {EXHAUSTIVE_BUDGET:,} partial assignments, else on every assignment of "
        f"at most {STRENGTH_K} literals: `to k = {STRENGTH_K}`; a tour encoding's claim, in brackets, is about the "
        "part it names, never the whole tour). Tables: `summary.csv`; every run: `results.csv` and "
        "`results.jsonl`.",
        "",
    ]


def draw(group: list[dict[str, Any]], puzzle: str, out: Path, timeout: float, best: list[Best],
         pair: tuple[str, str] | None, test: Paired | None) -> list[str]:
    """The puzzle's plots: bars for one instance; else cactus, the pair's scatter and, over three or more
    instances, growth."""
    from gridsat.benchmarks import plots

    if len(cases_of(group)) == 1:
        return [plots.bars(group, puzzle, out, timeout)]
    files = [plots.cactus(group, puzzle, out, timeout, best)]
    if pair:
        files.append(plots.scatter(group, puzzle, out, timeout, pair, test))
    if len(cases_of(group)) >= 3:
        files.append(plots.growth(group, puzzle, out))
    return files


def tested_pairs(pair: tuple[str, str], configs: list[str]) -> list[tuple[str, str]]:
    """The scatter pair, then its first configuration against each other one."""
    return [pair, *((pair[0], c) for c in configs if c not in pair)]


def tests_words(tests: list[Paired], cases: int) -> list[str]:
    """The paired tests' lines; one line when there are too few instances for any test."""
    if cases < spread.TEST_LEAST:
        return [f"Paired test: too few instances for a test (n = {cases} instances; a Wilcoxon signed-rank test "
                f"over instances needs at least {spread.TEST_LEAST}): nothing here is called significant.", ""]
    lines = [f"- {t.words()}" for t in tests]
    holm = (["Several pairs were tested: each p is also given adjusted by Holm's step-down method, which "
             "decides the verdict."] if sum(t.adjusted is not None for t in tests) else [])
    return [*holm, "", *lines, ""] if holm else [*lines, ""]


def section(out: Path, puzzle: str, group: list[dict[str, Any]], timeout: float, scatter: tuple[str, str] | None,
            plots: bool, clock: str = "cpu") -> tuple[list[str], list[dict[str, Any]], bool]:
    """One puzzle's part of the report: its lines, its summary rows, and whether matplotlib was missing."""
    cases, configs = cases_of(group), configs_of(group)
    best = spread.virtual_best(group, configs, cases, clock)
    rows = summarize(group, timeout, best, clock)
    lines = [f"## {puzzle}", "", *summary_table(rows, best, timeout, clock), "", *too_short(group, clock),
             *statistics_table(rows), *ranking(rows)]
    if len(cases) > 1:
        lines += [*matrix_table(group, best, timeout, clock), ""]
    else:
        [(case, count)] = answers(group).items()
        lines += [f"Count on `{case}` ({group[0]['mode']} mode): {count}.", ""]
    lines += spread_table(group, timeout, clock)
    pair, asked = pick_pair(configs, scatter)
    tests = spread.paired_tests(group, tested_pairs(pair, configs), timeout, clock) if pair else []
    if tests:
        if not asked:
            lines += [f"The scatter pair asked for is not among {puzzle}'s configurations: the first two are tested.",
                      ""]
        lines += tests_words(tests, len(cases))
    files, missing = [], False
    if plots:
        try:
            files = draw(group, puzzle, out, timeout, best, pair, tests[0] if tests else None)
        except ImportError:
            missing = True
    return [*lines, *(f"![{Path(f).stem}]({f})" for f in files), ""], rows, missing


def write(
    out: Path,
    records: list[dict[str, Any]],
    head: dict[str, Any],
    *,
    notes: list[str] = (),
    problems: list[str] = (),
    scatter: tuple[str, str] | None = None,
    plots: bool = True,
) -> Path:
    """Write the report, its CSVs and plots into ``out``; the report's path."""
    timeout = head["limits"]["timeout"]
    lines = intro(records, head) + exceptions(records, notes, problems)
    summary_rows: list[dict[str, Any]] = []
    missing = False
    # a refused run has no time to show, and a lost run's is not known (neither a figure nor a timeout)
    measured = [r for r in records if r["status"] not in (NOT_APPLICABLE, LOST)]
    for puzzle, group in by_puzzle(measured).items():
        part, rows, lacking = section(out, puzzle, group, timeout, scatter, plots and not missing, clock_of(head))
        lines += part
        summary_rows += rows
        missing = missing or lacking
    if missing:
        lines += ["plots skipped: matplotlib is not installed (pip install 'gridsat[plot]')", ""]
    write_csv(out / "summary.csv", [csv_sizes(row) for row in summary_rows])
    write_csv(out / "results.csv", [{**r, "params": record_case(r)} for r in records])
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def exceptions(records: list[dict[str, Any]], notes: Iterable[str], problems: Iterable[str]) -> list[str]:
    """The report's sections on what went wrong (wrong answers, errors) and what was left out."""
    def listed(runs: list[dict[str, Any]], prefix: str = "") -> list[str]:
        return [f"- {r['puzzle']} {record_case(r)} `{r['config']}`: {prefix}{r['message']}" for r in runs]

    lines = []
    if problems:
        lines += ["## Wrong answers and disputed cases", "", *[f"- {p}" for p in problems], ""]
    errors = [r for r in records if r["status"] in ("error", "memout")]
    if errors:
        lines += ["## Errors", "", *listed(errors), ""]
    lost = [r for r in records if r["status"] == LOST]
    if lost:
        lines += ["## Lost to the wall clock", "", "Killed at the wall-clock limit before they had used their CPU "
                  "limit: their times are not known, so no figure, median or test counts them (a timeout would "
                  "charge them the limit). The same `gridsat bench` command runs them again.", "", *listed(lost), ""]
    refused = [r for r in records if r["status"] == NOT_APPLICABLE]
    if notes or refused:
        lines += ["## Left out", "", "What the plan left out, and why; then any run its backend refused.", ""]
        lines += [*[f"- {n}" for n in notes], *listed(refused, "not applicable: "), ""]
    return lines


def csv_sizes(row: dict[str, Any]) -> dict[str, Any]:
    """A summary row for ``summary.csv``: each size range as its two numbers (``variables_min``,
    ``variables_max``), and under its old column (``variables_range``) as text a reader can take, ``12-40``
    (one number when every instance has it; empty when none does), never a Python tuple."""
    flat: dict[str, Any] = {}
    for key, value in row.items():
        if key.removesuffix("_range") not in SIZES:
            flat[key] = value
            continue
        low, high = value or (None, None)
        size = key.removesuffix("_range")
        flat |= {key: "" if value is None else f"{low}" if low == high else f"{low}-{high}",
                 f"{size}_min": low, f"{size}_max": high}
    return flat


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        path.write_text("", encoding="utf-8")
        return
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
