"""At-most-one encodings written from their papers: commander, product and bimander.

Each is exact as an at-most-one: with at most one input true some assignment of its auxiliaries
satisfies it, with two or more none does (tests/test_amo.py checks every assignment on small n).
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import TYPE_CHECKING

from gridsat.models.constraints.amo.registry import Declared, encoding

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

COMMANDER_GROUP = 3  # Klieber and Kwon's group size: 3.5n clauses, n/2 auxiliaries
PRODUCT_BASE = 4  # the product's recursion ends here, in the pairwise encoding (the product of 4 is larger)


def pairs(formula: Formula, lits: list[int]) -> None:
    """The pairwise at-most-one (the base case of the encodings here)."""
    formula.clauses.extend([-a, -b] for a, b in combinations(lits, 2))


def split(lits: list[int], parts: int) -> list[list[int]]:
    """``lits`` in ``parts`` consecutive groups whose sizes differ by at most one."""
    size, extra = divmod(len(lits), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (i < extra)
        out.append(lits[start:end])
        start = end
    return out


def commander_size(n: int) -> tuple[int, int]:
    """V(n) = m + V(m), C(n) = sum over the m = ceil(n/3) groups g of (g(g-1)/2 + g + 1) + C(m); pairwise at n <= 3."""
    if n <= COMMANDER_GROUP:
        return 0, n * (n - 1) // 2
    m = math.ceil(n / COMMANDER_GROUP)
    variables, clauses = commander_size(m)
    return m + variables, sum(len(g) * (len(g) - 1) // 2 + len(g) + 1 for g in split(list(range(n)), m)) + clauses


def product_size(n: int) -> tuple[int, int]:
    """V(n) = p + q + V(p) + V(q), C(n) = 2n + C(p) + C(q), p = ceil(sqrt n), q = ceil(n/p); pairwise at n <= 4."""
    if n <= PRODUCT_BASE:
        return 0, n * (n - 1) // 2
    p = math.ceil(math.sqrt(n))
    q = math.ceil(n / p)
    (vp, cp), (vq, cq) = product_size(p), product_size(q)
    return p + q + vp + vq, 2 * n + cp + cq


def bimander_size(n: int) -> tuple[int, int]:
    """ceil(log2 ceil(n/2)) variables, floor(n/2) + n ceil(log2 ceil(n/2)) clauses."""
    bits = (math.ceil(n / 2) - 1).bit_length()
    return bits, n // 2 + n * bits


@encoding("commander", Declared("Klieber and Kwon, CFV 2007 (groups of three)",
                                "about n/2; about 3.5n ((n-3)/2; 3.5n-7.5 for n = 3^k; "
                                "exactly commander_size's recurrence)",
                                commander_size, least=2))
def commander(formula: Formula, lits: list[int]) -> None:
    """The commander encoding (Klieber and Kwon, "Efficient CNF Encoding for Selecting 1 from N Objects",
    CFV 2007), groups of three.

    The n inputs are split into m = ceil(n/3) groups (sizes as equal as possible); group i gets a
    commander c_i with: at most one of the group (pairwise), c_i -> some input of the group, every input
    of the group -> c_i (so c_i is true exactly when one of its group is). Then at most one commander,
    recursively, until three or fewer remain, which are encoded pairwise.

    Size (n = 3^k): (n-3)/2 variables, 3.5n - 7.5 clauses; in general V(n) = m + V(m),
    C(n) = sum over groups g of (g(g-1)/2 + g + 1) + C(m), with V(n) = 0, C(n) = n(n-1)/2 for n <= 3.
    """
    while len(lits) > COMMANDER_GROUP:
        commanders = []
        for group in split(lits, math.ceil(len(lits) / COMMANDER_GROUP)):
            c = formula.aux()
            pairs(formula, group)
            formula.clauses.append([-c, *group])
            formula.clauses.extend([-x, c] for x in group)
            commanders.append(c)
        lits = commanders
    pairs(formula, lits)


@encoding("product", Declared("Chen, ModRef 2010 (2-product, recursive down to four inputs)",
                              "2 sqrt(n) + O(n^(1/4)); 2n + 4 sqrt(n) + O(n^(1/4)) (exactly product_size's recurrence)",
                              product_size, least=2))
def product(formula: Formula, lits: list[int]) -> None:
    """The 2-product encoding (Chen, "A New SAT Encoding of the At-Most-One Constraint", ModRef 2010).

    The n inputs are laid out row by row in a p x q grid, p = ceil(sqrt n), q = ceil(n/p), with a
    variable u_i per row and v_j per column: input (i, j) implies u_i and v_j, and at most one u and at
    most one v hold, each by the product encoding again, down to groups of four or fewer (pairwise).

    Size: 2 sqrt(n) + O(n^(1/4)) variables, 2n + 4 sqrt(n) + O(n^(1/4)) clauses; exactly
    V(n) = p + q + V(p) + V(q), C(n) = 2n + C(p) + C(q), with V(n) = 0, C(n) = n(n-1)/2 for n <= 4.
    """
    if len(lits) <= PRODUCT_BASE:
        pairs(formula, lits)
        return
    p = math.ceil(math.sqrt(len(lits)))
    q = math.ceil(len(lits) / p)
    rows = [formula.aux() for _ in range(p)]
    cols = [formula.aux() for _ in range(q)]
    for k, x in enumerate(lits):
        formula.clauses.append([-x, rows[k // q]])
        formula.clauses.append([-x, cols[k % q]])
    product(formula, rows)
    product(formula, cols)


@encoding("bimander", Declared("Hölldobler and Nguyen, 2013 (ceil(n/2) groups of two)",
                               "ceil(log2 ceil(n/2)); floor(n/2) + n ceil(log2 ceil(n/2))", bimander_size, least=2))
def bimander(formula: Formula, lits: list[int]) -> None:
    """The bimander encoding (Hölldobler and Nguyen, "An Efficient Encoding of the At-Most-One Constraint",
    TU Dresden KRR report 13-04, 2013), with m = ceil(n/2) groups (groups of two, PBLib's default).

    The n inputs are split into m groups (sizes as equal as possible), each at most one pairwise; group
    i's inputs each imply the binary code of i on k = ceil(log2 m) shared bits B_1..B_k, so inputs of two
    groups cannot both hold. (m = 1 is the pairwise encoding, m = n the binary one.)

    Size: ceil(log2 ceil(n/2)) variables, floor(n/2) + n ceil(log2 ceil(n/2)) clauses.
    """
    groups = split(lits, math.ceil(len(lits) / 2))
    bits = [formula.aux() for _ in range((len(groups) - 1).bit_length())]
    for i, group in enumerate(groups):
        pairs(formula, group)
        code = [bit if (i >> h) & 1 else -bit for h, bit in enumerate(bits)]
        formula.clauses.extend([-x, b] for x in group for b in code)
