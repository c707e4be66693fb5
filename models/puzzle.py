"""The Puzzle protocol: what every puzzle module provides, gathered in one value."""

from __future__ import annotations

import hashlib
import json
import marshal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gridsat.models.encoding import Encoding, EncodingSpace
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Solution
from gridsat.models.svg import Figure, Layout, Sketch

if TYPE_CHECKING:
    from gridsat.models.frontier import FrontierSpec
    from gridsat.models.symmetry import Group

Instance = Any  # each puzzle's frozen dataclass


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
    # Optional: the module whose ``ALGORITHMS`` (a dict of ``gridsat.solvers.reference.Algorithm``)
    # are the puzzle's reference searches, imported only when the reference backend runs.
    reference: str | None = None
    # Optional: a small instance (text as on the command line) that the smoke benchmark suite runs.
    example: str | None = None
    # Optional: what a count may be "up to" (``symmetry``, ``reversal``), each with the group of the
    # symmetries that map an instance onto itself (see models/symmetry.py and solvers/orbits.py).
    symmetries: Mapping[str, Callable[[Instance], Group]] = field(default_factory=dict)
    # Optional: the picture of a solution (None: the empty board) at a cell size in pixels (None: a default).
    draw: Callable[[Instance, Solution | None, float | None], Figure] | None = None
    # Optional: what a reference-search event (kind, depth, what) adds to that picture, given the
    # ``what`` of every decision on the path so far (see gridsat.solvers.reference).
    sketch: Callable[[Instance, Layout, str, int, Any, list[Any]], Sketch] | None = None
    # Optional: the instance as a frontier spec (see models/frontier.py), which the ``frontier``
    # backend counts by dynamic programming over the frontier, without listing solutions.
    frontier: Callable[[Instance], FrontierSpec] | None = None

    def encodings(self, kind: str) -> EncodingSpace:
        """The encoding space of a formulation kind, ``cpsat`` or ``cnf``."""
        return self.cpsat_encodings if kind == "cpsat" else self.cnf_encodings


def freeze(solution: Solution) -> Any:
    """A hashable, orderable form of a canonical solution (nested lists become tuples)."""
    if isinstance(solution, list) and solution and isinstance(solution[0], list):
        first = solution[0]
        if first and not isinstance(first[0], (list, tuple, dict)):
            # Rows of scalars (a grid, a list of squares): the common shape, frozen in one pass
            # per row, as this runs once for every solution of every backend.
            return tuple(map(tuple, solution))
    if isinstance(solution, (list, tuple)):
        return tuple(freeze(x) for x in solution)
    if isinstance(solution, dict):
        return tuple(sorted((k, freeze(v)) for k, v in solution.items()))
    return solution


def digest(solution: Solution) -> bytes:
    """A 16-byte digest of a canonical solution, what the duplicate checks keep of each solution.

    A frozen 6x6 tour takes 2.3 kB, its digest 83 bytes with the set's slot (measured): counting the
    6,637,920 open 6x6 tours in one process would otherwise hold some 16 GB. Format 0 of marshal
    writes equal values as equal bytes (it never shares objects), and two distinct solutions get
    the same 128-bit digest with odds of about 2**-128, far below any other fault.
    """
    return hashlib.blake2b(marshal.dumps(freeze(solution), 0), digest_size=16).digest()


def dumps(solution: Solution) -> str:
    """A solution as one compact JSON line."""
    return json.dumps(solution, separators=(",", ":"))
