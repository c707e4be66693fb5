"""The registry of at-most-one encodings: ``@encoding("name")`` adds one (models/constraints/amo), and
``declared=`` what its paper claims beside it: its size on n inputs and its propagation strength."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gridsat.models.registries import Registry

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

Write = Callable[["Formula", list[int]], None]
Size = Callable[[int], tuple[int, int]]

# Open: the ``amo`` axis of every formulation reads it when asked, so a plugin's encoding reaches them all.
ENCODINGS: Registry[Write] = Registry("at-most-one encoding", "amo")


@dataclass(frozen=True)
class Declared:
    """What an encoding claims: its source, its size on n inputs (auxiliary variables, clauses) as a
    formula in words and as a function (None: no closed form, only measured), from ``least`` inputs on,
    and its propagation strength on its inputs, as an at-most-one and as an exactly-one.
    ``gridsat strength`` and tests/test_strength_atlas.py check both against the clauses written."""

    paper: str
    formula: str
    size: Size | None = None
    strength: str = "propagation-complete"
    least: int = 3  # below it PySAT writes the one pairwise clause of two inputs


DECLARED: dict[str, Declared] = {}


def encoding(name: str, declared: Declared | None = None, needs: Iterable[str] = ()) -> Callable[[Write], Write]:
    """Register ``write`` as the at-most-one encoding ``name`` (in registration order: the axis order),
    with what its paper claims (``declared``), when it says; ``needs`` says what it needs of a backend
    (``CNF_PLUS``, models/registries.py), which the gate checks."""
    enter = ENCODINGS.entry(name, needs)

    def register(write: Write) -> Write:
        enter(write)
        if declared is not None:
            DECLARED[name] = declared
        return write

    return register
