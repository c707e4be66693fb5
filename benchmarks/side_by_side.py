"""``gridsat bench compare A B``: two results folders side by side, per instance and configuration.

Each side's figure on an instance is the same as its report's (``spread.cell_time``: the median over
the runs there, a run not ``ok`` censored at or above the limit). A configuration that ran in both
folders gets the ratio B/A per instance, and the paired Wilcoxon test of its A figures against its B
figures over the instances both ran (``spread.paired_test``: n, method, geometric-mean ratio; under
six instances no test), Holm-corrected over the configurations tested.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gridsat.benchmarks import spread
from gridsat.benchmarks.plots import cases_of, configs_of
from gridsat.benchmarks.report import CLOCK_NAMES, clock_of, seconds, table
from gridsat.benchmarks.results import NOT_APPLICABLE, Results
from gridsat.models.errors import GridsatError
from gridsat.models.params import excerpt


def read(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A results folder's header and its measured records; an input error when it holds none."""
    results = Results(folder)
    if results.header is None:
        raise GridsatError(f"{excerpt(str(folder))} holds no results.jsonl: not a gridsat bench --out folder")
    return results.header, [r for r in results.records if r["status"] != NOT_APPLICABLE]


def labelled(records: list[dict[str, Any]], side: str) -> list[dict[str, Any]]:
    """The records with their configuration prefixed by the side (``A`` or ``B``) and the puzzle."""
    return [{**r, "config": f"{side} {r['puzzle']} {r['config']}"} for r in records]


def compare(first: Path, second: Path) -> list[str]:
    """The comparison as Markdown lines."""
    (head_a, a), (head_b, b) = read(first), read(second)
    clock = clock_of(head_a)
    if clock_of(head_b) != clock:
        raise GridsatError(f"{first} times {clock} and {second} {clock_of(head_b)}: not comparable")
    timeout = max(head_a["limits"]["timeout"], head_b["limits"]["timeout"])  # a censored figure: twice the larger
    records = labelled(a, "A") + labelled(b, "B")
    shared = [c for c in dict.fromkeys(f"{r['puzzle']} {r['config']}" for r in a)
              if any(f"{r['puzzle']} {r['config']}" == c for r in b)]
    figures = spread.figures(records, [f"{s} {c}" for s in "AB" for c in shared], cases_of(records), clock)
    rows = []
    for config in shared:
        for case in cases_of(records):
            if (f"A {config}", case) in figures and (f"B {config}", case) in figures:
                x, y = figures[f"A {config}", case], figures[f"B {config}", case]
                ratio = f"{y / x:.3g}" if x and y is not None else "—"
                puzzle, _, label = config.partition(" ")
                rows.append([puzzle, f"`{case}`", f"`{label}`", seconds(x, head_a["limits"]["timeout"]),
                             seconds(y, head_b["limits"]["timeout"]), ratio])
    only = sorted(set(configs_of(labelled(a, "A")) + configs_of(labelled(b, "B"))) - {f"{s} {c}" for s in "AB"
                                                                                       for c in shared})
    tests = spread.paired_tests(records, [(f"A {c}", f"B {c}") for c in shared], timeout, clock)
    lines = [f"# Side by side: A = {first}, B = {second}", "",
             f"{CLOCK_NAMES[clock]} seconds per instance and configuration (each the median over its runs, a run "
             "not ok censored: `≥` the limit); ratio B/A (below 1: B is faster).", "",
             *table(["puzzle", "instance", "configuration", "A s", "B s", "B/A"], rows), ""]
    if only:
        lines += [f"In one folder only (not compared): {', '.join(f'`{c}`' for c in only)}.", ""]
    lines += [f"- {t.words()}" for t in tests]
    return [*lines, ""]

