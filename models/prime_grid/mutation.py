"""The cases ``gridsat mutate prime-grid`` judges mutants on, and the grids it tries survivors on."""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models import golden
from gridsat.models.parts import Case


def corpus() -> list[Case]:
    """The golden counts that take under a few seconds."""
    return golden.cases("prime_grid", "grid", ("max", "min"))


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """Grids up to 4x4, values 1..R*C+1 and, from four cells, exactly 1..R*C."""
    sizes = [(1, 1), (1, 2), (1, 3), (2, 2), (1, 4), (2, 3), (2, 4), (3, 3), (2, 5), (3, 4), (4, 4)]
    out: list[tuple[str, Mapping[str, str]]] = []
    for r, c in sizes:
        out.append((f"{r}x{c}", {}))
        if r * c >= 4:
            out.append((f"{r}x{c}", {"max": str(r * c)}))
    return out
