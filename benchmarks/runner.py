"""Run each benchmark run in its own child process, measured and limited from outside (like runsolver).

The child (``gridsat.benchmarks.worker``) starts a new session, so it leads its own process group; it caps
its CPU time (RLIMIT_CPU) before importing anything heavy. The parent polls the child with
``os.wait4`` (which gives its CPU time and peak resident memory at the end) and kills the whole
process group when the wall-clock limit (slightly above the CPU limit) passes, when the resident
memory of the child and its descendants passes the memory limit (a ``memout``), and again after the
child ends, so nothing the run started survives it.

Memory is what a run uses, not what it reserves: resident memory, polled with psutil as runsolver
and BenchExec's fallback do. An address-space limit (RLIMIT_AS) would refuse d4, which maps a 4 GB
first page it never touches. Without psutil (``pip install 'gridsat[plot]'``) the limit is not
enforced, and the command says so.

Runs go to a local thread pool (each thread waits on one child) or, with a scheduler address, to a
Dask cluster, whose workers run the same ``isolate`` function; Dask is imported only then.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gridsat.benchmarks.fingerprint import fingerprint
from gridsat.benchmarks.results import LOST
from gridsat.benchmarks.suite import Trial
from gridsat.solvers.backend import BACKENDS

ROOT = Path(__file__).resolve().parent.parent  # the checkout the child must import, first on its path
# What a run that ran out of memory leaves in its messages (Python, C++, libc, the loader, OpenBLAS).
OUT_OF_MEMORY = ("memoryerror", "bad_alloc", "cannot allocate memory", "out of memory", "memory allocation",
                 "failed to map segment")
POLL = 0.1  # seconds between two looks at a run's clock and resident memory, once it has run a while

_active: set[int] = set()  # process groups of running children, for Ctrl-C
_lock = threading.Lock()
_stopping = threading.Event()  # set by stop_all: no new child starts after Ctrl-C


@dataclass(frozen=True)
class Limits:
    """Per-run limits: ``timeout`` CPU seconds and ``memory`` MB of resident memory for the child and
    its descendants together.

    As with runsolver and BenchExec, the time limit covers the whole child process, interpreter
    start-up and imports included; a run over it is a ``timeout`` even when it finished. The times
    in the tables (``seconds``) are formulation build plus solve only.
    """

    timeout: float
    memory: int

    @property
    def cpu_limit(self) -> int:
        """RLIMIT_CPU, in whole seconds: the hard stop (the exact limit is checked afterwards)."""
        return max(1, math.ceil(self.timeout))

    @property
    def wall_limit(self) -> float:
        """The wall-clock kill, slightly above the CPU limit (a loaded machine runs slower)."""
        return self.cpu_limit * 1.2 + 1.0


def spec_of(run: Trial, limits: Limits) -> dict[str, Any]:
    """What the child needs, as plain JSON (it also travels to Dask workers)."""
    return {
        **asdict(run),
        "id": run.id,
        "config": run.config,
        "case": run.case,
        "backend_path": BACKENDS[run.backend],
        "fingerprint": fingerprint(run.puzzle, run.backend),
        "timeout": limits.timeout,
        "memory_bytes": limits.memory * 2**20,
        "cpu_limit": limits.cpu_limit,
        "wall_limit": limits.wall_limit,
    }


def child_env() -> dict[str, str]:
    """The parent's environment with this checkout first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def isolate(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one spec in a fresh child process under its limits; the run's record."""
    with tempfile.TemporaryDirectory(prefix="gridsat-run-") as tmp:
        spec_path, result_path, log_path = (os.path.join(tmp, n) for n in ("spec.json", "result.json", "log"))
        with open(spec_path, "w", encoding="utf-8") as handle:
            json.dump(spec, handle)
        started = time.monotonic()
        with _lock, open(log_path, "wb") as log:
            if _stopping.is_set():
                raise KeyboardInterrupt
            child = subprocess.Popen(
                [sys.executable, "-m", "gridsat.benchmarks.worker", spec_path, result_path],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, env=child_env(),
            )
            _active.add(child.pid)
        try:
            wait_status, usage, killed = watch(child.pid, started + spec["wall_limit"], spec["memory_bytes"])
        finally:
            kill_group(child.pid)  # whatever the run left behind in its group
            with _lock:
                _active.discard(child.pid)
        child.returncode = os.waitstatus_to_exitcode(wait_status)  # reaped here, so Popen never waits
        measured = {
            "wall_seconds": round(time.monotonic() - started, 6),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 6),
            "max_rss_bytes": usage.ru_maxrss * 1024,  # Linux reports kilobytes
        }
        log_text = Path(log_path).read_text(encoding="utf-8", errors="replace")
        if killed == "memout":
            result = {"status": "memout", "message": f"resident memory over the limit ({limit_mb(spec)} MB)"}
        elif os.path.exists(result_path):
            with open(result_path, encoding="utf-8") as handle:
                result = json.load(handle)
        else:
            result = diagnose(child.returncode, killed == "timeout", measured["cpu_seconds"], spec, log_text)
    if result["status"] == "error" and out_of_memory(f"{result.get('message')}\n{log_text}"):
        result = {"status": "memout", "message": f"out of memory (limit {limit_mb(spec)} MB)"}
    if result["status"] == "ok" and measured["cpu_seconds"] > spec["timeout"]:
        result["status"] = "timeout"
        result["message"] = f"{measured['cpu_seconds']:.3f} s of CPU, start-up included, is over the limit"
    return record_of(spec, result, measured)


def watch(pid: int, deadline: float, memory_bytes: int | None) -> tuple[int, Any, str | None]:
    """Wait for the child ``pid``, killing its process group at the wall-clock ``deadline`` or when
    the resident memory of it and its descendants passes ``memory_bytes``; its wait status, its
    resource usage, and what killed it (``timeout``, ``memout`` or None)."""
    pause = POLL / 16  # short at first: most runs end within a second
    while True:
        done, wait_status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return wait_status, usage, None
        over_memory = bool(memory_bytes) and resident_bytes(pid) > memory_bytes
        killed = "timeout" if time.monotonic() >= deadline else "memout" if over_memory else None
        if killed:
            kill_group(pid)
            _, wait_status, usage = os.wait4(pid, 0)
            return wait_status, usage, killed
        time.sleep(pause)
        pause = min(2 * pause, POLL)


def resident_bytes(pid: int) -> int:
    """The resident memory of process ``pid`` and its descendants (0 without psutil, or once it is gone)."""
    try:
        import psutil
    except ImportError:
        return 0
    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for process in tree:
        with contextlib.suppress(psutil.Error):  # a descendant that ended meanwhile
            total += process.memory_info().rss
    return total


def memory_watched() -> bool:
    """Whether the memory limit is enforced here (psutil is installed)."""
    return importlib.util.find_spec("psutil") is not None


def limit_mb(spec: dict[str, Any]) -> int:
    return spec["memory_bytes"] // 2**20


def out_of_memory(text: str) -> bool:
    return any(sign in text.lower() for sign in OUT_OF_MEMORY)


def diagnose(code: int, killed: bool, cpu: float, spec: dict[str, Any], log: str) -> dict[str, Any]:
    """What a child that wrote no result ran into: a limit, memory, or a crash. Killed at the wall clock
    before it had used its CPU limit, its time is not known: ``lost``, never a timeout (censored at the
    limit), which would charge a run the machine starved with a time it never showed."""
    if killed and cpu < spec["cpu_limit"] - 0.5:
        return {"status": LOST, "message": f"killed at the wall-clock limit ({spec['wall_limit']:g} s) after "
                f"{cpu:.2f} s of CPU, under its {spec['timeout']:g} s limit: its time is not known (a busy "
                "machine, or a run that waits); the same command runs it again"}
    if killed:
        return {"status": "timeout", "message": f"killed at the wall-clock limit ({spec['wall_limit']:g} s)"}
    if code in (-signal.SIGXCPU, -signal.SIGKILL) and cpu >= spec["cpu_limit"] - 0.5:
        return {"status": "timeout", "message": f"killed at the CPU limit ({spec['cpu_limit']} s)"}
    how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
    lines = [line for line in log.splitlines() if line.strip()]
    return {"status": "error", "message": f"{how}: {lines[-1]}" if lines else how}


RECORD_FIELDS = (
    "id", "puzzle", "instance", "params", "backend", "encoding", "solver", "algorithm", "config", "mode", "repeat",
    "status", "count", "complete", "reason", "message", "expected", "seconds", "build_seconds", "solve_seconds",
    "run_cpu_seconds", "solve_cpu_seconds", "wall_seconds", "cpu_seconds", "max_rss_bytes", "variables", "clauses",
    "constraints", "duplicates", "invalid", "verdict", "label", "described", "seed", "workers", "warm_seconds",
    "cpu_wall", "conflicts", "decisions", "propagations", "restarts", "refinements", "added_clauses", "fingerprint",
)


def record_of(spec: dict[str, Any], result: dict[str, Any], measured: dict[str, Any]) -> dict[str, Any]:
    """One results.jsonl record: the run, what the child said, and what the parent measured."""
    merged = {**spec, **result, **measured, "params": dict(spec["params"])}
    return {"kind": "run", **{key: merged.get(key) for key in RECORD_FIELDS}}


def stop_all() -> None:
    """Kill every running child's process group (after Ctrl-C)."""
    with _lock:
        _stopping.set()
        groups = list(_active)
    for pgid in groups:
        kill_group(pgid)


def run_all(
    specs: Iterable[dict[str, Any]],
    on_record: Callable[[dict[str, Any]], None],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
) -> None:
    """Run every spec, calling ``on_record`` in this thread as each one finishes."""
    specs = list(specs)
    _stopping.clear()
    if scheduler:
        run_on_dask(specs, on_record, scheduler)
        return
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="bench")
    try:
        futures = [pool.submit(isolate, spec) for spec in specs]
        for future in as_completed(futures):
            on_record(future.result())
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_all()
        raise
    pool.shutdown()


def run_on_dask(specs: list[dict[str, Any]], on_record: Callable[[dict[str, Any]], None], address: str) -> None:
    """Send every spec to the Dask scheduler at ``address``; its workers isolate each run the same way."""
    from gridsat.models.errors import GridsatError

    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise GridsatError("--scheduler needs Dask: pip install 'gridsat[dask]'") from None
    try:
        client = Client(address, timeout=10)
    except OSError as error:
        raise GridsatError(f"cannot reach the Dask scheduler {address!r}: {error}") from None
    with client:
        futures = client.map(isolate, specs, key=[f"gridsat-bench-{i}-{time.time_ns()}" for i in range(len(specs))])
        try:
            for future in dask_completed(futures):
                on_record(future.result())
        except BaseException:
            client.cancel(futures)
            raise
