"""Split counts side by side: --jobs 1 against --jobs 2 for cpsat and sat, beside a plain C backtracker.

    python -m gridsat.benchmarks.compare.parallel                   # prime-grid 5x5/1..25 and knight's tours 6x6 closed
    python -m gridsat.benchmarks.compare.parallel --cases prime      # one of them
    python -m gridsat.benchmarks.compare.parallel --parts 400        # a finer split, for the part statistics
    python -m gridsat.benchmarks.compare.parallel --ceiling sat cpsat  # and what two cores give this machine at all
    python -m gridsat.benchmarks.compare.parallel --cases prime --timeline parts.csv  # and every part's run
    python -m gridsat.benchmarks.compare.parallel --cases prime --repeat 5  # five pairs in turn: the median ratio

Every configuration runs in this process one after the other (the split ones start their own
worker processes), so the ratios compare like with like on this shared machine. The C backtracker
is the plain one: cells in row-major order, values ascending, each value checked against the left
and the upper neighbour; it is compiled on the spot with ``cc -O2`` (skipped, with a message,
where there is no C compiler).

Targets: prime-grid 5x5/1..25 with --jobs 2 at least 2x faster than the C backtracker on sat, and
cpsat with --jobs 2 at least as fast as it; --jobs 2 at least 1.7x faster than --jobs 1 on cpsat
and 1.9x on sat for prime-grid 5x5/1..25 on an idle machine, 1.7x for the tours; the 6x6
closed tours counted in at most 3 s on the fastest backend. One run's ratio moves with the machine's speed,
so judge the wall-clock targets on the median of ``--repeat`` pairs (the line after the table).
Part statistics of each split run (solvers.splitting.schedule records them), and how the run sized its parts
(how its workers started and how long the probe searched, the first split, the parts split before
they started and while they ran, and the first and last
estimate of the run's part time they were sized by, beside the part time it took): the final parts (after every
split again), how many parts were split again and the seconds their stopped runs threw away, the
largest final part's share of the summed part time, each worker's busy share (time in parts /
wall time), the time from the first worker with nothing queued to the end, and the speed-up on
16, 100 and 1000 workers that a replay of the recorded tree of parts under the same policy
predicts (summed final part time / the replay's end; and, fairer, since finer parts add start-ups
to the part time, the --jobs 1 count's time / the replay's end). Part times are wall times on the worker,
model building included. Targets for splitting again: on 100 workers at least 60x, the largest final part
at most 1%, no worker idle more than 5% of the wall time with --jobs 2.

Its measurement log (the runs behind its targets and the constants they tuned) is in the documentation:
docs/measurements/parallel.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from gridsat.api import load
from gridsat.models.golden import counts
from gridsat.solvers.backend import COUNT, Request
from gridsat.solvers.gate import Job, bind
from gridsat.solvers.route import open_count
from gridsat.solvers.run import Outcome, consume, execute
from gridsat.solvers.splitting.parallel import Split, SplitRun
from gridsat.solvers.splitting.pool import single_threaded_blas
from gridsat.solvers.splitting.schedule import Ledger
from gridsat.solvers.splitting.split_policy import replay

WORKERS = (16, 100, 1000)  # the cluster sizes the replay predicts for
C_BACKTRACKER = r"""
#include <stdio.h>
#include <stdlib.h>
static int R, C, M, cell[64], used[256], prime[512];
static long long count;
static void fill(int pos) {
    if (pos == R * C) { count++; return; }
    for (int v = 1; v <= M; v++) {
        if (used[v]) continue;
        if (pos % C && !prime[cell[pos - 1] + v]) continue;
        if (pos >= C && !prime[cell[pos - C] + v]) continue;
        used[v] = 1; cell[pos] = v; fill(pos + 1); used[v] = 0;
    }
}
int main(int argc, char **argv) {
    R = atoi(argv[1]); C = atoi(argv[2]); M = atoi(argv[3]);
    for (int n = 2; n < 512; n++) { prime[n] = 1; for (int d = 2; d * d <= n; d++) if (n % d == 0) prime[n] = 0; }
    fill(0);
    printf("%lld\n", count);
    return 0;
}
"""

SIX_CLOSED = ("6x6", {"closed": "true"})
# The expected counts are the golden ones that ship with gridsat (models/golden, with their sources).
CASES = {
    "prime": ("prime-grid", "5x5", {"max": "25"},
              next(e["count"] for e in counts("prime_grid") if (e["grid"], e.get("max")) == ("5x5", 25))),
    "tours": ("knights-tour", "6x6", {"closed": "true"},  # OEIS A001230 x 2 (directed)
              next(e["count"] for e in counts("knights_tour") if (e["board"], e["params"]) == SIX_CLOSED)),
}


@dataclass
class Timing:
    label: str
    count: int
    seconds: float
    complete: bool
    ledger: Ledger | None = None  # a split run's parts, where and how long they ran
    resplit: float | None = None  # the split run's policy: seconds before a part may be split again
    plan: dict | None = None  # how the split run sized its parts (its --json "split")
    cpu: float | None = None  # processor seconds of this process (--jobs 1: the whole count)
    beside: frozenset[int] = frozenset()  # a split run's parts counted beside its probe, while it searched

    @property
    def workers_cpu(self) -> dict[str, float]:
        """A split run's processor seconds in parts, per worker (none for one process)."""
        return self.ledger.statistics(self.seconds)["part_cpu"] if self.ledger is not None and self.ledger.spans else {}

    @property
    def work(self) -> float | None:
        """Processor seconds of the count: one process's, or a split run's probe and parts."""
        if self.plan is None:
            return self.cpu
        probe = self.plan["cpu_seconds"].get("probe") or 0.0
        return probe + self.plan["cpu_seconds"]["parts"]

    @property
    def critical(self) -> float | None:
        """Processor seconds on the longest path of a split run: the probe, then the busiest worker's parts
        (about its wall time on cores of its own), the parts counted beside the probe left out (they ran on
        the core it left idle; one still running when it ended makes this a little short); one process's, for one."""
        if self.plan is None or self.ledger is None:
            return self.cpu
        after: dict[str, float] = {}
        for span in self.ledger.spans:
            if span.index not in self.beside:
                after[span.worker] = after.get(span.worker, 0.0) + (span.cpu or 0.0)
        return (self.plan["cpu_seconds"].get("probe") or 0.0) + max(after.values(), default=0.0)


# What a split count must show against the same count in one process, in processor seconds (so that it
# holds on a loaded machine, where wall times say little): every worker did at least WORKER_SHARE of the
# one-process count's work, and the probe and the parts together at most WORK_RATIO times it. Parts of
# a count of seconds are fine (a 256th of it, for a hundred workers) and each starts its model afresh:
# prime-grid 4x5 on cpsat (10-12 s alone) took 1.75x, 2.2x and 3.0x the work in parts at a load of 13 to
# 15 on two cores, where parts running long by the clock are split again far more often than on an idle
# machine (prime-grid 5x5 on cpsat: 1.8x, 5,933 parts, against 0.9x and 473 parts at a load of 2 to 4).
WORKER_SHARE, WORK_RATIO = 0.2, 4.0


def unshared(one: Timing, two: Timing) -> str | None:
    """Why the split count ``two`` did not share out the work of the one-process count ``one`` (None: it
    did), in processor seconds; a count that ran alone (the probe finished it) shared nothing."""
    if not (one.complete and two.complete and one.count == two.count):
        return f"the counts differ or are incomplete: {one.count} against {two.count}"
    if two.plan is None or not two.workers_cpu or two.work is None or two.critical is None or not one.cpu:
        return "it ran alone: the probe counted it all"
    workers = two.workers_cpu
    least = min(workers.values()) if len(workers) > 1 else 0.0
    if least < WORKER_SHARE * one.cpu:
        return (f"a worker did {least:.2f} s of parts, under {WORKER_SHARE:.0%} of the {one.cpu:.2f} s "
                f"one process took (probe {two.plan['cpu_seconds'].get('probe') or 0:.2f} s)")
    if two.work > WORK_RATIO * one.cpu:
        return f"the probe and the parts took {two.work:.2f} s, over {WORK_RATIO}x the {one.cpu:.2f} s of one process"
    return None


def c_backtracker(rows: int, cols: int, high: int) -> Timing | str:
    """The C backtracker's count and wall time, or why it did not run."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return "no C compiler here: the C backtracker is skipped"
    with tempfile.TemporaryDirectory() as folder:
        source, binary = Path(folder) / "fill.c", Path(folder) / "fill"
        source.write_text(C_BACKTRACKER)
        subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], check=True)
        started = time.perf_counter()
        done = subprocess.run([str(binary), str(rows), str(cols), str(high)], capture_output=True, text=True,
                              check=True)
        return Timing("C backtracker (cc -O2)", int(done.stdout), time.perf_counter() - started, True)


def timed(puzzle: str, instance: str, params: dict[str, str], backend: str, encoding: str | None, jobs: int,
          parts: int | None, time_limit: float, resplit: float | None = Split.resplit) -> Timing:
    """One count, wall clock from the call to the answer (building, probing, splitting included)."""
    chosen, parsed = load(puzzle, instance, params)
    split = None if jobs == 1 else Split(jobs=jobs, parts=parts, resplit=resplit)
    bound = bind(backend, chosen, Job(COUNT, Request(encoding=encoding), time_limit=time_limit, split=split))
    started, used = time.perf_counter(), time.process_time()
    ledger, plan, beside = None, None, frozenset()
    if split is None:
        outcome: Outcome = execute(chosen, parsed, bound)
    else:
        run = open_count(chosen, parsed, bound)  # as ``gridsat count --jobs`` opens it
        assert isinstance(run, SplitRun)
        outcome = consume(run)
        ledger, plan, beside = run.ledger, outcome.details.get("split"), frozenset(p.index for p in run.beside.early)
        if plan is None or "cpu_seconds" not in plan:  # the probe finished it: one process counted it all
            ledger, plan = None, None
    seconds, cpu = time.perf_counter() - started, time.process_time() - used
    name = f"{backend}{':' + encoding if encoding else ''} --jobs {jobs}"
    return Timing(name, outcome.count, seconds, outcome.complete, ledger, resplit, plan, cpu, beside)


# The speed-ups --jobs 2 must reach over --jobs 1 by the clock: prime-grid 5x5/1..25 on cpsat and on sat, the tours
SPEED_UPS = {("prime", "cpsat"): 1.7, ("prime", "sat"): 1.9, ("tours", "cpsat"): 1.7, ("tours", "sat"): 1.7}


def paired_ratios(rows: list[Timing | str], case: str) -> list[str]:
    """Per configuration, --jobs 1's wall time over --jobs 2's for each pair timed one after the other, their
    median and its target: one run's ratio moves with the machine's speed (here, 1.49x to 1.98x in three runs
    of prime-grid 5x5 on sat within an hour), so a target is judged on the median of pairs."""
    lines = []
    for row in rows:
        if not (isinstance(row, Timing) and " --jobs 2" in row.label and row.label.endswith(("#1", " --jobs 2"))):
            continue
        name = row.label.removesuffix(" #1")
        pairs = [(single, split) for split in rows if isinstance(split, Timing) and split.label.startswith(name)
                 and (single := one_process(rows, split)) is not None and single.complete and split.complete]
        ratios = sorted(single.seconds / split.seconds for single, split in pairs)
        if not ratios:
            continue
        middle = statistics.median(ratios)
        target = SPEED_UPS.get((case, name.split(":")[0].split(" ")[0]))
        verdict = "" if target is None else f"; target at least {target}x: {'met' if middle >= target else 'NOT met'}"
        lines.append(f"{name.replace(' --jobs 2', '')}: --jobs 1 over --jobs 2, pair by pair "
                     f"{', '.join(f'{r:.2f}x' for r in ratios)}; median {middle:.2f}x{verdict}")
    return lines


def ceiling(puzzle: str, instance: str, params: dict[str, str], backend: str) -> tuple[float, str]:
    """What two cores give this machine: the same one-process count alone, then two copies at once.

    Two copies do the work of --jobs 2 with no splitting at all, so 2 x alone / together is the
    most --jobs 2 can gain here (two "cores" that share caches or a quota give far less than 2). Returns that
    factor and the line that says it.
    """
    command = [sys.executable, "-m", "gridsat", "count", puzzle, instance, "--backend", backend, "--quiet",
               *(f"-p{k}={v}" for k, v in params.items())]

    def wall(copies: int) -> float:
        started = time.perf_counter()
        children = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for _ in range(copies)]
        for child in children:
            child.wait()
        return time.perf_counter() - started

    alone, together = wall(1), wall(2)
    return 2 * alone / together, (f"two copies of the one-process {backend} count at once: {together:.2f} s, one "
                                  f"alone {alone:.2f} s; two cores do {2 * alone / together:.2f}x the work of one "
                                  "here, the most --jobs 2 can gain")


def one_process(rows: list[Timing | str], row: Timing) -> Timing | None:
    """The --jobs 1 row of the same configuration as a --jobs 2 ``row`` (None for a row that is one)."""
    twin = row.label.replace("--jobs 2", "--jobs 1")
    return next((r for r in rows if isinstance(r, Timing) and r.label == twin and r is not row), None)


def report(rows: list[Timing | str], golden: int) -> None:
    """The table: each row's time, its speed-up over the C backtracker (when it ran) and, for a split
    run, over the same configuration's --jobs 1 row."""
    c = next((r for r in rows if isinstance(r, Timing) and r.label.startswith("C ")), None)
    print(f"{'configuration':<34} {'count':>10} {'seconds':>9} {'vs C':>8} {'vs --jobs 1':>12}")
    for row in rows:
        if isinstance(row, str):
            print(f"  ({row})")
            continue
        mark = "" if row.complete and row.count == golden else "  INCOMPLETE" if not row.complete else "  WRONG"
        vs_c = f"{c.seconds / row.seconds:.2f}x" if c and row is not c else "-"
        single = one_process(rows, row)
        vs_one = f"{single.seconds / row.seconds:.2f}x" if single else "-"
        print(f"{row.label:<34} {row.count:>10} {row.seconds:9.2f} {vs_c:>8} {vs_one:>12}{mark}", flush=True)


def part_statistics(row: Timing, single: Timing | None = None) -> None:
    """The split run's parts: how finely it ended, how busy its workers were, how far it would scale.

    The replay's figure divides the summed part time by the replay's end, so start-ups that finer
    parts add inflate it; beside it, the ``single`` process's count time over the same end (what a
    user would gain over ``--jobs 1``)."""
    if row.ledger is None or not row.ledger.spans:
        return
    stats = row.ledger.statistics(row.seconds)
    age = row.resplit if row.resplit is not None else float("inf")
    busy = ", ".join(f"{w.removeprefix('gridsat-')} {b:.1%} (idle {1 - b:.1%})" for w, b in stats["busy_share"].items())
    idle = stats["idle_to_end"]
    print(f"  {row.label}: {stats['final_parts']} final parts ({stats['split_again']} split again, "
          f"{stats['thrown_away_seconds']:.1f} s of their runs thrown away), the largest "
          f"{stats['largest_share']:.1%} of {stats['part_seconds']:.1f} s of part time (median part "
          f"{stats['median_part']:.3f} s); busy {busy}; "
          f"first idle worker to the end {'-' if idle is None else f'{idle:.2f} s'}; predicted speed-up on "
          + ", ".join(f"{n} workers {replay(row.ledger, n, age):.1f}x" for n in WORKERS), flush=True)
    if single is not None and single.complete and single.cpu and stats["part_seconds"] > 0:
        ends = [stats["part_seconds"] / replay(row.ledger, n, age) for n in WORKERS]
        print(f"    over {single.label} ({single.cpu:.2f} processor seconds): predicted on "
              + ", ".join(f"{n} workers {single.cpu / end:.1f}x" for n, end in zip(WORKERS, ends, strict=True)),
              flush=True)
    if single is not None and single.complete and row.complete and single.cpu and row.work and row.critical:
        cpu = row.plan["cpu_seconds"] if row.plan else {}
        each = ", ".join(f"{w.removeprefix('gridsat-')} {c:.2f}" for w, c in row.workers_cpu.items())
        print(f"    processor seconds: probe {cpu.get('probe') or 0:.2f}, parts {cpu.get('parts', 0):.2f} ({each}), "
              f"parent in all {cpu.get('parent') or 0:.2f}; {single.label} {single.cpu:.2f}; work (probe and parts) "
              f"{row.work / single.cpu:.2f}x {single.label}'s; on free cores {single.cpu / row.critical:.2f}x faster "
              f"({single.label}'s over the probe and the busiest worker's parts)", flush=True)
        print(f"    the work shared out: {unshared(single, row) or 'yes'}; {cores_bound(single, row)}", flush=True)
    if row.plan is not None:
        estimates = row.plan["estimates"]
        said = "; ".join(f"at {e['at']:.1f} s: {e['run_seconds']:.1f} s of part time, parts of "
                         f"{e['part_seconds']:.2f} s, {e['parts']} parts" for e in estimates) or "none"
        last = row.plan["estimate_at_end"]
        end = "-" if last is None else f"{last['run_seconds']:.1f} s, parts of {last['part_seconds']:.2f} s"
        probe = row.plan["probe_seconds"]
        print(f"    workers {row.plan['workers']}, probe {'-' if probe is None else f'{probe:.2f} s'}; "
              f"first split {row.plan['first_parts']} parts, split before they started "
              f"{row.plan['split_before_start']}, while they ran {row.plan['split_while_running']}; estimates "
              f"(first, last): {said}; at the end {end}; the run's part time was {stats['part_seconds']:.1f} s",
              flush=True)


def cores_bound(single: Timing, row: Timing) -> str:
    """The most the split run ``row`` could gain over ``single`` by the clock: all its processor seconds (the
    parent's, its probe's included, and the parts') spread evenly over its workers' cores, against the one
    process's wall time, which may itself keep more than one core busy (cpsat's search thread beside the thread
    that reads and verifies its solutions). Wall times: meaningful on quiet cores only."""
    cores = max(1, len(row.workers_cpu))
    cpu = row.plan["cpu_seconds"] if row.plan else {}
    spent = (cpu.get("parent") or 0.0) + cpu.get("parts", 0.0)
    return (f"its {spent:.2f} processor s on {cores} cores end at best in {spent / cores:.2f} s, "
            f"{single.seconds * cores / spent:.2f}x {single.label}'s {single.seconds:.2f} s (which kept "
            f"{single.cpu / single.seconds:.2f} cores busy); by the clock it took {row.seconds:.2f} s")


def timeline(row: Timing, path: Path | None = None) -> None:
    """Where a split run's wall time went, by the parent's clock (seconds from the run's start): the probe, then
    per worker when it started its first part and ended its last, its parts and their processor seconds (of
    those counted beside the probe too: the parent hears of them when the probe ends, so they show as starting
    then), and how long the last worker ran alone at the end; ``path``: every part's run as a CSV
    line (index, worker, heard started, ended, processor seconds, split again, beside the probe)."""
    if row.ledger is None or not row.ledger.spans or row.plan is None:
        return
    workers: dict[str, list] = {}
    for span in row.ledger.spans:
        began = span.start if span.began is None else span.began
        first, last, parts, beside, cpu, early = workers.get(span.worker, (began, span.end, 0, 0, 0.0, 0.0))
        near = span.index in row.beside
        workers[span.worker] = (min(first, began), max(last, span.end), parts + 1, beside + near,
                                cpu + (span.cpu or 0.0), early + near * (span.cpu or 0.0))
    ends = sorted(w[1] for w in workers.values())
    alone = ends[-1] - ends[-2] if len(ends) > 1 else 0.0
    print(f"    timeline: probe 0-{row.plan['probe_seconds']:.2f} s; " + "; ".join(
        f"{w.removeprefix('gridsat-')} {first:.2f}-{last:.2f} s, {parts} parts, {cpu:.2f} processor s ({beside} "
        f"beside the probe, {early:.2f} s)" for w, (first, last, parts, beside, cpu, early) in sorted(workers.items()))
        + f"; the last worker alone at the end {alone:.2f} s; the run {row.seconds:.2f} s", flush=True)
    if path is not None:
        with path.open("a") as out:
            for s in row.ledger.spans:
                out.write(f"{row.label},{s.index},{s.worker},{s.began},{s.end:.4f},{s.cpu},{int(s.split)},"
                          f"{int(s.index in row.beside)}\n")


def main(argv: list[str] | None = None) -> int:
    single_threaded_blas()  # as the command line does, so that split runs start their workers as there
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--parts", type=int, help="parts to aim for in the split runs (default: gridsat's)")
    parser.add_argument("--time-limit", type=float, default=300, help="seconds per run (default 300)")
    parser.add_argument("--no-resplit", action="store_true", help="never split a running part again (as before "
                        "parts were split again), for the comparison")
    parser.add_argument("--backends", nargs="+", choices=("cpsat", "sat"), default=["cpsat", "sat"])
    parser.add_argument("--jobs", nargs="+", type=int, default=[1, 2], help="worker counts to time (default 1 2)")
    parser.add_argument("--tour-encodings", nargs="+", default=[None],
                        help="CNF encodings for the tours (default: the default encoding)")
    parser.add_argument("--ceiling", nargs="*", choices=("cpsat", "sat"), default=None,
                        help="also measure what two cores give on this machine (two copies of a count at once) "
                             "for these backends (default: sat)")
    parser.add_argument("--timeline", type=Path, help="append every part's run of the split runs to this CSV file")
    parser.add_argument("--repeat", type=int, default=1, help="time each worker count this many times, in turn, "
                        "and print the ratio of each pair and their median (default 1)")
    args = parser.parse_args(argv)
    for case in args.cases:
        puzzle, instance, params, golden = CASES[case]
        print(f"\n{puzzle} {instance} {' '.join(f'{k}={v}' for k, v in params.items())} (expected {golden})")
        rows: list[Timing | str] = []
        if case == "prime":
            rows.append(c_backtracker(5, 5, 25))
        encodings = args.tour_encodings if case == "tours" else [None]
        configs = [("cpsat", None)] * ("cpsat" in args.backends) + [("sat", e) for e in encodings] * (
            "sat" in args.backends)
        for backend, encoding in configs:
            for turn in range(1, args.repeat + 1):  # --jobs 1 and 2 in turn, so that each pair meets one load
                for jobs in args.jobs:
                    row = timed(puzzle, instance, params, backend, encoding, jobs, args.parts, args.time_limit,
                                None if args.no_resplit else Split.resplit)
                    if args.repeat > 1:
                        row = replace(row, label=f"{row.label} #{turn}")
                    rows.append(row)
                    print(f"  {row.label}: {row.count} in {row.seconds:.2f} s", flush=True)
        print()
        report(rows, golden)
        for line in paired_ratios(rows, case):
            print(line, flush=True)
        for row in rows:
            if isinstance(row, Timing):
                part_statistics(row, one_process(rows, row))
                timeline(row, args.timeline)
        for backend in (args.ceiling or ["sat"]) if args.ceiling is not None else []:
            factors = []
            for _ in range(args.repeat):
                factor, line = ceiling(puzzle, instance, params, backend)
                factors.append(factor)
                print("  " + line, flush=True)
            if len(factors) > 1:
                print(f"  two copies of the {backend} count at once: median {statistics.median(factors):.2f}x the work "
                      f"of one, over {len(factors)} runs", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
