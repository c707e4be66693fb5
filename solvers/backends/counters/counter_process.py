"""The model counter's own process: ``python counter_process.py COUNTER FORMULA RESULT PARENT``.

Run by path, not imported as part of gridsat, so it starts quickly (the standard library and the
counter's binding only, where importing gridsat or spawning a ``multiprocessing`` worker would cost
several times more). gridsat's process starts it with its stdout and stderr going to a
log file, so the counter's statistics (d4 prints them from C++) never reach gridsat's stdout, and
kills it at the deadline or on Ctrl-C: neither binding can be interrupted. The answer is a JSON
object written to RESULT: ``models`` (the count as decimal text, of any length) and the counter's
statistics, or ``error``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def read_dimacs(path: Path) -> tuple[int, list[list[int]], list[int] | None]:
    """Variables, clauses and the ``c p show`` projection of a DIMACS file (Ganak takes clauses)."""
    variables, clauses, shown = 0, [], None
    with path.open() as text:
        for line in text:
            if line.startswith("c p show"):
                shown = [int(v) for v in line.split()[3:-1]]
            elif line.startswith("p cnf"):
                variables = int(line.split()[2])
            elif line[0] not in "c\n":
                clauses.append([int(v) for v in line.split()[:-1]])
    return variables, clauses, shown


def count_with_d4(path: Path) -> dict[str, Any]:
    """d4's count of the file, projected on its ``c p show`` line when it has one, with d4's statistics."""
    import py_d4

    result = py_d4.Solver(str(path)).count()
    return {"models": result.getIntResult(), "count_seconds": result.getSolveTime(),
            "decision_nodes": result.getNbDecisionNodes(), "splits": result.getNbSplits(),
            "recursive_calls": result.getNbRecursiveCalls()}


def count_with_ganak(path: Path) -> dict[str, Any]:
    """Ganak's count of the file, the ``c p show`` variables as its sampling set; Arjun runs inside ``count``."""
    import pyganak

    variables, clauses, shown = read_dimacs(path)
    counter = pyganak.Counter(verbose=0)
    counter.new_vars(variables)
    counter.add_clauses(clauses)
    if shown is not None:
        counter.set_sampling_set(shown)
    started = time.perf_counter()
    models = counter.count()
    return {"models": str(models), "count_seconds": time.perf_counter() - started}


COUNTERS: dict[str, Callable[[Path], dict[str, Any]]] = {"d4": count_with_d4, "ganak": count_with_ganak}


def die_with_parent(parent: int) -> None:
    """Have Linux kill this process when gridsat's dies, so that a killed gridsat leaves no counter running."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):  # best effort: gridsat kills the worker itself in every other case
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # gridsat died before the request above was made
        os._exit(1)


def answer(result: Path, payload: dict[str, Any]) -> None:
    """Write the answer whole or not at all (gridsat may kill this process at any moment)."""
    partial = result.with_suffix(".part")
    partial.write_text(json.dumps(payload))
    partial.replace(result)


def main(argv: list[str]) -> int:
    counter, formula, result, parent = argv
    # Counts are sent as decimal text, and may have more digits than Python converts by default (4,300).
    sys.set_int_max_str_digits(0)
    # gridsat alone decides when a count ends: it kills this process (it runs in a session of its own).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    die_with_parent(int(parent))
    try:
        payload = COUNTERS[counter](Path(formula))
    except Exception as error:  # the counter's own failure, reported by gridsat in one line
        payload = {"error": f"{type(error).__name__}: {' '.join(str(error).split())}"}
    answer(Path(result), payload)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
