"""Checkpoints of a split count: the parts, then one record per finished part, appended as it finishes.

The file is JSON lines. The first line is the header: the fingerprint of the run (puzzle, instance,
backend, the full encoding/solver/algorithm label, what is counted, gridsat's version) and the
parts themselves, so a resumed run conquers exactly the parts the first run split into. Each later
line records one finished part and its count; it is flushed and synced before the next part is
taken into account, so ``kill -9`` loses at most the parts in flight. A last line cut short by such
a kill is ignored.

A part split again while it ran gets a line of its own, ``{"split": index, "into": [parts]}``,
written before its sub-parts are handed out: the sub-parts take the next free indices, and a
rerun conquers them instead of the part (a kill before the line is whole reruns the part itself).
When the part's worker handed back the models it had counted, the line also holds that count
(``count``, ``duplicates``, ... as a finished part's record) and the sub-parts leave those models
out (``blocked``), all in one line, so the count and the exclusion are kept or lost together.
A checkpoint written before re-splitting existed has no such lines and reads the same.

Every line carries ``sum``, the first 16 hex digits of the SHA-256 of the line before's ``sum`` (none for
the header) and the line without it: a chain from the header, whose fingerprint names the run. A line
is taken only after the line written before it in the same file, so a damaged line, a line from another
file (records spliced under another run's header), lines reordered or one left out between others is
refused in one line, with the file left as it is, never summed into an answer; every field is also
checked for its type and range (a count is a whole number from 0 to 10**18). The seal is an unkeyed
hash: it guards against accidents and mixed-up files, not against someone who edits a line and
computes the chain again on purpose (the field checks still bound what such an edit can hold). A
symlink writes its target. One run at a time writes a checkpoint (``solvers.locks``). A write that
fails while the run goes on (a full disk) stops the checkpoint, not the run: the answer is still
printed, with a line saying the checkpoint was not kept.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridsat.models.errors import InvalidOption
from gridsat.models.params import excerpt
from gridsat.solvers.cubes import Part
from gridsat.solvers.host.locks import WriterLock

FORMAT = 3  # 2: every line sealed with its checksum; 3: each seal chained to the line before
MAX_BYTES = 256 << 20  # a checkpoint of a million parts is well under this
MAX_COUNT = 10**18  # a part lists or counts its solutions one by one: none holds more


def seal(line: dict[str, Any], before: str = "") -> str:
    """A line of the file: the record with its checksum, chained to ``before`` (the sum of the line
    written before it; "" for the header)."""
    return json.dumps({**line, "sum": digest(line, before)}, separators=(",", ":"))


def digest(line: dict[str, Any], before: str) -> str:
    body = json.dumps(line, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256((before + body).encode("utf-8")).hexdigest()[:16]


def unseal(text: str, before: str = "") -> tuple[dict[str, Any], str] | None:
    """The record of a line whose checksum holds after the line whose sum is ``before``, and its own
    sum; None for any other line."""
    try:
        line = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(line, dict) or not isinstance(line.get("sum"), str):
        return None
    given = line.pop("sum")
    return (line, given) if digest(line, before) == given else None


def is_count(value: Any) -> bool:
    """A whole number from 0 to ``MAX_COUNT`` (True is no count)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def is_finished_part(record: dict[str, Any], parts: int) -> bool:
    """A finished part's record: its index, count and tallies of the right types and ranges."""
    seconds = record.get("seconds", 0)
    sizes = record.get("sizes", {})
    return (is_count(record.get("part")) and record["part"] < parts and is_count(record.get("count"))
            and all(is_count(record.get(key, 0)) for key in ("duplicates", "held", "seen"))
            and isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and math.isfinite(seconds)
            and seconds >= 0 and isinstance(sizes, dict)
            and all(k.isascii() and k.isdigit() and len(k) < 19 and is_count(v) for k, v in sizes.items()))


@dataclass
class Checkpoint:
    """An append-only record of finished parts for one run (its ``fingerprint``)."""

    path: Path
    fingerprint: dict[str, Any]
    parts: list[Part] = field(default_factory=list)
    done: dict[int, dict[str, Any]] = field(default_factory=dict)  # part index -> its record
    split: dict[int, list[int]] = field(default_factory=dict)  # a part split again -> its sub-parts' indices
    kept: dict[int, dict[str, Any]] = field(default_factory=dict)  # a part split again -> what it had counted

    lock: WriterLock | None = None
    chain: str = ""  # the sum of the file's last line: the next line is sealed after it
    lost: str | None = None  # why the checkpoint stopped being written, when a write failed

    @property
    def target(self) -> Path:
        """The file written: the path, or what its symlink points to (the link stays)."""
        return Path(os.path.realpath(self.path))

    def name(self) -> str:
        return f"checkpoint {excerpt(str(self.path))}"

    def load(self) -> bool:
        """Take the file for this run (refused while another run writes it) and read it; False when there
        is none yet. A file written for another run, or damaged, is refused naming what is wrong."""
        check_writable(self.path)
        self.lock = self.lock or WriterLock(self.target, self.name())
        self.lock.acquire()
        target = self.target
        if not target.exists() or target.stat().st_size == 0:
            return False
        if target.stat().st_size > MAX_BYTES:
            raise InvalidOption(f"{self.name()} is larger than {MAX_BYTES >> 20} MB: not a gridsat checkpoint")
        try:
            lines = target.read_bytes().decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise InvalidOption(f"{self.name()} is not a gridsat checkpoint") from None
        self._read_header(lines[0] if lines else "")
        for number, line in enumerate(lines[1:], 2):
            sealed = unseal(line, self.chain)
            if sealed is None:
                if number == len(lines) and not line.endswith("}"):  # cut short by a kill while written
                    self.write(lines[:-1])
                    break
                raise InvalidOption(f"{self.name()}: line {number} is damaged, or was not written after line "
                                    f"{number - 1} of this file (its checksum does not hold); the file is left "
                                    "as it is")
            record, self.chain = sealed
            if "split" in record:
                self._read_split(record, number)
            elif is_finished_part(record, len(self.parts)) and record["part"] not in self.split:
                self.done[record["part"]] = record
            else:
                raise InvalidOption(f"{self.name()}: line {number} is not a finished part's record")
        return True

    def _read_header(self, line: str) -> None:
        try:
            plain = json.loads(line)
        except json.JSONDecodeError:
            plain = None
        if not isinstance(plain, dict) or "gridsat_checkpoint" not in plain:
            raise InvalidOption(f"{self.name()} is not a gridsat checkpoint")
        if plain.get("gridsat_checkpoint") != FORMAT:
            raise InvalidOption(f"{self.name()} is of format {excerpt(str(plain.get('gridsat_checkpoint')))}, "
                                f"not {FORMAT} (written by another gridsat release): remove it to start again")
        sealed = unseal(line)
        if sealed is None:
            raise InvalidOption(f"{self.name()}: its header is damaged (its checksum does not hold)")
        header, self.chain = sealed
        theirs = header.get("fingerprint")
        if not isinstance(theirs, dict):
            raise InvalidOption(f"{self.name()}: its header's fingerprint is damaged")
        for key, mine in self.fingerprint.items():
            if theirs.get(key) != mine:
                raise InvalidOption(f"checkpoint {str(self.path)!r} was written for another run: its {key} is "
                                    f"{theirs.get(key)!r}, this run's is {mine!r}; use another file or delete it")
        try:
            self.parts = [Part.from_json(p) for p in header["parts"]]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise InvalidOption(f"{self.name()}: its header's parts are damaged") from None
        if [p.index for p in self.parts] != list(range(len(self.parts))):
            raise InvalidOption(f"{self.name()}: its header's parts are damaged")

    def _read_split(self, record: dict[str, Any], number: int) -> None:
        """Take in a part split again: its sub-parts carry the next indices, and it has no record."""
        index = record.get("split")
        try:
            into = [Part.from_json(p) for p in record["into"]]
        except (KeyError, TypeError, ValueError, AttributeError):
            into = []
        if not (is_count(index) and index < len(self.parts) and index not in self.split
                and index not in self.done and len(into) > 1
                and [p.index for p in into] == list(range(len(self.parts), len(self.parts) + len(into)))
                and ("count" not in record or is_finished_part({**record, "part": index}, len(self.parts)))):
            raise InvalidOption(f"{self.name()}: line {number} is not a part split again")
        self.parts.extend(into)
        self.split[index] = [p.index for p in into]
        if "count" in record:
            self.kept[index] = record

    def live(self) -> list[Part]:
        """The parts to count: every part but those split again."""
        return [p for p in self.parts if p.index not in self.split]

    def resplit(self, index: int, into: list[Part], kept: dict[str, Any] | None = None) -> None:
        """Record that part ``index`` was split again into ``into`` (``kept``: what it had counted, as
        ``record`` writes it), synced before this returns."""
        line = {"split": index, **({} if kept is None else {**kept, "seconds": round(kept["seconds"], 3)}),
                "into": [p.to_json() for p in into]}
        self._append(line)
        self.parts.extend(into)
        self.split[index] = [p.index for p in into]
        if kept is not None:
            self.kept[index] = line

    def start(self, parts: list[Part]) -> None:
        """Write the header: a new file, written whole before any part is recorded."""
        self.parts = parts
        header = {"gridsat_checkpoint": FORMAT, "fingerprint": self.fingerprint, "parts": [p.to_json() for p in parts]}
        self.write([seal(header)])
        self.chain = digest(header, "")

    def write(self, lines: list[str]) -> None:
        """Replace the file (a symlink's target) with these lines, atomically."""
        if self.lost is not None:
            return
        target = self.target
        tmp = target.with_name(f".{target.name}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                out.write("".join(line + "\n" for line in lines))
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except OSError as error:
            tmp.unlink(missing_ok=True)
            self.lost = error.strerror or str(error)

    def record(self, index: int, count: int, duplicates: int, seconds: float, **more: Any) -> None:
        """Append one finished part, synced to disk before this returns (``more``: what an orbit
        count adds: the solutions its orbits hold, by size, and the solutions its search met)."""
        record = {"part": index, "count": count, "duplicates": duplicates, "seconds": round(seconds, 3), **more}
        self.done[index] = record
        self._append(record)

    def _append(self, line: dict[str, Any]) -> None:
        if self.lost is not None:
            return
        try:
            with open(self.target, "a", encoding="utf-8") as out:
                out.write(seal(line, self.chain) + "\n")
                out.flush()
                os.fsync(out.fileno())
            self.chain = digest(line, self.chain)
        except OSError as error:  # the run goes on; its answer says the checkpoint was not kept
            self.lost = error.strerror or str(error)

    def close(self) -> None:
        """Let other runs take the file."""
        if self.lock is not None:
            self.lock.release()


def check_writable(path: Path) -> None:
    """A checkpoint is a regular file (or none yet) that can be written, in a folder that exists and
    takes new files; say so before any work."""
    target = Path(os.path.realpath(path))
    folder = target.parent
    if not folder.is_dir():
        raise InvalidOption(f"cannot write checkpoint {excerpt(str(path))}: folder {excerpt(str(folder))} "
                            "does not exist")
    if target.exists() and not target.is_file():
        raise InvalidOption(f"checkpoint {excerpt(str(path))} is not a regular file (a folder, a pipe or a device)")
    try:
        if target.exists():
            os.close(os.open(target, os.O_WRONLY | os.O_APPEND))
        os.close(os.open(target.parent, os.O_RDONLY))
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise InvalidOption(f"cannot write checkpoint {excerpt(str(path))}: {error.strerror or error}") from None
