"""A circuit for CP-SAT as successor Booleans with Miller-Tucker-Zemlin ranks (the ``mtz`` tour model).

C. E. Miller, A. W. Tucker and R. A. Zemlin, "Integer Programming Formulation of Traveling Salesman
Problems", Journal of the ACM 7(4), pp. 326-329 (1960). Every node has exactly one chosen arc in and
one out (``AddExactlyOne``), and an integer rank u(i) in 1..size-1 (the root, where the circuit
starts, has 0). MTZ's subtour constraint, for every arc i -> j not into the root, is the linear

    u(i) - u(j) + size * x(i, j) <= size - 1

which forces u(j) >= u(i) + 1 when the arc is chosen and is slack otherwise, so ranks rise around
every cycle that avoids the root: there is none. CP-SAT enumerates every variable, and these
inequalities leave the ranks of a tour free within their slack (many models per tour), so gridsat
adds the mirror inequality u(j) - u(i) + size * x(i, j) <= size + 1 (u(j) <= u(i) + 1 on a chosen arc):
together they make the ranks the tour's positions, one model per tour. Both are plain linear
constraints, in MTZ's big-M form, not CP-SAT's enforcement literals.

Size (n nodes, m arcs): m Booleans and n - 1 integers; 2n exactly-ones and 2m linear constraints
(minus the arcs into the root). Propagation: the LP relaxation of MTZ is weak (a fractional x
barely moves the ranks), and CP-SAT propagates a big-M inequality only once x is fixed, when it
pushes bounds along the arc; AddCircuit instead reasons on the whole graph (subtours, reachability).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gridsat.models.constraints.model import Model


def miller_tucker_zemlin(model: Model, circuit: Sequence[tuple[int, int, Any]], size: int, root: int) -> None:
    """Add to ``model`` the MTZ circuit over nodes 0..size-1 with arcs (tail, head, literal), ranked from ``root``."""
    outs: list[list[Any]] = [[] for _ in range(size)]
    ins: list[list[Any]] = [[] for _ in range(size)]
    for tail, head, literal in circuit:
        outs[tail].append(literal)
        ins[head].append(literal)
    with model.family("one arc out of every node"):
        for literals in outs:
            model.AddExactlyOne(literals)
    with model.family("one arc into every node"):
        for literals in ins:
            model.AddExactlyOne(literals)
    rank = [model.NewIntVar(0, 0, "rank_root") if node == root else model.NewIntVar(1, max(1, size - 1), f"rank_{node}")
            for node in range(size)]
    for tail, head, literal in circuit:
        if head == root:
            continue
        with model.family("MTZ, an arc's head ranks above its tail"):
            model.Add(rank[tail] - rank[head] + size * literal <= size - 1)
        with model.family("an arc's head ranks at most one above its tail"):
            model.Add(rank[head] - rank[tail] + size * literal <= size + 1)
