"""Split counts side by side: --jobs 1 against --jobs 2 for cpsat and sat, beside a plain C backtracker.

    python -m gridsat.benchmarks.compare.parallel                   # prime-grid 5x5/1..25 and knight's tours 6x6 closed
    python -m gridsat.benchmarks.compare.parallel --cases prime      # one of them
    python -m gridsat.benchmarks.compare.parallel --parts 400        # a finer split, for the part statistics
    python -m gridsat.benchmarks.compare.parallel --ceiling sat cpsat  # and what two cores give this machine at all

Every configuration runs in this process one after the other (the split ones start their own
worker processes), so the ratios compare like with like on this shared machine. The C backtracker
is the plain one: cells in row-major order, values ascending, each value checked against the left
and the upper neighbour; it is compiled on the spot with ``cc -O2`` (skipped, with a message,
where there is no C compiler).

Targets: prime-grid 5x5/1..25 with --jobs 2 at least 2x faster than the C backtracker on sat, and
cpsat with --jobs 2 at least as fast as it; --jobs 2 at least 1.7x faster than --jobs 1 on both
backends for both instances; the 6x6 closed tours counted in at most 3 s on the fastest backend.
Part statistics: how many parts, the largest part's share of the summed part times, and the
speed-up the measured part times predict for 16 and 100 workers (longest part first, each part
to the least loaded worker; a worker's load is the sum of its parts' times).
"""

from __future__ import annotations

import argparse
import heapq
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gridsat.api import load
from gridsat.models.golden import counts
from gridsat.solvers.backend import Request
from gridsat.solvers.parallel import Split, SplitRun
from gridsat.solvers.run import Outcome, consume, execute

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
    parts: list[float] | None = None  # each part's solving seconds, for a split run


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
          parts: int | None, time_limit: float) -> Timing:
    """One count, wall clock from the call to the answer (building, probing, splitting included)."""
    chosen, parsed = load(puzzle, instance, params)
    request = Request(encoding=encoding)
    started = time.perf_counter()
    if jobs == 1:
        outcome: Outcome = execute(chosen, parsed, backend, request, time_limit=time_limit)
        measured = None
    else:
        run = SplitRun(chosen, parsed, backend, request, Split(jobs=jobs, parts=parts), time_limit=time_limit)
        outcome = consume(run)
        measured = list(run.part_seconds.values())
    seconds = time.perf_counter() - started
    name = f"{backend}{':' + encoding if encoding else ''} --jobs {jobs}"
    return Timing(name, outcome.count, seconds, outcome.complete, measured)


def ceiling(puzzle: str, instance: str, params: dict[str, str], backend: str) -> str:
    """What two cores give this machine: the same one-process count alone, then two copies at once.

    Two copies do the work of --jobs 2 with no splitting at all, so 2 x alone / together is the
    most --jobs 2 can gain here (two "cores" that share caches or a quota give far less than 2).
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
    return (f"two copies of the one-process {backend} count at once: {together:.2f} s, one alone {alone:.2f} s; "
            f"two cores do {2 * alone / together:.2f}x the work of one here, the most --jobs 2 can gain")


def predicted(part_seconds: list[float], workers: int) -> float:
    """The speed-up the parts predict on ``workers``: summed time over the busiest worker's load."""
    loads = [0.0] * workers
    heapq.heapify(loads)
    for seconds in sorted(part_seconds, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + seconds)
    return sum(part_seconds) / max(loads) if max(loads) > 0 else 1.0


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
        single = next((r for r in rows if isinstance(r, Timing) and r.label == row.label.replace("--jobs 2",
                                                                                                   "--jobs 1")), None)
        vs_one = f"{single.seconds / row.seconds:.2f}x" if single and single is not row else "-"
        print(f"{row.label:<34} {row.count:>10} {row.seconds:9.2f} {vs_c:>8} {vs_one:>12}{mark}", flush=True)


def part_statistics(row: Timing) -> None:
    parts = row.parts or []
    if not parts:
        return
    total = sum(parts)
    print(f"  {row.label}: {len(parts)} parts, the largest {max(parts):.2f} s = {max(parts) / total:.1%} of "
          f"{total:.1f} s of part time; predicted speed-up on 16 workers {predicted(parts, 16):.1f}x, "
          f"on 100 workers {predicted(parts, 100):.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--parts", type=int, help="parts to aim for in the split runs (default: gridsat's)")
    parser.add_argument("--time-limit", type=float, default=300, help="seconds per run (default 300)")
    parser.add_argument("--tour-encodings", nargs="+", default=[None],
                        help="CNF encodings for the tours (default: the default encoding)")
    parser.add_argument("--ceiling", nargs="*", choices=("cpsat", "sat"), default=None,
                        help="also measure what two cores give on this machine (two copies of a count at once) "
                             "for these backends (default: sat)")
    args = parser.parse_args()
    for case in args.cases:
        puzzle, instance, params, golden = CASES[case]
        print(f"\n{puzzle} {instance} {' '.join(f'{k}={v}' for k, v in params.items())} (expected {golden})")
        rows: list[Timing | str] = []
        if case == "prime":
            rows.append(c_backtracker(5, 5, 25))
        encodings = args.tour_encodings if case == "tours" else [None]
        configs = [("cpsat", None)] + [("sat", e) for e in encodings]
        for backend, encoding in configs:
            for jobs in (1, 2):
                row = timed(puzzle, instance, params, backend, encoding, jobs, args.parts, args.time_limit)
                rows.append(row)
                print(f"  {row.label}: {row.count} in {row.seconds:.2f} s", flush=True)
        print()
        report(rows, golden)
        for row in rows:
            if isinstance(row, Timing):
                part_statistics(row)
        for backend in (args.ceiling or ["sat"]) if args.ceiling is not None else []:
            print("  " + ceiling(puzzle, instance, params, backend), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
