"""The encodings of ``pysat.card`` at a bound of one (each of its kinds writes different clauses there)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridsat.models.constraints.amo.registry import Declared, Write, encoding

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

def pysat_encoding(name: str, doc: str, declared: Declared) -> Write:
    """The ``pysat.card`` encoding ``name`` at a bound of one, registered under the same name."""

    def write(formula: Formula, lits: list[int]) -> None:
        from pysat.card import CardEnc, EncType

        formula.absorb(CardEnc.atmost(lits, bound=1, vpool=formula.pool, encoding=getattr(EncType, name)))

    write.__name__ = write.__qualname__ = name
    write.__doc__ = doc
    return encoding(name, declared)(write)


def log2(n: int) -> int:
    """ceil(log2 n)."""
    return (n - 1).bit_length()


def totalizer_size(n: int) -> tuple[int, int]:
    """PySAT's totalizer at k = 1 builds the full unary count: a node over n inputs split into a = n // 2
    and b = n - a has n outputs and (a+1)(b+1) - 1 clauses; then one clause caps the root at one."""

    def tree(m: int) -> tuple[int, int]:
        if m == 1:
            return 0, 0
        (va, ca), (vb, cb) = tree(m // 2), tree(m - m // 2)
        return m + va + vb, (m // 2 + 1) * (m - m // 2 + 1) - 1 + ca + cb

    variables, clauses = tree(n)
    return variables, clauses + 1


def sortnetwrk_size(n: int) -> tuple[int, int]:
    """Batcher's odd-even merge sort of p = 2^m >= n inputs has c = (m^2 - m + 4) 2^(m-2) - 1
    comparators, 2 variables and 3 clauses each (one direction), plus the cap; padding adds one constant."""
    m = log2(n)
    c = (m * m - m + 4) * 2 ** (m - 2) - 1
    padded = int(n != 2**m)
    return 2 * c + padded, 3 * c + 1 + padded


def cardnetwrk_size(n: int) -> tuple[int, int]:
    """The cardinality network at k = 1 on an even n; an odd n is padded by one constant input."""
    return (4 * n - 6, 6 * n - 8) if n % 2 == 0 else (4 * n - 1, 6 * n - 1)


pairwise = pysat_encoding("pairwise", """The pairwise (naive) encoding: a binary clause for every pair.
    Size: 0 variables, n(n-1)/2 clauses. Propagation: propagation-complete on its inputs.""",
    Declared("folklore (the naive encoding)", "0; n(n-1)/2", lambda n: (0, n * (n - 1) // 2), least=2))
seqcounter = pysat_encoding("seqcounter", """The sequential counter (Sinz, CP 2005), at k = 1.
    Size: n-1 variables, 3n-4 clauses (n >= 3). Propagation: propagation-complete on its inputs.""",
    Declared("Sinz, CP 2005 (sequential counter)", "n-1; 3n-4", lambda n: (n - 1, 3 * n - 4)))
ladder = pysat_encoding("ladder", """The ladder (regular) encoding (Gent and Nightingale, ModRef 2004) as PySAT
    writes it at k = 1: the exactly-one ladder over the n inputs and one slack input (none true), with the
    channelling both ways, not the 3(n-1)-clause at-most-one ladder. Size: n+1 variables (n rungs and the
    slack), 4n clauses (n >= 3). Propagation: propagation-complete on its inputs.""",
    Declared("Gent and Nightingale, ModRef 2004 (ladder / regular encoding), PySAT's exactly-one ladder with a slack",
             "n+1; 4n", lambda n: (n + 1, 4 * n)))


totalizer = pysat_encoding("totalizer", """The totalizer (Bailleux and Boufkhad, CP 2003), at k = 1. PySAT builds
    the unary counts of every node in full, not capped at k + 1, so at a bound of one it is a quadratic
    strawman: n ceil(log2 n) variables for n a power of two, 1 + the sum over its nodes of (a+1)(b+1) - 1
    clauses, about 0.6 n^2 (2,401 at n = 64; ``totalizer_size``). Propagation: propagation-complete on its
    inputs.""",
    Declared("Bailleux and Boufkhad, CP 2003 (totalizer; PySAT builds the unary counts in full)",
             "n log2 n (n a power of two); 1 + sum over the tree of (a+1)(b+1) - 1, about 0.6 n^2", totalizer_size))
bitwise = pysat_encoding("bitwise", """The binary (bitwise) encoding (Frisch et al. 2005; Prestwich 2007): each input
    implies its index's bits. Size: ceil(log2 n) variables, n ceil(log2 n) clauses. Propagation:
    propagation-complete on its inputs (the bits, auxiliary, are not: ``gridsat strength`` checks the inputs).""",
    Declared("the binary encoding: Frisch et al. 2005, Prestwich 2007", "ceil(log2 n); n ceil(log2 n)",
             lambda n: (log2(n), n * log2(n))))
cardnetwrk = pysat_encoding("cardnetwrk", """Cardinality networks (Asin, Nieuwenhuis, Oliveras, Rodriguez-Carbonell,
    SAT 2009 / Constraints 2011), at k = 1. Size: 4n-6 variables, 6n-8 clauses for an even n, an odd n
    padded by one constant input (4n-1, 6n-1): linear at k = 1.""",
    Declared("Asín, Nieuwenhuis, Oliveras, Rodríguez-Carbonell, SAT 2009 (cardinality networks)",
             "4n-6; 6n-8 (n even; n odd: 4n-1; 6n-1)", cardnetwrk_size))
sortnetwrk = pysat_encoding("sortnetwrk", """Sorting networks (Een and Sorensson, JSAT 2006), at k = 1: a full
    odd-even merge sort of the inputs padded to p = 2^m. Size: 2c variables, 3c + 1 clauses,
    c = (m^2 - m + 4) 2^(m-2) - 1 comparators (one more of each when padded): O(n log^2 n).""",
    Declared("Eén and Sörensson, JSAT 2006 (odd-even merge sorting networks)",
             "2c; 3c+1, c = (m^2-m+4) 2^(m-2) - 1 comparators, 2^m >= n (+1 each when padded)", sortnetwrk_size))
mtotalizer = pysat_encoding("mtotalizer", """The modulo totalizer (Ogawa, Liu, Hasegawa, Koshimura, Fujita,
    ICTAI 2013), at k = 1 (modulus about sqrt(k + 1)). Size: no closed form here; measured (990 clauses at n = 64).""",
    Declared("Ogawa, Liu, Hasegawa, Koshimura, Fujita, ICTAI 2013 (modulo totalizer)", "measured only"))
kmtotalizer = pysat_encoding("kmtotalizer", """The k-cardinality modulo totalizer (Morgado, Ignatiev,
    Marques-Silva, 2014), at k = 1. Size: 2n-2 variables, 4n-4 clauses (n >= 3).""",
    Declared("Morgado, Ignatiev, Marques-Silva, JSAT 2014 (k-cardinality modulo totalizer)", "2n-2; 4n-4",
             lambda n: (2 * n - 2, 4 * n - 4)))
