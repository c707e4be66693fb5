"""What ``--jobs 2`` costs or gains against ``--jobs 1``, side by side, on short counts and long ones.

    python -m gridsat.benchmarks.compare.jobs                 # every case once
    python -m gridsat.benchmarks.compare.jobs --cases short   # only the counts under 10 s
    python -m gridsat.benchmarks.compare.jobs --repeat 3      # the best of three of each

Each case runs as a user runs it, ``gridsat count ...`` in a child process (start-up included),
first with ``--jobs 1`` and then with ``--jobs 2``, one after the other, so that the two columns
meet the same load on a shared machine. The last column says how the split run went: its parts,
or why it ran alone (a count the probe finishes, a search without split points). The ratio is
``--jobs 2`` wall time over ``--jobs 1``: under 1 pays, over 1 costs. The cpu columns are the least processor
seconds (user and system) of the command and its worker processes, which a loaded machine stretches far less.

Target: no count takes more than 1.1x as long with ``--jobs 2`` (a short one runs alone: its probe
searches until splitting can pay, solvers.splitting.split_policy); a long count gains (ratio well
under 1) when the second core is free.

Its measurement log (the runs behind its targets and the constants they tuned) is in the documentation:
docs/measurements/jobs.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One count: its command-line words after ``gridsat count``, and whether it is a long one."""

    words: tuple[str, ...]
    long: bool = False

    @property
    def label(self) -> str:
        return " ".join(self.words)


CASES = (
    Case(("knights-tour", "5x5", "--backend", "cpsat")),
    Case(("knights-tour", "5x5", "--backend", "sat")),
    Case(("prime-grid", "4x5", "--backend", "sat")),
    Case(("tatami", "3x16", "--backend", "reference")),
    Case(("knights-tour", "5x5", "--backend", "reference", "--algorithm", "warnsdorff")),
    Case(("knights-tour", "6x6", "-p", "closed=true", "--backend", "sat"), long=True),
    Case(("knights-tour", "6x6", "-p", "closed=true", "--backend", "cpsat"), long=True),
    Case(("prime-grid", "5x5", "-p", "max=25", "--backend", "sat"), long=True),
)


def timed(case: Case, jobs: int) -> tuple[float, float, dict]:
    """Wall seconds of one ``gridsat count ... --jobs N --json``, the processor seconds of it and its workers
    (user and system: what a loaded machine does not stretch), and its JSON record."""
    argv = [sys.executable, "-m", "gridsat", "count", *case.words, "--jobs", str(jobs), "--json"]
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime  # the workers reaped count in it
    if done.returncode not in (0, 4):  # 4: complete but not every solution (warnsdorff)
        raise SystemExit(f"{' '.join(argv[2:])} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, cpu, json.loads(done.stdout)


def how_split(record: dict) -> str:
    """The split run in a few words: its parts, or why it ran alone."""
    split = record.get("split") or {}
    if split.get("alone"):
        return f"alone: {split['alone']}"
    return f"{record.get('parts', 1)} parts" if record.get("parts") else "not split"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", choices=("all", "short", "long"), default="all", help="which counts (default all)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, the best kept (default 1)")
    args = parser.parse_args(argv)
    chosen = [c for c in CASES if args.cases == "all" or c.long == (args.cases == "long")]
    width = max(len(c.label) for c in chosen)
    print(f"{'gridsat count ...':<{width}} {'count':>7} {'jobs 1 s':>9} {'jobs 2 s':>9} {'ratio':>6} "
          f"{'cpu 1 s':>8} {'cpu 2 s':>8}  split run")
    for case in chosen:
        ones, twos = [], []
        for _ in range(args.repeat):  # alternated, so that both meet the same load
            ones.append(timed(case, 1))
            twos.append(timed(case, 2))
        one, cpu_one, record = min(ones, key=lambda r: r[0])
        two, cpu_two, split = min(twos, key=lambda r: r[0])
        if record["count"] != split["count"]:
            raise SystemExit(f"{case.label}: --jobs 1 counted {record['count']}, --jobs 2 {split['count']}")
        print(f"{case.label:<{width}} {record['count']:>7} {one:9.2f} {two:9.2f} {two / one:6.2f} "
              f"{min(r[1] for r in ones):8.2f} {min(r[1] for r in twos):8.2f}  {how_split(split)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
