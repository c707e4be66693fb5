"""The report's plots (matplotlib, Agg backend, imported only here): cactus with the virtual best, scatter
of a pair with its p-value and instance labels, growth over a scaling series, and bars for one instance.

Every time drawn is a per-instance figure (``spread.cell_time``: the median over seeds and repeats, a run
not ``ok`` censored) of the CPU time of build and solve, the report's headline; log axes throughout.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Any

from gridsat.benchmarks.results import record_case
from gridsat.benchmarks.spread import Best, Paired, cell_time

FLOOR = 1e-4  # seconds: the smallest time a log-scale plot shows
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
SIZE = re.compile(r"^(\d+)x(\d+)\b")


def configs_of(records: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(r["config"] for r in records))


def cases_of(records: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(record_case(r) for r in records))


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


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig: Any, out: Path, name: str) -> str:
    (out / "plots").mkdir(exist_ok=True)
    fig.savefig(out / name, dpi=110, bbox_inches="tight")
    pyplot().close(fig)
    return name


def cactus(records: list[dict[str, Any]], puzzle: str, out: Path, timeout: float, best: list[Best]) -> str:
    """Instances solved within a time (each at its median over seeds and repeats), one line per
    configuration, and the virtual best (dashed black)."""
    fig, ax = pyplot().subplots(figsize=(7, 4.5))
    configs, cases = configs_of(records), cases_of(records)
    for config, style in zip(configs, styles(len(configs)), strict=True):
        medians = (cell_time([r for r in records if r["config"] == config and record_case(r) == c]) for c in cases)
        times = sorted(max(t, FLOOR) for t in medians if t is not None)
        ax.plot(range(1, len(times) + 1), times, "-", markersize=4, label=config, **style)
    vbs = sorted(max(b.seconds, FLOOR) for b in best if b.seconds is not None)
    if vbs:
        ax.plot(range(1, len(vbs) + 1), vbs, "--", color="black", linewidth=1.5, label="VBS (per instance)")
    ax.axhline(timeout, color="grey", linestyle="--", linewidth=0.8)
    ax.set(yscale="log", xlabel="instances solved", ylabel="median CPU seconds", title=f"{puzzle}: cactus")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return save(fig, out, f"plots/{puzzle}-cactus.png")


def scatter(records: list[dict[str, Any]], puzzle: str, out: Path, timeout: float, pair: tuple[str, str],
            test: Paired | None) -> str:
    """One point per instance (the pair's per-instance figures), labelled; the diagonal; the p-value."""
    points = []  # (label, x, y, whether either is drawn at the limit)
    for case in cases_of(records):
        same = [r for r in records if record_case(r) == case]
        x, y = (cell_time([r for r in same if r["config"] == c]) for c in pair)
        if any(r["config"] in pair for r in same):
            points.append((case, max(x or timeout, FLOOR), max(y or timeout, FLOOR), x is None or y is None))
    fig, ax = pyplot().subplots(figsize=(5.5, 5.5))
    for failed, style in ((False, {"label": "both ok"}),
                          (True, {"marker": "x", "color": "red", "label": "not ok: drawn at the limit"})):
        chosen = [(x, y) for _, x, y, f in points if f == failed]
        ax.scatter([x for x, _ in chosen], [y for _, y in chosen], **style)
    for label, x, y, _ in points:
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    low = max(FLOOR, min((min(x, y) for _, x, y, _ in points), default=timeout) / 2)
    # Up to the limit when a point is drawn there, else just past the slowest point: fast pairs stay readable.
    high = timeout * 1.5 if any(f for *_, f in points) else max((max(x, y) for _, x, y, _ in points), default=1) * 3
    low = min(low, high / 100)  # two decades at least, so the log axes show labelled decades
    ax.plot([low, high], [low, high], color="grey", linewidth=0.8, label="equal time")
    title = f"{puzzle}: one point per instance"
    if test is not None and test.p is not None:
        title += f"\nWilcoxon p = {test.p:.3g} (n = {test.instances} instances)"
    from matplotlib.ticker import NullFormatter

    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_formatter(NullFormatter())  # the decades only: minor labels collide on a narrow range
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high),
           xlabel=f"{pair[0]}: CPU s", ylabel=f"{pair[1]}: CPU s", title=title)
    ax.legend(fontsize=7, loc="lower right")
    return save(fig, out, f"plots/{puzzle}-scatter.png")


def size_of(case: str, index: int) -> float:
    """An instance's size for a growth plot: its cells when it is named RxC, else its place in the series."""
    found = SIZE.match(case)
    return int(found[1]) * int(found[2]) if found else index + 1


def growth(records: list[dict[str, Any]], puzzle: str, out: Path) -> str:
    """Over a scaling series: median solve time and median conflicts against instance size, a line per configuration."""
    cases = cases_of(records)
    sizes = {case: size_of(case, i) for i, case in enumerate(cases)}
    named = all(SIZE.match(case) for case in cases)
    fig, (top, bottom) = pyplot().subplots(2, 1, figsize=(7, 7), sharex=True)
    configs = configs_of(records)
    for config, style in zip(configs, styles(len(configs)), strict=True):
        xs, times, conflicts = [], [], []
        for case in cases:
            runs = [r for r in records if r["config"] == config and record_case(r) == case]
            seconds = cell_time(runs)
            if seconds is None:
                continue
            xs.append(sizes[case])
            times.append(max(seconds, FLOOR))
            counted = [r["conflicts"] for r in runs if r.get("conflicts") is not None]
            conflicts.append(statistics.median(counted) if counted else None)
        top.plot(xs, times, "-", label=config, **style)
        shown = [(x, max(c, 1)) for x, c in zip(xs, conflicts, strict=True) if c is not None]
        if shown:
            bottom.plot([x for x, _ in shown], [c for _, c in shown], "-", label=config, **style)
    top.set(yscale="log", ylabel="median CPU seconds", title=f"{puzzle}: growth over the series")
    bottom.set(yscale="log", ylabel="median conflicts (solvers that count them)",
               xlabel="instance, placed by its size (cells)" if named else "instance (series order)")
    # Each instance's name at its size, so the series reads along the axis.
    bottom.set_xticks(list(sizes.values()), list(sizes), rotation=30, ha="right", fontsize=7)
    top.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return save(fig, out, f"plots/{puzzle}-growth.png")


def bars(records: list[dict[str, Any]], puzzle: str, out: Path, timeout: float) -> str:
    """One instance: a horizontal bar per configuration (median solve time, log scale), coloured by backend;
    a configuration with a run not ``ok`` is a hatched bar to the limit, labelled with its status."""
    [case] = cases_of(records)
    configs = configs_of(records)
    backends = list(dict.fromkeys(c.split(":")[0] for c in configs))
    colours = {b: s["color"] for b, s in zip(backends, styles(len(backends)), strict=True)}
    fig, ax = pyplot().subplots(figsize=(7, 1.2 + 0.28 * len(configs)))
    for y, config in enumerate(configs):
        runs = [r for r in records if r["config"] == config]
        seconds = cell_time(runs)
        failed = seconds is None
        seconds = timeout if failed else max(seconds, FLOOR)
        backend = config.split(":")[0]
        ax.barh(y, seconds, color="white" if failed else colours[backend], edgecolor=colours[backend],
                hatch="//" if failed else None, label=backend if config == next(
                    c for c in configs if c.startswith(backend + ":")) else None)
        status = next((r["status"] for r in runs if r["status"] != "ok"), None)
        ax.annotate(f" {status}" if failed else f" {seconds:.3g} s", (seconds, y), va="center", fontsize=7)
    ax.axvline(timeout, color="grey", linestyle="--", linewidth=0.8)
    ax.set_yticks(range(len(configs)), configs, fontsize=7)
    ax.invert_yaxis()  # the suite's order, top down
    ax.set(xscale="log", xlim=(FLOOR, timeout * 3), xlabel="CPU seconds; dashed: the limit",
           title=f"{puzzle} {case}: one instance, time per configuration")
    ax.legend(fontsize=7, loc="lower right")
    return save(fig, out, f"plots/{puzzle}-times.png")
