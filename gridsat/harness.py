"""``gridsat.bench``: the benchmark harness from Python, as ``gridsat bench`` runs it.

The harness lives in the benchmarks layer, above this API (tests/test_layers.py), and runs every
run in a child process of its own anyway; so ``bench`` starts ``python -m gridsat.benchmarks.command``
with the same arguments as the command line and reads back what it wrote: the results folder's
records and report, or the comparison of two folders.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridsat.models.errors import GridsatError

COMPARE = "compare"


@dataclass(frozen=True)
class Benchmark:
    """What ``gridsat.bench`` ran: its exit status (0 fine, 1 a wrong run, an error or a disputed case,
    in a comparison in either folder, each named in ``notes``; 130 interrupted), the results folder, what it
    printed (``text``: the summary line, or the comparison) and its notes on stderr."""

    status: int
    out: Path | None
    text: str
    notes: str

    @property
    def report(self) -> Path | None:
        """``report.md`` in the results folder (None for a comparison)."""
        return None if self.out is None else self.out / "report.md"

    def records(self) -> list[dict[str, Any]]:
        """Every run's record in ``results.jsonl`` (the header left out)."""
        if self.out is None:
            return []
        lines = (self.out / "results.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines[1:] if line.strip()]


def bench(suite: str | Path, *folders: str | Path, out: str | Path | None = None, jobs: int = 1,
          time_limit: float | None = None, memory: int | None = None, repeat: int | None = None,
          seeds: int | None = None, scramble: int | None = None, fresh: bool = False, plots: bool = False,
          scatter: tuple[str, str] | None = None) -> Benchmark:
    """Run a benchmark suite into ``out`` (``gridsat bench SUITE --out DIR``), or with ``suite="compare"``
    put two results folders side by side (``gridsat.bench("compare", A, B)``).

    ``seeds`` K runs each configuration from seeds 1..K, ``scramble`` S from seed S alone (a CNF backend
    on the formula scrambled from it). ``fresh`` runs everything again; otherwise the runs already
    recorded are kept unless their fingerprint (gridsat's version, the encoding's source, the
    backend's, the solver's version, plugins) changed. Bad input raises ``GridsatError`` with the
    command's one-line message.
    """
    argv = [str(suite), *map(str, folders)]
    options = {"--out": out, "--jobs": jobs, "--time-limit": time_limit, "--memory": memory, "--repeat": repeat,
               "--seeds": seeds, "--scramble": scramble}
    for flag, value in options.items():
        if value is not None and str(suite) != COMPARE:
            argv += [flag, str(value)]
    argv += [flag for flag, on in (("--fresh", fresh), ("--no-plots", not plots)) if on and str(suite) != COMPARE]
    if scatter:
        argv += ["--scatter", *scatter]
    done = subprocess.run([sys.executable, "-m", "gridsat.benchmarks.command", *argv], capture_output=True,
                          text=True, env=dict(os.environ), check=False)
    if done.returncode == 2:
        said = [line for line in done.stderr.splitlines() if line.strip()]
        raise GridsatError(said[-1].removeprefix("error: ") if said else "gridsat bench refused its input")
    return Benchmark(done.returncode, None if str(suite) == COMPARE else Path(out), done.stdout, done.stderr)
