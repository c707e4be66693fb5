"""SIGTERM handled like Ctrl-C: batch schedulers, ``timeout`` and ``kill`` send SIGTERM, and the
partial answer they interrupt is worth printing just as much as after a Ctrl-C."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

# ``timeout`` signals the command and then its whole process group, so one stop request can arrive
# twice within microseconds; a repeat inside this window must not interrupt the partial answer
# being printed. A SIGTERM after the window interrupts again (and SIGKILL always works).
REPEAT_WINDOW = 2.0  # seconds


# When the last stop request was taken, shared by every handler this module installs: the command line
# nests one block inside another (start-up, then the command), and a repeat must be ignored by whichever
# handler is in force when it arrives.
_last_stop: list[float] = []


def interrupt(signum: int, frame: FrameType | None) -> None:
    """The SIGTERM handler: a KeyboardInterrupt, unless a stop request came within ``REPEAT_WINDOW``."""
    now = time.monotonic()
    if _last_stop and now - _last_stop[0] < REPEAT_WINDOW:
        return
    _last_stop[:] = [now]
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_interrupt(exiting: bool = False) -> Iterator[None]:
    """Within the block, SIGTERM raises ``KeyboardInterrupt`` in the main thread, as SIGINT does.

    The previous handler comes back afterwards (the CLI also runs inside test processes). Off the
    main thread, where Python cannot install handlers, nothing changes. ``exiting``: the process ends
    after the block, and once a stop request was taken SIGTERM is ignored from then on: Python's exit
    (library teardown) can outlast the block, and a repeat then would turn the status 130 of the partial
    answer already printed into a death by signal (143). The handler goes straight to ignoring: put back
    first, the default handler was in force for a moment, and a repeat sent 50 ms after the first stop
    request found it once in a test suite's run on a loaded machine.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN if exiting and _last_stop else previous)
