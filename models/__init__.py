"""Puzzle formulations: one module per puzzle family, plus the shared formulation types.

``PUZZLES`` is the registry: an explicit mapping, in the order of the seed documents, from a
puzzle's command-line name to the module that defines its ``PUZZLE``. Modules are imported on first use.
"""

from __future__ import annotations

import importlib

from gridsat.models.errors import UnknownName
from gridsat.models.puzzle import Puzzle

PUZZLES: dict[str, str] = {
    "tatami": "gridsat.models.tatami",
    "prime-grid": "gridsat.models.prime_grid",
    "shikaku": "gridsat.models.shikaku",
    "knights-tour": "gridsat.models.knights_tour",
}


def get_puzzle(name: str) -> Puzzle:
    """The registered puzzle called ``name``."""
    if name not in PUZZLES:
        raise UnknownName("puzzle", name, list(PUZZLES))
    return importlib.import_module(PUZZLES[name]).PUZZLE
