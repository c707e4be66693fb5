"""Zhou's distance encoding: every node's position on the cycle, with domains pruned by shortest distances.

N.-F. Zhou, "In Pursuit of an Efficient SAT Encoding for the Hamiltonian Cycle Problem", CP 2020,
LNCS 12333, pp. 585-602. Every node u has a position p(u) on the cycle: the root (the first node)
has 0, and every chosen arc u -> v into another node says p(v) = p(u) + 1, so no cycle can avoid
the root. What makes the encoding small is a preprocessing step: p(u) is at least the shortest
distance d(root, u), and at most size - d(u, root) (from u the cycle still has to get back), so
each position takes only the values its distances allow, and an arc whose ends' domains do not
fit is false from the start. gridsat also keeps only one parity where every walk from the root to
a node has the same parity (a bipartite graph, as a knight's board is: the parity of d(root, u)).

gridsat writes the positions in the order encoding over their pruned domains: ``rank(u, k)`` is
"p(u) >= k" for each value k of the domain but its least (a value outside the domain, or the least,
makes it a constant, and clauses with constants are simplified away), with the ladder
rank(u, k') -> rank(u, k) for consecutive values k < k'. An arc u -> v gives, for every k where
either side is not a constant, arc -> (rank(u, k) <-> rank(v, k + 1)): two clauses of three literals.

The root is a closed tour's first square or an open tour's dummy node (models/knights_tour/cnf.py);
for an open tour without a start, d(dummy, u) = 1 for every square, so nothing is pruned (and
the parity is free): the encoding is then plain ranks over 1..n.

Size (n nodes, m arcs, D(u) the pruned domain): variables m + sum(|D(u)| - 1); clauses the degree
constraints, sum(|D(u)| - 2) for the ladders and about 2 |D(u)| per arc u -> v, so about
2 m n / 2 = m n on a knight's board (parity halves the domains), against 2 m n for ``rank``.
Positions are functions of the tour, so each tour has exactly one model.

Propagation: the order encoding propagates bounds along chosen arcs in both directions (p(v) >= k + 1
from p(u) >= k, and back), and the pruned domains make many arcs and position values false before
search; a subtour is refuted only when its bounds cross, after up to |D| propagations around it.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from gridsat.models.constraints.circuit import Circuit
from gridsat.models.constraints.formula import Formula
from gridsat.models.formulation import check_deadline

if TYPE_CHECKING:
    from pysat.formula import IDPool

Literal = int | bool  # a variable's literal, or a constant
INFINITE = 1 << 60


def shortest(circuit: Circuit, root: int, backwards: bool = False) -> list[int]:
    """Breadth-first distances from ``root`` along the arcs (``backwards``: to ``root``), ``INFINITE`` when none."""
    step = circuit.ins if backwards else circuit.outs
    distance = [INFINITE] * circuit.size
    distance[root] = 0
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for other, _ in step[node]:
            if distance[other] == INFINITE:
                distance[other] = distance[node] + 1
                queue.append(other)
    return distance


def domains(circuit: Circuit, root: int) -> list[range]:
    """Each node's position values: from d(root, u) to size - d(u, root), in steps of 2 when every walk from
    the root to a node has the parity of its distance (empty when the node cannot be on a cycle)."""
    ahead, back = shortest(circuit, root), shortest(circuit, root, backwards=True)
    # Every walk from the root to a node has the parity of its distance exactly when every arc
    # (not back into the root) joins distances of opposite parity.
    even = all((ahead[tail] + ahead[head]) % 2 for tail, head, _ in circuit.arcs
               if head != root and ahead[tail] < INFINITE)
    step = 2 if even else 1
    found = []
    for node in range(circuit.size):
        if node == root:
            found.append(range(0, 1))
            continue
        low, high = ahead[node], circuit.size - back[node]
        found.append(range(low, high + 1, step) if low < INFINITE and back[node] < INFINITE else range(0))
    return found


def positions(circuit: Circuit, formula: Formula, root: int) -> list[range]:
    """Zhou's positions with pruned domains for ``circuit`` with ``root`` first; returns the domains."""
    values = domains(circuit, root)
    clauses = formula.clauses
    if any(len(domain) == 0 for domain in values):
        with formula.family("a node no cycle reaches"):
            clauses.append([])
        return values
    ge = [rank_table(circuit.name(node), values[node], formula.pool, circuit.size) for node in range(circuit.size)]
    for node, domain in enumerate(values):
        with formula.family("rank order"):
            clauses.extend([-ge[node][k2], ge[node][k1]] for k1, k2 in zip(domain[1:], domain[2:], strict=False))
    for tail, head, var in circuit.arcs:
        if head == root:
            continue
        check_deadline()
        up, down = arc_clauses(var, values[tail], values[head], ge[tail], ge[head])
        with formula.family("an arc's head ranks at least one above its tail"):
            clauses.extend(up)
        with formula.family("an arc's head ranks at most one above its tail"):
            clauses.extend(down)
    return values


def rank_table(name: object, domain: range, pool: IDPool, size: int) -> list[Literal]:
    """``table[k]`` is "p >= k" for k in 0..size: True up to the domain's least value, False above its
    largest, else the variable of the least domain value at or above k."""
    low, high, step = domain.start, domain[-1], domain.step
    table: list[Literal] = [True] * (low + 1)
    for value in domain[1:]:
        table += [pool.id(("rank", name, value))] * step
    return table + [False] * (size + 1 - high)


def arc_clauses(arc: int, tail: range, head: range, ge_tail: list[Literal],
                ge_head: list[Literal]) -> tuple[list[list[int]], list[list[int]]]:
    """arc -> p(head) = p(tail) + 1 as clauses: (p(tail) >= k -> p(head) >= k + 1) and the converse, for
    each k where either side is not a constant; just ``-arc`` when no value of the tail fits the head."""
    # Domains share one step, and a head's values have the other parity than its tail's when it is 2
    # (``domains``), so the values p(tail) + 1 meets p(head) in form an interval of the head's.
    if max(tail.start + 1, head.start) > min(tail[-1] + 1, head[-1]):
        return [[-arc]], []
    step = tail.step
    first, last = min(tail.start + 1, head.start), max(tail[-1], head[-1] - 1)
    first -= (first - tail.start) % step  # only k of the tail's parity: k - 1 gives the same literals
    up, down = [], []
    for k in range(max(first, 0), last + step, step):
        a, b = ge_tail[k], ge_head[k + 1]
        if a is True:  # p(tail) >= k holds: p(head) >= k + 1 must
            if b is not True:
                up.append([-arc] if b is False else [-arc, b])
        elif a is False:  # p(tail) < k: p(head) < k + 1
            if b is not False:
                down.append([-arc] if b is True else [-arc, -b])
        elif b is True:
            down.append([-arc, a])
        elif b is False:
            up.append([-arc, -a])
        else:
            up.append([-arc, -a, b])
            down.append([-arc, a, -b])
    # A root's domain steps by 1 where the others step by 2: then two k give one clause.
    return (unique(up), unique(down)) if step != head.step else (up, down)


def unique(clauses: list[list[int]]) -> list[list[int]]:
    """Each clause once, in first-seen order (consecutive k of one domain step give the same clause)."""
    return [list(c) for c in dict.fromkeys(tuple(c) for c in clauses)]
