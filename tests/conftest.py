"""Shared fixtures: golden data files and a helper to run the real command line."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from gridsat.cli import main

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent


def golden(name: str) -> dict[str, Any]:
    """A golden-data TOML file from tests/data."""
    with open(DATA / f"{name}.toml", "rb") as fh:
        return tomllib.load(fh)


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
