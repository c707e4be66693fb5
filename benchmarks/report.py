"""``report.md``, ``summary.csv``, ``results.csv`` and plots, from the records of an output directory.

Times are a run's ``seconds``: building the formulation plus solving, measured inside the child
(interpreter start-up and imports are in ``wall_seconds`` and ``cpu_seconds`` instead). PAR-2 is
the mean time with every run that did not end ``ok`` counted at twice the time limit. matplotlib is
imported only here, with the Agg backend.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gridsat.benchmarks.results import NOT_APPLICABLE, STATUSES, record_case

FLOOR = 1e-4  # seconds: the smallest time a log-scale plot shows
SIZES = ("variables", "clauses", "constraints")


def by_puzzle(records: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[record["puzzle"]].append(record)
    return dict(groups)


def configs_of(records: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(r["config"] for r in records))


def cases_of(records: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(record_case(r) for r in records))


def median_of(values: list[float | int]) -> float | int | None:
    return statistics.median(values) if values else None


def summarize(records: list[dict[str, Any]], timeout: float) -> list[dict[str, Any]]:
    """One row per configuration: solved count, median time, PAR-2, median formulation size."""
    rows = []
    for config in configs_of(records):
        runs = [r for r in records if r["config"] == config]
        solved = [r["seconds"] for r in runs if r["status"] == "ok"]
        first = runs[0]
        rows.append({
            "puzzle": first["puzzle"],
            "config": config,
            "backend": first["backend"],
            "encoding": first["encoding"],
            "solver": first["solver"],
            "algorithm": first["algorithm"],
            "runs": len(runs),
            "solved": len(solved),
            "wrong": sum(r["status"] == "wrong" for r in runs),
            "median_seconds": median_of(solved),
            "par2_seconds": sum(r["seconds"] if r["status"] == "ok" else 2 * timeout for r in runs) / len(runs),
            **{k: median_of([r[k] for r in runs if r.get(k) is not None]) for k in SIZES},
            "max_rss_mb": max((r["max_rss_bytes"] or 0) for r in runs) / 2**20,
        })
    return rows


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def size(row: dict[str, Any]) -> str:
    if row["clauses"] is not None:
        return f"{row['clauses']:g}"
    if row["constraints"] is not None:
        return f"{row['constraints']:g} constraints"
    return "—"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def summary_table(rows: list[dict[str, Any]]) -> list[str]:
    """The main table: configurations (backend:encoding) with time, PAR-2, solved count and size."""
    header = ["configuration", "solved", "wrong", "median s", "PAR-2 s", "variables", "clauses", "peak MB"]
    body = [
        [
            f"`{r['config']}`", f"{r['solved']}/{r['runs']}", str(r["wrong"]), seconds(r["median_seconds"]),
            seconds(r["par2_seconds"]), "—" if r["variables"] is None else f"{r['variables']:g}", size(r),
            f"{r['max_rss_mb']:.0f}",
        ]
        for r in rows
    ]
    return table(header, body)


def cell(runs: list[dict[str, Any]]) -> str:
    """One configuration on one case: its median time when every repeat is ok, else what went wrong."""
    if not runs:
        return ""
    bad = [r["status"] for r in runs if r["status"] != "ok"]
    if bad:
        return bad[0].upper() if bad[0] == "wrong" else bad[0]
    return f"{statistics.median(r['seconds'] for r in runs):.3f}"


def answers(records: list[dict[str, Any]]) -> dict[str, str]:
    """Per case, the counts of its ``ok`` runs (one number when they agree)."""
    found = {}
    for case in cases_of(records):
        counts = sorted({r["count"] for r in records if record_case(r) == case and r["status"] == "ok"})
        found[case] = ", ".join(map(str, counts)) or "?"
    return found


def matrix_table(records: list[dict[str, Any]]) -> list[str]:
    """Configurations down, cases across: the time of each run, or its status."""
    cases = cases_of(records)
    counts = answers(records)
    rows = [[f"`{config}`"] + [cell([r for r in records if r["config"] == config and record_case(r) == case])
                                for case in cases] for config in configs_of(records)]
    rows.append(["*count*"] + [counts[case] for case in cases])
    return table(["seconds"] + [f"`{c}`" for c in cases], rows)


def pick_pair(configs: list[str], prefixes: tuple[str, str] | None) -> tuple[str, str] | None:
    """The two configurations to scatter: the first matching each prefix (default: cpsat, then sat)."""
    prefixes = prefixes or ("cpsat", "sat")
    chosen = []
    for prefix in prefixes:
        match = next((c for c in configs if c.startswith(prefix) and c not in chosen), None)
        if match:
            chosen.append(match)
    for config in configs:
        if len(chosen) < 2 and config not in chosen:
            chosen.append(config)
    return (chosen[0], chosen[1]) if len(chosen) == 2 else None


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def styles(count: int) -> list[dict[str, Any]]:
    """A colour and marker per configuration, no two alike: ten colours with one marker up to ten
    lines, twenty colours up to twenty, past that colours spread over a wide colour map; the markers
    cycle too, so that neighbouring colours are also told apart by shape."""
    from matplotlib import colormaps

    if count <= 10:
        colours = [colormaps["tab10"](i) for i in range(count)]
    elif count <= 20:
        colours = [colormaps["tab20"](i) for i in range(count)]
    else:
        colours = [colormaps["turbo"](i / (count - 1)) for i in range(count)]
    return [{"color": colours[i], "marker": MARKERS[i % len(MARKERS)] if count > 10 else "o"} for i in range(count)]


def plot(
    records: list[dict[str, Any]], puzzle: str, out: Path, timeout: float, pair: tuple[str, str] | None
) -> list[str]:
    """A cactus plot and a scatter plot of ``pair``, or for a single case a bar per configuration
    (a cactus of one run each is a column of dots); the files written (relative to the report)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (out / "plots").mkdir(exist_ok=True)
    if len(cases_of(records)) == 1:
        return [bars(plt, records, puzzle, out, timeout)]
    written = []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    configs = configs_of(records)
    for config, style in zip(configs, styles(len(configs)), strict=True):
        times = sorted(max(r["seconds"], FLOOR) for r in records if r["config"] == config and r["status"] == "ok")
        ax.plot(range(1, len(times) + 1), times, "-", markersize=4, label=config, **style)
    ax.axhline(timeout, color="grey", linestyle="--", linewidth=0.8)
    ax.set(yscale="log", xlabel="runs solved", ylabel="seconds (build + solve)", title=f"{puzzle}: cactus")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    name = f"plots/{puzzle}-cactus.png"
    fig.savefig(out / name, dpi=110, bbox_inches="tight")
    plt.close(fig)
    written.append(name)
    if pair:
        points = []  # (x seconds, y seconds, whether either is drawn at the limit)
        for case in cases_of(records):
            same = [r for r in records if record_case(r) == case]
            x, y = (at_limit([r for r in same if r["config"] == c], timeout) for c in pair)
            if x is not None and y is not None:
                points.append((x[0], y[0], x[1] or y[1]))
        fig, ax = plt.subplots(figsize=(5, 5))
        for failed, style in ((False, {"label": "both ok"}),
                              (True, {"marker": "x", "color": "red", "label": "not ok: drawn at the limit"})):
            chosen = [(x, y) for x, y, f in points if f == failed]
            ax.scatter([x for x, _ in chosen], [y for _, y in chosen], **style)
        low = max(FLOOR, min((min(x, y) for x, y, _ in points), default=timeout) / 2)
        ax.plot([low, timeout], [low, timeout], color="grey", linewidth=0.8)
        ax.set(xscale="log", yscale="log", xlim=(low, timeout * 1.5), ylim=(low, timeout * 1.5),
               xlabel=f"{pair[0]} (s)", ylabel=f"{pair[1]} (s)", title=f"{puzzle}: one point per case")
        ax.legend(fontsize=7)
        name = f"plots/{puzzle}-scatter.png"
        fig.savefig(out / name, dpi=110, bbox_inches="tight")
        plt.close(fig)
        written.append(name)
    return written


def bars(plt: Any, records: list[dict[str, Any]], puzzle: str, out: Path, timeout: float) -> str:
    """One instance: a horizontal bar per configuration (median time, log scale), coloured by backend;
    a run that did not end ``ok`` is a hatched bar to the limit, labelled with its status."""
    [case] = cases_of(records)
    configs = configs_of(records)
    backends = list(dict.fromkeys(c.split(":")[0] for c in configs))
    colours = {b: s["color"] for b, s in zip(backends, styles(len(backends)), strict=True)}
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.28 * len(configs)))
    for y, config in enumerate(configs):
        runs = [r for r in records if r["config"] == config]
        seconds, failed = at_limit(runs, timeout) or (timeout, True)
        backend = config.split(":")[0]
        ax.barh(y, seconds, color="white" if failed else colours[backend], edgecolor=colours[backend],
                hatch="//" if failed else None, label=backend if config == next(
                    c for c in configs if c.startswith(backend + ":")) else None)
        status = next((r["status"] for r in runs if r["status"] != "ok"), None)
        ax.annotate(f" {status}" if failed else f" {seconds:.3g} s", (seconds, y), va="center", fontsize=7)
    ax.axvline(timeout, color="grey", linestyle="--", linewidth=0.8)
    ax.set_yticks(range(len(configs)), configs, fontsize=7)
    ax.invert_yaxis()  # the suite's order, top down
    ax.set(xscale="log", xlim=(FLOOR, timeout * 3), xlabel="seconds (build + solve); dashed: the limit",
           title=f"{puzzle} {case}: one instance, time per configuration")
    ax.legend(fontsize=7, loc="lower right")
    name = f"plots/{puzzle}-times.png"
    fig.savefig(out / name, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return name


def at_limit(runs: list[dict[str, Any]], timeout: float) -> tuple[float, bool] | None:
    """A configuration's median time on a case, or the limit when any repeat failed."""
    if not runs:
        return None
    if any(r["status"] != "ok" for r in runs):
        return timeout, True
    return max(statistics.median(r["seconds"] for r in runs), FLOOR), False


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
    statuses = {s: sum(r["status"] == s for r in records) for s in STATUSES}
    lines = [
        f"# Benchmark: {head['suite']}",
        "",
        *([head["description"][:1].upper() + head["description"][1:] + ".", ""] if head.get("description") else []),
        f"{len(records)} runs: " + ", ".join(f"{n} {s}" for s, n in statuses.items() if n) + ".",
        f"Limits per run: {timeout:g} s, {head['limits']['memory']} MB; repeats: {head['limits'].get('repeat', 1)}. "
        f"Machine: {head['machine']['system']}, {head['machine']['cpus']} CPUs; Python {head['python']}; "
        + ", ".join(f"{k} {v}" for k, v in head["packages"].items()) + ".",
        "",
        "Times are formulation build + solve inside the child process (start-up and imports excluded; see "
        "`wall_seconds` and `cpu_seconds` in `results.csv`); the time limit is on the child's whole CPU time, "
        "start-up included, as with runsolver. PAR-2 counts every run that did not end `ok` at twice the limit. "
        "`clauses` is the CNF size, or CP-SAT's constraints. Tables: `summary.csv`; "
        "every run: `results.csv` and `results.jsonl`.",
        "",
    ]
    lines += exceptions(records, notes, problems)
    summary_rows = []
    plot_note = None
    measured = [r for r in records if r["status"] != NOT_APPLICABLE]  # a refused run has no time to show
    for puzzle, group in by_puzzle(measured).items():
        rows = summarize(group, timeout)
        summary_rows += rows
        lines += [f"## {puzzle}", "", *summary_table(rows), ""]
        if len(cases_of(group)) > 1:
            lines += [*matrix_table(group), ""]
        else:
            [(case, count)] = answers(group).items()
            lines += [f"Count on `{case}` ({group[0]['mode']} mode): {count}.", ""]
        if plots and plot_note is None:
            try:
                files = plot(group, puzzle, out, timeout, pick_pair(configs_of(group), scatter))
            except ImportError:
                plot_note = "plots skipped: matplotlib is not installed (pip install 'gridsat[plot]')"
                files = []
            lines += [f"![{Path(f).stem}]({f})" for f in files] + [""]
    if plot_note:
        lines += [plot_note, ""]
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
        lines += ["## Wrong answers", "", *[f"- {p}" for p in problems], ""]
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
