"""Checkpoints of a frontier count: the last finished layer, so a count of hours survives an interruption.

The file is a zip (numpy's ``.npz`` layout): ``meta.json`` (what is counted, the layer reached, the
counts so far) and one ``partN.npy`` a partition. It is written beside itself and renamed over the
old one, so a kill while writing leaves the previous checkpoint whole. Writing a large layer takes
a while, so it is done again only when ``every`` seconds have passed and ten times as long as the
last write took; the last layer, with the count, is always written, and so is the layer a time limit
stops at. A checkpoint is skipped while the disk lacks room for it and the next layers' spill files
(the run reports how many). The same command resumes from it: a file written for another count is
refused, naming what differs.
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
from gridsat.solvers.frontier_engine.spill import Shelf

if TYPE_CHECKING:
    from gridsat.solvers.frontier_engine.layers import Engine

FORMAT = 1
EVERY = 60.0  # seconds between checkpoints at least
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

    def load(self, engine: Engine) -> tuple[int, Shelf] | None:
        """The layer to resume from and its states (None: no checkpoint yet); the engine's lanes restored."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return None
        want = fingerprint(engine.spec, self.what)
        try:
            with zipfile.ZipFile(self.path) as z:
                meta = json.loads(z.read("meta.json"))
                differs = [key for key in want if meta.get("fingerprint", {}).get(key) != want[key]]
                if meta.get("format") != FORMAT or differs:
                    what = ", ".join(differs) if differs else "its format"
                    raise InvalidOption(f"checkpoint {str(self.path)!r} was written for another count ({what} "
                                        "differs): name another file, or remove it to start again")
                lanes = engine.lanes
                lanes.used, lanes.total, lanes.exact = meta["lanes"], float(meta["total"]), int(meta["exact"])
                lanes.residues = [int(r) for r in meta["residues"]]
                shelf = Shelf(len(meta["sizes"]), engine.width, engine.meter,
                              engine.folder if meta.get("spilled") else None)
                for p in range(shelf.parts):
                    with z.open(f"part{p}.npy") as f:
                        shelf.put(p, np.lib.format.read_array(f))
        except (zipfile.BadZipFile, KeyError, ValueError, OSError) as err:
            raise InvalidOption(f"checkpoint {str(self.path)!r} cannot be read ({err}): remove it to start "
                                "again") from None
        engine.run.states.extend(meta["states"])
        if meta["states"]:
            engine.run.peak_states = max(meta["states"])
            engine.run.peak_layer = meta["states"].index(engine.run.peak_states)
        self.saved_layer = meta["layer"]
        return meta["layer"], shelf

    def save(self, engine: Engine, layer: int, shelf: Shelf, *, final: bool = False) -> None:
        """Keep ``shelf`` (the states before element ``layer``) when a checkpoint is due, or ``final``."""
        now = time.monotonic()
        due = self.every <= 0 or now - self.last >= max(self.every, 10 * self.cost)
        if not final and (not due or layer == self.saved_layer):
            return
        need, free = sum(shelf.sizes) * engine.width * 8, shutil.disk_usage(self.path.parent).free
        if free < need * (1 if final else ROOM):  # the disk goes to the next layers' spill files first
            engine.run.checkpoints_skipped += 1
            return
        lanes = engine.lanes
        meta = {"format": FORMAT, "fingerprint": fingerprint(engine.spec, self.what), "layer": layer,
                "lanes": lanes.used, "total": lanes.total, "exact": str(lanes.exact),
                "residues": [str(r) for r in lanes.residues], "sizes": shelf.sizes,
                "states": engine.run.states[:layer], "spilled": shelf.folder is not None}
        partial = self.path.with_name(self.path.name + ".partial")
        try:
            with zipfile.ZipFile(partial, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
                z.writestr("meta.json", json.dumps(meta))
                for p in range(shelf.parts):
                    with z.open(f"part{p}.npy", "w", force_zip64=True) as f:
                        np.lib.format.write_array(f, shelf.peek(p))
            with open(partial, "rb") as f:
                os.fsync(f.fileno())
            os.replace(partial, self.path)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        self.cost = time.monotonic() - now
        self.last = time.monotonic()
        self.saved_layer = layer
