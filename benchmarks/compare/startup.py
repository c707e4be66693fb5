"""Start-up time of the ``gridsat`` command, beside a bare Python start in the same run.

    python -m gridsat.benchmarks.compare.startup              # 10 runs of each command
    python -m gridsat.benchmarks.compare.startup --repeat 30

Target: ``gridsat --help`` and ``gridsat list`` in at most 0.35 s of wall time each (median). OR-Tools,
PySAT's solvers, matplotlib and Dask load only when a command needs them.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

TARGET = 0.35
COMMANDS = {
    "python -c pass (baseline)": [sys.executable, "-c", "pass"],
    "gridsat --version": ["gridsat", "--version"],
    "gridsat --help": ["gridsat", "--help"],
    "gridsat list": ["gridsat", "list"],
    "gridsat list --json": ["gridsat", "list", "--json"],
}
TARGETED = ("gridsat --help", "gridsat list")


def timed(argv: list[str]) -> float:
    """Wall seconds of one run (its output discarded); a failing command is an error."""
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=10, help="runs per command (default 10)")
    args = parser.parse_args()
    script = shutil.which("gridsat") or shutil.which("gridsat", path=str(sys.prefix) + "/bin")
    if script is None:
        print("the gridsat script is not installed next to this Python", file=sys.stderr)
        return 2
    print(f"{'command':<28} {'best s':>8} {'median s':>9} {'target':>8}")
    missed = []
    for label, argv in COMMANDS.items():
        argv = [script, *argv[1:]] if argv[0] == "gridsat" else argv
        timed(argv)  # warm the file cache: every run after it starts the same way
        times = [timed(argv) for _ in range(args.repeat)]
        median = statistics.median(times)
        target = f"{TARGET:.2f}" if label in TARGETED else ""
        if label in TARGETED and median > TARGET:
            missed.append(label)
        print(f"{label:<28} {min(times):8.3f} {median:9.3f} {target:>8}")
    print("all targets met" if not missed else f"MISSED: {', '.join(missed)} above {TARGET} s (median)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
