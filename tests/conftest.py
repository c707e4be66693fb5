"""Shared fixtures: the golden data (package data, gridsat.models.golden) and helpers to run the command line."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from gridsat.cli import main
from gridsat.models.golden import golden, path
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers import run
from gridsat.solvers.backend import COUNT, ENUMERATE, SOLVE, Request
from gridsat.solvers.gate import BURNSIDE, Bound, Job, bind
from gridsat.solvers.orbits import counting as orbits
from gridsat.solvers.splitting.parallel import SOLUTIONS, Split, SplitRun, Variant

# Dask's worker profiler calls sys._current_frames() every 10 ms, which on Python 3.11 before 3.11.9 can
# deadlock threads that take the GIL from C++ (CP-SAT's solution callbacks) when a garbage collection
# runs Python code inside it (CPython gh-106883; hypothesis installs such a gc callback): an in-process
# LocalCluster then hung the suite with every solver waiting for the GIL. The tests' clusters go without it.
os.environ.setdefault("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED", "False")


def compile_each_kernel_once(locks: Path) -> None:
    """Make the test processes compile a cached numba kernel one at a time: the first compiles it and writes
    numba's cache, the others wait on a file lock in ``locks`` and then load it from that cache.

    On a fresh clone the xdist workers reach the same kernels at the same time, and ``cache=True`` writes the
    cache only after compiling, so without the lock each worker compiled each kernel (seconds of CPU each).
    A lock per kernel: two different kernels still compile side by side. Numba's own compiler lock is taken
    first, so a process's threads never wait on a file lock one of them holds; a kernel's callees lock after
    it, and calls form no cycle, so two processes never wait on each other."""
    try:
        import fcntl

        from numba.core.caching import NullCache
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # no numba (an extra), or no flock (not POSIX): nothing to share
        return
    locks.mkdir(parents=True, exist_ok=True)
    numba_compile = Dispatcher.compile
    held: set[str] = set()  # the kernels this process is compiling (a kernel may call itself)

    def compile_(self: Any, sig: Any) -> Any:
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        if isinstance(self._cache, NullCache):
            return numba_compile(self, sig)
        with global_compiler_lock:
            if name in held:
                return numba_compile(self, sig)
            with open(locks / hashlib.sha1(name.encode()).hexdigest(), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                held.add(name)
                try:
                    return numba_compile(self, sig)
                finally:
                    held.discard(name)
                    fcntl.flock(lock, fcntl.LOCK_UN)  # now, even if a child forked meanwhile holds the file too

    Dispatcher.compile = compile_


compile_each_kernel_once(Path(tempfile.gettempdir()) / f"gridsat-numba-locks-{os.getuid()}")

# The golden counts ship with gridsat, so that an installed benchmark checks them too; the tests
# read the same files.
DATA = path()
ROOT = Path(__file__).parent.parent
# The backends that list solutions: the per-puzzle cross-checks compare their solution sets encoding by
# encoding; the counting backends (frontier, d4, ganak) have test files of their own.
LISTING = ["cpsat", "sat", "reference"]
__all__ = ["DATA", "LISTING", "ROOT", "bound", "burnside", "count_canonical", "count_orbits", "execute", "golden",
           "gridsat", "gridsat_process", "orbits_of", "patience", "split_run_of"]
# A wall-clock bound in a test guards against a hang or a limit not honoured, never measures speed: it is
# MARGIN times what an idle machine needs, and more on a busy one (CI shares its cores).
MARGIN = 3.0


def patience(seconds: float, margin: float = MARGIN) -> float:
    """How long a test waits for what takes at most ``seconds`` on an idle machine: ``margin`` times that,
    times the runnable processes per core (the load average, read now) when there are more than one. A
    bound that must stay below what the bug it catches would take keeps ``margin=1``: both scale alike."""
    busy = os.getloadavg()[0] / (os.cpu_count() or 1) if hasattr(os, "getloadavg") else 1.0
    return seconds * margin * max(1.0, busy)


def gridsat(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``gridsat ARGS`` in this process (fast), capturing what a user would see."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit_:  # argparse's usage errors
            status = exit_.code if isinstance(exit_.code, int) else 1
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def gridsat_process(*args: str, timeout: float = 40) -> subprocess.CompletedProcess[str]:
    """Run the real ``gridsat`` in a child process (for signals and the installed script); ``timeout``:
    its idle-machine bound, given ``patience``."""
    return subprocess.run([sys.executable, "-m", "gridsat", *args],
                          capture_output=True, text=True, timeout=patience(timeout), cwd=ROOT)


# The layers below the API take a backend bound to a job (``gridsat.solvers.gate.bind``); these helpers bind
# one by name, as the API does, so a test names the backend and the job as a caller of the API would.
def spawn(command: list[str], **popen: Any) -> subprocess.Popen[str]:
    """A gridsat process that a test interrupts: Ctrl-C acts on it even when the tests run with SIGINT ignored
    (a shell starts a background job so, and a child inherits it), as it does at a terminal."""
    def default_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=default_sigint, **popen)


def finish(child: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """What an interrupted process printed; one that does not end in time is killed, never left running."""
    try:
        return child.communicate(timeout=timeout)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()


def bound(puzzle: Puzzle, backend: str, request: Request | None = None, verb: str = COUNT, **job: Any) -> Bound:
    """The backend ``backend`` bound (and gated) to a job of ``verb`` on ``puzzle``."""
    return bind(backend, puzzle, Job(verb, request or Request(), **job))


def execute(puzzle: Puzzle, instance: Instance, backend: str, request: Request | None = None, *,
            limit: int | None = None, time_limit: float | None = None, keep: bool = False) -> run.Outcome:
    """One run in this process, as ``gridsat.solvers.run.execute`` makes it (a limit of 1 solves)."""
    verb = SOLVE if limit == 1 else ENUMERATE
    return run.execute(puzzle, instance, bound(puzzle, backend, request, verb, limit=limit, time_limit=time_limit,
                                                keep=keep))


def split_run_of(puzzle: Puzzle, instance: Instance, backend: str, request: Request, split: Split, *,
                 variant: Variant = SOLUTIONS, limit: int | None = None, time_limit: float | None = None,
                 keep: bool = False, deliver: bool = False, on_progress: Any = None) -> SplitRun:
    """A split run (``deliver``: an enumeration whose items the caller reads)."""
    job = bound(puzzle, backend, request, ENUMERATE if deliver else COUNT, limit=limit, time_limit=time_limit,
                split=split, keep=keep)
    return SplitRun(puzzle, instance, job, variant=variant, deliver=deliver, on_progress=on_progress)


def count_orbits(puzzle: Puzzle, instance: Instance, backend: str, request: Request | None = None, *, up_to: str,
                 method: str | None = None, limit: int | None = None, time_limit: float | None = None,
                 split: Split | None = None) -> orbits.OrbitOutcome:
    """An orbit count by ``method`` (canonical representatives by default)."""
    return orbits.count_orbits(puzzle, instance, bound(puzzle, backend, request, up_to=up_to, method=method,
                                                       limit=limit, time_limit=time_limit, split=split))


def count_canonical(puzzle: Puzzle, instance: Instance, backend: str, request: Request | None = None, *,
                    up_to: str) -> orbits.OrbitOutcome:
    return orbits.count_canonical(puzzle, instance, bound(puzzle, backend, request, up_to=up_to))


def burnside(puzzle: Puzzle, instance: Instance, backend: str, request: Request | None = None, *,
             up_to: str) -> orbits.OrbitOutcome:
    return orbits.burnside(puzzle, instance, bound(puzzle, backend, request, up_to=up_to, method=BURNSIDE))


def orbits_of(puzzle: Puzzle, instance: Instance, backend: str, request: Request | None = None, *,
              up_to: str) -> orbits.Orbits:
    """The canonical representatives of a run's orbits, as they come."""
    return orbits.Orbits(puzzle, instance, bound(puzzle, backend, request, ENUMERATE, up_to=up_to), up_to=up_to)
