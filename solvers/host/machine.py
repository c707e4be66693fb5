"""What this machine offers a run: the cores this process may use, and the memory it may hold."""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from pathlib import Path
from typing import Any

from gridsat.models.errors import InvalidOption
from gridsat.models.params import excerpt


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one, else every core)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def minor_faults() -> int:
    """This process's minor page faults so far (pages the system mapped in without reading the disk: fresh
    or handed-back memory, each zeroed); 0 where the system does not say."""
    try:
        import resource
    except ImportError:  # not on a POSIX system
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


DEFAULT_SHARE = 0.6  # of the memory available when a run starts: room for the rest of the machine


def resident_bytes() -> int:
    """This process's resident memory now (``VmRSS``), bytes; 0 where the system does not say."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


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


def check_folder(path: str | Path, option: str) -> None:
    """Refuse in one line, before any work, a folder that cannot take new files (made later, when needed):
    its nearest existing ancestor must be a real, writable folder (root ignores mode bits, so a file is
    made and removed there), and no part of the path may be a link to nowhere or too long a name.
    ``option`` is the keyword the API takes the folder as (``spill``), named as ``spill='/x'``."""
    base = Path(path)
    try:
        where = base
        while not os.path.lexists(where) and where != where.parent:
            where = where.parent
        if os.path.islink(where) and not where.exists():
            raise InvalidOption(f"{option}={excerpt(str(base))}: {excerpt(str(where))} is a link to nowhere")
        if not where.is_dir():
            raise InvalidOption(f"{option}={excerpt(str(base))}: {excerpt(str(where))} is not a folder")
        fd, probe = tempfile.mkstemp(dir=where, prefix=".gridsat-probe-")
        os.close(fd)
        os.unlink(probe)
        if where != base:  # the rest of the path must be a name the file system takes
            longest = max(len(part.encode()) for part in base.relative_to(where).parts)
            if longest > os.pathconf(where, "PC_NAME_MAX"):
                raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
    except OSError as error:
        raise InvalidOption(f"{option}={excerpt(str(base))}: cannot make files there ({error.strerror or error})") \
            from None


MMAP_THRESHOLD = 1 << 20  # bytes from which glibc gives an allocation its own pages, returned when freed


@functools.cache
def _glibc() -> Any:
    """The C library when it is glibc (with mallopt and malloc_trim), else None."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except (OSError, AttributeError):
        return None


def steady_allocator() -> None:
    """A fixed threshold for glibc's own-pages allocations. By default it rises to the size of each large
    block freed, so a run's tables and partitions come to share the heap with small pieces, and freeing
    them leaves holes the system never gets back: the process then holds twice what it uses."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(-3, MMAP_THRESHOLD)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, MMAP_THRESHOLD)  # M_TRIM_THRESHOLD


def release_freed() -> None:
    """Hand back to the system the whole pages that freed small blocks leave in glibc's heaps."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
