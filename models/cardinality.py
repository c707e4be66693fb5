"""Named cardinality encodings over ``pysat.card``, so CNF formulations never pass magic integers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gridsat.models.encoding import Axis
from gridsat.models.families import scoped

if TYPE_CHECKING:
    from pysat.formula import CNF, IDPool

# The names of pysat.card.EncType's members, looked up when a formulation is built (so that listing
# them does not load PySAT). Order matters: the first is the default, chosen by the tatami benchmark
# (python -m gridsat.benchmarks.compare.tatami --encodings).
ENCODINGS: tuple[str, ...] = (
    "pairwise", "seqcounter", "ladder", "totalizer", "bitwise", "cardnetwrk", "sortnetwrk", "mtotalizer", "kmtotalizer",
)

# pysat implements these only for a bound of one.
AT_MOST_ONE_ONLY = frozenset({"pairwise", "ladder", "bitwise"})


def enc_type(name: str) -> int:
    """The ``pysat.card.EncType`` value of a named encoding."""
    from pysat.card import EncType

    return getattr(EncType, name)


def axis(names: Sequence[str] | None = None, default: str = "pairwise") -> Axis:
    """The ``card`` axis of an encoding space, default first."""
    names = list(names or ENCODINGS)
    names.remove(default)
    return Axis("card", (default, *names))


@scoped
def at_most(cnf: CNF, lits: Sequence[int], bound: int, pool: IDPool, name: str) -> None:
    """Add ``sum(lits) <= bound`` to ``cnf``, auxiliaries drawn from ``pool``."""
    if bound >= len(lits):
        return
    if bound < 0:
        cnf.append([])
        return
    if bound == 0:
        cnf.extend([[-lit] for lit in lits])
        return
    from pysat.card import CardEnc

    encoding = name if bound == 1 or name not in AT_MOST_ONE_ONLY else "seqcounter"
    add(cnf, CardEnc.atmost(list(lits), bound=bound, vpool=pool, encoding=enc_type(encoding)))


@scoped
def at_least(cnf: CNF, lits: Sequence[int], bound: int, pool: IDPool, name: str) -> None:
    """Add ``sum(lits) >= bound``; a bound of one is a plain clause."""
    if bound <= 0:
        return
    if bound == 1:
        cnf.append(list(lits))
        return
    if bound > len(lits):
        cnf.append([])
        return
    from pysat.card import CardEnc

    encoding = name if name not in AT_MOST_ONE_ONLY else "seqcounter"
    add(cnf, CardEnc.atleast(list(lits), bound=bound, vpool=pool, encoding=enc_type(encoding)))


def exactly(cnf: CNF, lits: Sequence[int], bound: int, pool: IDPool, name: str) -> None:
    """Add ``sum(lits) == bound`` as an at-least and an at-most."""
    at_least(cnf, lits, bound, pool, name)
    at_most(cnf, lits, bound, pool, name)


def exactly_one(cnf: CNF, lits: Sequence[int], pool: IDPool, name: str) -> None:
    """Add ``sum(lits) == 1``: one clause plus the named at-most-one."""
    exactly(cnf, lits, 1, pool, name)


def add(cnf: CNF, encoded: CNF) -> None:
    """Append an encoding's clauses (in one step: CNF.extend checks every clause for ``nv``)."""
    cnf.clauses.extend(encoded.clauses)
    cnf.nv = max(cnf.nv, encoded.nv)
