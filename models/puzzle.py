"""The Puzzle protocol: what every puzzle module provides, gathered in one value.

The required core parses, formulates twice, verifies and renders; optional capabilities come as
named parts (models/parts.py): ``pictures``, ``symmetry``, ``frontier``, ``mutation``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import TYPE_CHECKING, Any

from gridsat.models.encoding import Encoding, EncodingSpace
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Solution
from gridsat.models.parts import Case, Cell, Frontier, Instance, MutationCorpus, Pictures, Symmetry

if TYPE_CHECKING:
    from gridsat.models.search import Algorithm

__all__ = ["Case", "Cell", "Frontier", "Instance", "MutationCorpus", "Pictures", "Puzzle", "Symmetry"]


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
    # A module name as a string still works, with a DeprecationWarning.
    reference: Mapping[str, Algorithm] | Callable[[], Mapping[str, Algorithm]] | str | None = None
    # Optional: a small instance (text as on the command line) that the smoke benchmark suite runs.
    example: str | None = None
    # The optional parts (models/parts.py).
    pictures: Pictures | None = None
    symmetry: Symmetry = field(default_factory=Symmetry)
    frontier: Frontier | None = None
    mutation: MutationCorpus = field(default_factory=MutationCorpus)
    # The flat fields these parts replace, accepted for one release with a DeprecationWarning.
    _: KW_ONLY
    symmetries: InitVar[Mapping[str, Callable[[Instance], Any]] | None] = None
    draw: InitVar[Callable[..., Any] | None] = None
    sketch: InitVar[Callable[..., Any] | None] = None
    corpus: InitVar[Callable[[], list[Case]] | None] = None
    ladder: InitVar[Callable[[], list[tuple[str, Mapping[str, str]]]] | None] = None
    cells: InitVar[Callable[..., list[Cell]] | None] = None

    def __post_init__(self, symmetries: Any, draw: Any, sketch: Any, corpus: Any, ladder: Any, cells: Any) -> None:
        """Fold the deprecated flat fields into their parts."""
        folded: list[str] = []
        if symmetries is not None:
            folded.append("symmetries= by symmetry=Symmetry(groups)")
            object.__setattr__(self, "symmetry", Symmetry(symmetries))
        if draw is not None or sketch is not None:
            folded.append("draw=, sketch= by pictures=Pictures(draw, sketch)")
            object.__setattr__(self, "pictures", Pictures(draw, sketch) if draw is not None else None)
        if self.frontier is not None and not isinstance(self.frontier, Frontier):
            folded.append("frontier=<function> by frontier=Frontier(spec)")
            object.__setattr__(self, "frontier", Frontier(self.frontier))
        if corpus is not None or ladder is not None or cells is not None:
            folded.append("corpus=, ladder=, cells= by mutation=MutationCorpus(corpus, ladder, cells)")
            object.__setattr__(self, "mutation", MutationCorpus(corpus, ladder, cells))
        if folded:
            warnings.warn(f"puzzle {self.name!r} declares flat fields that gridsat will drop in the next release; "
                          f"replace {'; '.join(folded)} (see gridsat.plugin)", DeprecationWarning, stacklevel=3)

    def encodings(self, kind: str) -> EncodingSpace:
        """The encoding space of a formulation kind, ``cpsat`` or ``cnf``."""
        return self.cpsat_encodings if kind == "cpsat" else self.cnf_encodings


