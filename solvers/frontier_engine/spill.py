"""Where a frontier layer's partitions wait: in memory, or in files under a spill folder.

A ``Shelf`` holds one layer's partitions, each a dense array of rows (see ``solvers.frontier_engine.kernels``)
or, spilled, a file of them. A ``Bins`` gathers the children of a layer by partition as they are made:
lists of arrays in memory, or one file a partition that each piece is appended to. The spill folder
(``SpillFolder``) is made on first use under the folder the user names (default: the system's
temporary folder) and removed, with every file in it, when the run ends, however it ends.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from gridsat.models.errors import InvalidOption
from gridsat.models.params import excerpt
from gridsat.solvers.host.machine import check_folder, release_freed, resident_bytes

GB = 1 << 30
# What a piece of children held in memory costs beyond its rows: numpy's array object, its shape and
# strides, malloc's header and the list's slot (measured: 135 to 167 bytes a piece with numpy 2 and
# CPython 3.12). The 8x8 closed count's widest layers cut each task's children into 16,384 partitions of
# about 120 rows (1.9 KB): millions of pieces, 8.6% above their rows, that the meter did not count.
PIECE_BYTES = 192
RESIDENT_EVERY = 0.01  # seconds between reads of the process's resident memory (``Meter.resident``)
TRIM_EVERY_SECONDS = 0.5  # and between hand-backs of the heap's free pages when it is over
# What the resident memory may grow beyond the meter's budget before it is believed: the eighth of the
# process's budget that the backend keeps from the engine for what the meter does not count (at least
# 16 MB). Below it, the heap's free holes are left to be reused by the next pieces, not sent to disk.
RESIDENT_SLACK = 16 << 20
SLACK_SHARE = 8


class Meter:
    """Bytes of arrays a run holds in memory, and the most it held at once (thread-safe).

    Tracked (``track``), it also asks the process's resident memory before it lets a layer keep more in
    memory (``holds``): what the allocator keeps after the engine let go of it (a heap's free holes between
    pieces still held) is resident and the meter does not see it."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.lock = threading.Lock()
        self.start: int | None = None  # the resident memory when the run started (None: not tracked)
        self.slack = RESIDENT_SLACK
        self.rss = self.rss_now = 0  # the last resident memory read, and the meter then
        self.read_at = self.trimmed_at = 0.0

    def track(self, budget: int) -> None:
        """From now on, ``holds`` also bounds the resident memory grown since now, to ``budget`` and an
        eighth (not in a Dask worker, whose process holds other tasks' data)."""
        self.slack = max(RESIDENT_SLACK, budget // SLACK_SHARE)
        self.start = self.rss = resident_bytes()
        self.rss_now, self.read_at = self.now, time.monotonic()

    def add(self, nbytes: int) -> None:
        with self.lock:
            self.now += nbytes
            self.peak = max(self.peak, self.now)

    def sub(self, nbytes: int) -> None:
        with self.lock:
            self.now -= nbytes

    def holds(self, nbytes: int, keep: int) -> bool:
        """Whether ``nbytes`` more keep what is held within ``keep`` bytes, and (tracked) the resident memory
        grown since the start within ``keep`` and the slack (see ``track``): the heap's free pages handed back
        first when it is over (at most every ``TRIM_EVERY_SECONDS``)."""
        if self.now + nbytes > keep:
            return False
        if self.start is None:
            return True
        limit = self.start + keep + self.slack - nbytes
        if self.resident() <= limit:
            return True
        if time.monotonic() - self.trimmed_at < TRIM_EVERY_SECONDS:
            return False
        release_freed()
        self.trimmed_at = time.monotonic()
        return self.resident(fresh=True) <= limit

    def resident(self, fresh: bool = False) -> int:
        """The process's resident memory: read at most every ``RESIDENT_EVERY`` seconds, and in between
        the last reading plus what the meter gained since."""
        now = time.monotonic()
        with self.lock:
            if fresh or now - self.read_at >= RESIDENT_EVERY:
                self.rss, self.rss_now, self.read_at = resident_bytes(), self.now, now
            return self.rss + max(0, self.now - self.rss_now)

    def uncounted(self) -> int:
        """Resident bytes grown since the start that the meter does not count, beyond the slack (0 untracked)."""
        if self.start is None:
            return 0
        return max(0, self.resident(fresh=True) - self.start - self.now - self.slack)

    def reset_peak(self) -> int:
        """The peak since the last reset (and a new one starts from what is held now)."""
        with self.lock:
            peak, self.peak = self.peak, self.now
            return peak


class SpillFolder:
    """A private folder under ``base`` for one run's spill files, made when first asked for."""

    def __init__(self, base: str | Path | None) -> None:
        self.base = Path(base) if base is not None else Path(tempfile.gettempdir())
        self.path: Path | None = None
        self.peak_bytes = 0  # the most the run's files held at once
        self.held = 0
        self.lock = threading.Lock()
        self.serial = 0

    def check(self) -> None:
        """Refuse, before the run starts, a folder that cannot hold spill files (made later, when needed)."""
        check_folder(self.base, "spill")

    def file(self, stem: str) -> Path:
        """A new file name in the folder (the folder is made on the first call)."""
        with self.lock:
            if self.path is None:
                try:
                    self.base.mkdir(parents=True, exist_ok=True)
                    self.path = Path(tempfile.mkdtemp(prefix="gridsat-frontier-", dir=self.base))
                except OSError as err:
                    raise InvalidOption(f"spill={excerpt(str(self.base))}: cannot make a folder there "
                                        f"({err.strerror or err})") from None
            self.serial += 1
            return self.path / f"{stem}-{self.serial}.bin"

    def grew(self, nbytes: int) -> None:
        with self.lock:
            self.held += nbytes
            self.peak_bytes = max(self.peak_bytes, self.held)

    def free(self, path: Path, nbytes: int) -> None:
        path.unlink(missing_ok=True)
        with self.lock:
            self.held -= nbytes

    def free_bytes(self) -> int:
        """Bytes free on the disk that holds the folder."""
        where = self.path if self.path is not None else self.base
        while not where.exists() and where != where.parent:
            where = where.parent
        return shutil.disk_usage(where).free

    def remove(self) -> None:
        """Every spill file and the folder gone (the end of a run, however it ends)."""
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None
            self.held = 0


class Shelf:
    """One layer's partitions, each an array in memory or a spilled file of rows ``width`` wide. With a
    folder, a partition still stays in memory while the meter, with it, stays within ``keep`` bytes."""

    def __init__(self, parts: int, width: int, meter: Meter, folder: SpillFolder | None = None,
                 keep: int = 0) -> None:
        self.width = width
        self.meter = meter
        self.folder = folder  # None: every partition stays in memory
        self.keep = keep
        self.items: list[Any] = [None] * parts
        self.sizes = [0] * parts  # states per partition
        self.held = False  # every partition kept through hand-overs (``hold``)

    @property
    def parts(self) -> int:
        return len(self.items)

    @property
    def states(self) -> int:
        return sum(self.sizes)

    def memory(self) -> int:
        """Bytes the partitions held in memory take."""
        return sum(item.nbytes for item in self.items if isinstance(item, np.ndarray))

    def keeps(self, nbytes: int) -> bool:
        """Whether a partition of ``nbytes`` would stay in memory (else ``put`` writes it to its file)."""
        return self.folder is None or self.meter.holds(nbytes, self.keep)

    def put(self, p: int, rows: np.ndarray, kept: bool | None = None) -> None:
        """Partition ``p``'s rows, kept in memory or written to a file (``kept``: as ``keeps`` answered for
        them; a row buffer the caller reuses must be written: ``kept`` False)."""
        self.sizes[p] = rows.shape[0]
        if kept if kept is not None else self.keeps(rows.nbytes):
            self.items[p] = rows
            self.meter.add(rows.nbytes)
            return
        path = self.folder.file(f"part{p}")
        rows.tofile(path)
        self.folder.grew(rows.nbytes)
        self.items[p] = path

    def hold(self) -> None:
        """Keep every partition, whole, through the hand-overs of the next layer until ``release``: the last
        finished layer, for a stop to write to the checkpoint. A hand-over is then a reference (counted
        again in the meter, as the taker lets go of it) or the file read and left in place."""
        self.held = True

    def take(self, p: int, into: Callable[[int], np.ndarray] | None = None) -> np.ndarray:
        """Partition ``p``'s rows, handed over: the shelf lets go of them (and of their file) unless held. A file
        is read into ``into(rows)`` when given (a buffer the taker reuses), else into a new array."""
        item = self.items[p]
        if not self.held:
            self.items[p] = None
        if isinstance(item, Path):
            if into is None:
                rows = np.fromfile(item, dtype=np.uint64).reshape(-1, self.width)
            else:
                rows = into(self.sizes[p])
                with open(item, "rb") as f:
                    if f.readinto(memoryview(rows).cast("B")) != rows.nbytes:
                        raise OSError(f"the spill file {item} is shorter than was written")
            assert self.folder is not None
            if not self.held:
                self.folder.free(item, rows.nbytes)
            self.meter.add(rows.nbytes)
            return rows
        if item is None:
            return np.zeros((0, self.width), np.uint64)
        if self.held:
            self.meter.add(item.nbytes)
        return item

    def peek(self, p: int) -> np.ndarray:
        """Partition ``p``'s rows, kept on the shelf (a checkpoint reads them)."""
        item = self.items[p]
        if isinstance(item, Path):
            return np.fromfile(item, dtype=np.uint64).reshape(-1, self.width)
        return item if item is not None else np.zeros((0, self.width), np.uint64)

    def release(self) -> None:
        """Every partition let go of (and its file removed, unread), held or not."""
        self.held = False
        for p, item in enumerate(self.items):
            self.items[p] = None
            if isinstance(item, Path):
                assert self.folder is not None
                self.folder.free(item, self.sizes[p] * self.width * 8)
            elif item is not None:
                self.meter.sub(item.nbytes)


def spans_of(starts: np.ndarray) -> list[tuple[int, int, int]]:
    """(partition, start, end) of each partition that has rows, from where each starts (``starts[p]``) and
    the end (``starts[-1]``)."""
    full = np.flatnonzero(starts[1:] > starts[:-1])  # numpy: thousands of partitions a task on wide layers
    return list(zip(full.tolist(), starts[full].tolist(), starts[full + 1].tolist(), strict=True))


class Bins:
    """The children of one layer gathered by partition: pieces of rows in memory, or appended to a file each
    (with a folder, pieces still stay in memory while the meter, with them, stays within ``keep`` bytes)."""

    def __init__(self, parts: int, width: int, meter: Meter, folder: SpillFolder | None = None,
                 keep: int = 0) -> None:
        self.width = width
        self.meter = meter
        self.folder = folder
        self.keep = keep
        self.pieces: list[list[np.ndarray]] = [[] for _ in range(parts)]
        self.files: list[Any] = [None] * parts
        self.rows = [0] * parts
        self.filed = [0] * parts  # rows of each partition in its file
        self.lock = threading.Lock()
        # each partition's file, made by the first write to it (``file``) in the thread that writes: a layer
        # on disk has thousands of partitions (4,096 on 8x8 closed tours' widest), whose files, made here
        # one by one before the expansion, left both cores idle; and a partition kept in memory needs none
        self.paths: list[Path | None] = [None] * parts

    def room(self, spans: list[tuple[int, int, int]], width: int) -> int | None:
        """The bytes pieces of the rows ``spans`` name (partition, start, end) would hold in memory, or None
        when they go to the files instead (``write``)."""
        held = sum(b - a for _, a, b in spans) * width * 8 + len(spans) * PIECE_BYTES  # and each piece's cost
        return held if self.folder is None or self.meter.holds(held, self.keep) else None

    def hold(self, pieces: list[tuple[int, np.ndarray]], held: int) -> None:
        """Pieces of children in memory, each under its partition (``held``: their bytes, as ``room`` said)."""
        self.meter.add(held)
        with self.lock:
            for p, piece in pieces:
                self.pieces[p].append(piece)
                self.rows[p] += piece.shape[0]

    def write(self, ordered: np.ndarray, spans: list[tuple[int, int, int]]) -> None:
        """Rows ordered by partition appended to the partitions' files, partition p's at ``ordered[a:b]`` for
        each (p, a, b) in ``spans`` (a scratch array: written before it is reused)."""
        assert self.folder is not None
        for p, a, b in spans:
            self.file(p).write(memoryview(ordered[a:b]).cast("B"))  # buffered writes are atomic a call
        with self.lock:
            for p, a, b in spans:
                self.rows[p] += b - a
                self.filed[p] += b - a
        self.folder.grew(sum(b - a for _, a, b in spans) * ordered.shape[1] * 8)

    def file(self, p: int) -> Any:
        """Partition ``p``'s file, open to append to: made on the first call (by the thread that writes first)."""
        f = self.files[p]
        if f is None:
            assert self.folder is not None
            with self.lock:
                f = self.files[p]
                if f is None:
                    self.paths[p] = path = self.folder.file(f"bin{p}")
                    self.files[p] = f = open(path, "wb")  # noqa: SIM115 (closed in take() or seal())
        return f

    def seal(self) -> None:
        """Every file still open flushed and closed (``take`` closes its partition's: the children are all
        written when the merges take them)."""
        for p, f in enumerate(self.files):
            if f is not None:
                self.files[p] = None
                f.close()

    def take(self, p: int, into: Callable[[int], np.ndarray] | None = None) -> list[np.ndarray]:
        """Partition ``p``'s children, handed over (the pieces or the file let go of): the pieces held in memory
        as they are (a merge inserts each on its own: no copy gathers them), then the file's rows read into
        ``into(rows)`` (a buffer kept for the run: no fresh pages; without it, a new array). The meter counts
        every row handed over as held, until the taker lets go of them."""
        with self.lock:
            pieces, self.pieces[p] = self.pieces[p], []
        self.meter.sub(len(pieces) * PIECE_BYTES)  # the pieces' rows are counted on: they are the children
        filed = self.filed[p] if self.folder is not None else 0
        path, f = self.paths[p], self.files[p]
        if f is not None:  # closed by the thread that merges it, not one by one before the merges
            self.files[p] = None
            f.close()
        if filed and path is not None:
            assert self.folder is not None
            rows = into(filed) if into is not None else np.empty((filed, self.width), np.uint64)
            with open(path, "rb") as f:
                if f.readinto(memoryview(rows).cast("B")) != filed * self.width * 8:
                    raise OSError(f"the spill file {path} is shorter than was written")
            self.folder.free(path, filed * self.width * 8)
            self.meter.add(rows.nbytes)  # the file's rows are children in memory now
            pieces.append(rows)
        return pieces

    def close(self) -> None:
        """Let go of everything (an interrupted layer): pieces dropped, files closed and removed."""
        self.seal()
        self.meter.sub(sum(piece.nbytes + PIECE_BYTES for pieces in self.pieces for piece in pieces))
        self.pieces = [[] for _ in self.pieces]
        for path in self.paths:
            if path is not None:
                path.unlink(missing_ok=True)
