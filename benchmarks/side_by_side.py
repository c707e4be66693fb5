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
from gridsat.benchmarks.results import DISPUTED, FAILED, LOST, NOT_APPLICABLE, Results, judge, record_case
from gridsat.models.errors import GridsatError
from gridsat.models.params import excerpt


def read(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A results folder's header and its measured records, judged again as bench judges them (a count that
    disagrees with the known one is ``wrong`` even in a folder edited since); an input error when it holds none."""
    results = Results(folder)
    if results.header is None:
        raise GridsatError(f"{excerpt(str(folder))} holds no results.jsonl: not a gridsat bench --out folder")
    measured = [r for r in results.records if r["status"] not in (NOT_APPLICABLE, LOST)]  # lost: no time known
    judge(measured)
    return results.header, measured


def failures(records: list[dict[str, Any]], side: str) -> list[str]:
    """One line per run a folder holds that makes ``gridsat bench`` exit 1: ``wrong`` (its count or solution
    was refused when the folder's suite ran), an ``error``, or a run of a ``disputed`` case."""
    bad = [r for r in records if r["status"] in FAILED or r.get("verdict") == DISPUTED]
    return [f"{side}: {r['status'].upper() if r['status'] in FAILED else DISPUTED.upper()} {r['puzzle']} "
            f"{record_case(r)} `{r['config']}`" + (f" seed {r['seed']}" if r.get("seed") is not None else "")
            + (f": {r['message']}" if r.get("message") else f" answered {r.get('count')}") for r in bad]


def labelled(records: list[dict[str, Any]], side: str) -> list[dict[str, Any]]:
    """The records with their configuration prefixed by the side (``A`` or ``B``) and the puzzle."""
    return [{**r, "config": f"{side} {r['puzzle']} {r['config']}"} for r in records]


def compare(first: Path, second: Path) -> tuple[list[str], list[str]]:
    """The comparison as Markdown lines, and the runs of either folder that make it fail (see ``failures``)."""
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
    bad = failures(a, "A") + failures(b, "B")
    if bad:  # the figures above include these runs: a reader must know which to distrust
        lines += ["", f"## Wrong runs: {len(bad)}", "", "Runs that `gridsat bench` counted as failures (a count that "
                  "disagrees with the known one, a broken rule, an error, or a disputed case):", "",
                  *(f"- {line}" for line in bad)]
    return [*lines, ""], bad

