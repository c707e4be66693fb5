"""What this machine offers a run: the cores this process may use, and the memory it may hold."""

from __future__ import annotations

import os


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one, else every core)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


DEFAULT_SHARE = 0.6  # of the memory available when a run starts: room for the rest of the machine


def default_memory() -> int:
    """Bytes a run may hold by default: a share of the memory available now."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(int(line.split()[1]) * 1024 * DEFAULT_SHARE)
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES") * DEFAULT_SHARE)
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def idle_cores() -> int:
    """The cores not busy with other work (by the load average), at least one: a second thread on a
    core that another process holds slows a layer down instead of splitting it."""
    try:
        busy = os.getloadavg()[0]
    except (OSError, AttributeError):
        busy = 0.0
    return max(1, min(cores(), round(cores() - busy)))
