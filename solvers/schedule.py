"""Which running part to split again, the record of a split run's parts, and a replay of that record.

The policy (``choose``): when a worker would go idle (no part waits in the queue), the part that
has run longest, if it has run at least ``age`` seconds, is split again. The longest-running part
is the likeliest to hold the tail (part times are heavy-tailed); a young part is left alone, since
it may be about to end and splitting it throws its work away (see solvers.parallel).

The ledger keeps, for every part, when it ran, on which worker and how it ended (finished, or
split again after some seconds), so that a benchmark can print the final parts, each worker's busy
share, and a replay of the same tree of parts under the same policy on more workers (``replay``).
"""

from __future__ import annotations

import heapq
import statistics
from dataclasses import dataclass, field

RESPLIT_AGE = 0.5  # seconds a part must have run before it may be split again


@dataclass
class Span:
    """One part's run on a worker: ``split`` when it was stopped to be split again (its work is redone
    by its sub-parts), else it finished (or was cut short by a limit)."""

    index: int
    worker: str
    start: float  # seconds since the run started
    end: float
    split: bool = False


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

    def ended(self, index: int, at: float) -> None:
        start, worker = self.running.pop(index, (at, "?"))
        self.spans.append(Span(index, worker, start, at, index in self.children))

    def choose(self, now: float, age: float) -> int | None:
        """The running part to split again, if any (see the module's docstring)."""
        fit = [(now - start, index) for index, (start, _) in self.running.items()
               if index not in self.children and index not in self.unsplittable and now - start >= age]
        return max(fit)[1] if fit else None

    def statistics(self, wall: float) -> dict[str, object]:
        """Final parts, the largest one's share of the summed part time, the busy share of each worker."""
        final = [s.end - s.start for s in self.spans if not s.split]
        total = sum(final) or 1.0
        busy: dict[str, float] = {}
        for span in self.spans:
            busy[span.worker] = busy.get(span.worker, 0.0) + span.end - span.start
        return {
            "final_parts": len(final),
            "split_again": len(self.children),
            "largest_share": max(final, default=0.0) / total,
            "part_seconds": sum(final),
            "thrown_away_seconds": sum(s.end - s.start for s in self.spans if s.split),
            "busy_share": {w: b / wall for w, b in sorted(busy.items())} if wall > 0 else {},
            "idle_to_end": None if self.first_idle is None else wall - self.first_idle,
            "median_part": statistics.median(final) if final else 0.0,
        }


def replay(ledger: Ledger, workers: int, age: float = RESPLIT_AGE) -> float:
    """The speed-up the recorded parts predict on ``workers``: the summed time of the final parts over
    the end of a simulated run of the same tree under the same policy.

    Parts are taken in order; a finished part takes its recorded time; a part that was split again
    runs until a worker would go idle and it is the one ``choose`` picks, or at most until the
    moment it was split in the recorded run (its children then queue). Only recorded splits can
    happen: a part that finished was never split, so its sub-parts are unknown.
    """
    took = {s.index: s.end - s.start for s in ledger.spans}
    work = sum(t for i, t in took.items() if i not in ledger.children)
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
        if free and not queue:  # a worker would go idle: split the oldest splittable part again
            fit = [(now - start, index) for _, index, start in running
                   if index in ledger.children and now - start >= age]
            if fit:
                _, index = max(fit)
                running = [r for r in running if r[1] != index]
                heapq.heapify(running)
                free += 1
                queue.extend(ledger.children[index])
                continue
        end, index, start = heapq.heappop(running)
        if not queue and free:  # idle until the next part ends or becomes old enough to split
            ripe = [start_ + age for _, i, start_ in running if i in ledger.children and start_ + age > now]
            if ripe and min(ripe) < end:
                heapq.heappush(running, (end, index, start))
                now = min(ripe)
                continue
        now = max(now, end)
        free += 1
        queue.extend(ledger.children.get(index, []))
    return work / now if now > 0 else 1.0
