"""Checkpoints of a frontier count: the last finished layer, so a count of hours survives an interruption.

The file is a zip (numpy's ``.npz`` layout): ``meta.json`` (what is counted, the layer reached, the
counts so far) and one ``partN.npy`` a partition. It is written beside itself and renamed over the
old one, so a kill while writing leaves the previous checkpoint whole. Writing a large layer takes
a while, so it is done again only when ``every`` seconds have passed and ten times as long as the
last write took; the last layer, with the count, is always written, and so is the last finished layer
at a stop (the time limit, the memory budget, Ctrl-C or SIGTERM: ``layers.walk`` holds a layer the file
does not have whole while the next one is made). A checkpoint is skipped while the disk lacks room for it
and the next layers' spill files (the run reports how many). The same command resumes from it: a file
written for another count is refused, naming what differs.

``meta.json`` carries the count's fingerprint, the SHA-256 of every partition's bytes and ``sum``, the
SHA-256 of the rest of itself, and every field is checked for its type and range before any of it is
used, so a damaged file, or one whose partitions come from another file, is refused in one line and
left as it is: it never reaches an answer. The seal is an unkeyed hash: it guards against accidents and
mixed-up files, not against someone who edits ``meta.json`` and computes ``sum`` again on purpose (the
field checks still bound what such an edit can hold). A symlink writes
its target, and one run at a time uses the file (``solvers.locks``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gridsat.models.errors import InvalidOption
from gridsat.models.params import excerpt
from gridsat.solvers.frontier_engine.spill import Shelf
from gridsat.solvers.host.locks import WriterLock

if TYPE_CHECKING:
    from gridsat.solvers.frontier_engine.layers import Engine, Lanes

FORMAT = 2  # 2: meta.json sealed with its checksum and the partitions' digests
# Seconds between checkpoints at least (and ten times what the last write took) while a run goes on: a
# kill -9 finds a layer about a second old (a stop writes the last finished one); gigabytes wait longer.
EVERY = 1.0
ROOM = 4  # a checkpoint is skipped unless the disk has this many times its size free (for the spill files)


def fingerprint(spec: Any, what: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint must match to be resumed: the caller's description and the spec's own data."""
    data = np.ascontiguousarray(spec.data, dtype=np.int64)
    return {**what, "elements": spec.elements, "words": spec.words, "choices": spec.choices,
            "bound_bits": spec.bound_bits, "data_sha256": hashlib.sha256(data.tobytes()).hexdigest()}


class LayerCheckpoint:
    """The checkpoint file of one count (``fingerprint``), read at the start and written between layers."""

    def __init__(self, path: str | Path, what: dict[str, Any], every: float = EVERY) -> None:
        self.path = Path(path)
        self.what = what
        self.every = every
        self.last = time.monotonic()
        self.cost = 0.0  # seconds the last write took
        self.saved_layer = -1
        self.lost: str | None = None  # why a write failed: the count goes on, its answer says the file was not kept

    def name(self) -> str:
        return f"checkpoint {excerpt(str(self.path))}"

    def load(self, engine: Engine) -> tuple[int, Shelf] | None:
        """The layer to resume from and its states (None: no checkpoint yet); the engine's lanes restored.
        The file is taken for this run first: another run using it is refused."""
        self.lock = getattr(self, "lock", None) or WriterLock(self.target, self.name())
        self.lock.acquire()
        if not self.target.exists() or self.target.stat().st_size == 0:
            return None
        try:
            with zipfile.ZipFile(self.target) as z:
                meta = read_meta(z, self.name())
                self.check_fingerprint(meta, engine)
                layer, sizes = checked_layer(meta, engine, self.name())
                width = engine.spec.words + meta["lanes"]  # rows as wide as the lanes the file's counts use
                shelf = Shelf(len(sizes), width, engine.meter, engine.folder if meta["spilled"] else None)
                for p, size in enumerate(sizes):
                    with z.open(f"part{p}.npy") as f:
                        rows = np.lib.format.read_array(f)
                    if (rows.dtype != np.uint64 or rows.shape != (size, width)
                            or hashlib.sha256(rows.tobytes()).hexdigest() != meta["digests"][p]):
                        raise InvalidOption(f"{self.name()} is damaged: partition {p} does not match its digest; "
                                            "the file is left as it is")
                    shelf.put(p, rows)
        except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError) as err:
            raise InvalidOption(f"{self.name()} cannot be read ({err}): remove it to start again") from None
        lanes = engine.lanes
        lanes.used, lanes.total, lanes.exact = meta["lanes"], float(meta["total"]), int(meta["exact"])
        lanes.residues = [int(r) for r in meta["residues"]]
        engine.run.states.extend(meta["states"])
        if meta["states"]:
            engine.run.peak_states = max(meta["states"])
            engine.run.peak_layer = meta["states"].index(engine.run.peak_states)
        self.saved_layer = layer
        return layer, shelf

    @property
    def target(self) -> Path:
        """The file written: the path, or what its symlink points to (the link stays)."""
        return Path(os.path.realpath(self.path))

    def check_fingerprint(self, meta: dict[str, Any], engine: Engine) -> None:
        want = fingerprint(engine.spec, self.what)
        theirs = meta["fingerprint"]
        differs = [key for key in want if theirs.get(key) != want[key]]
        if differs:
            raise InvalidOption(f"checkpoint {str(self.path)!r} was written for another count ({', '.join(differs)} "
                                "differs): name another file, or remove it to start again")

    def close(self) -> None:
        """Let other runs take the file."""
        if getattr(self, "lock", None) is not None:
            self.lock.release()

    def save(self, engine: Engine, layer: int, shelf: Shelf, *, final: bool = False,
             lanes: Lanes | None = None) -> None:
        """Keep ``shelf`` (the states before element ``layer``) when a checkpoint is due, or ``final``; ``lanes``:
        the counts as they stood when that layer finished (default: the engine's now)."""
        now = time.monotonic()
        due = self.every <= 0 or now - self.last >= max(self.every, 10 * self.cost)
        if self.lost is not None or (not final and (not due or layer == self.saved_layer)):
            return
        need, free = sum(shelf.sizes) * engine.width * 8, shutil.disk_usage(self.path.parent).free
        if free < need * (1 if final else ROOM):  # the disk goes to the next layers' spill files first
            engine.run.checkpoints_skipped += 1
            return
        lanes = lanes or engine.lanes
        meta = {"format": FORMAT, "fingerprint": fingerprint(engine.spec, self.what), "layer": layer,
                "lanes": lanes.used, "total": lanes.total, "exact": str(lanes.exact),
                "residues": [str(r) for r in lanes.residues], "sizes": list(shelf.sizes),
                "states": engine.run.states[:layer], "spilled": shelf.folder is not None, "digests": []}
        target = self.target
        partial = target.with_name(target.name + ".partial")
        try:
            with zipfile.ZipFile(partial, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
                for p in range(shelf.parts):
                    rows = np.ascontiguousarray(shelf.peek(p))
                    meta["digests"].append(hashlib.sha256(rows.tobytes()).hexdigest())
                    with z.open(f"part{p}.npy", "w", force_zip64=True) as f:
                        np.lib.format.write_array(f, rows)
                z.writestr("meta.json", json.dumps(sealed(meta)))
            with open(partial, "rb") as f:
                os.fsync(f.fileno())
            os.replace(partial, target)
        except OSError as error:  # a full disk, a folder gone read-only: the count matters more than the file
            partial.unlink(missing_ok=True)
            self.lost = f"{error.strerror or error} (it holds layer {self.saved_layer})" if self.saved_layer >= 0 \
                else str(error.strerror or error)
            return
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        self.cost = time.monotonic() - now
        self.last = time.monotonic()
        self.saved_layer = layer


def sealed(meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` with ``sum``: the SHA-256 of its canonical JSON."""
    return {**meta, "sum": hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()}


def read_meta(z: zipfile.ZipFile, name: str) -> dict[str, Any]:
    """``meta.json``, refused unless it is a table of this format whose checksum holds."""
    try:
        meta = json.loads(z.read("meta.json"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        meta = None
    if not isinstance(meta, dict):
        raise InvalidOption(f"{name} is not a gridsat frontier checkpoint (its meta.json is no table)")
    if meta.get("format") != FORMAT:
        raise InvalidOption(f"{name} is of format {excerpt(str(meta.get('format')))}, not {FORMAT} (written by "
                            "another gridsat release): remove it to start again")
    given = meta.pop("sum", None)
    if given != sealed(meta)["sum"]:
        raise InvalidOption(f"{name} is damaged: its meta.json does not match its checksum; the file is left as it is")
    if not isinstance(meta.get("fingerprint"), dict):
        raise InvalidOption(f"{name} is damaged: its fingerprint is no table")
    return meta


def whole(value: Any, least: int = 0, most: int | None = None) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool) and value >= least
            and (most is None or value <= most))


def digits(value: Any) -> bool:
    return isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 400


def checked_layer(meta: dict[str, Any], engine: Engine, name: str) -> tuple[int, list[int]]:
    """The layer and partition sizes of a sealed meta.json, every field checked for type and range."""
    sizes, digests, states = meta.get("sizes"), meta.get("digests"), meta.get("states")
    layer = meta.get("layer")
    fine = (whole(layer, 0, engine.spec.elements) and whole(meta.get("lanes"), 1, len(engine.lanes.moduli))
            and isinstance(meta.get("total"), (int, float)) and not isinstance(meta.get("total"), bool)
            and 0 <= meta["total"] < float("inf") and digits(meta.get("exact"))
            and isinstance(meta.get("residues"), list) and all(digits(r) for r in meta["residues"])
            and isinstance(sizes, list) and (len(sizes) > 0 or layer == engine.spec.elements)
            and all(whole(n) for n in sizes)
            and isinstance(digests, list) and len(digests) == len(sizes)
            and all(isinstance(d, str) and len(d) == 64 for d in digests)
            and isinstance(states, list) and len(states) == layer and all(whole(n) for n in states)
            and isinstance(meta.get("spilled"), bool))
    if not fine:
        raise InvalidOption(f"{name} is damaged: its meta.json has a field of the wrong type or out of range")
    return layer, sizes
