"""The registry of at-most-one encodings: ``@encoding("name")`` adds one (models/constraints/amo)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

Write = Callable[["Formula", list[int]], None]

ENCODINGS: dict[str, Write] = {}



def encoding(name: str) -> Callable[[Write], Write]:
    """Register ``write`` as the at-most-one encoding ``name`` (in registration order: the axis order)."""

    def register(write: Write) -> Write:
        if name in ENCODINGS:
            raise ValueError(f"at-most-one encoding {name!r} registered twice")
        ENCODINGS[name] = write
        return write

    return register
