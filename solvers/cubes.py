"""Disjoint parts of a count (cube and conquer): what a part is, and how a run is split into parts.

A part is the original run restricted in a way every solution satisfies for exactly one part:

- formulation backends (cpsat, sat): ``fixed`` gives values to a prefix of the formulation's primary
  variables (in the order the formulation declares them: first cells, first mats, first moves).
  The parts are the assignments of that prefix a *relaxation* allows (cpsat: what the constraints imply
  about the prefix alone; sat: what unit propagation does not refute), so they are disjoint (distinct
  assignments of the same variables) and together exhaustive (every solution projects onto one of
  them) by construction; a few may hold no solution. The prefix grows (by half, then bisecting) until there are at least
  ``target`` parts but not more than ``cap``.
- the reference backend: the search tree's decisions at ``depth`` are numbered in search order
  (the algorithms are deterministic); a part owns the decisions numbered ``lo <= n < hi`` and
  vetoes the others, and the part with ``shallow`` also owns solutions found above ``depth``.

A running part can be split again (``solvers.splitting.parallel`` does it when a worker would go idle): the
backend splits *within* the part. A formulation backend fixes a longer prefix, enumerating its
projections with the part's own values pinned, so the sub-parts partition the part. The reference
backend cuts the part's range of decisions in pieces, or, when it owns one decision only, numbers
the decisions of a deeper level inside it (``deeper``: more levels, each numbered within the
decisions the levels above it own, so numbering stays a function of the part alone).

Parts are plain data (they pickle, and ``to_json``/``from_json`` round-trip them for checkpoints),
so a remote worker needs nothing but the part, the puzzle's name and the parsed instance.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, NamedTuple

from gridsat.solvers.stop import INTERRUPTED, Stop

Key = Hashable
Projections = Callable[[list[Key], int], list[tuple[int, ...]] | None]  # onto, cap -> values (None: over cap)


RESPLIT = "split again"  # why a part's run stopped: the parent split it again


# A prefix that gives ``target`` to CLOSE x ``target`` parts is taken: coming closer means bisecting
# between two prefixes whose projections are the most numerous asked yet (prime-grid 5x5 sat, a first
# split of 32, when each projection cost a solver call: 0.34 s with it, 0.1 s without), while
# the parts wait in the parent and are split further as the run's length says (solvers.splitting.parallel).
CLOSE = 2
OVERFLOW = 16  # a part split again whose next key alone gives more than the cap of sub-parts takes up to this x cap


class StopSplitting(Exception):
    """A limit ended the run while it was still being split (nothing was counted yet)."""


def interrupted_split(stop: Stop) -> BaseException:
    """What a split that ``stop`` ended raises: KeyboardInterrupt for a signal, else StopSplitting."""
    return KeyboardInterrupt() if stop.reason == INTERRUPTED else StopSplitting(stop.reason)


@dataclass(frozen=True)
class Part:
    """One piece of a split run; ``Part()`` is the whole run."""

    index: int = 0
    fixed: tuple[tuple[Key, int], ...] = ()  # formulation backends: primary variable -> value
    depth: int = 0  # reference: the depth of the numbered decisions (0: no restriction)
    lo: int = 0  # reference: the first decision number this part owns
    hi: int = 0  # reference: one past the last
    shallow: bool = False  # reference: this part also owns the solutions found above ``depth``
    deeper: tuple[Level, ...] = ()  # reference, after a re-split: more levels below ``depth``
    # formulation backends, after a re-split: full assignments of the primary variables (in their
    # order) that this part leaves out, since the run split again had already counted them
    blocked: tuple[tuple[int, ...], ...] = ()

    def levels(self) -> list[Level]:
        """The reference backend's levels, outermost first (none for the whole run)."""
        return [Level(self.depth, self.lo, self.hi, self.shallow), *self.deeper] if self.depth else []

    def to_json(self) -> dict[str, Any]:
        data = {"index": self.index, "fixed": [[listed(k), v] for k, v in self.fixed], "depth": self.depth,
                "lo": self.lo, "hi": self.hi, "shallow": self.shallow}
        if self.deeper:  # absent from parts written before re-splitting existed, which read the same
            data["deeper"] = [list(level) for level in self.deeper]
        if self.blocked:
            data["blocked"] = [list(row) for row in self.blocked]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Part:
        fixed = tuple((tupled(k), int(v)) for k, v in data["fixed"])
        deeper = tuple(Level(int(d), int(lo), int(hi), bool(s)) for d, lo, hi, s in data.get("deeper", []))
        blocked = tuple(tuple(int(v) for v in row) for row in data.get("blocked", []))
        return cls(int(data["index"]), fixed, int(data["depth"]), int(data["lo"]), int(data["hi"]),
                   bool(data["shallow"]), deeper, blocked)

    def renumbered(self, index: int) -> Part:
        return dataclasses.replace(self, index=index)

    @property
    def prefix(self) -> tuple[int, ...]:
        """The values this part fixes, in order: a full assignment of the primary variables with this
        prefix falls in the part."""
        return tuple(value for _, value in self.fixed)


@dataclass
class Handback:
    """How a formulation backend's search hands back a part split again while it runs: asked to
    ``drain``, it stops between two models (never inside one: every solution of a model it reported
    was read), and ``rows()`` lists the models' primary assignments, which the sub-parts then leave
    out. ``cut`` says it did stop early (a search that ended anyway has nothing to hand back). A
    split run's probe records its models too, and the first split's parts leave them out."""

    # what the search kept of each model it counted while ``recording``: its primary assignment or,
    # cheaper to keep, something ``row`` turns into one (the sat backend keeps its blocking clause, and
    # most parts finish, so their models are never turned into rows)
    found: list[Any] = dataclasses.field(default_factory=list)
    row: Callable[[Any], tuple[int, ...]] | None = None  # None: ``found`` holds the rows themselves
    # ... and what turns one into the first so many values of its row alone (None: the row's, cut)
    prefix: Callable[[Any, int], tuple[int, ...]] | None = None
    # only a part's run and a split run's probe keep ``found`` (a plain run would hold every model)
    recording: bool = False
    draining: bool = False
    cut: bool = False
    halt: Callable[[], None] | None = None  # ends a solver call in progress (set while one runs)
    # the reference backend: the part's decisions numbered below this (at its last level) were searched
    # in full and their solutions counted; the rest of its range is handed back untouched
    upto: int | None = None
    models: bool = True  # it hands back the models it counted (the reference backend: a range, ``upto``)

    def rows(self, start: int = 0) -> list[tuple[int, ...]]:
        """The primary assignments of the models counted while recording, in the order they came (from the
        ``start``-th on)."""
        found = self.found[start:]
        return found if self.row is None else [self.row(kept) for kept in found]

    def prefixes(self, length: int, start: int = 0, stop: int | None = None) -> list[tuple[int, ...]]:
        """The first ``length`` values of the rows of the ``start``-th to the ``stop``-th model found, made without
        the rest of each row (a split run's probe reads them as it searches, in the process its search shares)."""
        found = self.found[start:stop]
        if self.prefix is not None:
            return [self.prefix(kept, length) for kept in found]
        return [row[:length] for row in (found if self.row is None else map(self.row, found))]

    def drain(self) -> None:
        self.draining = True
        if self.halt is not None:
            self.halt()


class Level(NamedTuple):
    """One level of a reference part: the decisions at ``depth`` numbered ``lo <= n < hi`` (counted
    within what the levels above own), and whether solutions found above ``depth`` belong here."""

    depth: int
    lo: int
    hi: int
    shallow: bool


def listed(key: Any) -> Any:
    """A structured key as JSON (tuples become lists)."""
    return [listed(k) for k in key] if isinstance(key, tuple) else key


def tupled(key: Any) -> Any:
    """The inverse of ``listed``: JSON lists become the tuples the formulations use as keys."""
    return tuple(tupled(k) for k in key) if isinstance(key, list) else key


def split_prefix(keys: list[Key], projections: Projections, target: int, cap: int, within: Part | None = None,
                 start: int | None = None) -> list[Part]:
    """Parts fixing the shortest prefix of ``keys`` whose projections number at least ``target`` and at
    most ``cap`` (else the longest prefix with fewer than ``target``); the prefix length is found by
    growing it by half, then bisecting while there are more than ``CLOSE`` x ``target``. One whole part when no prefix
    splits the run. ``within``: a part to split again, whose fixed values are a prefix of ``keys`` that
    ``projections`` respects: only longer prefixes are tried. ``start``: the prefix length to try first
    (a sibling's: the parts of one split are alike), taken as soon as it gives ``target`` to ``cap`` parts."""
    fixed = len(within.fixed) if within is not None else 0
    # the longest prefix known to give too few (the part's own: one projection)
    below: tuple[int, list[tuple[int, ...]]] | None = (
        (fixed, [tuple(v for _, v in within.fixed)]) if within is not None and fixed else None)
    enough: tuple[int, list[tuple[int, ...]] | None] | None = None  # the shortest known to give enough (or too many)
    size = max(1, fixed + 1, fixed * 3 // 2) if start is None or start <= fixed else min(start, len(keys))
    while keys and size <= len(keys):
        found = projections(keys[:size], cap)
        if found is not None and len(found) < target:
            below = (size, found)
            if size == len(keys):
                break
            # Half as long again, not twice: projections can multiply with every key, and the
            # overshooting prefix is enumerated in full while the workers wait.
            size = min(max(size + 1, size * 3 // 2), len(keys))
            continue
        enough = (size, found)
        break
    if enough is not None and enough[0] == start and enough[1] is not None:
        below = (start - 1, [])  # a sibling's length gives enough, and not too many: taken as it is
    while enough is not None and enough[0] - (below[0] if below else 0) > 1 and (
            enough[1] is None or len(enough[1]) > CLOSE * target):
        mid = ((below[0] if below else 0) + enough[0]) // 2
        found = projections(keys[:mid], cap)
        if found is not None and len(found) < target:
            below = (mid, found)
        else:
            enough = (mid, found)
    chosen = enough if enough is not None and enough[1] is not None else below
    if within is not None and chosen is not None and chosen[0] == fixed and enough is not None:
        # One key more already gives more than ``cap`` sub-parts: a part split again takes them all
        # (up to OVERFLOW x cap) rather than run on whole.
        found = projections(keys[: fixed + 1], OVERFLOW * cap)
        if found is not None:
            chosen = (fixed + 1, found)
    if chosen is None or chosen[1] is None or (within is not None and len(chosen[1]) < 2):
        return [within or Part()]  # nothing to split (again)
    size, values = chosen
    return [Part(i, tuple(zip(keys[:size], row, strict=True))) for i, row in enumerate(values)]


def shared_out(parts: list[Part], rows: list[tuple[int, ...]] | tuple[tuple[int, ...], ...]) -> list[Part]:
    """``parts`` (sub-parts of one part), each blocking the ``rows`` (full assignments of the primary
    variables) that fall in it: rows are grouped by prefix once, not compared with every part."""
    by_prefix: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for length in {len(p.fixed) for p in parts}:
        for row in rows:
            by_prefix.setdefault(row[:length], []).append(row)
    return [dataclasses.replace(p, blocked=tuple(by_prefix.get(p.prefix, ()))) for p in parts]


def split_ordinals(count: int, depth: int, target: int) -> list[Part]:
    """``count`` numbered decisions at ``depth`` in about ``target`` runs of consecutive numbers;
    the first part also owns the solutions found above ``depth``."""
    if count == 0:
        return [Part(0, depth=depth, lo=0, hi=0, shallow=True)]
    pieces = min(count, target)
    bounds = [count * i // pieces for i in range(pieces + 1)]
    return [Part(i, depth=depth, lo=bounds[i], hi=bounds[i + 1], shallow=i == 0) for i in range(pieces)]
