"""The frontier counter's targets, each measured in this run; then each case beside sat enumeration.

    python -m gridsat.benchmarks.compare.frontier --no-sat     # the targets alone: a minute or two
    python -m gridsat.benchmarks.compare.frontier              # and sat enumeration on two cores (120 s a case)
    python -m gridsat.benchmarks.compare.frontier --full       # adds 7x7 open tours (about 30 minutes)
    python -m gridsat.benchmarks.compare.frontier --moonshot   # adds 8x8 closed tours (an hour, 16 GB, 60 GB disk)
    python -m gridsat.benchmarks.compare.frontier --ladders    # how far it gets in 10 minutes a board (hours)

First comes the table of targets: target | measured | limit | verdict, where the verdict is met,
missed, WRONG (a count that is not the golden one) or skipped (and why). Then a row a case: the
count checked against the golden count, the counting time (``outcome.seconds``: median and min of
the runs) and the build time apart, the widest layer, the engine's peak memory and bytes a state,
the peak RSS of a child process, the spill disk; sat enumeration's count and time
(``gridsat.count(..., backend="sat", split=Split(jobs=2))``, stopped at --sat-limit) and
graphillion's (closed tours as Hamiltonian cycles: 6x6, and 8x6 with --full) where installed.

Memory targets compare engine bytes (``details["peak_memory"]``: the arrays the engine holds, not
the interpreter's own), and for the big cases, run in a child process (``python -m gridsat count
... --json``), also that child's peak RSS. The Dask target runs a LocalCluster of two worker
processes. The script exits 1 when a count is wrong.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gridsat
from gridsat import Split
from gridsat.models.errors import GridsatError
from gridsat.models.golden import counts

MB = 1 << 20
GB = 1 << 30
REPEATS = 3  # runs of a timed case: the verdict takes their median
QUICK_LIMIT = 120.0  # seconds a quick case may count before it is stopped
MAX_BYTES_PER_STATE = 40.0
WIDE_LAYER = 1_000_000  # states at the peak from which bytes a state is a target
WORKER_SHARE = 0.60  # the most a Dask worker's peak may be of the single-process peak
GRACE = 120.0  # seconds a child gets past its own time limit before it is killed
DASK = "Dask, 2 workers"
GRAPHILLION, GRAPHILLION_FULL = ("6x6",), ("8x6",)  # boards graphillion counts closed tours on (8x6: minutes)
NOTES = """\
Memory: engine bytes (details["peak_memory"]: the arrays the engine holds, not interpreter overhead),
  and for a case run in a child process also its peak RSS. Dask: each worker's engine peak against the
  single-process run's engine peak.
Times: counting time (outcome.seconds), build time apart (in the cases table); verdicts on the median.
Bytes a state: every case whose widest layer has a million states or more (below, a layer's fixed
  scratch, not its states, sets the bytes), Dask runs left out (a worker holds a share)."""


@dataclass(frozen=True)
class Case:
    """One instance, its golden count and whether sat enumeration is worth starting."""

    puzzle: str
    instance: str
    params: dict[str, str] = field(default_factory=dict)
    golden: int | None = None
    sat: bool = True
    up_to: str | None = None

    @property
    def name(self) -> str:
        kind = " closed" if self.params.get("closed") == "true" else " open" if self.puzzle == "knights-tour" else ""
        return f"{self.puzzle} {self.instance}{kind}" + (f" up to {self.up_to}" if self.up_to else "")

    def cli_args(self) -> list[str]:
        """The case as ``gridsat count`` arguments."""
        params = [arg for key, value in self.params.items() for arg in ("-p", f"{key}={value}")]
        return [self.puzzle, self.instance, *params, *(["--up-to", self.up_to] if self.up_to else [])]


CLOSED = {"closed": "true"}


def golden(puzzle: str, instance: str, params: dict[str, str], up_to: str | None) -> int | None:
    """The golden count from models/golden: frontier.toml, else knights_tour.toml (directed tours)."""
    entries = [*counts("frontier"), *(counts("knights_tour") if puzzle == "knights-tour" else [])]
    for entry in entries:
        if (entry.get("puzzle", puzzle) == puzzle and entry.get("instance", entry.get("board")) == instance
                and {k: str(v) for k, v in entry.get("params", {}).items()} == params and entry.get("up_to") == up_to):
            return int(entry["count"])
    return None


def case(puzzle: str, instance: str, params: dict[str, str] | None = None, *, up_to: str | None = None,
         sat: bool = True, known: int | None = None) -> Case:
    """A case with its golden count (``known``: a count the golden files do not hold)."""
    params = params or {}
    found = golden(puzzle, instance, params, up_to)
    return Case(puzzle, instance, params, known if found is None else found, sat, up_to)


SIX_CLOSED = case("knights-tour", "6x6", CLOSED)  # 19,724 directed
SIX_OPEN = case("knights-tour", "6x6")  # 6,637,920
SEVEN_CLOSED = case("knights-tour", "7x7", CLOSED, sat=False, known=0)  # 49 squares: a closed tour needs an even number
EIGHT_SIX_CLOSED = case("knights-tour", "8x6", CLOSED)  # 110,976,284
SEVEN_OPEN = case("knights-tour", "7x7", sat=False)  # 165,575,218,320 (OEIS A165134)
MOONSHOT = case("knights-tour", "8x8", CLOSED, up_to="reversal", sat=False)  # 13,267,364,410,532 (OEIS A001230)
TATAMI = [case("tatami", size, sat=size == "2x40") for size in ("2x40", "2x200", "3x200", "8x100")]
# --ladders: each climbs until a board does not finish in the time a board gets.
LADDERS = [
    [Case("knights-tour", size, CLOSED, sat=False) for size in ("6x10", "6x12", "7x8", "7x10", "8x8")],
    [Case("tatami", f"{n}x{n}", {}, sat=False) for n in (16, 20, 24, 28, 30)],
]


@dataclass
class Measure:
    """One case as counted: each run's counting time and what the last run reported."""

    case: Case
    how: str = "in process"
    count: int | None = None
    seconds: list[float] = field(default_factory=list)
    build: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
    rss: int | None = None  # a child process's peak resident memory, bytes
    wall: float | None = None  # a child process's wall-clock time, start-up included
    note: str = ""
    sat: str = "-"
    sat_seconds: str = "-"
    graphillion: str = "-"

    @property
    def median(self) -> float:
        return statistics.median(self.seconds) if self.seconds else 0.0

    @property
    def best(self) -> float:
        return min(self.seconds, default=0.0)

    @property
    def wrong(self) -> bool:
        """A count that is not the golden one."""
        return self.count is not None and self.case.golden is not None and self.count != self.case.golden

    def get(self, key: str) -> int | float:
        """A number from the details (0 when absent)."""
        return self.details.get(key) or 0


@dataclass(frozen=True)
class Target:
    """One row of the targets table."""

    target: str
    measured: str
    limit: str
    verdict: str


# Counting.


def count_here(case: Case, time_limit: float, *, repeats: int = 1, split: Split | None = None,
               how: str = "in process") -> Measure:
    """``repeats`` frontier counts of ``case`` in this process (on a Dask cluster with ``split``)."""
    measure = Measure(case, how)
    # No split given: what a user gets with no --jobs (every core, the frontier's default).
    for _ in range(repeats):
        try:
            outcome = gridsat.count(case.puzzle, case.instance, params=case.params, up_to=case.up_to,
                                    backend="frontier", time_limit=time_limit, split=split)
        except GridsatError as error:
            measure.note = str(error)
            return measure
        measure.seconds.append(outcome.seconds)
        measure.build, measure.details = outcome.build_seconds, dict(outcome.details or {})
        if not outcome.complete:
            measure.count, measure.note = None, unfinished(outcome.reason, measure.details)
            return measure
        if measure.count is not None and outcome.count != measure.count:
            measure.note = f"counts differ between runs: {measure.count:,} then {outcome.count:,}"
            if measure.count != case.golden:
                continue  # the wrong one is kept
        measure.count = outcome.count
    return measure


def count_in_child(case: Case, time_limit: float, extra: Sequence[str] = ()) -> Measure:
    """One frontier count of ``case`` in a child ``gridsat count --json``, with its peak RSS."""
    measure = Measure(case, "child process")
    argv = [sys.executable, "-m", "gridsat", "count", *case.cli_args(), "--backend", "frontier", "--json", "--quiet",
            "--time-limit", f"{time_limit:g}", *extra]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err)
        status, rss = reap(child, time_limit + GRACE)
        measure.wall, measure.rss = time.perf_counter() - started, rss
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(), err.read().decode()
    try:
        record = json.loads(text)
    except json.JSONDecodeError:
        last = (errors.strip().splitlines() or [f"exit status {status}"])[-1]
        measure.note = f"no JSON from the child (exit status {status}): {last}"
        return measure
    measure.seconds, measure.build, measure.details = [record["seconds"]], record["build_seconds"], record
    if record["complete"] and record["count"] is not None:
        measure.count = record["count"]
    else:
        measure.note = unfinished(record.get("reason"), record)
    return measure


def reap(child: subprocess.Popen[bytes], timeout: float) -> tuple[int, int]:
    """Wait for ``child`` (killed past ``timeout`` seconds): its exit status and peak RSS in bytes."""
    deadline, killed = time.monotonic() + timeout, False
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid == child.pid:
            child.returncode = os.waitstatus_to_exitcode(status)
            return child.returncode, rss_bytes(usage.ru_maxrss)
        if not killed and time.monotonic() > deadline:
            child.kill()
            killed = True
        time.sleep(0.2)


def rss_bytes(maxrss: int) -> int:
    """``ru_maxrss`` in bytes (Linux reports kilobytes, macOS bytes)."""
    return maxrss if sys.platform == "darwin" else maxrss * 1024


def layers_reached(details: dict[str, Any]) -> int:
    """The layers a run entered, from its states per layer (whole, or sampled: a lower bound)."""
    if "states_per_layer" in details:
        return len(details["states_per_layer"])
    sampled = details.get("states_per_layer_sampled") or {}
    return max((int(layer) + 1 for layer in sampled), default=0)


def unfinished(reason: str | None, details: dict[str, Any]) -> str:
    """Why a run stopped and how far it got."""
    if not details:
        return f"not finished: {reason}"
    return (f"not finished: {reason}; layer {layers_reached(details)} of {details.get('layers', '?')}, "
            f"peak {details.get('peak_states', 0):,} states, {details.get('peak_memory', 0) / MB:,.0f} MB, "
            f"disk {details.get('peak_disk', 0) / MB:,.0f} MB")


def warm_up() -> None:
    """Compile or load the numba kernels once, so that no case pays for them."""
    started = time.perf_counter()
    gridsat.count("knights-tour", "3x4", backend="frontier")
    print(f"frontier kernels ready (JIT compile or cache load, imports included): "
          f"{time.perf_counter() - started:.2f} s", flush=True)


def on_dask(singles: list[Measure], time_limit: float) -> list[Measure]:
    """Each single-process case counted again on a LocalCluster of two worker processes."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        split = Split(scheduler=cluster.scheduler_address)
        return [count_here(single.case, time_limit, split=split, how=DASK) for single in singles]


# The side-by-side columns.


def sat(measure: Measure, time_limit: float) -> None:
    """Enumeration with the sat backend on two cores, stopped at the time limit."""
    case = measure.case
    started = time.perf_counter()
    outcome = gridsat.count(case.puzzle, case.instance, params=case.params, backend="sat", split=Split(jobs=2),
                            time_limit=time_limit)
    took = time.perf_counter() - started
    if outcome.complete:
        measure.sat, measure.sat_seconds = f"{outcome.count:,}", f"{took:.2f}"
    else:
        measure.sat, measure.sat_seconds = f"not finished in {time_limit:g} s", f"{took:.0f}"


def graphillion(measure: Measure) -> None:
    """Closed tours as graphillion's Hamiltonian cycles of the knight graph (undirected, so doubled)."""
    case = measure.case
    if case.puzzle != "knights-tour" or case.params.get("closed") != "true":
        return
    from graphillion import GraphSet

    rows, cols = map(int, case.instance.split("x"))
    jumps = ((1, 2), (2, 1), (2, -1), (1, -2))
    edges = [((r, c), (r + dr, c + dc)) for r in range(rows) for c in range(cols) for dr, dc in jumps
             if 0 <= r + dr < rows and 0 <= c + dc < cols]
    GraphSet.set_universe(edges)
    started = time.perf_counter()
    count = 2 * len(GraphSet.cycles(is_hamilton=True))
    measure.graphillion = f"{count:,} in {time.perf_counter() - started:.2f} s"


# The targets.


def within(ok: bool, measure: Measure) -> str:
    """met or missed for a limit on what a run held; met so far when it did not finish."""
    return "missed" if not ok else "met" if measure.count is not None else "met so far"


def verdict(met: bool, measure: Measure) -> str:
    """met or missed; WRONG when the measure's count is wrong, missed when it did not finish."""
    if measure.wrong:
        return "WRONG"
    if measure.count is None:
        return "missed"
    return "met" if met else "missed"


def time_target(measure: Measure, limit: float) -> Target:
    """The counting time against ``limit`` seconds: the median of the runs (the min beside it)."""
    runs = len(measure.seconds)
    label = f"{measure.case.name}: count time" + (f", median of {runs}" if runs > 1 else "")
    if measure.count is None:
        return Target(label, f"not finished ({measure.median:.1f} s)", f"<= {limit:g} s", "missed")
    shown = f"{measure.median:.3f} s" + (f" (min {measure.best:.3f} s)" if runs > 1 else "")
    return Target(label, shown, f"<= {limit:g} s", verdict(measure.median <= limit, measure))


def count_target(measure: Measure) -> Target:
    """The count against the golden one."""
    golden = measure.case.golden
    shown = measure.note if measure.count is None else f"{measure.count:,}"
    return Target(f"{measure.case.name}: count", shown, "= ?" if golden is None else f"= {golden:,}",
                  verdict(True, measure))


def memory_target(measure: Measure, limit: int, *, rss: bool = False) -> Target:
    """The engine's peak memory (``rss``: the child's peak RSS) against ``limit`` bytes."""
    held = measure.rss if rss else measure.get("peak_memory")
    label = f"{measure.case.name}: {'peak RSS (child)' if rss else 'engine peak memory'}"
    if held is None or not measure.details:  # no child, or a child that reported nothing
        return Target(label, "-", f"<= {limit / GB:g} GB", "missed")
    return Target(label, f"{held / GB:.2f} GB", f"<= {limit / GB:g} GB", within(held <= limit, measure))


def disk_target(measure: Measure, limit: int) -> Target:
    """The spill files' peak against ``limit`` bytes."""
    held = measure.get("peak_disk")
    if not measure.details:
        return Target(f"{measure.case.name}: peak spill disk", "-", f"<= {limit / GB:g} GB", "missed")
    return Target(f"{measure.case.name}: peak spill disk", f"{held / GB:.2f} GB", f"<= {limit / GB:g} GB",
                  within(held <= limit, measure))


def bytes_target(measure: Measure) -> Target:
    """Engine bytes a state at the peak layer."""
    per_state, states = measure.get("bytes_per_state"), measure.get("peak_states")
    shown = f"{per_state:.1f} B ({states:,} states, {measure.get('peak_memory') / MB:,.1f} MB)"
    return Target(f"{measure.case.name}: bytes a state at the peak", shown, f"<= {MAX_BYTES_PER_STATE:g} B",
                  within(per_state <= MAX_BYTES_PER_STATE, measure))


def dask_targets(single: Measure, spread: Measure) -> list[Target]:
    """The Dask count equal to the single-process one, and each worker's peak a share of its peak."""
    name = spread.case.name
    if spread.count is None:
        return [Target(f"{name} on Dask: count", spread.note or "no count", "= single process", "missed")]
    same = spread.count == single.count and not spread.wrong
    rows = [Target(f"{name} on Dask: count", f"{spread.count:,}",
                   f"= {single.count:,}" if single.count is not None else "= single process",
                   "met" if same else "WRONG")]
    alone = single.get("peak_memory")
    for i, worker in enumerate(spread.details.get("workers", []), 1):
        peak = worker["peak_memory"]
        ratio = peak / alone if alone else float("inf")
        rows.append(Target(f"{name} on Dask: worker {i} peak / single-process peak",
                           f"{ratio:.3f} ({peak / MB:,.1f} of {alone / MB:,.1f} MB)", f"<= {WORKER_SHARE:.2f}",
                           "met" if ratio <= WORKER_SHARE else "missed"))
    return rows


def skipped(target: str, limit: str, why: str) -> Target:
    return Target(target, "-", limit, f"skipped: {why}")


def big_targets(measure: Measure, minutes: int, memory_gb: int, disk_gb: int | None = None) -> list[Target]:
    """A big case's targets: the exact count, its time, memory (engine and RSS) and disk."""
    rows = [count_target(measure), time_target(measure, minutes * 60.0),
            memory_target(measure, memory_gb * GB), memory_target(measure, memory_gb * GB, rss=True)]
    if disk_gb is not None:
        rows.append(disk_target(measure, disk_gb * GB))
    return rows


# The tables.


def aligned(head: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """Rows as a plain text table, each column as wide as its widest cell."""
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(row[i].ljust(widths[i]) for i in range(len(head))).rstrip() for row in [head, *body]]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def targets_table(targets: list[Target]) -> str:
    return aligned(["target", "measured", "limit", "verdict"],
                   [[t.target, t.measured, t.limit, t.verdict] for t in targets])


def golden_cell(measure: Measure) -> str:
    if measure.count is None or measure.case.golden is None:
        return "-"
    return f"WRONG: golden {measure.case.golden:,}" if measure.wrong else "ok"


def case_row(measure: Measure) -> list[str]:
    """One case's cells in the details table."""
    workers = measure.details.get("workers", [])
    notes = [measure.note] if measure.note else []
    if workers:
        notes.append("workers' peaks: " + ", ".join(f"{w['peak_memory'] / MB:,.1f} MB" for w in workers))
    if measure.wall is not None:
        notes.append(f"child's wall time {measure.wall:.1f} s, start-up included")
    note = "; ".join(notes)
    per_state = "-" if workers or not measure.get("peak_states") else f"{measure.get('bytes_per_state'):.1f}"
    return [measure.case.name, measure.how, "-" if measure.count is None else f"{measure.count:,}",
            golden_cell(measure), str(len(measure.seconds)), f"{measure.median:.3f}", f"{measure.best:.3f}",
            f"{measure.build:.2f}", f"{measure.get('peak_states'):,}", f"{measure.get('peak_memory') / MB:,.1f}",
            per_state, "-" if measure.rss is None else f"{measure.rss / MB:,.0f}",
            f"{measure.get('peak_disk') / MB:,.0f}", measure.sat, measure.sat_seconds, measure.graphillion, note]


def cases_table(measures: list[Measure]) -> str:
    head = ["case", "run", "count", "golden", "runs", "count s (median)", "min s", "build s", "peak states",
            "engine MB", "B/state", "RSS MB", "disk MB", "sat (2 jobs)", "sat s", "graphillion", "note"]
    return aligned(head, [case_row(m) for m in measures])


def said(measure: Measure) -> Measure:
    """``measure``, after a progress line about it."""
    got = measure.note if measure.count is None else f"{measure.count:,} in {measure.median:.3f} s"
    print(f"  {measure.case.name} ({measure.how}): {got}", flush=True)
    return measure


# The run.


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m gridsat.benchmarks.compare.frontier", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="also 7x7 open tours, in a child process (~30 min)")
    parser.add_argument("--moonshot", action="store_true",
                        help="also 8x8 closed tours up to reversal, in a child process (up to an hour, 60 GB disk)")
    parser.add_argument("--spill-base", metavar="DIR", help="where the moonshot's spill folder is made "
                        "(default: the system's temporary folder)")
    parser.add_argument("--ladders", action="store_true", help="also the 10-minute ladders (hours)")
    parser.add_argument("--no-sat", action="store_true", help="leave out sat enumeration")
    parser.add_argument("--sat-limit", type=float, default=120.0, help="seconds sat enumeration gets (default 120)")
    parser.add_argument("--board-limit", type=float, default=600.0, help="seconds a ladder board gets (default 600)")
    return parser.parse_args(argv)


def quick(targets: list[Target], measures: list[Measure]) -> None:
    """The cases of every run: the 6x6 tours timed, 7x7 closed, 8x6 closed and tatami, then Dask."""
    six_closed = said(count_here(SIX_CLOSED, QUICK_LIMIT, repeats=REPEATS))
    six_open = said(count_here(SIX_OPEN, QUICK_LIMIT, repeats=REPEATS))
    seven_closed = said(count_here(SEVEN_CLOSED, QUICK_LIMIT))
    eight_six = said(count_here(EIGHT_SIX_CLOSED, QUICK_LIMIT))
    tatami = [said(count_here(case, QUICK_LIMIT)) for case in TATAMI]
    targets += [time_target(six_closed, 0.1), time_target(six_open, 5.0), count_target(seven_closed)]
    measures += [six_closed, six_open, seven_closed, eight_six, *tatami]
    singles = [six_open, eight_six]
    if importlib.util.find_spec("distributed") is None:
        targets.append(skipped("Dask: counts and worker peaks", f"<= {WORKER_SHARE:.2f}",
                               "distributed is not installed (pip install 'gridsat[dask]')"))
        return
    try:
        spread = [said(m) for m in on_dask(singles, QUICK_LIMIT)]
    except Exception as error:  # a cluster that did not start or a run that failed: the other targets still print
        targets.append(Target("Dask: counts and worker peaks", f"failed: {type(error).__name__}: {error}",
                              f"<= {WORKER_SHARE:.2f}", "missed"))
        return
    measures += spread
    for single, other in zip(singles, spread, strict=True):
        targets += dask_targets(single, other)


def big(args: argparse.Namespace, targets: list[Target], measures: list[Measure]) -> None:
    """7x7 open tours (--full) and the 8x8 moonshot (--moonshot), each in a child process."""
    if args.full:
        seven_open = said(count_in_child(SEVEN_OPEN, 30 * 60.0))
        measures.append(seven_open)
        targets += big_targets(seven_open, 30, 12)
    else:
        targets.append(skipped(f"{SEVEN_OPEN.name}: count {SEVEN_OPEN.golden:,}", "<= 30 min, <= 12 GB",
                               "--full runs it (about 30 minutes)"))
    if args.moonshot:
        with tempfile.TemporaryDirectory(prefix="gridsat-moonshot-", dir=args.spill_base) as spill:
            moon = said(count_in_child(MOONSHOT, 3600.0, ["--memory", "16000", "--spill", spill]))
        measures.append(moon)
        targets += big_targets(moon, 60, 16, disk_gb=60)
    else:
        targets.append(skipped(f"{MOONSHOT.name}: count {MOONSHOT.golden:,}", "<= 1 h, <= 16 GB, <= 60 GB disk",
                               "--moonshot runs it (up to an hour)"))


def ladders(limit: float, measures: list[Measure]) -> None:
    """Each ladder climbed until a board does not finish within ``limit`` seconds."""
    for ladder in LADDERS:
        for case in ladder:
            measure = said(count_here(case, limit))
            measures.append(measure)
            if measure.count is None:
                break


def side_by_side(args: argparse.Namespace, measures: list[Measure]) -> None:
    """Sat enumeration and graphillion on the cases they apply to (each case once)."""
    has_graphillion = importlib.util.find_spec("graphillion") is not None
    if not has_graphillion:
        print("skipped graphillion: not installed (pip install graphillion)")
    if args.no_sat:
        print("skipped sat enumeration: --no-sat")
    for measure in measures:
        if measure.how == DASK:
            continue
        if measure.case.sat and not args.no_sat:
            sat(measure, args.sat_limit)
        if has_graphillion and measure.case.instance in GRAPHILLION + (GRAPHILLION_FULL if args.full else ()):
            graphillion(measure)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    warm_up()
    targets: list[Target] = []
    measures: list[Measure] = []
    quick(targets, measures)
    big(args, targets, measures)
    if args.ladders:
        ladders(args.board_limit, measures)
    # A few thousand states cost the fixed scratch of a layer, not bytes a state: the target is of wide layers.
    targets += [bytes_target(m) for m in measures if m.how != DASK and (m.get("peak_states") or 0) >= WIDE_LAYER]
    print()
    print(targets_table(targets))
    print(NOTES)
    print()
    side_by_side(args, measures)
    print(cases_table(measures))
    own = rss_bytes(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    print(f"\nthis process's peak RSS (the in-process cases together, interpreter included): {own / MB:,.0f} MB")
    wrong = list(dict.fromkeys([f"{m.case.name} ({m.how})" for m in measures if m.wrong]
                               + [t.target for t in targets if t.verdict == "WRONG"]))
    if wrong:
        print("WRONG: " + "; ".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
