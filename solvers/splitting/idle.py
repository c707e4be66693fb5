"""How many of the machine's cores sat idle over a stretch of time (the kernel's idle time). A split run's probe
counts parts beside it only where a core is free (solvers.splitting.split_policy ``FREE_CORES``): on a core another
process keeps busy, those parts only take turns with the probe."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

STAT = "/proc/stat"


def _idle_seconds() -> float | None:
    """The machine's idle processor seconds so far (waiting for input or output included), summed over its cores:
    Linux's /proc/stat read directly (its first line, in clock ticks), else psutil's where it is installed (None
    without either). Not psutil on Linux: importing it took 7 to 14 ms of every split run (a count of 0.2 s)."""
    try:
        with open(STAT, "rb") as stat:
            fields = stat.readline().split()
        return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil

        times = psutil.cpu_times()
    except Exception:  # noqa: BLE001 - no reading, no judgement: the caller goes on as if the cores were free
        return None
    return times.idle + getattr(times, "iowait", 0.0)


class IdleCores:
    """Started with the stretch of time it measures; ``since()`` says how many cores sat idle on average over it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.start, self.started = _idle_seconds(), clock()

    def since(self) -> float | None:
        """Cores idle on average since the start (the kernel's idle time, waiting for input or output included), or
        None where that cannot be read or no time has passed."""
        now, seconds = _idle_seconds(), self.clock() - self.started
        if self.start is None or now is None or seconds <= 0:
            return None
        return max(0.0, (now - self.start) / seconds)
