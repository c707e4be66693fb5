"""The frontier spec: a puzzle instance as a layered decision diagram, in the spirit of TdZdd's DdSpec.

A spec walks ``elements`` in a fixed order (the edges of a graph, the cells of a room). A state is
what the solutions chosen so far leave on the frontier, packed into ``words`` unsigned 64-bit words
(equal states must pack to equal words: the spec keeps them canonical). At element ``i`` the engine
(``gridsat.solvers.backends.frontier_dp``) asks ``step(data, i, state, choice, out)`` for every ``choice`` in
``range(choices)``; the step writes the child state into ``out[:words]`` (``out[words:]`` is
``scratch`` words it may use freely) and answers:

* ``REJECT`` (0): the choice breaks a rule; the partial solutions in this state die here;
* ``KEEP`` (1): the child state goes on to element ``i + 1``;
* ``ACCEPT`` (2): the choice completes a solution (every later element is then forced): the partial
  solutions in this state are counted.

States left after the last element are dropped, so a step answers ACCEPT where a solution is
complete. ``step`` is a numba function compiled with ``STEP_SIGNATURE`` (and ``cache=True``):
the engine calls it through a first-class function type, so one compiled engine runs every spec
and both stay in numba's on-disk cache. Counts only ever add, so the engine keeps them modulo
2**64 and a few primes and rebuilds the exact integer by the Chinese remainder theorem:
``bound_bits`` (any upper bound on log2 of the native count) says how many primes it needs.

A plugin adds a formulation by giving its ``Puzzle`` a ``frontier=Frontier(spec)`` part whose ``spec`` builds one
(import numba inside it, so listing puzzles never imports numba).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REJECT, KEEP, ACCEPT = 0, 1, 2

# The step's numba signature: (data, element, state, choice, out) -> REJECT, KEEP or ACCEPT.
STEP_SIGNATURE = "int64(int64[::1], int64, uint64[::1], int64, uint64[::1])"


@dataclass(frozen=True)
class FrontierSpec:
    """What the frontier engine needs to count one instance."""

    elements: int  # how many layers (elements) the engine walks
    words: int  # uint64 words per packed state
    choices: int  # the step is asked for choice 0 .. choices - 1 at every element
    step: Any  # numba dispatcher compiled with STEP_SIGNATURE
    data: Any  # numpy int64 array (C-contiguous) that the step reads: the graph, the slot of each vertex...
    bound_bits: int  # an upper bound on log2 of the native count (how many residue lanes exactness needs)
    order: str  # the element order, for reports, e.g. "column-major edges"
    initial: tuple[int, ...] = ()  # the root state's words (default all zero)
    scratch: int = 0  # extra uint64 words after the state in ``out`` for the step's own use
    width: int = 0  # the widest frontier (what a state describes), for reports
    # High bits of the last state word that no state sets: while counts are small the engine keeps them
    # there (a row of ``words`` words instead of ``words`` + 1); 0: the state may use every bit.
    spare_bits: int = 0
    # What the native count becomes under each ``up_to`` (None: the puzzle's own convention):
    # the count is multiplied by ``scale[up_to]``; an ``up_to`` missing here is refused with ``refuse``.
    scale: Mapping[str | None, int] = field(default_factory=lambda: {None: 1})
    refuse: str = "the frontier backend cannot count up to {up_to} here"
    fixed: int | None = None  # the native count when the instance needs no layers at all (a trivial board)
    details: Mapping[str, Any] = field(default_factory=dict)  # anything the spec wants in the report


@dataclass(frozen=True)
class Fixed:
    """The solutions one group element fixes, for Burnside's lemma on the frontier: counted by ``spec``
    (its native count times ``scale``), or known to be ``known`` without counting, for the reason ``why``
    (a short proof, shown to the user)."""

    element: str  # the element's name, as the puzzle's group names it
    spec: FrontierSpec | None = None
    scale: int = 1
    known: int | None = None
    why: str = ""
