"""Reference algorithms: the seed documents' own searches, reimplemented independently of any encoding.

A puzzle names the module holding its ``ALGORITHMS`` in ``Puzzle.reference``; that dict maps a name
to an ``Algorithm``, and its first entry is the default.

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
reported (benchmarks/events.py measures what listening costs).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from gridsat.models import get_puzzle
from gridsat.models.errors import BackendUnavailable, UnknownName
from gridsat.models.puzzle import Puzzle
from gridsat.solvers.stop import Stop

# listen(kind, depth, what): False vetoes a "place"; anything else goes on.
Listener = Callable[[str, int, Any], "bool | None"]


class Search(Protocol):
    """What an algorithm runs: canonical solutions of ``instance``, events to ``listen``."""

    def __call__(self, instance: Any, stop: Stop, listen: Listener | None = None) -> Iterator[Any]: ...


@dataclass(frozen=True)
class Algorithm:
    """A search that yields canonical solutions, polls ``stop`` and reports events to ``listen``."""

    name: str
    summary: str
    run: Search
    exhaustive: bool = True  # False: finds some solutions (e.g. one), so its count is never complete


def algorithms(puzzle: Puzzle | str) -> dict[str, Algorithm]:
    """The reference algorithms of ``puzzle`` (a registered name, or the object; empty when it has none)."""
    if isinstance(puzzle, str):
        puzzle = get_puzzle(puzzle)
    if puzzle.reference is None:
        return {}
    return importlib.import_module(puzzle.reference).ALGORITHMS


def algorithm(puzzle: Puzzle | str, name: str | None) -> Algorithm:
    """One algorithm by name, the default when ``name`` is None."""
    table = algorithms(puzzle)
    if not table:
        title = puzzle if isinstance(puzzle, str) else puzzle.name
        raise BackendUnavailable(f"puzzle {title!r} has no reference algorithm")
    if name is None:
        return next(iter(table.values()))
    if name not in table:
        raise UnknownName("algorithm", name, list(table))
    return table[name]
