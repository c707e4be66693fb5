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


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises ``KeyboardInterrupt`` in the main thread, as SIGINT does.

    The previous handler comes back afterwards (the CLI also runs inside test processes). Off the
    main thread, where Python cannot install handlers, nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    first: list[float] = []

    def interrupt(signum: int, frame: FrameType | None) -> None:
        now = time.monotonic()
        if first and now - first[0] < REPEAT_WINDOW:
            return
        first[:] = [now]
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
