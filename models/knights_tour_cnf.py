"""Knight's tours as CNF: successor arcs with ranks (``rank``, ``ordering``) or one-hot steps (``position``).

Every encoding's projection stands for exactly one directed tour, so blocking clauses count tours:

- ``rank`` and ``ordering``: one arc variable per move; every square has exactly one way in (an arc,
  or being first) and one way out (an arc, or being last). That alone allows disjoint subtours, so
  every square also gets a rank ``p(u)`` in 0..n-1, order-encoded as ``ge(u, k)`` = ``p(u) >= k``
  (a ladder of n-1 variables). The first square (a closed tour's root) has rank 0. ``rank`` makes
  every arc u -> v state ``p(v) = p(u) + 1``; ``ordering`` only ``p(v) > p(u)`` (the relative-ordering
  idea: no cycle can increase all the way round). Arcs back into a closed tour's root are exempt.
  Ranks are auxiliaries: the projection is the arcs and the first/last squares.
- ``position``: ``at(u, t)``, square u is step t, exactly one per step and per square, consecutive
  steps a knight move apart. A closed tour's step 0 is fixed at its root, so rotations count once.

Ranks and steps both know the knight's parity: a jump changes square colour, so when the first
square is known, ``p(u)`` is even exactly when u has the first square's colour.
"""

from __future__ import annotations

from pysat.formula import CNF, IDPool

from models import cardinality
from models.encoding import Encoding
from models.formulation import CnfFormulation
from models.knights_tour import Board, Square, arcs, decode, ends, rooted


def formulate(board: Board, encoding: Encoding) -> CnfFormulation:
    """The CNF of ``board`` in ``encoding`` (tour and card axes)."""
    pool, formula = IDPool(), CNF()
    if board.closed and board.area < 2:
        formula.append([])  # one square cannot jump back to itself
    if encoding["tour"] == "position":
        projection = positions(board, formula, pool, encoding["card"])
    else:
        projection = successors(board, formula, pool, encoding["card"])
        ranks(board, formula, pool, exact=encoding["tour"] == "rank")
    formula.nv = max(formula.nv, pool.top)
    return CnfFormulation(
        cnf=formula, pool=pool, projection=projection, decode=lambda values: rooted(board, decode(values))
    )


def successors(board: Board, formula: CNF, pool: IDPool, card: str) -> list[int]:
    """Arc, first and last variables with exactly one way into and out of every square."""
    ins: dict[Square, list[int]] = {u: [] for u in board.squares()}
    outs: dict[Square, list[int]] = {u: [] for u in board.squares()}
    for u, v in arcs(board):
        outs[u].append(pool.id(("arc", u, v)))
        ins[v].append(pool.id(("arc", u, v)))
    firsts, lasts = ends(board)
    for u in firsts:
        ins[u].append(pool.id(("first", u)))
    for u in lasts:
        outs[u].append(pool.id(("last", u)))
    for u in board.squares():
        cardinality.exactly_one(formula, ins[u], pool, card)
        cardinality.exactly_one(formula, outs[u], pool, card)
    if not board.closed:
        cardinality.exactly_one(formula, [pool.id(("first", u)) for u in firsts], pool, card)
        cardinality.exactly_one(formula, [pool.id(("last", u)) for u in lasts], pool, card)
    return [v for group in ins.values() for v in group] + [pool.id(("last", u)) for u in lasts]


def ranks(board: Board, formula: CNF, pool: IDPool, exact: bool) -> None:
    """Order-encoded ranks that rise along every arc, so that no subtour can close."""
    n = board.area

    def ge(u: Square, k: int) -> int:
        return pool.id(("ge", u, k))

    firsts, parity = set(ends(board)[0]), colour_of_first(board)
    for u in board.squares():
        formula.extend([-ge(u, k + 1), ge(u, k)] for k in range(1, n - 1))
        if board.closed:
            formula.append([-ge(u, 1)] if u == board.root else [ge(u, 1)])
        elif n > 1:
            # Rank 0 exactly when first; the last square has rank n - 1.
            first = [pool.id(("first", u))] if u in firsts else []
            formula.append([ge(u, 1)] + first)
            formula.extend([-f, -ge(u, 1)] for f in first)
            formula.append([-pool.id(("last", u)), ge(u, n - 1)])
        if parity is not None:
            odd = (u[0] + u[1] + parity) % 2  # p(u) is odd exactly when u's colour differs
            # p(u) >= k and p(u) >= k + 1 agree when k has the wrong parity for u.
            formula.extend([-ge(u, k), ge(u, k + 1)] for k in range(1, n - 1) if k % 2 != odd)
    for u, v in arcs(board):
        if board.closed and v == board.root:
            continue
        a = pool.id(("arc", u, v))
        formula.append([-a, ge(v, 1)])
        formula.extend([-a, -ge(u, k), ge(v, k + 1)] for k in range(1, n - 1))
        formula.append([-a, -ge(u, n - 1)])  # nothing follows rank n - 1
        if exact:
            formula.extend([-a, ge(u, k), -ge(v, k + 1)] for k in range(1, n - 1))


def colour_of_first(board: Board) -> int | None:
    """The square colour (r + c) % 2 of the first square, when it is fixed."""
    first = board.root if board.closed else board.start
    return None if first is None else (first[0] + first[1]) % 2


def positions(board: Board, formula: CNF, pool: IDPool, card: str) -> list[int]:
    """One-hot square x step variables; consecutive steps a knight move apart."""
    n, squares = board.area, list(board.squares())

    def at(u: Square, t: int) -> int:
        return pool.id(("at", u, t))

    projection = [at(u, t) for u in squares for t in range(n)]
    for t in range(n):
        cardinality.exactly_one(formula, [at(u, t) for u in squares], pool, card)
    for u in squares:
        cardinality.exactly_one(formula, [at(u, t) for t in range(n)], pool, card)
        later = range(n) if board.closed else range(n - 1)
        for t in later:
            formula.append([-at(u, t)] + [at(v, (t + 1) % n) for v in board.jumps(u)])
            formula.append([-at(u, (t + 1) % n)] + [at(v, t) for v in board.jumps(u)])
    first = board.root if board.closed else board.start
    if first is not None:
        formula.append([at(first, 0)])
        parity = colour_of_first(board)
        formula.extend([-at(u, t)] for u in squares for t in range(n) if (u[0] + u[1] + parity + t) % 2)
    return projection
