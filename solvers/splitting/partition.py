"""The parts of a split run not yet finished, and their splitting further: before they start and while they run.

The parts wait here, in a shuffled order, and go to the pool a few per worker ahead of need
(``next_part``); a waiting part is split before it starts when the policy (solvers.splitting.split_policy) says
it is too long. A running part is split again when the policy says (``choose_resplit``): its
sub-parts are found here from the probe's formulation (``Search.split(within=part)``), its worker is
asked to stop it, and its sub-parts are numbered once its result is back (``resplit``). A cpsat or sat
part stops between two models and hands back their primary assignments: its count is kept and each
sub-part leaves those models out. A reference part finishes the decision of its last level it is in
and hands back the rest of its range (``upto``): its count is kept, and its sub-parts are that rest,
split here once it is back. A reference part that cannot (solvers.backends.reference.Resume) is
stopped, its count thrown away, and its sub-parts count all of it. Either way every solution is
counted by exactly one run.

Every split is recorded in the run's ledger (solvers.splitting.schedule) and, with a checkpoint, in its file
before the sub-parts run.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from typing import Any

from gridsat.solvers.backend import Search
from gridsat.solvers.cubes import Part, StopSplitting, shared_out
from gridsat.solvers.run import Outcome
from gridsat.solvers.splitting import split_policy
from gridsat.solvers.splitting.checkpoint import Checkpoint
from gridsat.solvers.splitting.schedule import Ledger
from gridsat.solvers.splitting.split_policy import RESPLIT_OVERSHOOT
from gridsat.solvers.stop import Stop


def kept_record(kept: Outcome) -> dict[str, Any]:
    """What a checkpoint keeps of the count a run split again had made (a part's, or the probe's)."""
    return {"count": kept.count, "duplicates": kept.duplicates, "seconds": kept.seconds, **kept._record()}


class Partition:
    """The parts of a split run not yet finished: those waiting to be handed out (``queue``), each by
    index (``known``, for splitting it again) and those asked to stop to be split again (``halting``).
    It splits them as the policy says, numbers their sub-parts, and records each split in the ledger,
    the checkpoint and the outcome's number of parts."""

    def __init__(self, search: Search | None, stop: Stop, ledger: Ledger, checkpoint: Checkpoint | None,
                 outcome: Outcome, *, refine: bool, resplit: float | None, started: float) -> None:
        self.search, self.stop, self.ledger, self.checkpoint, self.outcome = search, stop, ledger, checkpoint, outcome
        # Waiting parts are split before they start unless the caller named the number of parts, and
        # running ones after ``resplit`` seconds (None: never); neither without the probe's search.
        self.refines = refine and resplit is not None and search is not None
        self.resplit_age = resplit if search is not None else None
        self.started = started  # time.monotonic() when the run started: the ledger's clock starts there
        self.known: dict[int, Part] = {}  # every part not yet finished or split, by index, for splitting it again
        self.halting: dict[int, list[Part]] = {}  # parts asked to stop -> their sub-parts, not yet numbered
        self.next_index = 0  # the index the next sub-part takes
        self.queue: deque[Part] = deque()  # parts not yet handed to the pool
        self.pilots = True  # first-split parts are piloted before any estimate (not after a probe that kept its work)

    def know(self, parts: list[Part]) -> None:
        """``parts`` are the run's parts not yet finished or split (the first split's, or a checkpoint's)."""
        self.known = {p.index: p for p in parts}

    def plant(self, parts: list[Part], recorded: list[Part]) -> None:
        """The run conquers ``parts``; sub-parts take indices past those and the ``recorded`` ones."""
        self.ledger.planted([p.index for p in parts])
        self.next_index = 1 + max((p.index for p in [*parts, *recorded]), default=-1)

    def now(self) -> float:
        return time.monotonic() - self.started

    def next_part(self, workers: int) -> Part:
        """The next waiting part to hand out, split first (its other sub-parts wait at the head of the
        queue) when it is expected to run much longer than a part should."""
        part = self.queue.popleft()
        into = self.refine(part, workers)
        if into:
            part = into[0]
            self.queue.extendleft(reversed(into[1:]))
        return part

    def refine(self, part: Part, workers: int) -> list[Part] | None:
        """The sub-parts of a part that has not started, as the policy sizes them (None: it runs as it
        is). A named number of parts is kept, and so is a run never split again."""
        if not self.refines:
            return None
        now = self.now()
        sizing = split_policy.refinement(self.ledger, part.index, now, workers, pilot=self.pilots)
        if sizing is None:
            return None
        into = self._divide(part, sizing.parts)
        if into is None:
            return None
        if sizing.whole is not None and sizing.seconds is not None:
            self.ledger.planned(now, sizing.whole, sizing.seconds)
        return self.adopt(part.index, into, part.blocked)

    def choose_resplit(self, pending: int, workers: int) -> int | None:
        """A running part to split again, if the policy says one (its worker is then to stop it): its
        sub-parts are found now, from the probe's formulation, and numbered when it is back (``resplit``).
        ``pending``: the parts the pool holds, running or about to."""
        now = self.now()
        idle = not self.queue and pending < workers
        if idle:
            self.ledger.went_idle(now)
        if self.resplit_age is None:
            return None
        # Nothing left to hand out but the parts running: a worker is about to go idle, so a part is
        # split ahead of need (one that has run past its expected time), and split for an idle worker.
        low = not self.queue and pending <= workers
        chosen = split_policy.resplit_choice(self.ledger, now, self.resplit_age, workers, idle=idle, low=low)
        if chosen is None:
            return None
        index, target = chosen
        into = self._divide(self.known[index], target)
        if into is None:
            return None
        self.ledger.splitting(index)
        self.halting[index] = into
        return index

    def halted(self, index: int, target: int) -> None:
        """Running part ``index`` was asked to stop before the run split (a part beside its probe): split again
        into about ``target`` sub-parts once it is back, or, where it does not split, run on as one part that
        leaves out what it counted."""
        part = self.known[index]
        self.ledger.splitting(index)
        self.halting[index] = self._divide(part, target) or [part]

    def kept_whole(self, index: int) -> None:
        """Part ``index``, asked to stop, finished before it noticed: nothing to split."""
        del self.halting[index]
        self.ledger.unsplit(index)

    def resplit(self, index: int, found: list[tuple[int, ...]] | None, upto: int | None,
                kept: Outcome | None) -> list[Part]:
        """The sub-parts of a part whose worker stopped it to be split again, with new indices.

        A worker that handed back the models it counted (``found``) keeps its count (``kept``: its run's
        outcome), and each sub-part leaves out those models that fall in it; otherwise its count is
        thrown away and the sub-parts count all of it. The checkpoint records the split (and the kept
        count) before the sub-parts run."""
        part, into = self.known[index], self.halting.pop(index)
        if upto is not None and kept is not None:  # a reference part: what it left is the rest of its range
            levels = part.levels()
            rest = dataclasses.replace(part, lo=upto) if len(levels) == 1 else dataclasses.replace(
                part, deeper=(*part.deeper[:-1], levels[-1]._replace(lo=upto)))
            try:
                into = self.search.split(len(into), RESPLIT_OVERSHOOT * len(into), self.stop, within=rest)
            except StopSplitting:
                into = [rest]
        if kept is None:
            return self.adopt(index, into, list(part.blocked))
        return self.adopt(index, into, [*part.blocked, *(found or [])], kept_record(kept))

    def adopt(self, index: int, into: list[Part], blocked: list[Any] | tuple[Any, ...],
              record: dict[str, Any] | None = None) -> list[Part]:
        """Number the sub-parts of part ``index``, each leaving out the ``blocked`` models that fall in it;
        the checkpoint records the split (with the count the part kept, if any) before they run."""
        into = shared_out([p.renumbered(self.next_index + i) for i, p in enumerate(into)], blocked)
        self.next_index += len(into)
        if self.checkpoint is not None:
            self.checkpoint.resplit(index, into, record)
        self.ledger.divided(index, [p.index for p in into])
        self.known.pop(index, None)  # replaced by its sub-parts: it is never split again
        self.known.update((p.index, p) for p in into)
        self.outcome.parts = (self.outcome.parts or 0) + len(into) - 1
        return into

    def finished(self, index: int) -> None:
        """Part ``index`` finished: its blocked models go with it (a long count hands back millions)."""
        self.known.pop(index, None)

    def _divide(self, part: Part, target: int) -> list[Part] | None:
        """About ``target`` sub-parts of ``part`` from the probe's formulation (None: the run is ending, or
        the backend found no finer split, which the ledger then keeps)."""
        try:
            into = self.search.split(target, RESPLIT_OVERSHOOT * target, self.stop, within=part)
        except StopSplitting:  # the run is ending (its stop says why): the part runs on
            return None
        if len(into) < 2:
            self.ledger.indivisible(part.index)
            return None
        return into
