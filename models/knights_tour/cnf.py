"""Knight's tours as CNF: successor arcs that form one circuit (``cutset``, ``crt``, ``rank``, ``ordering``,
``binary``, ``transitive``, ``distance``) or steps (``position``).

Every encoding's projection stands for exactly one directed tour, so blocking clauses count tours:

- The successor encodings have one arc variable per move and every square has exactly one way in
  (an arc, or being first) and one way out (an arc, or being last): a circuit through the squares,
  and for an open tour a dummy node whose arcs out are ``first`` and whose arcs in are ``last``
  (models/constraints/circuit.py). That alone allows disjoint subtours, which each encoding rules out its own way:
- ``cutset`` lazily: the CNF holds the degree constraints, no 2-cycles and a cut-set clause for the
  squares of every 4-cycle; the sat backend adds cut-set clauses (some arc leaves, and some arc
  enters, the squares of a subtour) for every subtour of every model until a model is one tour.
  Exact: every tour satisfies every cut-set clause.
- ``crt``: every node's distance from the root (a closed tour's first square, an open tour's dummy
  node) modulo a few small primes, one-hot (the Chinese remainder encoding): 2 x (3 + 5 + 7 + 11)
  clauses per arc up to 40x40, linear in the number of arcs.
- ``rank`` and ``ordering``: every square gets a rank ``p(u)`` in 0..n-1, order-encoded as
  ``ge(u, k)`` = ``p(u) >= k`` (a ladder of n-1 variables). The first square (a closed tour's root)
  has rank 0. ``rank`` makes every arc u -> v state ``p(v) = p(u) + 1``; ``ordering`` only
  ``p(v) > p(u)`` (the relative-ordering idea: no cycle can increase all the way round). Arcs back
  into a closed tour's root are exempt. ``binary`` writes the ranks as binary numbers instead, with
  one incrementer per arc. These grow with arcs x n (rank, ordering) or arcs x log n (binary).
- ``transitive``: Velev and Gao's relative ordering, one "comes before" variable per pair of squares
  joined in a chordal completion of the moves, transitive on its triangles only
  (models/constraints/transitivity.py, with its paper, sizes and propagation).
- ``distance``: Zhou's positions, each square's domain pruned to what its shortest knight distances
  from (and back to) the first square allow (models/constraints/distances.py, likewise).
- ``position``: ``at(u, t)``, square u is step t, exactly one per step and per square, consecutive
  steps a knight move apart. A closed tour's step 0 is fixed at its root, so rotations count once.
- any other name: a CNF tour encoding registered (models/constraints/tours.py, a plugin's too), written on
  the circuit's degree constraints, counting from the root below.

Ranks, residues and steps are auxiliaries: the projection is the arcs and the first/last squares (the
``at`` variables for ``position``). Ranks and steps know the knight's parity: a jump changes square
colour, so ``p(u)`` is even exactly when u has the first square's colour (for an open tour from
anywhere, one more variable holds that colour).

A formulation that would be too large to build is refused up front (``MAX_CLAUSES``), and building
stops at a run's deadline (``check_deadline``).
"""

from __future__ import annotations

import functools

from pysat.formula import IDPool

from gridsat.models.constraints import Formula, distances
from gridsat.models.constraints.amo import exactly_one, measured
from gridsat.models.constraints.circuit import Circuit, primes_for
from gridsat.models.constraints.elimination import triangles
from gridsat.models.constraints.tours import CNF_TOURS
from gridsat.models.constraints.transitivity import elimination_order, relative_order
from gridsat.models.encoding import Encoding
from gridsat.models.errors import InvalidInstance
from gridsat.models.formulation import CnfFormulation, check_deadline
from gridsat.models.knights_tour.board import Board, Square, arcs, decoder, ends

# About 200 bytes and a microsecond of Python per clause: 5 million clauses take a gigabyte and
# several seconds to build, before the solver has copied them.
MAX_CLAUSES = 5_000_000


def formulate(board: Board, encoding: Encoding) -> CnfFormulation:
    """The CNF of ``board`` in ``encoding`` (tour and amo axes)."""
    refuse_oversized(board, encoding)
    formula = Formula("knights_tour:cnf")
    if board.closed and board.area < 2:
        with formula.family("no closed tour of one square"):
            formula.add([])  # one square cannot jump back to itself
    tour, refine, witness, vouch = encoding["tour"], None, None, None
    if tour == "position":
        projection = positions(board, formula, encoding["amo"])
    else:
        circuit = tour_circuit(board, formula.pool)
        circuit.degrees(formula, encoding["amo"])
        circuit.forbid_unbalanced(formula)
        projection = [var for _, _, var in circuit.arcs]
        if tour in ("cutset", "crt"):
            circuit.forbid_two_cycles(formula)
        if tour == "cutset":
            circuit.cut_four_cycles(formula, skip=None if board.closed else board.area)
            refine, witness, vouch = circuit.refine, circuit.witness, circuit.vouch
        elif tour == "crt":
            circuit.residues(formula, root_node(board), encoding["amo"])
        elif tour == "transitive":
            relative_order(circuit, formula, root_node(board), elimination(board))
        elif tour == "distance":
            distances.positions(circuit, formula, root_node(board))
        elif tour == "binary":
            if board.area > 1:  # one square has nothing to order
                binary_ranks(board, formula)
        elif tour in ("rank", "ordering"):
            if board.area > 1:
                ranks(board, formula, exact=tour == "rank")
        else:  # a registered one (models/constraints/tours.py)
            CNF_TOURS[tour](circuit, formula, root_node(board), encoding["amo"])
    # Every tour sets the same number of projection variables (one way into every square, plus one
    # last square), so blocking its true ones is enough.
    return CnfFormulation(**formula.parts(), projection=projection, block_true_only=True, refine=refine,
                          witness=witness, vouch=vouch,
                          decode=decoder(board))


def tour_circuit(board: Board, pool: IDPool) -> Circuit:
    """The squares (row-major) as circuit nodes, plus a dummy node for an open tour; arcs are the moves."""
    squares = list(board.squares())
    node = {square: i for i, square in enumerate(squares)}
    links = [(node[u], node[v], pool.id(("arc", u, v))) for u, v in arcs(board)]
    firsts, lasts = ends(board)
    dummy = board.area
    links += [(dummy, node[u], pool.id(("first", u))) for u in firsts]
    links += [(node[u], dummy, pool.id(("last", u))) for u in lasts]
    names = squares if board.closed else [*squares, "dummy"]
    return Circuit(len(names), links, names)


@functools.lru_cache(maxsize=4)
def elimination(board: Board) -> list[tuple[int, list[int]]]:
    """The minimum-degree elimination of the board's moves without the root (``transitive``), made once
    for the size estimate and the formulation alike; only a prefix when it has more triangles than
    ``MAX_CLAUSES`` allows (such a board is refused, so the rest would be wasted time)."""
    return elimination_order(tour_circuit(board, IDPool()), root_node(board), most=MAX_CLAUSES // 2)


def root_node(board: Board) -> int:
    """Where residues count from: a closed tour's first square, or an open tour's dummy node."""
    return board.root[0] * board.cols + board.root[1] if board.closed else board.area


def refuse_oversized(board: Board, encoding: Encoding) -> None:
    """Refuse, in one line, a formulation with more than ``MAX_CLAUSES`` clauses (estimated up front)."""
    estimate = clauses_estimate(board, encoding)
    if estimate > MAX_CLAUSES:
        raise InvalidInstance(
            f"the {encoding.name} CNF of a {board.rows}x{board.cols} board would have about {estimate:,} clauses "
            f"(gridsat builds at most {MAX_CLAUSES:,}); the cutset encoding needs far fewer")


def clauses_estimate(board: Board, encoding: Encoding) -> int:
    """About how many clauses ``formulate`` writes (within a small factor; exact for the large terms)."""
    n, amo = board.area, encoding["amo"]
    moves = sum(len(board.jumps(u)) for u in board.squares())

    def one(k: int) -> int:
        return 1 + measured(amo, k)[1]

    tour = encoding["tour"]
    if tour == "position":
        return 2 * n * one(n) + 2 * n * n
    dummy = 0 if board.closed else 2 * one(n)
    degrees = 2 * n * one(9) + dummy
    width = max(1, (n - 1).bit_length())
    if tour == "transitive":
        order = elimination(board)
        # A prefix (stopped past the limit) stands for the whole at its rate per vertex, an underestimate:
        # minimum degree eliminates the cheap vertices first.
        vertices = n - 1 if board.closed else n
        return degrees + moves + 2 * triangles(order) * vertices // max(1, len(order))
    if tour == "distance":
        return degrees + distance_clauses(board)
    extra = {
        "cutset": moves // 2,
        "crt": moves // 2 + (2 * moves + n * 20) * sum(primes_for(n, even=True)),
        "rank": 2 * moves * n,
        "ordering": moves * n,
        "binary": moves * (4 * width + 1) + n * 5 * width,
    }.get(tour, 0)  # a registered encoding states no size: its degree constraints, at least
    return degrees + extra


def distance_clauses(board: Board) -> int:
    """About how many clauses ``distance`` writes for its positions: two per arc and shared domain value."""
    circuit = tour_circuit(board, IDPool())
    root = root_node(board)
    values = distances.domains(circuit, root)
    total = sum(max(0, len(domain) - 2) for domain in values)
    for tail, head, _ in circuit.arcs:
        if head != root and values[tail] and values[head]:
            low, high = min(values[tail].start + 1, values[head].start), max(values[tail][-1], values[head][-1] - 1)
            total += 2 * max(1, (high - low) // values[head].step + 1)
    return total


def ranks(board: Board, formula: Formula, exact: bool) -> None:
    """Order-encoded ranks that rise along every arc, so that no subtour can close."""
    n, clauses, pool = board.area, formula.clauses, formula.pool
    ge = {u: [0] + [pool.id(("ge", u, k)) for k in range(1, n)] for u in board.squares()}  # ge[u][k]
    firsts, parity = set(ends(board)[0]), colour_of_first(board)
    # When the first square is not fixed, one variable says its colour: 1 when (r + c) is odd.
    colour = pool.id(("colour",)) if parity is None and not board.closed and n > 1 else None
    for u in board.squares():
        check_deadline()
        g = ge[u]
        with formula.family("rank order"):
            clauses.extend([-g[k + 1], g[k]] for k in range(1, n - 1))
        if board.closed:
            with formula.family("the root ranks first"):
                clauses.append([-g[1]] if u == board.root else [g[1]])
        elif n > 1:
            # Rank 0 exactly when first; the last square has rank n - 1.
            first = [pool.id(("first", u))] if u in firsts else []
            with formula.family("rank 0 only when first"):
                clauses.append([g[1]] + first)
            with formula.family("the first ranks 0"):
                clauses.extend([-f, -g[1]] for f in first)
            with formula.family("the last ranks n-1"):
                clauses.append([-pool.id(("last", u)), g[n - 1]])
        # A jump changes colour, so p(u) = k only when k has the parity of u's colour against the
        # first square's; p(u) >= k and p(u) >= k + 1 then agree for every other k.
        if parity is not None:
            odd = (u[0] + u[1] + parity) % 2
            with formula.family("ranks keep the colour"):
                clauses.extend([-g[k], g[k + 1]] for k in range(1, n - 1) if k % 2 != odd)
        elif colour is not None:
            # p(u) = k needs colour = (r + c + k) % 2.
            wrong = [colour if (u[0] + u[1] + k) % 2 else -colour for k in range(n)]
            with formula.family("ranks follow the colour"):
                clauses.extend([-g[k], g[k + 1], wrong[k]] for k in range(1, n - 1))
            with formula.family("the last rank follows the colour"):
                clauses.append([-g[n - 1], wrong[n - 1]])
            if u in firsts:
                with formula.family("the first follows the colour"):
                    clauses.append([-pool.id(("first", u)), wrong[0]])
    for u, v in arcs(board):
        if board.closed and v == board.root:
            continue
        check_deadline()
        a, gu, gv = pool.id(("arc", u, v)), ge[u], ge[v]
        with formula.family("an arc's head is not first"):
            clauses.append([-a, gv[1]])
        with formula.family("ranks rise along an arc"):
            clauses.extend([-a, -gu[k], gv[k + 1]] for k in range(1, n - 1))
        with formula.family("nothing follows the last rank"):
            clauses.append([-a, -gu[n - 1]])  # nothing follows rank n - 1
        if exact:
            with formula.family("ranks rise by one along an arc"):
                clauses.extend([-a, gu[k], -gv[k + 1]] for k in range(1, n - 1))


def colour_of_first(board: Board) -> int | None:
    """The square colour (r + c) % 2 of the first square, when it is fixed."""
    first = board.root if board.closed else board.start
    return None if first is None else (first[0] + first[1]) % 2


def positions(board: Board, formula: Formula, amo: str) -> list[int]:
    """One-hot square x step variables; consecutive steps a knight move apart."""
    n, squares, pool = board.area, list(board.squares()), formula.pool

    def at(u: Square, t: int) -> int:
        return pool.id(("at", u, t))

    projection = [at(u, t) for u in squares for t in range(n)]
    with formula.family("one square per step"):
        for t in range(n):
            check_deadline()
            exactly_one(formula, [at(u, t) for u in squares], amo)
    for u in squares:
        check_deadline()
        with formula.family("one step per square"):
            exactly_one(formula, [at(u, t) for t in range(n)], amo)
        later = range(n) if board.closed else range(n - 1)
        for t in later:
            with formula.family("a knight move to the next step"):
                formula.add([-at(u, t)] + [at(v, (t + 1) % n) for v in board.jumps(u)])
            with formula.family("a knight move from the step before"):
                formula.add([-at(u, (t + 1) % n)] + [at(v, t) for v in board.jumps(u)])
    first = board.root if board.closed else board.start
    if first is not None:
        with formula.family("the first square at step 0"):
            formula.add([at(first, 0)])
        parity = colour_of_first(board)
        with formula.family("steps keep the colour"):
            formula.extend([-at(u, t)] for u in squares for t in range(n) if (u[0] + u[1] + parity + t) % 2)
    return projection


def binary_ranks(board: Board, formula: Formula) -> None:
    """Ranks as binary numbers: every arc u -> v says p(v) = p(u) + 1 through an incrementer."""
    n, pool = board.area, formula.pool
    width = max(1, (n - 1).bit_length())

    def bit(u: Square, i: int) -> int:
        return pool.id(("bit", u, i))

    def carry(u: Square, i: int) -> int:
        """Bits 0..i-1 of p(u) are all ones (carry into bit i of p(u) + 1); carry 0 is true."""
        return pool.id(("carry", u, i))

    firsts = set(ends(board)[0])
    for u in board.squares():
        check_deadline()
        with formula.family("carry into bit 0"):
            formula.add([carry(u, 0)])
        with formula.family("carries"):
            for i in range(width):
                # carry(i + 1) <-> carry(i) & bit(i)
                formula.extend(
                    [
                        [-carry(u, i + 1), carry(u, i)],
                        [-carry(u, i + 1), bit(u, i)],
                        [carry(u, i + 1), -carry(u, i), -bit(u, i)],
                    ]
                )
        with formula.family("rank below n"):
            forbid_at_least(formula, [bit(u, i) for i in range(width)], n)  # p(u) <= n - 1
        zero = [[-bit(u, i)] for i in range(width)]
        if board.closed:
            if u == board.root:
                with formula.family("the root ranks 0"):
                    formula.extend(zero)
        elif u in firsts:
            with formula.family("the first ranks 0"):
                formula.extend([-pool.id(("first", u))] + z for z in zero)
    for u, v in arcs(board):
        if board.closed and v == board.root:
            continue
        check_deadline()
        a = pool.id(("arc", u, v))
        with formula.family("an arc adds one"):
            for i in range(width):
                x, c, y = bit(u, i), carry(u, i), bit(v, i)  # y = x xor c
                formula.extend([[-a, -x, -c, -y], [-a, x, c, -y], [-a, x, -c, y], [-a, -x, c, y]])
        with formula.family("no overflow"):
            formula.add([-a, -carry(u, width)])  # no overflow


def forbid_at_least(formula: Formula, bits: list[int], bound: int) -> None:
    """The binary number ``bits`` (least significant first) is below ``bound``."""
    limit = bound - 1
    for i in range(len(bits)):
        if not (limit >> i) & 1:
            # bit i set while every higher bit matches limit's ones would exceed limit
            higher = [-bits[j] for j in range(i + 1, len(bits)) if (limit >> j) & 1]
            formula.add([-bits[i], *higher])
