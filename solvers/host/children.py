"""Worker processes that stop with their parent and quietly.

- ``signals_held()``: the parent blocks SIGINT and SIGTERM while it starts workers; a child inherits
  the blocked mask (across ``fork``, and across ``exec`` for ``spawn``), so a stop request that
  reaches a worker before it has set its own handlers waits for them instead of raising
  ``KeyboardInterrupt`` inside multiprocessing's start-up, which printed ``Process gridsat-worker-2:
  Traceback ... KeyboardInterrupt`` on a normal stop. The parent gets its own pending signal as soon
  as the block ends.
- ``bind_to_parent(parent)``: first thing in a worker. Ctrl-C is the parent's to handle (ignored);
  SIGTERM ends the worker at once, silently; on Linux the kernel sends SIGTERM when the parent dies
  however it dies (``kill -9`` too: ``prctl(PR_SET_PDEATHSIG)``), and a parent already gone by then
  ends the worker straight away. Elsewhere the parent's ``close`` still terminates its workers.

(The counters' worker, ``backends/counters/counter_process.py``, asks for the same death signal with
code of its own: it runs by path with the standard library only, to start quickly.)
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Iterator

STOPS = {signal.SIGINT, signal.SIGTERM}
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Block SIGINT and SIGTERM while workers start (a pending one is delivered when the block ends)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def bind_to_parent(parent: int) -> None:
    """Make this worker ignore Ctrl-C, die silently on SIGTERM and die with its parent ``parent`` (a pid)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent, signal.SIGTERM)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)  # a stop held since start-up now ends the worker


def die_with_parent(parent: int, sig: int) -> None:
    """Have Linux send ``sig`` to this process when its parent ``parent`` (a pid) dies, however it dies;
    a parent already gone ends this process at once."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # best effort: the parent's close covers the rest
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the death signal was asked for
        os._exit(1)
