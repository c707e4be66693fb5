"""What a reference search is: the seed documents' own searches, reimplemented independently of any encoding.

Each puzzle keeps its searches beside its formulations (``models/<puzzle>/reference.py``) and
declares them in ``Puzzle.reference``: a dict from a name to an ``Algorithm``, whose first entry is
the default (or a function that returns that dict, for a plugin whose search module imports the
puzzle's own module). The ``reference`` backend (solvers/backends/) runs them.

Search events. ``Algorithm.run(instance, stop, listen=None)`` calls ``listen(kind, depth, what)``
as it searches, like the seed's coroutine that yields ``(depth, x, y)`` at every step so that a
separate drawing program can animate it. ``what`` is JSON-ready and says what the puzzle's
decision was (each module's docstring lists its events):

- ``"place"``: a decision was just taken; the path now holds ``depth`` decisions (1-based). It is
  reported after the decision is applied and before the search goes below it. When ``listen``
  returns exactly ``False`` (None and True mean go on), the decision is undone at once, reported
  as ``"remove"``, and the search goes on with the next alternative at that depth as if this one
  had failed: it never descends into a vetoed decision.
- ``"remove"``: the decision at ``depth`` is undone (backtracking, or a veto). Every "place" gets
  exactly one "remove", innermost first, when the search runs to its end; one that stops early
  (a limit, a closed generator, or a one-solution method that found its solution) says nothing more.
- ``"solution"``: a complete solution at ``depth`` (``what`` is the canonical solution), reported
  just before it is yielded.
- Any other kind is information only (Shikaku's ``"prune"``, the knight's ``"block"`` and
  ``"join"``); returning False from it changes nothing.

The order of events is a function of the instance alone: the same in every process (no sets of
strings, no dicts keyed by strings, no randomness). So a count can be split by the ordinal of the
depth-d "place" events: a run that vetoes every depth-d decision outside a set S searches just
those subtrees, and runs over the blocks of a partition of the ordinals find disjoint solution
sets whose union is every solution; except a solution found at a depth below d, which has no
depth-d decision on its path and is found by every run (only Shikaku's search can stop above the
split depth): count those in one part only. Exhaustive algorithms honour the veto; the others
(``exhaustive=False``) report their events for pictures and their docstrings say what a veto does.

A listener may raise to abandon the search; the exception leaves ``run`` after the search's own
clean-up. Nobody listening (``listen=None``) costs an ``is not None`` test wherever an event would be
reported (benchmarks/compare/events.py measures what listening costs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

# listen(kind, depth, what): False vetoes a "place"; anything else goes on.
Listener = Callable[[str, int, Any], "bool | None"]


class Halt(Protocol):
    """What a search polls to know it must stop (``solvers.stop.Stop``): a deadline, a limit, Ctrl-C."""

    def expired(self) -> bool: ...

    def request(self, reason: str) -> None: ...


class Explore(Protocol):
    """What an algorithm runs: canonical solutions of ``instance``, events to ``listen``."""

    def __call__(self, instance: Any, stop: Halt, listen: Listener | None = None) -> Iterator[Any]: ...


@dataclass(frozen=True)
class Algorithm:
    """A search that yields canonical solutions, polls ``stop`` and reports events to ``listen``."""

    name: str
    summary: str
    run: Explore
    exhaustive: bool = True  # False: finds some solutions (e.g. one), so its count is never complete
