"""The Puzzle protocol: what every puzzle module provides, gathered in one value."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gridsat.models.encoding import Encoding, EncodingSpace
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key, Solution
from gridsat.models.svg import Figure, Layout, Sketch

if TYPE_CHECKING:
    from gridsat.models.frontier import FrontierSpec
    from gridsat.models.search import Algorithm
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
class Puzzle:
    """A puzzle family: parse, formulate twice, verify from the rules, render."""

    name: str
    summary: str
    instance_help: str
    params: Mapping[str, str]  # accepted -p keys and what they mean
    parse: Callable[[str, Mapping[str, str]], Instance]
    cpsat: Callable[[Instance, Encoding], CpsatFormulation]
    cnf: Callable[[Instance, Encoding], CnfFormulation]
    verify: Callable[[Instance, Solution], list[str]]  # the broken rules; empty when valid
    render: Callable[[Instance, Solution], str]
    describe: Callable[[Instance], str]  # a short canonical name, e.g. "4x7"
    cpsat_encodings: EncodingSpace = field(default_factory=EncodingSpace)
    cnf_encodings: EncodingSpace = field(default_factory=EncodingSpace)
    # What a count counts, when it needs saying; added to every count's JSON, e.g. {"tours": "directed"}.
    count_meta: Mapping[str, str] = field(default_factory=dict)
    # Optional: what to tell the user about an instance before solving it (e.g. why it has no solution).
    note: Callable[[Instance], str | None] | None = None
    # Optional: write a random puzzle of a size as instance text (size, seed, max_area, unique).
    generate: Callable[..., str] | None = None
    # Optional: the puzzle's reference searches (see models/search.py), a dict from name to
    # ``Algorithm`` with the default first, or a function that returns it (imported on first use).
    # A module name as a string still works, with a DeprecationWarning.
    reference: Mapping[str, Algorithm] | Callable[[], Mapping[str, Algorithm]] | str | None = None
    # Optional: a small instance (text as on the command line) that the smoke benchmark suite runs.
    example: str | None = None
    # Optional: what a count may be "up to" (``symmetry``, ``reversal``), each with the group of the
    # symmetries that map an instance onto itself (see models/symmetry.py and solvers/orbits.py).
    symmetries: Mapping[str, Callable[[Instance], Group]] = field(default_factory=dict)
    # Optional: the picture of a solution (None: the empty board) at a cell size in pixels (None: a default).
    draw: Callable[[Instance, Solution | None, float | None], Figure] | None = None
    # Optional: what a reference-search event (kind, depth, what) adds to that picture, given the
    # ``what`` of every decision on the path so far (see gridsat.models.search).
    sketch: Callable[[Instance, Layout, str, int, Any, list[Any]], Sketch] | None = None
    # Optional: the instance as a frontier spec (see models/frontier.py), which the ``frontier``
    # backend counts by dynamic programming over the frontier, without listing solutions.
    frontier: Callable[[Instance], FrontierSpec] | None = None
    # Optional, for ``gridsat mutate``: the golden cases it judges mutants on (``--corpus golden``);
    # the instances (text, params), smallest first, it searches for one that kills a survivor; and
    # the board cells a variable's key is about, for its selectors (default: read from the key).
    corpus: Callable[[], list[Case]] | None = None
    ladder: Callable[[], list[tuple[str, Mapping[str, str]]]] | None = None
    cells: Callable[[Key], list[Cell]] | None = None

    def encodings(self, kind: str) -> EncodingSpace:
        """The encoding space of a formulation kind, ``cpsat`` or ``cnf``."""
        return self.cpsat_encodings if kind == "cpsat" else self.cnf_encodings


