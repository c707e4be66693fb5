"""Vertex elimination: a chordal completion (triangulation) of a graph, and the triangles it has.

Eliminating a vertex joins its remaining neighbours pairwise (the *fill*) and removes it. The graph
plus every fill edge is chordal, and each of its triangles has exactly one vertex eliminated first,
whose remaining neighbours then hold the other two: listing every vertex's remaining neighbours at
its elimination lists every triangle once. Sparse transitivity constraints are written over these
triangles only (Bryant and Velev, "Boolean satisfiability with transitivity constraints", ACM TOCL
2002; used for Hamiltonian cycles by Velev and Gao 2009, see models/constraints/transitivity.py).

The order is the greedy minimum-degree heuristic (ties by the lowest vertex), one of the classic
triangulation heuristics: it keeps the fill small on grid-like graphs such as a knight's board.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence


def eliminate(neighbours: Mapping[int, Sequence[int]], most: int | None = None) -> list[tuple[int, list[int]]]:
    """Each vertex in elimination order with its neighbours still present when it goes (sorted).

    ``neighbours`` is an undirected graph (each edge listed from both ends, no loops). The fill edges
    are the pairs of a vertex's listed neighbours that were not edges already. With ``most``, it stops
    once the triangles pass that many: the order is then a prefix (see ``triangles``).
    """
    adjacent = {v: set(ns) for v, ns in neighbours.items()}
    heap = [(len(ns), v) for v, ns in adjacent.items()]
    heapq.heapify(heap)
    gone: set[int] = set()
    order = []
    found = 0
    while heap and (most is None or found <= most):
        degree, v = heapq.heappop(heap)
        if v in gone or degree != len(adjacent[v]):
            continue  # a stale entry: the vertex went already, or its degree changed since
        later = sorted(adjacent[v])
        found += len(later) * (len(later) - 1) // 2
        for i, a in enumerate(later):
            joined = adjacent[a]
            joined.discard(v)
            joined.update(later[:i])
            joined.update(later[i + 1:])
            heapq.heappush(heap, (len(joined), a))
        gone.add(v)
        del adjacent[v]
        order.append((v, later))
    return order


def triangles(order: Sequence[tuple[int, list[int]]]) -> int:
    """How many triangles the chordal completion of an elimination ``order`` has."""
    return sum(len(later) * (len(later) - 1) // 2 for _, later in order)


def chordal_edges(order: Sequence[tuple[int, list[int]]]) -> list[tuple[int, int]]:
    """The edges (low, high) of the chordal completion: the graph's edges and the fill, each once."""
    return sorted({(min(v, w), max(v, w)) for v, later in order for w in later})
