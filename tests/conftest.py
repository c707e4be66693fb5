"""Shared fixtures: the golden data (package data, gridsat.models.golden) and helpers to run the command line."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

from gridsat.cli import main
from gridsat.models.golden import golden, path

# The golden counts ship with gridsat, so that an installed benchmark checks them too; the tests
# read the same files.
DATA = path()
ROOT = Path(__file__).parent.parent
# The backends that list solutions: the per-puzzle cross-checks compare their solution sets encoding by
# encoding; the counting backends (frontier, d4, ganak) have test files of their own.
LISTING = ["cpsat", "sat", "reference"]
__all__ = ["DATA", "LISTING", "ROOT", "golden", "gridsat", "gridsat_process"]


def gridsat(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``gridsat ARGS`` in this process (fast), capturing what a user would see."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit_:  # argparse's usage errors
            status = exit_.code if isinstance(exit_.code, int) else 1
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def gridsat_process(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real ``gridsat`` in a child process (for signals and the installed script)."""
    return subprocess.run([sys.executable, "-m", "gridsat", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
