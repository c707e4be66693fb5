"""Canonical solutions as values: a hashable frozen form, a 16-byte digest, and one JSON line."""

from __future__ import annotations

import hashlib
import json
import marshal
from typing import Any

from gridsat.models.formulation import Solution


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


def digest(solution: Solution, frozen: Any = None) -> bytes:
    """A 16-byte digest of a canonical solution, what the duplicate checks keep of each solution.

    A frozen tour holds a tuple per square, a digest 16 bytes: a count of millions of tours keeps
    its duplicate check in memory this way (the README gives the sizes). Format 0 of marshal
    writes equal values as equal bytes (it never shares objects), and two distinct solutions get
    the same 128-bit digest with odds of about 2**-128, far below any other fault. ``frozen``: the
    solution's ``freeze``, when the caller made it already.
    """
    return hashlib.blake2b(marshal.dumps(freeze(solution) if frozen is None else frozen, 0), digest_size=16).digest()


def dumps(solution: Solution) -> str:
    """A solution as one compact JSON line."""
    return json.dumps(solution, separators=(",", ":"))
