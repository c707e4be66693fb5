"""Integer variables in CNF: the order and the log encoding of a domain ``low..high``, each with the
constraints the prime-sum grid needs written in the form that suits it.

A *conjunction* is a list of literals that holds exactly when every one does (``[]`` always holds);
``None`` is a conjunction that never holds (a value outside the domain). Every constraint here is
written as ``forbid``: clauses that rule out a conjunction. Both encodings answer the same questions:

- ``equals(v)``: the conjunction that says x = v;
- ``cover(excluded, keep)``: conjunctions that together hold for every value of ``excluded`` and for
  no value of ``keep`` (values in neither are don't-cares), as few as the encoding's literals allow;
- ``restrict(out, allowed)``: x takes a value of ``allowed`` (every other value forbidden);
- ``below(out, y)``: x < y;
- ``projection()``: the variables that fix x (one-to-one with its values once restricted);
  ``value(true)``: x's value given the set of those variables that are true.

``out`` is the ``Formula`` written to (models/constraints/formula.py). Variables are named
``(tag, *key, ...)`` with ``key`` the variable's own key (a cell ``(r, c)``), so a board symmetry maps
them by moving the key.
The direct (one-hot) encoding is a Boolean per value with an exactly-one: the at-most-one helpers
(models/constraints/amo/) write it; its all-different is an at-most-one per value.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gridsat.models.registries import Registry

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

Conj = list[int] | None


def forbid(out: Formula, *conjunctions: Conj) -> None:
    """The clause ruling out that all ``conjunctions`` hold together (nothing when one never holds; the
    empty clause when all always hold)."""
    if any(c is None for c in conjunctions):
        return
    out.add([-lit for c in conjunctions for lit in c])  # type: ignore[union-attr]


def defined(out: Formula, conj: list[int], key: Hashable) -> int:
    """A literal equivalent to the conjunction ``conj``: its one literal, else the variable ``key``
    defined by len(conj) + 1 clauses (a unit clause for the empty conjunction, which always holds)."""
    if len(conj) == 1:
        return conj[0]
    a = out.var(key)
    for lit in conj:
        out.add([-a, lit])
    out.add([a, *(-lit for lit in conj)])
    return a


def runs(values: Iterable[int], excluded: set[int]) -> list[tuple[int, int]]:
    """The maximal runs ``(first, last)`` of ``excluded`` values in the sorted ``values``."""
    out: list[tuple[int, int]] = []
    start = last = None
    for v in sorted(values):
        if v in excluded:
            start = v if start is None else start
            last = v
        elif start is not None:
            out.append((start, last))  # type: ignore[arg-type]
            start = None
    if start is not None:
        out.append((start, last))  # type: ignore[arg-type]
    return out


@dataclass
class OrderInt:
    """x in ``low..high`` in the order encoding: a Boolean ``("ge", *key, v)`` = (x >= v) for every
    low < v <= high, and the order chain (x >= v+1) -> (x >= v).

    Source: Tamura, Taga, Kitagawa and Banbara, "Compiling finite linear CSP into SAT", Constraints 14(2),
    2009 (also Crawford and Baker 1994's "ladder"; Gent and Nightingale's ladder encoding, 2004).
    x = v is the conjunction (x >= v) & ~(x >= v+1); x in [l, u] is (x >= l) & ~(x >= u+1). Size for d
    values: d-1 variables, d-2 chain clauses. Unit propagation on the chain keeps the bounds consistent.
    """

    key: tuple
    low: int
    high: int
    ge: dict[int, int] = field(default_factory=dict)

    @classmethod
    def new(cls, out: Formula, key: tuple, low: int, high: int) -> OrderInt:
        x = cls(key, low, high, {v: out.var(("ge", *key, v)) for v in range(low + 1, high + 1)})
        with out.family("order chain"):
            for v in range(low + 2, high + 1):
                out.add([-x.ge[v], x.ge[v - 1]])
        return x

    def at_least(self, v: int) -> Conj:
        """x >= v."""
        return [] if v <= self.low else None if v > self.high else [self.ge[v]]

    def at_most(self, v: int) -> Conj:
        """x <= v."""
        return [] if v >= self.high else None if v < self.low else [-self.ge[v + 1]]

    def between(self, first: int, last: int) -> Conj:
        """first <= x <= last."""
        lo, hi = self.at_least(first), self.at_most(last)
        return None if lo is None or hi is None or first > last else lo + hi

    def equals(self, v: int) -> Conj:
        return self.between(v, v)

    def cover(self, excluded: set[int], keep: set[int]) -> list[Conj]:
        """One interval per maximal run of ``excluded`` values between ``keep`` values."""
        return [self.between(a, b) for a, b in runs(excluded | keep, excluded)]

    def restrict(self, out: Formula, allowed: set[int]) -> None:
        for conj in self.cover(set(range(self.low, self.high + 1)) - allowed, allowed):
            forbid(out, conj)

    def below(self, out: Formula, y: OrderInt) -> None:
        """x < y: (x >= v) -> (y >= v+1) for every v, d clauses of at most two literals."""
        for v in range(self.low, self.high + 1):
            forbid(out, self.at_least(v), y.at_most(v))

    def projection(self) -> list[int]:
        return list(self.ge.values())

    def value(self, true: set[Hashable]) -> int:
        return max((v for v in self.ge if ("ge", *self.key, v) in true), default=self.low)


@dataclass
class LogInt:
    """x in ``low..high`` in the log (binary) encoding: Booleans ``("bit", *key, k)`` give x - low in
    b = ceil(log2 d) bits, and the patterns past d - 1 are forbidden (``restrict``).

    Source: Iwama and Miyazaki, "SAT-variable complexity of hard combinatorial problems", IFIP 1994;
    Walsh, "SAT v CSP", CP 2000 (the log encoding). x = v is the conjunction of b bit literals; an
    aligned block of 2^k values is the conjunction of the b-k high bits. Size: b variables, at most b
    clauses to forbid the values past d - 1. Unit propagation is weak: a value is ruled out only once
    every bit of it is set.
    """

    key: tuple
    low: int
    high: int
    bits: list[int] = field(default_factory=list)  # least significant first

    @classmethod
    def new(cls, out: Formula, key: tuple, low: int, high: int) -> LogInt:
        width = (high - low).bit_length()
        return cls(key, low, high, [out.var(("bit", *key, k)) for k in range(width)])

    def block(self, offset: int, size: int) -> Conj:
        """x - low in the aligned block of 2^size offsets that holds ``offset``."""
        return [b if offset >> k & 1 else -b for k, b in enumerate(self.bits) if k >= size]

    def equals(self, v: int) -> Conj:
        offset = v - self.low
        return None if not 0 <= offset < 1 << len(self.bits) else self.block(offset, 0)

    def cover(self, excluded: set[int], keep: set[int]) -> list[Conj]:
        """For each excluded value the largest aligned block around it that holds no ``keep`` value;
        aligned blocks nest, so the maximal ones cover ``excluded`` without overlapping."""
        kept = {v - self.low for v in keep}
        found: set[tuple[int, int]] = set()
        for offset in (v - self.low for v in excluded):
            size = 0
            while size < len(self.bits) and not any(o >> (size + 1) == offset >> (size + 1) for o in kept):
                size += 1
            found.add((offset >> size << size, size))
        maximal = [(o, s) for o, s in found if not any(s2 > s and o >> s2 == o2 >> s2 for o2, s2 in found)]
        return [self.block(o, s) for o, s in sorted(maximal)]

    def restrict(self, out: Formula, allowed: set[int]) -> None:
        patterns = set(range(self.low, self.low + (1 << len(self.bits))))
        for conj in self.cover(patterns - allowed, allowed):
            forbid(out, conj)

    def below(self, out: Formula, y: LogInt) -> None:
        """x < y by a comparator from the most significant bit: t_k (the bits above k are equal) is
        defined as t_k+1 & (x_k = y_k); while tied x_k <= y_k; and the values are not equal.
        b-1 variables, at most 6b clauses."""
        tied: list[int] = []  # above the top bit the two are tied: the conjunction that always holds
        for k in reversed(range(len(self.bits))):
            xk, yk = self.bits[k], y.bits[k]
            forbid(out, tied, [xk, -yk])  # tied, x_k = 1 and y_k = 0: x > y
            if k == 0:
                break
            t = out.aux()
            forbid(out, tied, [xk, yk, -t])  # tied and equal here: still tied
            forbid(out, tied, [-xk, -yk, -t])
            for lit in tied:
                out.add([-t, lit])
            out.add([-t, -xk, yk])
            out.add([-t, xk, -yk])
            tied = [t]
        if self.bits:
            forbid(out, tied, [self.bits[0], y.bits[0]])
            forbid(out, tied, [-self.bits[0], -y.bits[0]])
        else:
            forbid(out, tied)  # one value only: x < y never holds

    def projection(self) -> list[int]:
        return list(self.bits)

    def value(self, true: set[Hashable]) -> int:
        return self.low + sum(1 << k for k in range(len(self.bits)) if ("bit", *self.key, k) in true)


# Open: an axis drawn from it offers every domain encoding registered, whenever it is (``domain``).
DOMAINS: Registry[Any] = Registry("integer domain encoding", "domain")
DOMAINS.entry("order")(OrderInt)
DOMAINS.entry("log")(LogInt)


def domain(name: str) -> Any:
    """Register a class as the domain encoding ``name``: like ``OrderInt`` and ``LogInt``, its ``new(out, key,
    low, high)`` makes a variable that answers ``equals``, ``cover``, ``restrict``, ``below``,
    ``projection`` and ``value``."""
    return DOMAINS.entry(name)
