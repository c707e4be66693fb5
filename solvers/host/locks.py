"""One writer at a time for a file that a run keeps (a checkpoint, a benchmark's results): a lock
file beside it, held with ``flock`` for as long as the run writes. The kernel lets go of the lock
when the process ends however it ends (``kill -9`` too), so a lock is never left stale; a run that
ends normally removes the lock file. (The file itself cannot carry the lock: it is replaced by a
rename whenever it is rewritten.)"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from gridsat.models.errors import InvalidOption
from gridsat.models.params import excerpt


class WriterLock:
    """The lock of ``target`` (its file ``.NAME.lock`` beside it); ``what`` names it in the refusal."""

    def __init__(self, target: str | Path, what: str) -> None:
        target = Path(target)
        self.path = target.with_name(f".{target.name}.lock")
        self.what = what
        self.fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or refuse in one line when another run holds it."""
        while self.fd is None:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as error:
                raise InvalidOption(f"cannot lock {self.what}: {excerpt(str(self.path))}: {error.strerror}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise InvalidOption(f"{self.what} is in use by another gridsat run (pid {holder}): wait for it "
                                    "to end, or name another") from None
            if not self.still_there(fd):  # its holder removed it as we opened it: lock the new one
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            self.fd = fd

    def still_there(self, fd: int) -> bool:
        try:
            return os.stat(self.path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            return False

    def release(self) -> None:
        """Let go of the lock and remove its file (a run that opened it meanwhile sees it gone, and retries)."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(self.fd)
            self.fd = None
