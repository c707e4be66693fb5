"""Parts counted beside a split run's probe while it searches on: the first split made early, its parts split into
pieces and handed to all local workers but one, stopped when one runs long, and read to say how far the probe got
(docs/explanation/splitting.md). ``BesideProbe`` is the part of a ``SplitRun`` that does it.
"""
from __future__ import annotations

import collections
import dataclasses
import itertools
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from gridsat.solvers.cubes import Handback, Part, StopSplitting
from gridsat.solvers.run import Run
from gridsat.solvers.splitting import split_policy
from gridsat.solvers.splitting.idle import IdleCores
from gridsat.solvers.splitting.pool import DaskPool, LocalPool
from gridsat.solvers.splitting.split_policy import OVERSHOOT, RESPLIT_OVERSHOOT
from gridsat.solvers.stop import Stop


class Shape(Protocol):
    """What the parts beside the probe read of the run's ``Split`` (solvers.splitting.parallel)."""

    def target(self, kept: bool = False) -> int: ...


def keeps_models(search: object) -> bool:
    """Whether a probe's search can hand back the models it counted, so that its work is kept when the
    run splits (a formulation backend's; a reference search hands back a part's range only)."""
    handback = getattr(search, "handback", None)
    return isinstance(handback, Handback) and handback.models


def stands_for(search: object) -> int:
    """How many solutions each model of a formulation backend's search stands for (its orbit's, when the model
    keeps one solution per orbit; 0: orbits differ in size, or no formulation)."""
    formulation = getattr(search, "formulation", None)
    return 0 if formulation is None else formulation.orbit_size


@dataclass
class Beside:
    """The parts counted beside a kept probe while it searches on (``BesideProbe._speculate``)."""

    first_split: list[Part] | None = None  # the first split, made beside the probe (a part split for it: its sub-parts)
    early: list[Part] = dataclasses.field(default_factory=list)  # the parts handed out beside the probe
    handed: dict[int, float] = dataclasses.field(default_factory=dict)  # ... each one's hand-out (monotonic clock)
    ended: set[int] = dataclasses.field(default_factory=set)  # ... those whose worker is done with them
    halted: set[int] = dataclasses.field(default_factory=set)  # ... those stopped to be split again (``_cut_long``)
    waiting: list[Part] = dataclasses.field(default_factory=list)  # first-split parts that may still be
    pieces: list[Part] = dataclasses.field(default_factory=list)  # the sub-parts of one of those, not yet handed out
    divided: dict[int, list[int]] = dataclasses.field(default_factory=dict)  # a part split for it -> its sub-parts
    counted_twice: int = 0  # the probe's solutions that fell in the parts handed out
    finished: dict[int, int] = dataclasses.field(default_factory=dict)  # a part finished beside it -> its count
    prolonged: float = 0.0  # seconds the probe was given beyond its time (split_policy.prolonging)
    share: float | None = None  # of the solutions in the parts finished beside it, the share it had found
    read: int = 0  # the probe's models read so far, counted by their prefixes of each length that a part finished
    prefixes: dict[int, collections.Counter] = dataclasses.field(default_factory=dict)  # beside it fixes
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)  # the probe's threads both read them
    held: float | None = None  # the probe's processor seconds when it was first expected to end alone (``_holds``)
    held_parts: int = 0  # ... and the parts handed out beside it by then
    idle_cores: float | None = None  # the cores idle on average while it searched, when parts were to start beside it
    busy: bool = False  # ... too few to count any (split_policy.FREE_CORES)
    holds: bool = False  # ... and whether it is now, as last looked at
    look: float = 0.0  # when to look at that again (monotonic clock)

    def began(self, index: int, heard: float, started: float) -> float:
        """When part ``index`` started, on the run's clock (``started``: its start, monotonic), its start message
        ``heard`` then: a part beside the probe when it was handed out (a worker was free), long before the run split
        and read that message. Aged from the split, such a part ran on unsplit (prime-grid 5x5 on sat: one 2.2% of the
        work, the 100-worker forecast 42x), where a part as old is split again at once."""
        handed = self.handed.pop(index, None)
        return heard if handed is None else min(heard, handed - started)

    def reading(self, split: bool) -> dict[str, Any]:
        """What ``--json`` says of the parts counted beside the probe of a run that ``split`` ("beside_probe"), of a
        probe given more time ("prolonged") and of parts held back beside it ("held_beside"): nothing when none
        happened."""
        said: dict[str, Any] = {}
        if split and self.early:
            said["beside_probe"] = {"parts": len(self.early), "counted_twice": self.counted_twice,
                                    "stopped_to_split": len(self.halted)}
        if self.busy:
            said["none_beside"] = {"idle_cores": round(self.idle_cores, 2)}
        if self.held is not None:
            said["held_beside"] = {"after": round(self.held, 3), "parts_beside": self.held_parts}
        if self.prolonged:
            said["prolonged"] = {"seconds": round(self.prolonged, 3), "parts_finished_beside": len(self.finished),
                                 "found_share": None if self.share is None else round(self.share, 3)}
        return said


class BesideProbe:
    """The parts counted beside the probe of a ``SplitRun`` (whose ``Planning`` it is a part of)."""

    probe: Run
    split: Shape
    stop: Stop
    started: float
    beside: Beside
    idle: IdleCores
    pool: LocalPool | DaskPool | None
    _tasks: Callable[[list[Part]], list[Any]]  # the workers' tasks (``parallel.Task``) of those parts
    _holds: Callable[[], bool]

    def _cores_free(self) -> bool:
        """Whether at least split_policy.FREE_CORES cores sat idle on average since the probe started (yes where
        that cannot be read)."""
        idle = self.idle.since()
        self.beside.idle_cores = idle
        return idle is None or idle >= split_policy.FREE_CORES

    def _speculate(self) -> None:
        """The first split, made while the probe searches on (split_policy.SPECULATE), whose parts all workers but
        one count beside it, in pieces, one at a time each (``_beside``): the probe's models that fall in those
        are counted twice, and taken off its count when the run splits (``_keep_probe``); the other parts leave
        them out as usual. A count that ends within the probe is its answer: their work is thrown away."""
        target = self.split.target(kept=True)
        try:
            parts = self.probe.search.split(target, OVERSHOOT * target, self.stop)
        except StopSplitting:  # a limit: the probe ends with it
            return
        if len(parts) < 2:
            return
        near = self.beside
        near.first_split = [p.renumbered(1 + i) for i, p in enumerate(parts)]
        # a worker that ends its part takes another (``_beside``), all but one left for the split
        near.waiting = random.Random(len(parts)).sample(near.first_split, len(parts) - 1)

    def _beside(self) -> None:
        """While the probe searches, keep all workers but one on parts of the first split (``_speculate``), each
        split first into ``split_policy.BESIDE_PARTS`` (a part of a sixteenth of the count would hold a hundred
        workers' tail alone), and stop one that runs long (``_cut_long``)."""
        pool, near = self.pool, self.beside
        if not isinstance(pool, LocalPool) or near.first_split is None:
            return
        self._cut_long()
        if pool.unfinished() >= pool.size - 1:
            return
        if near.prolonged or self._holds():  # the probe is expected to end alone: nothing more beside it, whose
            return  # work it would throw away
        if not near.pieces and near.waiting:
            # Several parts at a time, their pieces handed out in turn: the first few to finish then sample as many
            # parts of the first split, whose share found by the probe says sooner whether it ends alone (``_holds``)
            groups = [self._pieces_of(near.waiting.pop()) for _ in range(min(split_policy.BESIDE_SPREAD,
                                                                             len(near.waiting)))]
            near.pieces = [p for turn in itertools.zip_longest(*groups) for p in turn if p is not None][::-1]
        if near.pieces:
            near.early.append(near.pieces.pop())
            near.handed[near.early[-1].index] = time.monotonic()  # a worker is free: it starts now
            pool.submit(self._tasks(near.early[-1:]))

    def _pieces_of(self, whole: Part) -> list[Part]:
        """A part of the first split, split into ``split_policy.BESIDE_PARTS`` to be counted beside the probe (itself
        where it does not split), in the order they are to be handed out."""
        near, aim = self.beside, split_policy.BESIDE_PARTS
        try:
            into = self.probe.search.split(aim, RESPLIT_OVERSHOOT * aim, self.stop, within=whole)
        except StopSplitting:
            into = []
        if len(into) < 2:
            return [whole]
        # numbered past the first split's; the ledger hears of it when the run splits (``_conquer``)
        first = 1 + max(p.index for p in near.first_split)
        pieces = [p.renumbered(first + i) for i, p in enumerate(into)]
        near.divided[whole.index] = [p.index for p in pieces]
        near.first_split = [p for p in near.first_split if p.index != whole.index] + pieces
        return pieces[::-1]  # popped from the end, as they were

    def _tally(self) -> tuple[int, int, int]:
        """Of the parts finished beside the probe: the solutions the probe had found in them too (each of its models
        standing for ``stands_for`` solutions), the solutions they hold, and how many they are. The probe's two
        threads both ask (``_prolong`` from its search, ``_holds`` from its reader)."""
        pool, near = self.pool, self.beside
        if not isinstance(pool, LocalPool):
            return 0, 0, 0
        with near.lock:
            self._read_beside(pool)
            pieces = [p for p in near.early if p.index in near.finished]
            # A look reads the new models' prefixes alone, not all of them: the probe's search shares this process's
            # interpreter (whole rows, read every look, made prime-grid 4x5 sat --jobs 2 slower and held 113 MiB).
            handback, read = self.probe.search.handback, near.read
            upto = len(handback.found)  # the search appends more meanwhile
            for length, seen in near.prefixes.items():
                seen.update(handback.prefixes(length, read, upto))
            for length in {len(p.fixed) for p in pieces} - near.prefixes.keys():
                near.prefixes[length] = collections.Counter(handback.prefixes(length, 0, upto))
            near.read = upto
            found = stands_for(self.probe.search) * sum(near.prefixes[len(p.fixed)][p.prefix] for p in pieces)
            counted = sum(near.finished[p.index] for p in pieces)
            near.share = found / counted if counted else None
            return found, counted, len(pieces)

    def _read_beside(self, pool: LocalPool) -> None:
        """The parts beside the probe that ended since the last look, and those of them finished whole (their
        messages are kept for ``_drive``); with ``Beside.lock`` held."""
        near = self.beside
        for message in pool.read_ahead():
            near.ended.add(message.index)
            result = message.value
            if result.outcome is not None and result.outcome.complete and result.found is None:
                near.finished[message.index] = result.outcome.count

    def _cut_long(self) -> None:
        """Ask the worker on a part beside the probe that has run split_policy.BESIDE_LONGEST seconds to stop it,
        handing back what it counted: the part is split again when the run splits (``_conquer``). Run on whole
        through the probe, one such part held 2.2% of prime-grid 5x5's work on sat, and the 100-worker forecast
        fell to 42x."""
        pool, near = self.pool, self.beside
        assert isinstance(pool, LocalPool)
        now = time.monotonic()
        # at most one part at a time on each worker but one (``_beside``): the last ones handed out; the pool's
        # messages are read only when one of those is due (this runs every ProbeClock.LOOK while the probe searches)
        last = [p.index for p in near.early[-max(1, pool.size - 1):]]
        due = [i for i in last if now - near.handed[i] >= split_policy.BESIDE_LONGEST and i not in near.ended
               and i not in near.halted]
        if not due:
            return
        with near.lock:
            self._read_beside(pool)
        for index in due:
            if index not in near.ended and pool.halt(index):  # False until its worker's start is read
                near.halted.add(index)
