"""The Puzzle protocol: what every puzzle module provides, gathered in one value.

The required core parses, formulates twice, verifies and renders; optional capabilities come as
named parts (models/parts.py): ``pictures``, ``symmetry``, ``frontier``, ``mutation``, ``oracle``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gridsat.models.encoding import Encoding, EncodingSpace
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Solution
from gridsat.models.parts import Case, Cell, Frontier, Instance, MutationCorpus, Oracle, Pictures, Symmetry

if TYPE_CHECKING:
    from gridsat.models.search import Algorithm

__all__ = ["Case", "Cell", "Frontier", "Instance", "MutationCorpus", "Oracle", "Pictures", "Puzzle", "Symmetry"]


@dataclass(frozen=True)
class Puzzle:
    """A puzzle family: parse, formulate twice, verify from the rules, render; optional parts besides."""

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
    # Optional: the formats an instance can be written in besides the text ``parse`` reads, by name
    # (Shikaku: ``gameid``, ``puzzlink``), for ``generate --format``; each returns the instance as text.
    writers: Mapping[str, Callable[[Instance], str]] = field(default_factory=dict)
    # Optional: the puzzle's reference searches (see models/search.py), a dict from name to
    # ``Algorithm`` with the default first, or a function that returns it (imported on first use).
    reference: Mapping[str, Algorithm] | Callable[[], Mapping[str, Algorithm]] | None = None
    # Optional: a small instance (text as on the command line) that the smoke benchmark suite runs.
    example: str | None = None
    # The optional parts (models/parts.py).
    pictures: Pictures | None = None
    symmetry: Symmetry = field(default_factory=Symmetry)
    frontier: Frontier | None = None
    mutation: MutationCorpus = field(default_factory=MutationCorpus)
    oracle: Oracle | None = None  # a brute force and random tiny instances, for ``gridsat fuzz``

    def encodings(self, kind: str) -> EncodingSpace:
        """The encoding space of a formulation kind, ``cpsat`` or ``cnf``."""
        return self.cpsat_encodings if kind == "cpsat" else self.cnf_encodings


