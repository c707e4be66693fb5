"""``report.md``, ``summary.csv``, ``results.csv`` and plots, from the records of an output directory.

The headline time is a run's ``solve_seconds``: the solver's work, measured inside the child after the
backend's imports and compiled kernels were loaded and the formulation was built (``build_seconds``,
its own column). Interpreter start-up is in ``wall_seconds`` and ``cpu_seconds``. PAR-2 is the mean
solve time with every run that did not end ``ok`` counted at twice the time limit. The statistics of
the spread, the virtual best and the paired test are in ``spread.py``; the plots in ``plots.py``.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from gridsat.benchmarks import spread
from gridsat.benchmarks.plots import cases_of, configs_of
from gridsat.benchmarks.results import NOT_APPLICABLE, STATUSES, record_case, verdicts
from gridsat.benchmarks.spread import Best, Paired, solve_time

SIZES = ("variables", "clauses", "constraints")
# The solver statistics a record may hold (None where the solver gives no such number).
SOLVER_COUNTERS = ("conflicts", "decisions", "propagations", "restarts")
STATISTICS = (*SOLVER_COUNTERS, "refinements", "added_clauses")
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


def summarize(records: list[dict[str, Any]], timeout: float, best: list[Best]) -> list[dict[str, Any]]:
    """One row per configuration: solved, median solve time and its quartiles, build time, PAR-2, VBS wins,
    solver statistics (medians over ok runs), cpu/wall, formulation size, peak memory, strength."""
    rows = []
    for config in configs_of(records):
        runs = [r for r in records if r["config"] == config]
        ok = [r for r in runs if r["status"] == "ok"]
        times = sorted(solve_time(r) for r in ok)
        q1, median, q3 = spread.quartiles(times) if times else (None, None, None)
        first = runs[0]
        rows.append({
            "puzzle": first["puzzle"], "config": config, "backend": first["backend"], "encoding": first["encoding"],
            "solver": first["solver"], "algorithm": first["algorithm"],
            "runs": len(runs), "solved": len(ok), "wrong": sum(r["status"] == "wrong" for r in runs),
            "median_seconds": median, "q1_seconds": q1, "q3_seconds": q3,
            "build_seconds": median_of([r["build_seconds"] for r in ok if r.get("build_seconds") is not None]),
            "par2_seconds": sum(solve_time(r) if r["status"] == "ok" else 2 * timeout for r in runs) / len(runs),
            "vbs_wins": spread.vbs_wins(best, config), "cases": len(best),
            **{k: median_of([r[k] for r in ok if r.get(k) is not None]) for k in STATISTICS},
            "cpu_wall": median_of([v for v in map(cpu_per_wall, ok) if v is not None]),
            **{k: median_of([r[k] for r in runs if r.get(k) is not None]) for k in SIZES},
            "max_rss_mb": max((r.get("max_rss_bytes") or 0) for r in runs) / 2**20,
            "strength": strength_of(first),
        })
    return rows


def seconds(value: float | None) -> str:
    """A time: three decimals, or three significant digits below 0.1 s (where CNF solves often are)."""
    if value is None:
        return "—"
    return f"{value:.3f}" if value >= 0.1 or value == 0 else f"{value:.3g}"


def span(low: float | None, high: float | None) -> str:
    return "—" if low is None or high is None else f"{seconds(low)}–{seconds(high)}"


def number(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def size(row: dict[str, Any]) -> str:
    if row["clauses"] is not None:
        return f"{row['clauses']:g}"
    if row["constraints"] is not None:
        return f"{row['constraints']:g} constraints"
    return "—"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def summary_table(rows: list[dict[str, Any]], best: list[Best], timeout: float) -> list[str]:
    """The main table: a row per configuration and the virtual best's row below them."""
    header = ["configuration", "solved", "wrong", "median solve s", "IQR s", "build s", "PAR-2 s", "VBS wins",
              "cpu/wall", "variables", "clauses", "peak MB", "strength"]
    body = [[
        f"`{r['config']}`", f"{r['solved']}/{r['runs']}", str(r["wrong"]), seconds(r["median_seconds"]),
        span(r["q1_seconds"], r["q3_seconds"]),
        seconds(r["build_seconds"]), seconds(r["par2_seconds"]),
        f"{r['vbs_wins']}/{r['cases']} ({r['vbs_wins'] / max(r['cases'], 1):.0%})",
        "—" if r["cpu_wall"] is None else f"{r['cpu_wall']:.2f}",
        "—" if r["variables"] is None else f"{r['variables']:g}", size(r), f"{r['max_rss_mb']:.0f}", r["strength"],
    ] for r in rows]
    solved = [b.seconds for b in best if b.seconds is not None]
    par2 = (sum(solved) + 2 * timeout * (len(best) - len(solved))) / max(len(best), 1)
    body.append(["*VBS*", f"{len(solved)}/{len(best)}", "", seconds(median_of(solved)), "", "", seconds(par2),
                 "", "", "", "", "", ""])
    return table(header, body)


def statistics_table(rows: list[dict[str, Any]]) -> list[str]:
    """The solver statistics, medians over each configuration's ok runs; and which give none."""
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


def cell(runs: list[dict[str, Any]]) -> str:
    """One configuration on one case: its median solve time when every run is ok, else what went wrong."""
    if not runs:
        return ""
    bad = [r["status"] for r in runs if r["status"] != "ok"]
    if bad:
        return bad[0].upper() if bad[0] == "wrong" else bad[0]
    return seconds(statistics.median(solve_time(r) for r in runs))


def answers(records: list[dict[str, Any]]) -> dict[str, str]:
    """Per case, the counts of its ``ok`` runs (one number when they agree)."""
    found = {}
    for case in cases_of(records):
        counts = sorted({r["count"] for r in records if record_case(r) == case and r["status"] == "ok"})
        found[case] = ", ".join(map(str, counts)) or "?"
    return found


def matrix_table(records: list[dict[str, Any]], best: list[Best]) -> list[str]:
    """Configurations down, cases across: the median solve time of each, or its status; the VBS and the counts."""
    cases = cases_of(records)
    counts = answers(records)
    rows = [[f"`{config}`"] + [cell([r for r in records if r["config"] == config and record_case(r) == case])
                                for case in cases] for config in configs_of(records)]
    rows.append(["*VBS*"] + [seconds(b.seconds) for b in best])
    rows.append(["*count*"] + [counts[case] for case in cases])
    return table(["solve seconds"] + [f"`{c}`" for c in cases], rows)


def spread_table(records: list[dict[str, Any]]) -> list[str]:
    """Per configuration and case with several runs: median, interquartile range, bootstrap 95% interval."""
    found = [spread.spread(config, case, [r for r in records if r["config"] == config and record_case(r) == case])
             for config in configs_of(records) for case in cases_of(records)]
    found = [s for s in found if s.runs > 1]
    if not found:
        return []
    body = [[f"`{s.config}`", f"`{s.case}`", f"{s.ok}/{s.runs}", seconds(s.median),
             span(s.q1, s.q3), span(s.low, s.high)] for s in found]
    return ["Spread over the runs of each configuration and instance (seeds and repeats; ok runs only): the "
            "median solve time, its interquartile range and a bootstrap 95% interval of the median.", "",
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
        mine = sorted((r for r in rows if r["solver"] == solver),
                      key=lambda r: (r["par2_seconds"], r["median_seconds"] if r["median_seconds"] is not None else 0))
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
    return ["Ranking of the encodings per solver (fastest first, by PAR-2 and then median solve time):", "",
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

    limits = head["limits"]
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
        "**The headline time is the solve time** (`solve_seconds`): the solver's work inside the child process, "
        "after the backend's imports and compiled kernels were loaded and the formulation was built; building "
        "is `build s`. `cpu/wall` is the CPU time over the wall time of build and solve (above 1: several "
        "threads). The time limit is on the child's whole CPU time, start-up included, as with runsolver. "
        "PAR-2 counts every run that did not end `ok` at twice the limit. VBS is the virtual best solver: per "
        "instance the best configuration's median solve time; `VBS wins` is on how many instances a "
        "configuration is (one of) the best. `clauses` is the CNF size, or CP-SAT's constraints; `strength` "
        "the encoding's propagation strength as `gridsat strength` finds it (PC propagation-complete, AC "
        "arc-consistent; exhaustively where a claim's instances have at most "
        f"{EXHAUSTIVE_BUDGET:,} partial assignments, else on every assignment of at most {STRENGTH_K} literals: "
        f"`to k = {STRENGTH_K}`; a tour encoding's claim, in brackets, is about the part it names, never the whole "
        "tour). Tables: `summary.csv`; every run: `results.csv` and `results.jsonl`.",
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


def section(out: Path, puzzle: str, group: list[dict[str, Any]], timeout: float, scatter: tuple[str, str] | None,
            plots: bool) -> tuple[list[str], list[dict[str, Any]], bool]:
    """One puzzle's part of the report: its lines, its summary rows, and whether matplotlib was missing."""
    cases, configs = cases_of(group), configs_of(group)
    best = spread.virtual_best(group, configs, cases)
    rows = summarize(group, timeout, best)
    lines = [f"## {puzzle}", "", *summary_table(rows, best, timeout), "", *statistics_table(rows), *ranking(rows)]
    if len(cases) > 1:
        lines += [*matrix_table(group, best), ""]
    else:
        [(case, count)] = answers(group).items()
        lines += [f"Count on `{case}` ({group[0]['mode']} mode): {count}.", ""]
    lines += spread_table(group)
    pair, asked = pick_pair(configs, scatter)
    test = spread.paired_test(group, *pair, timeout) if pair else None
    if test is not None:
        aside = "" if asked else (f" The scatter pair asked for is not among {puzzle}'s configurations: these "
                                  "are its first two.")
        lines += [test.words() + aside, ""]
    files, missing = [], False
    if plots:
        try:
            files = draw(group, puzzle, out, timeout, best, pair, test)
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
    measured = [r for r in records if r["status"] != NOT_APPLICABLE]  # a refused run has no time to show
    for puzzle, group in by_puzzle(measured).items():
        part, rows, lacking = section(out, puzzle, group, timeout, scatter, plots and not missing)
        lines += part
        summary_rows += rows
        missing = missing or lacking
    if missing:
        lines += ["plots skipped: matplotlib is not installed (pip install 'gridsat[plot]')", ""]
    write_csv(out / "summary.csv", summary_rows)
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
    refused = [r for r in records if r["status"] == NOT_APPLICABLE]
    if notes or refused:
        lines += ["## Left out", "", "What the plan left out, and why; then any run its backend refused.", ""]
        lines += [*[f"- {n}" for n in notes], *listed(refused, "not applicable: "), ""]
    return lines


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        path.write_text("", encoding="utf-8")
        return
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
