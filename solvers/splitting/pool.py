"""Where parts are conquered: local worker processes, or the workers of a Dask cluster.

Both take tasks (``submit``, also while messages are read: a part split again adds its sub-parts)
and yield messages as they come: ``start`` (a worker took a part), ``progress`` (solutions so far
in a part, local workers only) and ``done`` (a part's result). ``halt(index)`` asks the worker on a
part to stop it soon (its part is being split again): the part's ``conquer`` polls a flag, a
shared integer per local worker or a Dask ``Event`` per part. The local pool forks its workers
where that is safe (``start_method``: Linux, one thread) and spawns them elsewhere, lets each warm
up (load what parts need, and measure what starting a part costs) before it says it is ready,
makes them ignore Ctrl-C (the parent decides what an interrupt means) and, when closed early,
terminates them, so an interrupt never waits for a part in flight.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import socket
import sys
import threading
import traceback
import types
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gridsat.models.errors import BackendUnavailable, InvalidOption
from gridsat.models.params import excerpt
from gridsat.solvers.host.children import bind_to_parent, signals_held

# Seconds between looks at the workers while no message comes. The parent decides to split a running
# part again only when it looks: at 0.2 the decision came up to 0.25 s past the part's budget.
POLL = 0.05


@dataclass(frozen=True)
class Message:
    """What a pool reports: ``kind`` is start, progress, done, or tick (nothing came for a while)."""

    kind: str
    index: int
    value: Any = None  # start: the worker's name; progress: solutions so far; done: the part's result


class WorkerDied(RuntimeError):
    """A worker process ended without a result (a crash in native code, or the memory limit)."""


class PartFailed(RuntimeError):
    """A part raised an exception in its worker: a bug, reported with the worker's traceback."""


# Seconds between a part's looks at its halt flag (local workers): the part runs on until it looks,
# and at 0.1 that was a tenth of a second more in the largest runs; a shared integer costs nothing to read.
HALT_POLL = 0.02
DASK_HALT_POLL = 0.5  # a Dask Event is asked over the network


def work(tasks: Any, results: Any, conquer: Callable[..., Any], halts: Any, slot: int,
         warm: Callable[[], float | None] | None, ready: Any, starts: Any, parent: int, ended: Any, go: Any) -> None:
    """A worker's loop: once ``go`` is set (a pool started ``held`` waits for it), ``warm()`` first (loading what
    parts need; it may say what starting a part costs, which goes to ``starts[slot]``), then ``ready[slot] = 1``,
    then conquer parts until the parent sends None. ``halts[slot]`` holds 1 + the index of a part the parent wants
    stopped (an index of a part this worker no longer runs is ignored); ``ended[slot]`` counts the parts it sent
    back. The worker ends with its ``parent`` (a pid), and quietly on SIGTERM (``solvers.children``)."""
    bind_to_parent(parent)
    go.wait()
    if warm is not None:
        try:
            starts[slot] = warm() or 0.0
        except Exception:  # the first part fails the same way, and reports it with its traceback
            pass
    ready[slot] = 1
    while (task := tasks.get()) is not None:
        index = task.request.part.index
        results.put(Message("start", index, multiprocessing.current_process().name))
        try:
            result = conquer(task, lambda count, index=index: results.put(Message("progress", index, count)),
                             lambda index=index: halts[slot] == index + 1, HALT_POLL)
        except Exception:  # sent to the parent, which raises it there
            results.put(Message("failed", index, traceback.format_exc()))
            ended[slot] += 1
            continue
        results.put(Message("done", index, result))
        ended[slot] += 1


@contextlib.contextmanager
def main_hidden() -> Iterator[None]:
    """Start processes that do not run the caller's script again.

    ``spawn`` imports the parent's ``__main__`` in every child, so that functions defined there can
    be unpickled. A worker needs gridsat and its plugins only, and a user's script that calls
    ``gridsat.count(..., jobs=2)`` without an ``if __name__ == "__main__":`` guard would otherwise
    start workers in every worker, each failing with a traceback. An empty ``__main__`` while the
    workers start leaves spawn nothing to import.
    """
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def start_method() -> str:
    """How to start workers: ``fork`` where it is safe, on Linux in a process that runs one thread (the
    kernel's count, native threads included: a child forked beside another thread can inherit a lock
    that thread held, and hang). A forked worker is ready at once, with gridsat, OR-Tools and the
    puzzle loaded; a spawned one starts Python afresh (0.25 s here, 0.5 s with OR-Tools). Elsewhere,
    or beside other threads (a solver's, numpy's OpenBLAS pool, a caller's): ``spawn``."""
    try:
        alone = len(os.listdir("/proc/self/task")) == 1
    except OSError:  # no /proc: not Linux, or hidden
        alone = False
    return "fork" if sys.platform == "linux" and alone else "spawn"


def single_threaded_blas() -> None:
    """Ask numpy's OpenBLAS, in a process that has not loaded it yet, not to start a thread pool.
    OR-Tools loads numpy, gridsat does no linear algebra with it, and OpenBLAS's idle thread alone made
    every split cpsat run spawn its workers (``start_method``). A value the caller set is kept. The
    entry points call this (the command line, the benchmarks); the library leaves a caller's
    process alone."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class LocalPool:
    """``jobs`` worker processes on this machine."""

    def __init__(self, jobs: int, conquer: Callable[..., Any], warm: Callable[[], float | None] | None = None,
                 held: bool = False) -> None:
        """``warm``: what each worker runs once before it says it is ready (``ready()``); it may return what
        starting a part costs, in seconds (``start_cost()``). ``held``: the workers start now and wait, idle, until
        ``release()``: a run whose workers are due later starts them while forking is safe (``start_method``)."""
        self.method = start_method()
        context = multiprocessing.get_context(self.method)
        self.go = [context.Event() for _ in range(jobs)]  # one a worker; set: it warms up and takes parts
        if not held:
            self.release()
        self.tasks, self.results = context.Queue(), context.Queue()
        self.halts = context.Array("q", jobs, lock=False)  # one word per worker: written whole, no lock needed
        self.warmed = context.Array("b", jobs, lock=False)  # 1 once a worker has warmed up
        self.starts = context.Array("d", jobs, lock=False)  # what starting a part cost each, as it measured
        self.ended = context.Array("q", jobs, lock=False)  # parts each sent back (each worker writes its own)
        self.workers = [context.Process(target=work, daemon=True, name=f"gridsat-worker-{i + 1}",
                                        args=(self.tasks, self.results, conquer, self.halts, i, warm, self.warmed,
                                              self.starts, os.getpid(), self.ended, self.go[i]))
                        for i in range(jobs)]
        self.size = jobs
        self.pending = 0  # parts submitted and not yet done
        self.submitted = 0
        self.working: dict[str, int] = {}  # worker name -> the part it is on
        # messages read ahead (``read_ahead``), which ``messages()`` yields before it reads on
        self.ahead: deque[Message] = deque()
        self.ahead_lock = threading.Lock()
        with main_hidden() if self.method == "spawn" else contextlib.nullcontext(), signals_held():
            for worker in self.workers:
                worker.start()

    @property
    def held(self) -> bool:
        """Whether any worker still waits to be released (``release()``)."""
        return not all(go.is_set() for go in self.go)

    def release(self, workers: int | None = None) -> None:
        """Let workers started ``held`` warm up and take parts: all, or the first ``workers`` (a worker not yet
        needed does not warm up beside the others)."""
        for go in self.go[:workers]:
            go.set()

    def ready(self) -> bool:
        """Whether a worker has started and warmed up: a part handed out now starts at once (any thread
        may ask: it reads shared memory only)."""
        return any(self.warmed)

    def start_cost(self) -> float | None:
        """What starting a part costs, in seconds, as the first warmed-up workers measured it (the least;
        0 when their warm-up measured nothing); None while no worker is ready. Any thread may ask."""
        costs = [start for warmed, start in zip(self.warmed, self.starts, strict=True) if warmed]
        return min(costs) if costs else None

    def submit(self, tasks: list[Any]) -> None:
        for task in tasks:
            self.tasks.put(task)
        self.pending += len(tasks)
        self.submitted += len(tasks)

    def unfinished(self) -> int:
        """Parts submitted that no worker has sent back yet, whether their messages were read or not."""
        return self.submitted - sum(self.ended)

    def halt(self, index: int) -> bool:
        """Ask the worker on part ``index`` to stop it; False when no worker is on it, as far as the messages read
        say."""
        for slot, worker in enumerate(self.workers):
            if self.working.get(worker.name) == index:
                self.halts[slot] = index + 1
                return True
        return False

    def read_ahead(self) -> list[Message]:
        """The "done" messages that came since the last call, read without waiting (any thread may ask, while no
        thread reads ``messages()``); every message read is kept, and ``messages()`` yields it in its turn."""
        done = []
        with self.ahead_lock:
            while True:
                try:
                    message = self.results.get_nowait()
                except queue.Empty:
                    return done
                self.ahead.append(message)
                if message.kind == "start":  # which worker is on which part, for ``halt``
                    self.working[message.value] = message.index
                if message.kind == "done":
                    done.append(message)

    def _next(self) -> Message:
        """The next message: one read ahead, else one from the workers (``queue.Empty`` after ``POLL``)."""
        with self.ahead_lock:
            if self.ahead:
                return self.ahead.popleft()
        return self.results.get(timeout=POLL)

    def messages(self) -> Iterator[Message]:
        """Messages until every part submitted (also while reading) is done."""
        working = self.working
        while self.pending:
            try:
                message = self._next()
            except queue.Empty:
                for worker in self.workers:
                    if worker.exitcode not in (None, 0):
                        part = working.get(worker.name, "?")
                        raise WorkerDied(
                            f"a worker process died (exit code {worker.exitcode}) on part {part}") from None
                yield Message("tick", -1)
                continue
            if message.kind == "start":
                working[message.value] = message.index
            elif message.kind == "failed":
                raise PartFailed(f"part {message.index} failed in its worker:\n{message.value}")
            elif message.kind == "done":
                self.pending -= 1
            yield message

    def close(self) -> None:
        """Stop every worker at once (a part in flight is abandoned)."""
        for worker in self.workers:
            if worker.is_alive():
                worker.terminate()
        for worker in self.workers:
            worker.join(5)
        for channel in (self.tasks, self.results):
            # Tasks no worker will read may still wait in the feeding thread: do not wait for them at exit.
            channel.cancel_join_thread()
            channel.close()


SCHEMES = ("tcp", "ws")  # Dask's network protocols gridsat connects over, each with a host and a port
# Dask's encrypted protocols need a security configuration (certificates) that gridsat does not take.
SECURED = ("tls", "wss")
PROBE_SECONDS = 3.0  # a scheduler that does not answer a TCP connection within this is refused


def scheduler_address(text: str) -> str:
    """A Dask scheduler's address, ``[tcp://]HOST:PORT`` or Dask's in-process ``inproc://...``, checked
    before any connection is tried (Dask's own parser fails on ``tcp://`` with a traceback-worthy ValueError)."""
    scheme, sep, rest = text.strip().rpartition("://")
    if scheme == "inproc" and rest and not any(c.isspace() for c in rest):
        return text.strip()  # a LocalCluster(processes=False) in this process: inproc://HOST/PID/N
    if scheme in SECURED:
        raise InvalidOption(f"scheduler={excerpt(text)}: {scheme}:// needs a TLS security configuration, which "
                            "gridsat does not take; reach the scheduler over tcp:// (an SSH tunnel, a private network)")
    host, colon, port = rest.rpartition(":")
    if (sep and scheme not in SCHEMES) or not colon or not host or not port.isascii() or not port.isdigit() \
            or len(port) > 5 or not 1 <= int(port) <= 65535 or any(c.isspace() or c in "/?#" for c in host):
        raise InvalidOption(f"scheduler={excerpt(text)} is not a Dask scheduler address: expected "
                            f"[{'|'.join(SCHEMES)}://]HOST:PORT, e.g. tcp://127.0.0.1:8786")
    return text.strip()


def connect(address: str) -> Any:
    """A Dask client of the scheduler at ``address``, or one line saying why there is none."""
    address = scheduler_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise BackendUnavailable("scheduler= needs Dask: pip install 'gridsat[dask]'") from None
    knock(address)
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError, ValueError) as error:  # ValueError: an inproc address of another process
        raise InvalidOption(f"cannot reach the Dask scheduler {address!r}: {error}") from None


def knock(address: str) -> None:
    """Refuse at once a scheduler whose port takes no connection: Dask's client retries for 10 s first."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp", "ws"):
        return
    host, _, port = rest.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except OSError as error:
        reason = "no answer" if isinstance(error, TimeoutError) else error.strerror or str(error)
        raise InvalidOption(f"cannot reach the Dask scheduler {address!r}: {reason}") from None


def conquer_remote(conquer: Callable[..., Any], task: Any, event: str) -> Any:
    """A part on a Dask worker: ``conquer`` with the part's halt flag, a Dask ``Event`` named ``event``."""
    from distributed import Event

    flag = Event(event)
    return conquer(task, None, flag.is_set, DASK_HALT_POLL)


class DaskPool:
    """The workers of a Dask distributed cluster; each needs gridsat installed (and any plugin used).

    Dask says when a part ends, not when it starts: a part counts as started when it is submitted
    while a worker thread is free, or when a part before it ends (first in, first out)."""

    def __init__(self, address: str, conquer: Callable[..., Any]) -> None:
        self.client = connect(address)
        self.conquer = conquer
        self.futures: dict[Any, int] = {}  # future -> its part's index, until it is done
        self.waiting: list[int] = []  # parts submitted, not yet taken to have started
        self.started = 0
        self.token = uuid.uuid4().hex  # names this run's halt events on a shared cluster
        self.size = max(1, sum(self.client.nthreads().values()))

    @property
    def pending(self) -> int:
        return len(self.futures)

    def submit(self, tasks: list[Any]) -> None:
        for task in tasks:
            index = task.request.part.index
            future = self.client.submit(conquer_remote, self.conquer, task, self.event(index), pure=False)
            self.futures[future] = index
            self.waiting.append(index)

    def event(self, index: int) -> str:
        return f"gridsat-halt-{self.token}-{index}"

    def halt(self, index: int) -> bool:
        """Ask the worker on part ``index`` to stop it (True: a Dask worker reads the event when it looks)."""
        from distributed import Event

        Event(self.event(index), client=self.client).set()
        return True

    def messages(self) -> Iterator[Message]:
        from distributed import wait

        while self.futures:
            while self.waiting and self.started < self.size:
                self.started += 1
                yield Message("start", self.waiting.pop(0), "dask")
            try:
                finished, _ = wait(list(self.futures), timeout=POLL, return_when="FIRST_COMPLETED")
            except TimeoutError:  # nothing finished for a while: let the caller look at the clock
                yield Message("tick", -1)
                continue
            for future in finished:
                index = self.futures.pop(future)
                if index in self.waiting:  # ended before its turn in our guess: it did start
                    self.waiting.remove(index)
                else:
                    self.started -= 1
                result = future.result()  # a worker's exception is raised here, with its traceback
                yield Message("done", result.index, result)

    def close(self) -> None:
        if self.futures:
            self.client.cancel(list(self.futures))
        self.client.close()
