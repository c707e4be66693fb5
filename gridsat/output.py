"""A command's output file: refused in one line before any work when it can never be written, then
written atomically, so that a failure or an interrupt leaves no partial file. Shared by ``gridsat``
and the benchmark scripts."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from gridsat.models.errors import InvalidOption
from gridsat.models.params import excerpt


def check_output(path: str | None) -> None:
    """Fail early, before any solving, when ``path`` can never be written."""
    if path is not None:
        target(path)


def target(path: str) -> str:
    """The file that writing ``path`` replaces: the path itself, or the file its symlink points to
    (the link stays). A folder, a pipe or a device is refused, and so is a link to nowhere, and a
    path ending in a slash (it names a folder; realpath would drop the slash and write a file)."""
    if path.endswith((os.sep, "/")):
        raise InvalidOption(f"cannot write {excerpt(path)}: a path ending in '/' names a folder, not a file")
    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    if os.path.isdir(real):
        raise InvalidOption(f"cannot write {excerpt(path)}: it is a folder")
    if not os.path.isdir(folder):
        raise InvalidOption(f"cannot write {excerpt(path)}: folder {excerpt(folder)} does not exist")
    if os.path.exists(real) and not os.path.isfile(real):
        raise InvalidOption(f"cannot write {excerpt(path)}: it is not a regular file (a pipe or a device)")
    return real


def write_output(path: str | None, write: Callable[[Any], None]) -> None:
    """Write to stdout, or atomically to ``path`` so a failure leaves no partial file."""
    if path is None:
        write(sys.stdout)
        return
    real = target(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=".gridsat-", suffix=".tmp")
    except OSError as error:
        raise InvalidOption(f"cannot write {excerpt(path)}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "w") as out:
            write(out)
        os.chmod(tmp, file_mode(real))  # mkstemp makes 0600; the file gets the mode open() would give it
        os.replace(tmp, real)
    except OSError as error:
        os.unlink(tmp)
        raise InvalidOption(f"cannot write {excerpt(path)}: {error.strerror}") from None
    except BaseException:
        os.unlink(tmp)
        raise


def file_mode(path: str) -> int:
    """The permissions ``open(path, "w")`` would leave: the file's own if it exists, else 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mask = os.umask(0)  # the only way to read the umask is to set it
        os.umask(mask)
        return 0o666 & ~mask


class StreamLost(InvalidOption):
    """Standard output or error cannot be written (a full device, an I/O error, a closed stream)."""


class Guarded:
    """A text stream whose write errors become one ``StreamLost`` line instead of a traceback from
    wherever the print happened. A closed pipe (``| head``) stays a ``BrokenPipeError``: the reader
    has all it wanted, and the command line ends quietly."""

    def __init__(self, stream: Any, name: str, *, quiet: bool = False) -> None:
        self.stream, self.name, self.quiet = stream, name, quiet  # quiet: stderr, with nowhere left to say it

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as error:
            self.lost(error)
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as error:
            self.lost(error)

    def lost(self, error: OSError) -> None:
        if self.quiet:
            return
        if isinstance(error, BrokenPipeError):
            raise error
        raise StreamLost(f"cannot write {self.name}: {error.strerror or error}") from None

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, buffer...
        return getattr(self.stream, name)


def guard_streams() -> None:
    """Install ``Guarded`` standard streams; a stream closed at start (``2>&-``, ``<&-``) becomes
    one that discards output (stderr) or reads as empty (stdin), so nothing fails on ``None``. Output
    that cannot be encoded (``PYTHONIOENCODING=ascii``, a C locale) is escaped, never fatal."""
    if sys.stdin is None:
        sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    for name, label in (("stdout", "standard output"), ("stderr", "standard error")):
        stream = getattr(sys, name)
        if stream is None:
            stream = open(os.devnull, "w")  # noqa: SIM115 - as above
        elif hasattr(stream, "reconfigure"):
            # An SVG to stdout escapes a '·' as a character reference, which XML reads back as the same.
            stream.reconfigure(errors="xmlcharrefreplace" if name == "stdout" else "backslashreplace")
        if not isinstance(stream, Guarded):
            setattr(sys, name, Guarded(stream, label, quiet=name == "stderr"))


def flush_quietly() -> int | None:
    """Flush standard output at the end; a failure is one line (status 2) instead of Python's
    'Exception ignored' at exit. Returns the status to end with, or None when all was written."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except StreamLost as error:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"gridsat: error: {error}", file=sys.stderr)
        return 2
    return None
