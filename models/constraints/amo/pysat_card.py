"""The encodings of ``pysat.card`` at a bound of one (each of its kinds writes different clauses there)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridsat.models.constraints.amo.registry import Write, encoding

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

def pysat_encoding(name: str, doc: str) -> Write:
    """The ``pysat.card`` encoding ``name`` at a bound of one, registered under the same name."""

    def write(formula: Formula, lits: list[int]) -> None:
        from pysat.card import CardEnc, EncType

        formula.absorb(CardEnc.atmost(lits, bound=1, vpool=formula.pool, encoding=getattr(EncType, name)))

    write.__name__ = write.__qualname__ = name
    write.__doc__ = doc
    return encoding(name)(write)


pairwise = pysat_encoding("pairwise", """The pairwise (naive) encoding: a binary clause for every pair.
    Size: 0 variables, n(n-1)/2 clauses. Propagation: arc consistent.""")
seqcounter = pysat_encoding("seqcounter", """The sequential counter (Sinz, CP 2005), at k = 1.
    Size: n-1 variables, 3n-4 clauses. Propagation: arc consistent.""")
ladder = pysat_encoding("ladder", """The ladder (regular) encoding (Gent and Nightingale, ModRef 2004), as PySAT
    writes it. Size: n+1 variables, 4n clauses (n >= 3). Propagation: arc consistent.""")


totalizer = pysat_encoding("totalizer", """The totalizer (Bailleux and Boufkhad, CP 2003), at k = 1 (PySAT builds the
    unary counts up to k + 1). Size: O(n log n) clauses, O(n log n) variables.""")
bitwise = pysat_encoding("bitwise", """The binary (bitwise) encoding (Frisch et al. 2005; Prestwich 2007): each input
    implies its index's bits. Size: ceil(log2 n) variables, n ceil(log2 n) clauses. Propagation: not arc consistent.""")
cardnetwrk = pysat_encoding("cardnetwrk", """Cardinality networks (Asin, Nieuwenhuis, Oliveras, Rodriguez-Carbonell,
    SAT 2009 / Constraints 2011), at k = 1. Size: O(n log^2 k) clauses: linear at k = 1.""")
sortnetwrk = pysat_encoding("sortnetwrk", """Sorting networks (Een and Sorensson, JSAT 2006), at k = 1: a full
    odd-even merge sort of the inputs. Size: O(n log^2 n) variables and clauses.""")
mtotalizer = pysat_encoding("mtotalizer", """The modulo totalizer (Ogawa, Liu, Hasegawa, Koshimura, Fujita,
    ICTAI 2013), at k = 1 (modulus about sqrt(k + 1)). Size: O(n log n).""")
kmtotalizer = pysat_encoding("kmtotalizer", """The k-cardinality modulo totalizer (Morgado, Ignatiev,
    Marques-Silva, 2014), at k = 1. Size: about 2n variables and 4n clauses at k = 1.""")
