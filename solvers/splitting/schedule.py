"""The ledger of a split run: the tree of its parts, when each ran, on which worker and how it ended.

The split runner (solvers.splitting.parallel) records into it through its methods, as parts are planted,
started, ended, divided and split again; the policy (solvers.splitting.split_policy) reads it to decide when
and how finely to split. From the record it measures:

- the run's whole part time (``estimate``), from the parts that ran so far: their time over the
  share of the search space they stand for (the first split's parts share it equally, a part split
  again passes its share to its sub-parts equally);
- what starting a part costs (``restart``): the lower quartile of the times from a part's start to
  its first solution (building and presolving a model, or starting a reference search, and a
  little search).

A finished part's time, and its time to its first solution, are the processor seconds its worker
spent (local and Dask workers measure them): the work it did, which a loaded machine does not
stretch. A running part's age is still the parent's clock: aged by how much the clock had stretched
the finished parts' times instead, running parts were split again far less on a loaded machine, but
parts of the first split ran on whole, and the 100-worker replay of prime-grid 5x5 on sat fell from
49.3x to 31.9x (its largest part from 1.2% to 3.1% of the work).

A benchmark prints from it the final parts and each worker's busy share (``statistics``), and a
replay of the same tree of parts on more workers (``split_policy.replay``).
"""

from __future__ import annotations

import bisect
import math
import statistics
from dataclasses import dataclass, field


@dataclass
class Span:
    """One part's run on a worker: ``split`` when it was stopped to be split again (its work is redone
    by its sub-parts), else it finished (or was cut short by a limit)."""

    index: int
    worker: str
    start: float  # seconds since the run started
    end: float
    split: bool = False
    thrown: bool = False  # split again, and what it counted was thrown away (the sub-parts count it again)
    cpu: float | None = None  # processor seconds its worker's process spent on it (None: not measured)
    began: float | None = None  # seconds since the run started when the parent heard it start (a timeline's)


@dataclass
class Ledger:
    """The tree of parts of one split run, and what ran where."""

    roots: list[int] = field(default_factory=list)  # the parts of the first split
    children: dict[int, list[int]] = field(default_factory=dict)  # a part split again -> its sub-parts
    running: dict[int, tuple[float, str]] = field(default_factory=dict)  # part -> (start, worker)
    spans: list[Span] = field(default_factory=list)
    unsplittable: set[int] = field(default_factory=set)  # parts whose backend found no finer split
    first_idle: float | None = None  # when a worker first had nothing left to take
    share: dict[int, float] = field(default_factory=dict)  # part -> the share of the search space it stands for
    plans: list[dict[str, float]] = field(default_factory=list)  # the estimates parts were sized by, in order
    # per part that found one: seconds to its first solution, kept sorted (``found_first``)
    starts: list[float] = field(default_factory=list)
    # Running totals of the runs that ended, so that a look at the run costs the same at its 30,000th
    # part as at its first (the policy looks after every message; summed afresh, the looks of a long
    # run would take the parent's whole core and leave the workers waiting)
    busy: float = 0.0  # seconds of every run
    spent: float = 0.0  # ... of the runs not thrown away
    covered: float = 0.0  # the share of the search the parts that finished stand for
    finals: list[float] = field(default_factory=list)  # the times of the parts never split again, sorted

    def planted(self, roots: list[int]) -> None:
        """The first split's parts, each standing for an equal share of the search space."""
        self.roots = list(roots)
        self.share.update((index, 1.0 / len(roots)) for index in roots)

    def divided(self, index: int, into: list[int]) -> None:
        """Part ``index`` was split (again, or before it started) into ``into``: its share passes to them."""
        self.children[index] = list(into)
        each = self.share.get(index, 0.0) / max(1, len(into))
        self.share.update((child, each) for child in into)

    def splitting(self, index: int) -> None:
        """Running part ``index`` is being stopped to be split again; its sub-parts are ``divided`` once
        it is back (they take their indices when they are handed out)."""
        self.children[index] = []

    def unsplit(self, index: int) -> None:
        """Part ``index`` finished before it noticed it was to be split again: it stays whole."""
        del self.children[index]

    def indivisible(self, index: int) -> None:
        """The backend found no finer split of part ``index``: it is never tried again."""
        self.unsplittable.add(index)

    def went_idle(self, at: float) -> None:
        """A worker had nothing left to take at ``at`` (only the first time is kept)."""
        if self.first_idle is None:
            self.first_idle = at

    def planned(self, at: float, whole: float, seconds: float) -> None:
        """At ``at``, a part was sized by the run's estimated part time ``whole`` and a part's target
        time ``seconds`` (the "estimates" of the run's --json "split")."""
        self.plans.append({"at": round(at, 3), "run_seconds": round(whole, 3), "part_seconds": round(seconds, 3),
                           "parts": math.ceil(whole / seconds)})

    def restart(self) -> float | None:
        """What starting a part costs, as measured: the lower quartile of the times from a part's start to
        its first solution. Those include some search, so it leans long, but unlike the parts' own times
        they do not shrink as parts get finer, and a part with no solution (a split of a relaxation
        leaves many, each proved empty at once) does not pull it down. Before four parts found one: the
        median finished part (None before one finished)."""
        if len(self.starts) >= 4:
            return lower_quartile(self.starts)
        return statistics.median(self.finals) if self.finals else None

    def found_first(self, seconds: float) -> None:
        """A part found its first solution ``seconds`` after it was taken."""
        bisect.insort(self.starts, seconds)

    def estimate(self, now: float) -> float | None:
        """The run's whole part time, estimated from the parts that ran so far (None before one finished):
        their time over the share of the search space they stand for. A running part counts its time so
        far and its whole share (so the estimate leans short while the parts are young); a part split
        again counts the time it kept, its share passing to its sub-parts; a run thrown away counts nothing."""
        if not self.finals:
            return None
        spent = self.spent + sum(now - start for start, _ in self.running.values())
        covered = self.covered + sum(self.share.get(index, 0.0) for index in self.running if index not in self.children)
        return spent / covered if covered > 0 else None

    def work_done(self, now: float) -> float:
        """Seconds of every run so far, those still running included."""
        return self.busy + sum(now - start for start, _ in self.running.values())

    def split_counts(self) -> tuple[int, int]:
        """How many parts were split before they started, and how many while they ran."""
        ran = {s.index for s in self.spans}
        before = sum(1 for i in self.children if i not in ran)
        return before, len(self.children) - before

    def expected(self, index: int, whole: float) -> float:
        """How long part ``index`` should run, if parts were even within their share."""
        return self.share.get(index, 0.0) * whole

    def started(self, index: int, at: float, worker: str) -> None:
        """Part ``index`` started on ``worker`` at ``at``."""
        self.running[index] = (at, worker)

    def ended(self, index: int, at: float, thrown: bool = False, took: float | None = None,
              cpu: float | None = None) -> None:
        """Part ``index`` ended at ``at``; ``took``: its time as its worker measured it (the parent reads a
        short part's start and end together, so its own clock would make the part last no time at all);
        ``cpu``: the processor seconds its worker spent on it, which is then its time: the work it did,
        which a loaded machine does not stretch (at a load of 11 on two cores the clock's were 15 to 20
        times as long, and parts sized by them came out 5 to 10 times too many)."""
        start, worker = self.running.pop(index, (at, "?"))
        began = start
        if cpu is not None:
            start = at - cpu
        elif took is not None:
            start = at - took
        span = Span(index, worker, start, at, index in self.children, thrown, cpu, began)
        self.spans.append(span)
        self.busy += at - start
        if not thrown:
            self.spent += at - start
        if not span.split:
            self.covered += self.share.get(index, 0.0)
            bisect.insort(self.finals, at - start)

    def statistics(self, wall: float) -> dict[str, object]:
        """Final parts, the largest run's share of the summed part time (a part split again that kept its
        count is a run of its own), the busy share of each worker."""
        final = [s.end - s.start for s in self.spans if not s.split]  # the parts never split again
        useful = [s.end - s.start for s in self.spans if not s.thrown]  # and the runs split again kept
        total = sum(useful) or 1.0
        busy: dict[str, float] = {}
        cpu: dict[str, float] = {}
        for span in self.spans:
            busy[span.worker] = busy.get(span.worker, 0.0) + span.end - span.start
            cpu[span.worker] = cpu.get(span.worker, 0.0) + (span.cpu or 0.0)
        return {
            "final_parts": len(final),
            "split_again": len(self.children),
            "largest_share": max(useful, default=0.0) / total,
            "part_seconds": sum(useful),
            "thrown_away_seconds": sum(s.end - s.start for s in self.spans if s.thrown),
            # processor seconds in parts, per worker (a loaded machine stretches wall times, not these)
            "part_cpu": {w: cpu[w] for w in sorted(cpu)},
            "busy_share": {w: b / wall for w, b in sorted(busy.items())} if wall > 0 else {},
            "idle_to_end": None if self.first_idle is None else wall - self.first_idle,
            "median_part": statistics.median(final) if final else 0.0,
        }


def lower_quartile(ordered: list[float]) -> float:
    """``statistics.quantiles(ordered, n=4)[0]`` of a sorted list, without sorting it again."""
    j = min(max((len(ordered) + 1) // 4, 1), len(ordered) - 1)
    delta = len(ordered) + 1 - 4 * j
    return (ordered[j - 1] * (4 - delta) + ordered[j] * delta) / 4
