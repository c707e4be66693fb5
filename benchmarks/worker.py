"""The child process of one benchmark run: ``python -m gridsat.benchmarks.worker SPEC.json RESULT.json``.

It limits its CPU seconds first (the parent watches its memory), then parses the instance, binds the
backend to the run's job (``gridsat.solvers.gate.bind``, the gate's one look-up), warms it up, solves or
counts (``gridsat.solvers.route``), and writes one JSON object: the outcome's summary,
the solver's statistics and a status. The parent (``gridsat.benchmarks.runner``) measures the process
from outside and decides what a missing result means.

Warming up is what makes the clock fair: the backend runs once on the puzzle's small example before
the timed run, so the imports it needs (OR-Tools, PySAT, the counters), numba's compiled kernels and
the formulation's code are loaded before the clock starts; that time is ``warm_seconds``, outside
``build_seconds`` and ``solve_seconds``.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import traceback
from typing import Any

# The backend refused the configuration when it ran (a counter given a lazy encoding): not a failure.
NOT_APPLICABLE = "not applicable"
WARM_SHARE, WARM_MOST = 0.25, 5.0  # the warm-up's time limit: a share of the run's, at most this many seconds
# The solver statistics a record holds (None where the solver gives no such number), and the lazy
# encodings' cost under the names of the sizes the sat backend reports.
STATISTICS = ("conflicts", "decisions", "propagations", "restarts", "refinements", "added_clauses")
LAZY = {"refinement_rounds": "refinements", "refinement_clauses": "added_clauses"}
# What a model counter exposes of the same kind: d4's decision nodes (Ganak's Python binding prints none).
COUNTED = {"decision_nodes": "decisions"}


def limit(cpu_seconds: int | None) -> None:
    """Cap this process's CPU time (SIGXCPU at the soft limit, SIGKILL a second later). Memory is
    limited from outside, on resident memory: an address-space limit would refuse what a counter
    only reserves (d4 maps a 4 GB first page)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a run killed by SIGXCPU leaves no core file behind
    if cpu_seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))


def status_of(summary: dict[str, Any], mode: str, timeout: float, left: float) -> tuple[str, str | None]:
    """``ok``, ``timeout`` or ``error`` (with a message) for a run that returned (the parent still
    checks the whole process's CPU time against the limit)."""
    # A backend that stops itself at the deadline may name another reason (CP-SAT's own time limit).
    # The time limit counts building the formulation too.
    stopped_at_deadline = not summary["complete"] and summary["build_seconds"] + summary["solve_seconds"] >= 0.98 * left
    if summary["reason"] == "time limit" or stopped_at_deadline or summary["seconds"] > timeout:
        return "timeout", None
    if summary["complete"] or (mode == "solve" and summary["count"] > 0):
        return "ok", None
    return "error", f"incomplete: {summary['reason']}"


def warm_up(puzzle: Any, bound: Any, left: float) -> float:
    """Run the backend once on the puzzle's example (one solution, or its count for a counter); the seconds."""
    from gridsat.models.errors import GridsatError
    from gridsat.solvers.backend import counts_only
    from gridsat.solvers.run import execute, tally

    started = time.perf_counter()
    if puzzle.example is None:
        return 0.0
    example = puzzle.parse(puzzle.example, {})
    budget = min(WARM_SHARE * left, WARM_MOST)
    try:
        if counts_only(bound.backend):
            tally(puzzle, example, bound.narrowed(time_limit=budget))
        else:
            execute(puzzle, example, bound.narrowed(limit=1, time_limit=budget))
    except GridsatError:
        pass  # what the backend refuses on the example, the timed run will say on the instance
    return time.perf_counter() - started


def statistics_of(summary: dict[str, Any]) -> dict[str, Any]:
    """The solver statistics fields of a record: the outcome's ``statistics`` and a lazy encoding's cost."""
    found = dict.fromkeys(STATISTICS)
    found.update(summary.pop("statistics", None) or {})
    for size, name in LAZY.items():
        if size in summary:
            found[name] = summary.pop(size)
    for detail, name in COUNTED.items():
        if found[name] is None and isinstance(summary.get(detail), int):
            found[name] = summary[detail]
    return found


def cpu_now() -> float:
    """CPU seconds used so far by this process (all its threads) and the children it waited for (a counter's)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def work(spec: dict[str, Any]) -> dict[str, Any]:
    """Run the spec in this process and describe the result."""
    from gridsat.models import get_puzzle
    from gridsat.solvers import backend as registry
    from gridsat.solvers.backend import COUNT, SOLVE, Request
    from gridsat.solvers.gate import Job, bind
    from gridsat.solvers.route import make_count
    from gridsat.solvers.run import execute

    # The parent's registry entry, so a backend registered there (a plugin, a test's fake) is found.
    registry.BACKENDS.setdefault(spec["backend"], spec["backend_path"])
    puzzle = get_puzzle(spec["puzzle"])
    instance = puzzle.parse(spec["source"], dict(spec["params"]))
    request = Request(spec["encoding"], spec["solver"], spec["algorithm"], seed=spec.get("seed"),
                      workers=spec.get("workers", 1))
    used = resource.getrusage(resource.RUSAGE_SELF)
    left = max(spec["timeout"] - used.ru_utime - used.ru_stime, 1e-3)  # the limit counts start-up too
    solve = spec["mode"] == "solve"
    bound = bind(spec["backend"], puzzle, Job(SOLVE if solve else COUNT, request, limit=1 if solve else None,
                                              time_limit=left))
    warm = warm_up(puzzle, bound, left)
    left = max(left - warm, 1e-3)
    wall, cpu = time.perf_counter(), cpu_now()
    if solve:
        outcome = execute(puzzle, instance, bound.narrowed(time_limit=left))
    else:  # by the route its backend takes: a counter counts (the suite plans it for count only)
        outcome = make_count(puzzle, instance, bound.narrowed(time_limit=left))
    wall, cpu = time.perf_counter() - wall, cpu_now() - cpu
    summary = outcome.summary()
    summary["run_cpu_seconds"] = round(cpu, 6)  # the headline: the limit is CPU time
    # The solve alone (the same part as solve_seconds), measured around the search in this process; None for a
    # counter's tally, whose count runs in a child process.
    solve_cpu = getattr(outcome, "solve_cpu_seconds", None)
    summary["solve_cpu_seconds"] = None if solve_cpu is None else round(solve_cpu, 6)
    summary |= statistics_of(summary)
    summary["warm_seconds"] = round(warm, 6)
    summary["cpu_wall"] = round(cpu / wall, 3) if wall > 0 else None
    summary["label"] = summary.pop("encoding")  # the backend's own full name for the configuration
    summary["described"] = summary.pop("instance")  # the puzzle's canonical name; the suite's text stays
    summary["solve_seconds"] = summary.pop("seconds")
    summary["seconds"] = round(summary["build_seconds"] + summary["solve_seconds"], 6)
    summary["status"], summary["message"] = status_of(summary, spec["mode"], spec["timeout"], left)
    return summary


def main(argv: list[str]) -> int:
    spec_path, result_path = argv
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    limit(spec.get("cpu_limit"))
    from gridsat.models.errors import BackendUnavailable, InvalidOption

    started = time.perf_counter()
    try:
        result = work(spec)
    except (InvalidOption, BackendUnavailable) as error:  # what the backend cannot run, said in one line
        result = {"status": NOT_APPLICABLE, "message": str(error)}
    except MemoryError:
        result = {"status": "memout", "message": "MemoryError"}
    except Exception as error:  # every failure of a run is a result, never a crash of the benchmark
        traceback.print_exc()
        result = {"status": "error", "message": f"{type(error).__name__}: {error}"}
    result.setdefault("seconds", round(time.perf_counter() - started, 6))
    partial = result_path + ".part"
    with open(partial, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    os.replace(partial, result_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
