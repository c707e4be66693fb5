"""The registry of at-most-one encodings: ``@encoding("name")`` adds one (models/constraints/amo)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from gridsat.models.registries import Registry

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

Write = Callable[["Formula", list[int]], None]

# Open: the ``amo`` axis of every formulation reads it when asked, so a plugin's encoding reaches them all.
ENCODINGS: Registry[Write] = Registry("at-most-one encoding", "amo")


def encoding(name: str, needs: Iterable[str] = ()) -> Callable[[Write], Write]:
    """Register ``write`` as the at-most-one encoding ``name`` (in registration order: the axis order);
    ``needs`` says what it needs of a backend (``CNF_PLUS``, models/registries.py), which the gate checks."""
    return ENCODINGS.entry(name, needs)
