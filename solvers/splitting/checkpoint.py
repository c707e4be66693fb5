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
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridsat.models.errors import InvalidOption
from gridsat.models.params import excerpt
from gridsat.solvers.splitting.cubes import Part

FORMAT = 1
MAX_BYTES = 256 << 20  # a checkpoint of a million parts is well under this


@dataclass
class Checkpoint:
    """An append-only record of finished parts for one run (its ``fingerprint``)."""

    path: Path
    fingerprint: dict[str, Any]
    parts: list[Part] = field(default_factory=list)
    done: dict[int, dict[str, Any]] = field(default_factory=dict)  # part index -> its record
    split: dict[int, list[int]] = field(default_factory=dict)  # a part split again -> its sub-parts' indices
    kept: dict[int, dict[str, Any]] = field(default_factory=dict)  # a part split again -> what it had counted

    def load(self) -> bool:
        """Read an existing file for this run; False when there is none yet. A file written for
        another run is refused, naming what differs."""
        check_writable(self.path)
        if not self.path.exists() or self.path.stat().st_size == 0:
            return False
        if self.path.stat().st_size > MAX_BYTES:
            raise InvalidOption(f"checkpoint {excerpt(str(self.path))} is larger than {MAX_BYTES >> 20} MB: "
                                "not a gridsat checkpoint")
        try:
            lines = self.path.read_bytes().decode("utf-8").splitlines()
            header = json.loads(lines[0])
        except (UnicodeDecodeError, json.JSONDecodeError, IndexError):
            raise InvalidOption(f"checkpoint {excerpt(str(self.path))} is not a gridsat checkpoint") from None
        if not isinstance(header, dict) or header.get("gridsat_checkpoint") != FORMAT:
            raise InvalidOption(f"checkpoint {str(self.path)!r} is not a gridsat checkpoint (format {FORMAT})")
        theirs = header.get("fingerprint", {})
        for key, mine in self.fingerprint.items():
            if theirs.get(key) != mine:
                raise InvalidOption(f"checkpoint {str(self.path)!r} was written for another run: its {key} is "
                                    f"{theirs.get(key)!r}, this run's is {mine!r}; use another file or delete it")
        try:
            self.parts = [Part.from_json(p) for p in header["parts"]]
        except (KeyError, TypeError, ValueError):
            raise InvalidOption(f"checkpoint {excerpt(str(self.path))}: its header's parts are damaged") from None
        for number, line in enumerate(lines[1:], 2):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):  # cut short by a kill while it was written: drop it
                    self.write(lines[:-1])
                    break
                raise InvalidOption(f"checkpoint {excerpt(str(self.path))}: line {number} is not JSON") from None
            if isinstance(record, dict) and "split" in record:
                self._read_split(record, number)
                continue
            if not (isinstance(record, dict) and isinstance(record.get("part"), int)
                    and 0 <= record["part"] < len(self.parts) and isinstance(record.get("count"), int)
                    and record["part"] not in self.split):
                raise InvalidOption(f"checkpoint {excerpt(str(self.path))}: line {number} is not a finished part's "
                                    "record")
            self.done[record["part"]] = record
        return True

    def _read_split(self, record: dict[str, Any], number: int) -> None:
        """Take in a part split again: its sub-parts carry the next indices, and it has no record."""
        index = record.get("split")
        try:
            into = [Part.from_json(p) for p in record["into"]]
        except (KeyError, TypeError, ValueError):
            into = []
        if not (isinstance(index, int) and 0 <= index < len(self.parts) and index not in self.split
                and index not in self.done and len(into) > 1
                and [p.index for p in into] == list(range(len(self.parts), len(self.parts) + len(into)))):
            raise InvalidOption(f"checkpoint {excerpt(str(self.path))}: line {number} is not a part split again")
        self.parts.extend(into)
        self.split[index] = [p.index for p in into]
        if "count" in record:
            if not isinstance(record["count"], int):
                raise InvalidOption(f"checkpoint {excerpt(str(self.path))}: line {number} is not a part split again")
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
        self.write([json.dumps(header, separators=(",", ":"))])

    def write(self, lines: list[str]) -> None:
        """Replace the file with these lines, atomically."""
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with open(tmp, "w", encoding="utf-8") as out:
            out.write("".join(line + "\n" for line in lines))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)

    def record(self, index: int, count: int, duplicates: int, seconds: float, **more: Any) -> None:
        """Append one finished part, synced to disk before this returns (``more``: what an orbit
        count adds: the solutions its orbits hold, by size, and the solutions its search met)."""
        record = {"part": index, "count": count, "duplicates": duplicates, "seconds": round(seconds, 3), **more}
        self.done[index] = record
        self._append(record)

    def _append(self, line: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
            out.flush()
            os.fsync(out.fileno())


def check_writable(path: Path) -> None:
    """A checkpoint is a regular file (or none yet) in a folder that exists; say so before any work."""
    folder = path.resolve().parent
    if not folder.is_dir():
        raise InvalidOption(f"cannot write checkpoint {excerpt(str(path))}: folder {excerpt(str(folder))} "
                            "does not exist")
    if path.exists() and not path.is_file():
        raise InvalidOption(f"checkpoint {excerpt(str(path))} is not a regular file (a folder, a pipe or a device)")
