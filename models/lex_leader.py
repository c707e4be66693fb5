"""The lex-leader constraint x <=lex y, as clauses and as CP-SAT Boolean constraints.

Crawford, Ginsberg, Luks and Roy ("Symmetry-breaking predicates for search problems", KR 1996) keep
one assignment per orbit of a symmetry group G by asking, for every element g of G, that the
assignment x be lexicographically at most its image: x <=lex x o g (the lex-leader predicate). This
module writes one such comparison of two equally long sequences of Boolean literals, in the compact
chained form of Aloul, Markov and Sakallah ("Efficient symmetry breaking for Boolean satisfiability",
IJCAI 2003; IEEE Trans. Computers 55(5), 2006), whose size is linear in the sequence's length.

The chain: ``e[i]`` ("x and y agree before position i") is an auxiliary; ``e[0]`` is true. For every
position i, three clauses::

    e[i] & x[i] -> y[i]          (x[i] <= y[i] while the prefixes agree)
    e[i] & x[i] -> e[i+1]        (x[i] = y[i] = 1: still equal)
    e[i] & -y[i] -> e[i+1]       (x[i] = y[i] = 0: still equal)

so a sequence of m positions costs at most 3m - 2 clauses and m - 1 auxiliaries (no ``e`` after the
last position, none before the first). The ``e`` are only implied, never defined both ways: a true
``e`` where the prefixes differ could only forbid more, and the solutions are read on the puzzle's
own variables, where every kept assignment has one extension (``e[i]`` false as soon as the prefixes
differ is always allowed). Propagation: unit propagation on the chain enforces x <=lex y as far as
the prefixes are fixed equal; it is not generalised arc consistent (a later strict position cannot
relax an earlier one), as Aloul et al. note of every such chain.

CP-SAT enumerates every assignment of every variable, auxiliaries included, so there an ``e`` free
to be true or false would list a kept solution many times. ``defined`` adds the converse, two more
clauses per position (``e[i+1] -> e[i]`` and ``e[i+1] & y[i] -> x[i]``), making ``e[i+1]`` exactly
"the prefixes agree through position i": at most 5m - 4 clauses.

A position whose y is ``None`` compares with the constant false (an image the formulation rules out).
The caller leaves out the positions where x and y are the same variable (they can never differ), as
Aloul et al. keep only the variables a symmetry moves. ``lex_leq`` writes the same clauses through
any ``Clauses`` sink: ``CnfClauses`` (a PySAT CNF and its IDPool) and ``CpsatClauses`` (a CpModel's
Booleans) are the two.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ortools.sat.python import cp_model
    from pysat.formula import CNF, IDPool

Literal = Any  # an int in a CNF, a BoolVar (or its negation) in a CP-SAT model
TRUE, FALSE = "true", "false"  # constants, simplified away before a clause is written


class Clauses(Protocol):
    """Where a chain's clauses go: a new auxiliary, a literal's negation, a clause."""

    def fresh(self) -> Literal: ...

    def negate(self, literal: Literal) -> Literal: ...

    def add(self, clause: list[Literal]) -> None: ...


def lex_leq(sink: Clauses, xs: Sequence[Literal], ys: Sequence[Literal | None], defined: bool = False) -> int:
    """Require x <=lex y (false < true); returns the number of clauses written. ``defined``: each
    auxiliary is also implied the other way, so it is a function of x and y (see the module)."""
    pairs = [(x, FALSE if y is None else y) for x, y in zip(xs, ys, strict=True)]
    written, agree = 0, TRUE  # agree: the literal "every earlier position is equal"
    for i, (x, y) in enumerate(pairs):
        written += emit(sink, [negated(sink, agree), negated(sink, x), y])
        if i == len(pairs) - 1:
            break
        after = sink.fresh()
        written += emit(sink, [negated(sink, agree), negated(sink, x), after])
        written += emit(sink, [negated(sink, agree), y, after])
        if defined:
            written += emit(sink, [negated(sink, after), agree])
            written += emit(sink, [negated(sink, after), x, negated(sink, y)])
        agree = after
    return written


def negated(sink: Clauses, literal: Literal) -> Literal:
    return FALSE if literal is TRUE else TRUE if literal is FALSE else sink.negate(literal)


def emit(sink: Clauses, clause: list[Literal]) -> int:
    """Write ``clause`` without its false constants; a clause with a true constant is dropped."""
    if any(lit is TRUE for lit in clause):
        return 0
    sink.add([lit for lit in clause if lit is not FALSE])
    return 1


class CnfClauses:
    """A PySAT CNF: auxiliaries from the pool (named ``(name, i)``), clauses appended."""

    def __init__(self, formula: CNF, pool: IDPool, name: Callable[[int], Any]) -> None:
        self.formula, self.pool, self.name, self.count = formula, pool, name, 0

    def fresh(self) -> int:
        self.count += 1
        return self.pool.id(self.name(self.count))

    def negate(self, literal: int) -> int:
        return -literal

    def add(self, clause: list[int]) -> None:
        self.formula.append(clause)


class CpsatClauses:
    """A CP-SAT model: auxiliaries are new Booleans, each clause one ``AddBoolOr``."""

    def __init__(self, model: cp_model.CpModel, name: str) -> None:
        self.model, self.name, self.count = model, name, 0

    def fresh(self) -> Any:
        self.count += 1
        return self.model.NewBoolVar(f"{self.name}_{self.count}")

    def negate(self, literal: Any) -> Any:
        return literal.Not()

    def add(self, clause: list[Any]) -> None:
        self.model.AddBoolOr(clause)
