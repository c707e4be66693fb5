"""Which running part to split again, the record of a split run's parts, and a replay of that record.

The policy (``choose``): when a worker would go idle (no part waits in the queue), the part that
has run longest, if it has run at least ``RESPLIT_AGE`` seconds, is split again. The
longest-running part is the likeliest to hold the tail (part times are heavy-tailed); a young part
is left alone, since it may be about to end. When nothing waits but every worker is still busy,
the longest-running part that has outrun its share of the estimated run is split ahead of need. While
every worker is busy, a part is split again once it has run longer than its ``budget``: ``OUTLIER``
target times of a part once the run's length is estimated (below), before that a share of the work
done so far that shrinks with the number of workers (at least ``LEAST_BUDGET`` either way).

How fine parts are (``Ledger.estimate``, ``Ledger.part_seconds``): once a part has finished, the
ledger estimates the whole run's part time from the parts that ran so far (their time over the share
of the search space they stand for: the first split's parts share it equally, a part split again
passes its share to its sub-parts equally) and the cost of starting a part (the lower quartile of
the times from a part's start to its first solution: building and presolving a model, or starting a
reference search, and a little search). A part is then aimed at the least of: ``PART_RESTARTS``
times that start-up cost (a long run spends about a twentieth of its time starting parts), 1 /
(``GRAIN`` x workers) of the run (a short run on this pool), and 1 / ``SCALE_PARTS`` of it (so that
the recorded parts would keep about a hundred workers busy); but never less than ``LEAST_RESTARTS``
start-ups nor ``PART_FLOOR`` seconds. So the number of parts follows from the run's length: a
count of seconds keeps its first split, a count of minutes ends in a few hundred parts, and a count
of hours in about (its part time / ``PART_RESTARTS`` start-ups), whatever the number of workers.
A part that waits in the queue and is expected to run more than ``REFINE`` target times is split
before it starts (``solvers.parallel``), which costs no restart and throws nothing away.

The ledger keeps, for every part, when it ran, on which worker and how it ended (finished, or
split again after some seconds), so that a benchmark can print the final parts, each worker's busy
share, and a replay of the same tree of parts under the same policy on more workers (``replay``).
"""

from __future__ import annotations

import bisect
import heapq
import statistics
from collections import deque
from dataclasses import dataclass, field

RESPLIT_AGE = 0.5  # seconds a part must have run before it may be split again for an idle worker
# ... or, with every worker busy, once it has run 1 / (GRAIN x workers) of the work done so far:
# about the share a part has in a first split into GRAIN parts per worker
GRAIN = 16
# Seconds: a part that runs less is never split again while every worker is busy. At 1.0 the parts
# kept before a split held the tail (prime-grid 5x5 cpsat: largest part 1.9%, 42x predicted on 100
# workers); at 0.5, 1.1-1.2% and 65-69x, for 2-7% more part time on two workers (compare.parallel).
# Since a worker keeps its CNF from part to part, a sat part starts in about 3 ms, and at 0.5 the
# runs kept before a split held the tail again (prime-grid 5x5 sat: 1.9-2.4%); at 0.2 (OUTLIER x
# PART_FLOOR, below which the budget never goes once the run is estimated), 1.0-1.1%.
LEAST_BUDGET = 0.2
PART_RESTARTS = 20  # a part is aimed at no more than this many times what starting a part costs (as measured)
SCALE_PARTS = 256  # ... nor more than this share of the run: enough parts to keep about a hundred workers busy
LEAST_RESTARTS = 4  # ... nor less than this many start-ups (a part spends at most a quarter of its time starting)
PART_FLOOR = 0.1  # seconds: no part is aimed shorter (a part also costs its messages and its task)
REFINE = 2.0  # a queued part expected to run more than this many part durations is split before it starts
OUTLIER = 2.0  # ... and a running part past this many part durations is split again (every worker busy)


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
    # part as at its first (summed afresh on every look, the parent of the 6x6 open count spent its
    # whole core on them and left the workers waiting)
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

    def part_seconds(self, whole: float, workers: int) -> float:
        """How long a part should run, given the run's estimated part time ``whole`` (module docstring)."""
        start = self.restart() or 0.0
        aim = min(PART_RESTARTS * start, whole / (GRAIN * workers), whole / SCALE_PARTS)
        return max(PART_FLOOR, LEAST_RESTARTS * start, aim)

    def expected(self, index: int, whole: float) -> float:
        """How long part ``index`` should run, if parts were even within their share."""
        return self.share.get(index, 0.0) * whole

    def started(self, index: int, at: float, worker: str) -> None:
        self.running[index] = (at, worker)

    def ended(self, index: int, at: float, thrown: bool = False, took: float | None = None) -> None:
        """Part ``index`` ended at ``at``; ``took``: its time as its worker measured it (the parent reads a
        short part's start and end together, so its own clock would make the part last no time at all)."""
        start, worker = self.running.pop(index, (at, "?"))
        if took is not None:
            start = at - took
        span = Span(index, worker, start, at, index in self.children, thrown)
        self.spans.append(span)
        self.busy += at - start
        if not thrown:
            self.spent += at - start
        if not span.split:
            self.covered += self.share.get(index, 0.0)
            bisect.insort(self.finals, at - start)

    def budget(self, now: float, workers: int) -> float:
        """How long a part may run while every worker is busy: ``OUTLIER`` part durations once the run's
        length is estimated, else 1 / (``GRAIN`` x ``workers``) of the work done so far, so that no
        final part holds much more than its share, however long the run (at least ``LEAST_BUDGET``
        seconds: every part builds and presolves its model afresh, so parts much shorter cost more to
        start than they search)."""
        whole = self.estimate(now)
        if whole is not None:
            return max(LEAST_BUDGET, OUTLIER * self.part_seconds(whole, workers))
        done = self.busy + sum(now - start for start, _ in self.running.values())
        return max(LEAST_BUDGET, done / (GRAIN * workers))

    def choose(self, now: float, age: float, whole: float | None = None) -> int | None:
        """The running part to split again, if any (see the module's docstring); ``whole``: the run's
        estimated part time, when a part is chosen ahead of need: one that has not yet run as long as
        its share says it should is left alone (it is likely to end soon, and its restart is wasted)."""
        fit = [(now - start, index) for index, (start, _) in self.running.items()
               if index not in self.children and index not in self.unsplittable and now - start >= age
               and (whole is None or now - start >= self.expected(index, whole))]
        return max(fit)[1] if fit else None

    def statistics(self, wall: float) -> dict[str, object]:
        """Final parts, the largest run's share of the summed part time (a part split again that kept its
        count is a run of its own), the busy share of each worker."""
        final = [s.end - s.start for s in self.spans if not s.split]  # the parts never split again
        useful = [s.end - s.start for s in self.spans if not s.thrown]  # and the runs split again kept
        total = sum(useful) or 1.0
        busy: dict[str, float] = {}
        for span in self.spans:
            busy[span.worker] = busy.get(span.worker, 0.0) + span.end - span.start
        return {
            "final_parts": len(final),
            "split_again": len(self.children),
            "largest_share": max(useful, default=0.0) / total,
            "part_seconds": sum(useful),
            "thrown_away_seconds": sum(s.end - s.start for s in self.spans if s.thrown),
            "busy_share": {w: b / wall for w, b in sorted(busy.items())} if wall > 0 else {},
            "idle_to_end": None if self.first_idle is None else wall - self.first_idle,
            "median_part": statistics.median(final) if final else 0.0,
        }


def lower_quartile(ordered: list[float]) -> float:
    """``statistics.quantiles(ordered, n=4)[0]`` of a sorted list, without sorting it again."""
    j = min(max((len(ordered) + 1) // 4, 1), len(ordered) - 1)
    delta = len(ordered) + 1 - 4 * j
    return (ordered[j - 1] * (4 - delta) + ordered[j] * delta) / 4


def replay(ledger: Ledger, workers: int, age: float = RESPLIT_AGE) -> float:
    """The speed-up the recorded parts predict on ``workers``: the summed time of the parts' useful runs
    over the end of a simulated run of the same tree under the same policy.

    Parts are taken in order, each for its recorded time; a part split again releases its sub-parts
    when its recorded run ends, at the head of the queue, where the run puts them (solvers.parallel:
    at the tail, the replay had a chain of runs wait behind parts that were not on it). One whose
    count was thrown away (it could not hand back what it had counted) is split as soon as a worker
    would go idle and it has run ``age`` seconds, as the policy does. A part that finished was never
    split, so its sub-parts are unknown: it runs whole.
    """
    took = {s.index: s.end - s.start for s in ledger.spans}
    thrown = {s.index for s in ledger.spans if s.thrown}
    work = sum(t for i, t in took.items() if i not in thrown)
    if work <= 0:
        return 1.0
    queue = deque(ledger.roots)
    free = workers
    now = 0.0
    running: list[tuple[float, int, float]] = []  # (end, part, start)
    while queue or running:
        while queue and free:
            index = queue.popleft()
            free -= 1
            heapq.heappush(running, (now + took.get(index, 0.0), index, now))
        if free and not queue:  # a worker would go idle: split the oldest part whose work is redone anyway
            fit = [(now - start, index) for _, index, start in running if index in thrown and now - start >= age]
            if fit:
                _, index = max(fit)
                running = [r for r in running if r[1] != index]
                heapq.heapify(running)
                free += 1
                queue.extendleft(reversed(ledger.children[index]))
                continue
        end, index, start = heapq.heappop(running)
        if not queue and free:  # idle until the next part ends or becomes old enough to split
            ripe = [start_ + age for _, i, start_ in running if i in thrown and start_ + age > now]
            if ripe and min(ripe) < end:
                heapq.heappush(running, (end, index, start))
                now = min(ripe)
                continue
        now = max(now, end)
        free += 1
        queue.extendleft(reversed(ledger.children.get(index, [])))
    return work / now if now > 0 else 1.0
