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
``e`` where the prefixes differ could only forbid more, every kept assignment extends to the ``e``
(false from the first position where the prefixes differ), and the sat backend blocks solutions on the
puzzle's own variables, so a second extension never repeats a solution.

Propagation: on two vectors of distinct variables, unit propagation on the chain is
propagation-complete (``gridsat strength lex-leader -k 8`` checks 1 to 4 pairs exhaustively); when y
repeats variables of x, as x o g does, the chains of a group's elements are separate and unit
propagation does not see all that they imply together.

CP-SAT enumerates every assignment of every variable, auxiliaries included, so there an ``e`` free
to be true or false would list a kept solution many times. In a ``Model`` the chain adds the
converse, two more clauses per position (``e[i+1] -> e[i]`` and ``e[i+1] & y[i] -> x[i]``), making
``e[i+1]`` exactly "the prefixes agree through position i": at most 5m - 5 clauses (``e[1] -> e[0]`` is
always true).

A position whose y is ``None`` compares with the constant false (an image the formulation rules out).
The caller leaves out the positions where x and y are the same variable (they can never differ), as
Aloul et al. keep only the variables a symmetry moves. ``lex_leq`` writes the same clauses into a
``Formula`` (integer literals, auxiliaries from its pool, the constraint's scope noted for mutate) or a
``Model`` (Booleans, each clause one ``AddBoolOr``, the auxiliaries ``defined``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gridsat.models.constraints.formula import Formula
from gridsat.models.constraints.model import Model

Literal = Any  # an int in a Formula, a BoolVar (or its negation) in a Model
TRUE, FALSE = "true", "false"  # constants, simplified away before a clause is written


def lex_leq(sink: Formula | Model, xs: Sequence[Literal], ys: Sequence[Literal | None]) -> int:
    """Require x <=lex y (false < true) in ``sink``; returns the number of clauses written."""
    if isinstance(sink, Model):
        return chain(lambda: sink.NewBoolVar("lex"), lambda lit: lit.Not(), sink.AddBoolOr, xs, ys, defined=True)
    scope = [*xs, *(y for y in ys if y is not None)]
    with sink.scope(scope, "lex_leq"):
        return chain(sink.aux, lambda lit: -lit, sink.add, xs, ys, defined=False)


def chain(fresh: Callable[..., Literal], negate: Callable[[Literal], Literal], add: Callable[[list[Literal]], Any],
          xs: Sequence[Literal], ys: Sequence[Literal | None], *, defined: bool) -> int:
    """The clauses of the chain (see the module), through the sink's own ``fresh``, ``negate`` and ``add``."""

    def neg(literal: Literal) -> Literal:
        return FALSE if literal is TRUE else TRUE if literal is FALSE else negate(literal)

    def emit(clause: list[Literal]) -> int:
        if any(lit is TRUE for lit in clause):  # satisfied by a constant: nothing to write
            return 0
        add([lit for lit in clause if lit is not FALSE])
        return 1

    pairs = [(x, FALSE if y is None else y) for x, y in zip(xs, ys, strict=True)]
    written, agree = 0, TRUE  # agree: the literal "every earlier position is equal"
    for i, (x, y) in enumerate(pairs):
        written += emit([neg(agree), neg(x), y])
        if i == len(pairs) - 1:
            break
        after = fresh()
        written += emit([neg(agree), neg(x), after]) + emit([neg(agree), y, after])
        if defined:
            written += emit([neg(after), agree]) + emit([neg(after), x, neg(y)])
        agree = after
    return written
