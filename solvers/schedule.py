"""Which running part to split again, the record of a split run's parts, and a replay of that record.

The policy (``choose``): when a worker would go idle (no part waits in the queue), the part that
has run longest, if it has run at least ``RESPLIT_AGE`` seconds, is split again. The
longest-running part is the likeliest to hold the tail (part times are heavy-tailed); a young part
is left alone, since it may be about to end. While every worker is busy, a part is split again
once it has run longer than its ``budget``: a share of the work done so far that shrinks with the
number of workers, so that a long count ends up in finer parts than a short one, a count on many
workers in finer parts than on few, and no final part holds much more than its share.

The ledger keeps, for every part, when it ran, on which worker and how it ended (finished, or
split again after some seconds), so that a benchmark can print the final parts, each worker's busy
share, and a replay of the same tree of parts under the same policy on more workers (``replay``).
"""

from __future__ import annotations

import heapq
import statistics
from dataclasses import dataclass, field

RESPLIT_AGE = 0.5  # seconds a part must have run before it may be split again for an idle worker
# ... or, with every worker busy, once it has run 1 / (GRAIN x workers) of the work done so far:
# about the share a part has in a first split into GRAIN parts per worker
GRAIN = 16
LEAST_BUDGET = 1.0  # seconds: a part that runs less is never split again while every worker is busy


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

    def started(self, index: int, at: float, worker: str) -> None:
        self.running[index] = (at, worker)

    def ended(self, index: int, at: float, thrown: bool = False) -> None:
        start, worker = self.running.pop(index, (at, "?"))
        self.spans.append(Span(index, worker, start, at, index in self.children, thrown))

    def budget(self, now: float, workers: int) -> float:
        """How long a part may run while every worker is busy: 1 / (``GRAIN`` x ``workers``) of the work
        done so far, so that no final part holds much more than its share of a run on this many
        workers, however long the run (at least ``LEAST_BUDGET`` seconds: every part builds and
        presolves its model afresh, so parts much shorter cost more to start than they search)."""
        done = sum(s.end - s.start for s in self.spans) + sum(now - start for start, _ in self.running.values())
        return max(LEAST_BUDGET, done / (GRAIN * workers))

    def choose(self, now: float, age: float) -> int | None:
        """The running part to split again, if any (see the module's docstring)."""
        fit = [(now - start, index) for index, (start, _) in self.running.items()
               if index not in self.children and index not in self.unsplittable and now - start >= age]
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


def replay(ledger: Ledger, workers: int, age: float = RESPLIT_AGE) -> float:
    """The speed-up the recorded parts predict on ``workers``: the summed time of the parts' useful runs
    over the end of a simulated run of the same tree under the same policy.

    Parts are taken in order, each for its recorded time; a part split again releases its sub-parts
    when its recorded run ends. One whose count was thrown away (it could not hand back what it had
    counted) is split as soon as a worker would go idle and it has run ``age`` seconds, as the
    policy does. A part that finished was never split, so its sub-parts are unknown: it runs whole.
    """
    took = {s.index: s.end - s.start for s in ledger.spans}
    thrown = {s.index for s in ledger.spans if s.thrown}
    work = sum(t for i, t in took.items() if i not in thrown)
    if work <= 0:
        return 1.0
    queue = list(ledger.roots)
    free = workers
    now = 0.0
    running: list[tuple[float, int, float]] = []  # (end, part, start)
    while queue or running:
        while queue and free:
            index = queue.pop(0)
            free -= 1
            heapq.heappush(running, (now + took.get(index, 0.0), index, now))
        if free and not queue:  # a worker would go idle: split the oldest part whose work is redone anyway
            fit = [(now - start, index) for _, index, start in running if index in thrown and now - start >= age]
            if fit:
                _, index = max(fit)
                running = [r for r in running if r[1] != index]
                heapq.heapify(running)
                free += 1
                queue.extend(ledger.children[index])
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
        queue.extend(ledger.children.get(index, []))
    return work / now if now > 0 else 1.0
