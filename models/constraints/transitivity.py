"""Velev and Gao's relative encoding: an ordering of the nodes, transitive on a chordal completion only.

M. N. Velev and P. Gao, "Efficient SAT Techniques for Relative Encoding of Permutations with
Constraints", AI 2009: Advances in Artificial Intelligence, LNCS 5866, pp. 517-527 (2009). Their
absolute-encoding companion (SARA 2009) is the position encoding; this is the relative one, which
improves on Prestwich's transitive-closure encoding of Hamiltonian cycles.

On top of the circuit's degree constraints (one arc in and one out of every node), each pair of
nodes {a, b} joined in a chordal completion of the graph (models/constraints/elimination.py: the moves plus
the fill of a minimum-degree vertex elimination) gets one variable ``before(a, b)``, "a comes
before b"; its negation says b comes before a (one variable per pair, not two: half of
Prestwich's ordering variables). Clauses:

- every arc u -> v not touching the root (a closed tour's first square, an open tour's dummy node,
  which comes first) puts u before v: ``-arc(u, v) | before(u, v)``;
- transitivity on every triangle {a, b, c} of the chordal completion, in its two clauses that
  forbid the two directed 3-cycles (two of Prestwich's six per triple; the other four are implied
  by antisymmetry, which the single variable per pair gives for free).

Why it is exact on the arcs: in a chordal graph every cycle of four or more has a chord that splits
it into two shorter cycles, one of them directed whichever way the chord points, so an orientation
with no directed triangle has no directed cycle at all. A subtour avoiding the root would be a
directed cycle of ``before`` literals; every tour orders its nodes along the tour and satisfies
every clause. The ``before`` literals of pairs that are not consecutive are not fixed by the tour,
so a tour has several models: counts project onto the arcs (they are, see models/formulation.py).

Size (n nodes besides the root, m arcs, F fill edges, T triangles of the completion): variables
m + (edges of the move graph) + F; clauses: the degree constraints, at most m arc clauses, and 2T.
T depends on the elimination; on an r x c knight's board (r <= c) the minimum-degree order
keeps about 2r neighbours at each elimination, so T grows like n r^2 (measured sizes in
docs/explanation/encodings.md).

Propagation: unit propagation orders the ends of any chain of true arcs whose nodes are joined
in the completion (a chordal graph has a simplicial vertex inside every such cycle, whose
triangle clause shortens it), so an arc that would close a subtour is falsified as soon as the
rest of the subtour is set, and a closed subtour is a conflict at once. Not included: the
paper's inverse transitivity constraints, and its heuristics for choosing the first node (gridsat's
first node is the tour's own: the root square, or the dummy node of an open tour).
"""

from __future__ import annotations

from gridsat.models.constraints.circuit import Circuit
from gridsat.models.constraints.elimination import chordal_edges, eliminate
from gridsat.models.constraints.formula import Formula
from gridsat.models.formulation import check_deadline


def elimination_order(circuit: Circuit, root: int, most: int | None = None) -> list[tuple[int, list[int]]]:
    """The minimum-degree elimination of the circuit's undirected graph without ``root`` (``most``: stopped
    once it has more triangles than that, see ``eliminate``)."""
    neighbours: dict[int, set[int]] = {node: set() for node in range(circuit.size) if node != root}
    for tail, head, _ in circuit.arcs:
        if root not in (tail, head) and tail != head:
            neighbours[tail].add(head)
            neighbours[head].add(tail)
    return eliminate({node: sorted(near) for node, near in neighbours.items()}, most)


def relative_order(circuit: Circuit, formula: Formula, root: int,
                   order: list[tuple[int, list[int]]] | None = None) -> None:
    """Velev and Gao's ordering clauses for ``circuit`` with ``root`` first (``order``: its elimination,
    when already made)."""
    order = elimination_order(circuit, root) if order is None else order
    name, pool = circuit.name, formula.pool
    # One variable per pair joined in the completion, kept for the lower node first (ids drawn in order).
    pair = {(a, b): pool.id(("before", name(a), name(b))) for a, b in chordal_edges(order)}

    def before(a: int, b: int) -> int:
        """The literal "a comes before b"."""
        return pair[a, b] if a < b else -pair[b, a]

    clauses = formula.clauses
    with formula.family("an arc orders its ends"):
        clauses.extend([-var, before(tail, head)] for tail, head, var in circuit.arcs if root not in (tail, head))
    for v, later in order:
        check_deadline()
        one_way, other_way = [], []
        for i, a in enumerate(later):
            for b in later[i + 1:]:
                x, y, z = sorted((v, a, b))
                one_way.append([-before(x, y), -before(y, z), before(x, z)])
                other_way.append([before(x, y), before(y, z), -before(x, z)])
        with formula.family("no ordering cycle x<y<z<x"):
            clauses.extend(one_way)
        with formula.family("no ordering cycle x<z<y<x"):
            clauses.extend(other_way)
