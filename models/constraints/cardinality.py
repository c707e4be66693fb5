"""``sum(lits) <= k``, ``>= k`` and ``== k`` for any bound, through a named ``amo`` encoding: at a bound
of one its at-most-one; above one the ``pysat.card`` encoding of the same name, or for an encoding that
needs CNF+ (models/registries.py) a native at-most-k constraint.
An at-most-one-only encoding (pairwise, ladder, bitwise, commander, product, bimander) is refused above
a bound of one, never replaced."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gridsat.models.constraints.amo import ENCODINGS, at_most_one
from gridsat.models.encoding import Axis
from gridsat.models.errors import InvalidOption
from gridsat.models.registries import CNF_PLUS

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

# The pysat.card encodings defined for every bound.
ANY_BOUND = ("seqcounter", "totalizer", "cardnetwrk", "sortnetwrk", "mtotalizer", "kmtotalizer")


def axis(default: str = "seqcounter") -> Axis:
    """The ``card`` axis of a space whose CNF bounds sums by more than one: the encodings defined at every
    bound (an at-most-one-only name there would only be refused)."""
    return Axis("card", (default, *(n for n in ANY_BOUND if n != default)))


def in_cnf_plus(name: str) -> bool:
    """Whether the at-most-one encoding ``name`` is a CNF+ constraint: then so is any bound in its name."""
    return CNF_PLUS in ENCODINGS.needs.get(name, ())


def refuse(name: str, lits: Sequence[int], bound: int) -> InvalidOption:
    plus = [n for n in ENCODINGS if in_cnf_plus(n)]
    return InvalidOption(f"the {name} encoding is an at-most-one: it cannot bound {len(lits)} literals by {bound} "
                         f"(encodings for any bound: {', '.join((*ANY_BOUND, *plus))})")


def through_pysat(formula: Formula, way: str, lits: Sequence[int], bound: int, name: str) -> None:
    """``CardEnc.atmost`` or ``CardEnc.atleast`` (``way``) in the pysat.card encoding ``name``."""
    from pysat.card import CardEnc, EncType

    formula.absorb(getattr(CardEnc, way)(list(lits), bound=bound, vpool=formula.pool, encoding=getattr(EncType, name)))


def at_most(formula: Formula, lits: Sequence[int], bound: int, name: str) -> None:
    """``sum(lits) <= bound``, its clauses scoped to ``lits``."""
    if bound >= len(lits):
        return
    if bound == 1:
        at_most_one(formula, lits, name)
        return
    with formula.scope(lits, "at_most"):
        if bound < 0:
            formula.add([])
        elif bound == 0:
            formula.extend([-lit] for lit in lits)
        elif in_cnf_plus(name):
            formula.atmost(lits, bound)
        elif name in ANY_BOUND:
            through_pysat(formula, "atmost", lits, bound, name)
        else:
            raise refuse(name, lits, bound)


def at_least(formula: Formula, lits: Sequence[int], bound: int, name: str) -> None:
    """``sum(lits) >= bound``; a bound of one is a plain clause, more than ``len(lits)`` the empty clause."""
    if bound <= 0:
        return
    with formula.scope(lits, "at_least"):
        if bound == 1:
            formula.add(lits)
        elif bound > len(lits):
            formula.add([])
        elif in_cnf_plus(name):
            formula.atmost([-lit for lit in lits], len(lits) - bound)
        elif name in ANY_BOUND:
            through_pysat(formula, "atleast", lits, bound, name)
        else:
            raise refuse(name, lits, bound)


def exactly(formula: Formula, lits: Sequence[int], bound: int, name: str) -> None:
    """``sum(lits) == bound`` as an at-least and an at-most."""
    at_least(formula, lits, bound, name)
    at_most(formula, lits, bound, name)
