"""The cases ``gridsat mutate knights-tour`` judges mutants on, and the boards it tries survivors on."""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models import golden
from gridsat.models.parts import Case


def corpus() -> list[Case]:
    """The golden counts that take under a few seconds."""
    return golden.cases("knights_tour", "board")


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """Open and closed tours on boards up to 4x5, and 5x5 from a corner."""
    out: list[tuple[str, Mapping[str, str]]] = []
    for size in ("1x1", "2x2", "3x3", "3x4", "4x4", "3x5", "3x6", "4x5", "3x7", "3x8"):
        out += [(size, {}), (size, {"closed": "true"})]
    return [*out, ("5x5", {"start": "0,0"}), ("3x4", {"start": "0,0"}), ("3x4", {"closed": "true", "start": "1,1"})]
