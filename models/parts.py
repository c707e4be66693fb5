"""The optional parts a ``Puzzle`` is assembled from: each groups the functions of one capability.

A puzzle without a part lacks that capability (no pictures, no frontier count...); each part's
functions live in a module of the puzzle's own package (e.g. ``knights_tour/pictures.py``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gridsat.models.formulation import Key, Solution

if TYPE_CHECKING:
    from gridsat.models.frontier import Fixed, FrontierSpec
    from gridsat.models.svg import Figure, Layout, Sketch
    from gridsat.models.symmetry import Group

Instance = Any  # each puzzle's frozen dataclass
Cell = tuple[int, int]


@dataclass(frozen=True)
class Case:
    """A known answer: an instance as typed, its ``-p`` parameters, its count and where that count comes from."""

    text: str
    params: Mapping[str, str]
    count: int
    source: str


@dataclass(frozen=True)
class Pictures:
    """How a solution looks (``gridsat picture``, ``--svg``) and how a reference search is animated."""

    # The picture of a solution (None: the empty board) at a cell size in pixels (None: a default).
    draw: Callable[[Instance, Solution | None, float | None], Figure]
    # What a reference-search event (kind, depth, what) adds to that picture, given the ``what`` of
    # every decision on the path so far (see gridsat.models.search); None: no animation.
    sketch: Callable[[Instance, Layout, str, int, Any, list[Any]], Sketch] | None = None


@dataclass(frozen=True)
class Symmetry:
    """What a count may be "up to" (``symmetry``, ``reversal``), each with the group of the symmetries
    that map an instance onto itself (see models/symmetry.py and solvers/orbits/counting.py)."""

    groups: Mapping[str, Callable[[Instance], Group]] = field(default_factory=dict)


@dataclass(frozen=True)
class Frontier:
    """The instance as a frontier spec (see models/frontier.py), which the ``frontier`` backend counts
    by dynamic programming over the frontier, without listing solutions. ``fixed`` (optional) lists the
    elements of a group (``up_to``) each with what it fixes, so that the backend counts orbits by Burnside's
    lemma where the spec's own ``scale`` does not reach."""

    spec: Callable[[Instance], FrontierSpec]
    fixed: Callable[[Instance, str], list[Fixed]] | None = None


@dataclass(frozen=True)
class MutationCorpus:
    """What ``gridsat mutate`` judges mutants on: the golden cases (``--corpus golden``); the instances
    (text, params), smallest first, it searches for one that kills a survivor; and the board cells a
    variable's key is about, for its selectors (None: read from the key)."""

    corpus: Callable[[], list[Case]] | None = None
    ladder: Callable[[], list[tuple[str, Mapping[str, str]]]] | None = None
    cells: Callable[[Key], list[Cell]] | None = None


@dataclass(frozen=True)
class Oracle:
    """A brute force written plainly from the rules, for differential testing (``gridsat fuzz``): every
    canonical solution of a tiny instance, sharing no code with the reference searches or the
    formulations (one refuses an instance too large for it with ``InvalidInstance``); and random
    instances it can list, each as the text and ``-p`` parameters of the command line, so that a
    difference it finds is reproduced by one command."""

    solutions: Callable[[Instance], Iterable[Solution]]
    draw: Callable[[random.Random], tuple[str, Mapping[str, str]]]
