"""The cases ``gridsat mutate tatami`` judges mutants on (golden and OEIS), and the rooms it tries survivors on."""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models import golden
from gridsat.models.golden import oeis_rooms
from gridsat.models.parts import Case


def corpus() -> list[Case]:
    """The golden counts, and the rooms of the OEIS table with both sides from 2 and at most 30 cells, and
    the one-row rooms up to four cells (1x3 and 3x1, no tiling, catch a weakened last "one mat per cell"
    clause that the symmetry-broken formula otherwise passes: suggested by gridsat mutate)."""
    found = golden.cases("tatami", "room")
    found += [Case(f"{r}x{c}", {}, n, f"OEIS A068920: t({r},{c}) = {n}")
              for (r, c), n in oeis_rooms().items()
              if min(r, c) >= 2 and r * c <= 30 or min(r, c) == 1 < max(r, c) <= 4]
    return found


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """Rooms up to 8x8, smallest area first."""
    rooms = sorted(((r, c) for r in range(1, 9) for c in range(1, 9)), key=lambda rc: (rc[0] * rc[1], rc))
    return [(f"{r}x{c}", {}) for r, c in rooms]
