"""Hamiltonian circuits in CNF: one arc into and one out of every node, and a single cycle through them all.

The nodes are 0..size-1 and every arc is a CNF variable. ``degrees`` gives each node exactly one
arc in and one out; that alone allows a cover by several disjoint cycles, and there are two cures:

- Lazily, by refinement (counterexample-guided abstraction refinement): ``refine`` finds the cycles
  of a model's arcs and, when there is more than one, returns a cut-set clause for each, "some arc
  leaves these nodes". Every Hamiltonian cycle satisfies every such clause, so refinement never
  loses a solution, and a model passes only when its arcs form one cycle. Cut-set clauses rather
  than clauses blocking each subcycle come from the SAT 2025 paper "SAT-Based CEGAR Method for the
  Hamiltonian Cycle Problem Enhanced by Cut-Set Constraints" (Ohashi, Soh, Le Berre, Nabeshima,
  Banbara, Inoue, Tamura).
- Eagerly, by ``residues``: every node holds its distance from a root modulo a few small primes
  (the Chinese remainder encoding of Heule, SAT 2021). An arc u -> v not into the root says
  r(v) = r(u) + 1 modulo each prime, so a cycle that avoids the root would have a length divisible
  by their product, and the product exceeds the length of any such cycle. Distances from the root
  are unique, so a circuit has exactly one assignment of the residues.

A Hamiltonian path becomes a circuit through a dummy node: its arcs out choose the first node, its
arcs in the last. Clauses go straight into ``formula.clauses`` (a ``Formula``: the family in force
applies to them all).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from gridsat.models.constraints.amo import exactly_one
from gridsat.models.constraints.formula import Formula
from gridsat.models.formulation import check_deadline

Arc = tuple[int, int, int]  # (tail, head, CNF variable)


@dataclass
class Circuit:
    """A digraph on nodes 0..size-1 whose arcs are CNF variables; ``names`` key auxiliary variables."""

    size: int
    arcs: list[Arc]
    names: Sequence[Hashable] = ()
    outs: list[list[tuple[int, int]]] = field(init=False, repr=False)  # per node: (head, variable)
    ins: list[list[tuple[int, int]]] = field(init=False, repr=False)  # per node: (tail, variable)
    # each cut-set clause ``refine`` returned, by its sorted literals: its witness ("out 0 5 7")
    witnesses: dict[tuple[int, ...], str] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self._indexed = [(var - 1, tail, head) for tail, head, var in self.arcs]  # model positions
        self.outs = [[] for _ in range(self.size)]
        self.ins = [[] for _ in range(self.size)]
        for tail, head, var in self.arcs:
            self.outs[tail].append((head, var))
            self.ins[head].append((tail, var))

    def name(self, node: int) -> Hashable:
        return self.names[node] if self.names else node

    def degrees(self, formula: Formula, amo: str) -> None:
        """Exactly one arc into and one out of every node, each at-most-one in encoding ``amo`` (whatever
        the group's size: a dummy node's n arcs too)."""
        with formula.family("one arc in and one out"):
            for node in range(self.size):
                for group in (self.ins[node], self.outs[node]):
                    exactly_one(formula, [var for _, var in group], amo)

    def forbid_two_cycles(self, formula: Formula) -> None:
        """No arc together with its reverse (redundant once the circuit has three nodes or more)."""
        if self.size < 3:
            return
        arc = {(tail, head): var for tail, head, var in self.arcs}
        with formula.family("no arc and its reverse"):
            formula.clauses.extend([-var, -arc[head, tail]] for (tail, head), var in arc.items()
                                   if tail < head and (head, tail) in arc)

    def successors(self, model: list[int]) -> list[int]:
        """Each node's head in the model (-1 where no arc out is true)."""
        after = [-1] * self.size
        for index, tail, head in self._indexed:
            if model[index] > 0:
                after[tail] = head
        return after

    def cycles(self, after: list[int]) -> list[list[int]]:
        """The node lists of the cycles of a successor list (paths, where a node has no successor)."""
        seen = [False] * self.size
        found = []
        for start in range(self.size):
            cycle, node = [], start
            while node >= 0 and not seen[node]:
                seen[node] = True
                cycle.append(node)
                node = after[node]
            if cycle:
                found.append(cycle)
        return found

    def cut(self, nodes: Sequence[int]) -> list[int]:
        """The cut-set clause of a node set: some arc leaves it (empty when none can)."""
        inside = set(nodes)
        return [var for tail in nodes for head, var in self.outs[tail] if head not in inside]

    def cut_in(self, nodes: Sequence[int]) -> list[int]:
        """Some arc enters the node set: the same cut seen from the other side (with one arc in and
        one out of every node, as many arcs enter a set as leave it), which propagates differently."""
        inside = set(nodes)
        return [var for head in nodes for tail, var in self.ins[head] if tail not in inside]

    def refine(self, model: list[int]) -> list[list[int]]:
        """Cut-set clauses for every cycle when the model's arcs form several; [] when they form one circuit.

        Both sides of each cut: on large open boards the pair needs several times fewer refinement
        rounds than the clauses on arcs leaving alone (python -m gridsat.benchmarks.compare.knights_tour).
        """
        after = self.successors(model)
        node, steps = after[0], 1  # the common case first: from node 0 round every node and back
        while node > 0 and steps <= self.size:  # bounded, should the arcs not be a permutation
            node, steps = after[node], steps + 1
        if node == 0 and steps == self.size:
            return []
        cuts = []
        for cycle in self.cycles(after):
            nodes = " ".join(map(str, sorted(cycle)))
            for side, cut in (("out", self.cut(cycle)), ("in", self.cut_in(cycle))):
                self.witnesses[tuple(sorted(cut))] = f"{side} {nodes}"
                cuts.append(cut)
        return cuts

    def witness(self, clause: list[int]) -> str:
        """The node set a cut-set clause of ``refine`` was made for, and its side: ``out 0 5 7`` (some arc
        leaves nodes 0, 5 and 7) or ``in 0 5 7`` (some arc enters them)."""
        return self.witnesses[tuple(sorted(clause))]

    def vouch(self, clause: list[int], witness: str) -> str | None:
        """Why ``clause`` is not a valid cut-set clause by ``witness``, or None when it is: the node set is
        a proper, non-empty subset of the nodes (every Hamiltonian circuit leaves and enters it) and the
        clause holds exactly the arcs leaving it (``out``) or entering it (``in``)."""
        side, _, rest = witness.partition(" ")
        try:
            nodes = sorted({int(word) for word in rest.split()})
        except ValueError:
            return f"unreadable cut {witness!r}"
        if side not in ("out", "in"):
            return f"the cut {witness!r} says neither out nor in"
        if not nodes or len(nodes) >= self.size or nodes[0] < 0 or nodes[-1] >= self.size:
            return f"the cut's nodes are not a proper, non-empty subset of the {self.size} nodes"
        arcs = self.cut(nodes) if side == "out" else self.cut_in(nodes)
        if sorted(clause) != sorted(arcs):
            return f"the clause is not the set of arcs {'leaving' if side == 'out' else 'entering'} its nodes"
        return None

    def cut_four_cycles(self, formula: Formula, skip: int | None = None) -> int:
        """A cut-set clause up front for the nodes of every 4-cycle not through ``skip`` (returns how many).

        Models of the degree constraints alone are full of 4-cycles (on knight's tour boards most
        subcycles are), and each would otherwise cost a refinement round.
        """
        near = [{v for v, _ in self.outs[u]} | {v for v, _ in self.ins[u]} for u in range(self.size)]
        sets: set[frozenset[int]] = set()
        for a in range(self.size):
            if a == skip:
                continue
            check_deadline()
            around = sorted(near[a] - {skip})
            for i, b in enumerate(around):
                for d in around[i + 1:]:
                    sets.update(frozenset((a, b, c, d)) for c in near[b] & near[d] if c not in (a, skip))
        chosen = [sorted(nodes) for nodes in sets if len(nodes) < self.size]  # a circuit of 4 leaves nothing out
        with formula.family("no four-cycle"):
            formula.clauses.extend(self.cut(nodes) for nodes in sorted(chosen))
        return len(chosen)

    def residues(self, formula: Formula, root: int, amo: str) -> list[int]:
        """Distances from ``root`` modulo the primes this circuit needs (returned), one-hot per node and prime."""
        moduli = primes_for(self.size - 1, even=self.bipartite_without(root))
        clauses, pool = formula.clauses, formula.pool
        for p in moduli:
            rank = [[pool.id(("residue", self.name(node), p, i)) for i in range(p)] for node in range(self.size)]
            with formula.family("one residue per node"):
                for node in range(self.size):
                    exactly_one(formula, rank[node], amo)
            with formula.family("the root at residue 0"):
                clauses.append([rank[root][0]])
            for tail in range(self.size):
                check_deadline()
                for head, var in self.outs[tail]:
                    if head == root:
                        continue
                    for i in range(p):
                        j = (i + 1) % p
                        with formula.family("an arc steps the residue forward"):
                            clauses.append([-var, -rank[tail][i], rank[head][j]])
                        with formula.family("an arc steps the residue back"):
                            clauses.append([-var, rank[tail][i], -rank[head][j]])
        return moduli

    def bipartite_without(self, root: int) -> bool:
        """Whether the arcs not touching ``root`` 2-colour the nodes (then every cycle avoiding it is even)."""
        return self.colouring(skip=root) is not None

    def forbid_unbalanced(self, formula: Formula) -> bool:
        """The empty clause when the arcs 2-colour the nodes into classes of different sizes: a circuit
        alternates colours, so it needs as many of each (an odd knight's board has no closed tour).
        Returns whether it was added."""
        colour = self.colouring()
        if colour is None or 2 * sum(colour) == self.size:
            return False
        with formula.family("no circuit of unbalanced colours"):
            formula.clauses.append([])  # (a disconnected graph, whose colours are arbitrary, has no circuit either)
        return True

    def colouring(self, skip: int | None = None) -> list[int] | None:
        """A 2-colouring (0/1 per node, -1 for ``skip``) of the arcs not touching ``skip``, or None."""
        colour = [-1] * self.size
        for start in range(self.size):
            if start == skip or colour[start] >= 0:
                continue
            colour[start], stack = 0, [start]
            while stack:
                node = stack.pop()
                for other, _ in self.outs[node] + self.ins[node]:
                    if other == skip:
                        continue
                    if colour[other] < 0:
                        colour[other] = 1 - colour[node]
                        stack.append(other)
                    elif colour[other] == colour[node]:
                        return None
        return colour


def primes_for(longest: int, even: bool) -> list[int]:
    """The smallest primes whose product (times 2 when every cycle is even) exceeds ``longest``."""
    product, chosen, candidate = (2 if even else 1), [], (3 if even else 2)
    while product <= longest:
        if all(candidate % p for p in range(2, int(candidate**0.5) + 1)):
            chosen.append(candidate)
            product *= candidate
        candidate += 1
    return chosen
