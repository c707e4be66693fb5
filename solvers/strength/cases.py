"""The constraint encodings ``gridsat strength`` checks: a registry of named cases, each building small
instances of one encoding exactly as gridsat writes it.

Two ways to build one:

- ``cardinality_case``: the at-most-one helpers (models/constraints/amo) on ``n`` fresh literals, as
  every formulation calls them;
- ``sliced``: a real formulation of a small instance, whose ``Formula`` notes where every clause comes
  from (models/constraints/notes.py), cut down to the clauses about a few chosen variables (those
  whose scope, the inputs of a cardinality call or else the clause's own variables, lies within the
  primary variables and the named auxiliaries). So the check reads the very clauses a run solves.

A case's ``kind`` says the verdict's words: ``propagation`` (propagation-complete) or ``arc`` (arc
consistency, for the value literals of finite-domain variables). A claim about part of an encoding
says which (``part``) and what it leaves unchecked; ``families`` names the clause families its
instances must hold (the checker refuses an instance without one). Add a case with ``register``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, replace

from gridsat.models.constraints import Formula, amo
from gridsat.solvers.strength.check import Constraint

Key = Hashable
Pick = Callable[[Key], bool]
Leq = Callable[[Formula, list[int], list[int]], object]


@dataclass(frozen=True)
class Claim:
    """One encoding and the strength it claims, to check: its name, its verdict's words, and its small instances."""

    name: str
    kind: str  # "propagation" or "arc"
    build: Callable[[], list[Constraint]]
    summary: str = ""
    families: tuple[str, ...] = ()  # the start of each family label the instances must hold a clause of
    part: str = ""  # the part of the encoding the instances hold ("" when the claim is the whole constraint)
    unchecked: str = ""  # what of the encoding the claim leaves out
    claimed: str = ""  # the strength its registration declares ("propagation-complete"), when it does

    @property
    def word(self) -> str:
        return "propagation-complete" if self.kind == "propagation" else "arc-consistent"

    def scoped(self, said: str) -> str:
        """``said`` of the part checked: ``degrees of one square: PC; subtour elimination: not checked``."""
        text = f"{self.part}: {said}" if self.part else said
        return f"{text}; {self.unchecked}: not checked" if self.unchecked else text


class Cases(MutableMapping[str, Claim]):
    """The registry: cases added one by one, and live families of cases (``follow``), such as one per
    at-most-one encoding, read each time the registry is, so that an encoding a plugin registers later is
    checked too. In the order they were added; a later case of the same name replaces an earlier one."""

    def __init__(self) -> None:
        self._sources: list[dict[str, Claim] | Callable[[], Iterable[Claim]]] = []

    def follow(self, family: Callable[[], Iterable[Claim]]) -> None:
        """Add the cases ``family`` gives whenever the registry is read."""
        self._sources.append(family)

    def _now(self) -> dict[str, Claim]:
        out: dict[str, Claim] = {}
        for source in self._sources:
            out.update(source if isinstance(source, dict) else {c.name: c for c in source()})
        return out

    def __getitem__(self, name: str) -> Claim:
        return self._now()[name]

    def __setitem__(self, name: str, case: Claim) -> None:
        if not self._sources or not isinstance(self._sources[-1], dict):
            self._sources.append({})
        self._sources[-1][name] = case  # type: ignore[index]

    def __delitem__(self, name: str) -> None:
        held = [s for s in self._sources if isinstance(s, dict) and name in s]
        if not held:
            raise KeyError(name)
        for source in held:
            del source[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __len__(self) -> int:
        return len(self._now())


CASES = Cases()


def register(case: Claim) -> Claim:
    """Add ``case`` to the registry (a later case of the same name replaces it), with the strength
    ``CLAIMED`` declares for it when it declares none itself."""
    if not case.claimed and case.name in CLAIMED:
        case = replace(case, claimed=CLAIMED[case.name])
    CASES[case.name] = case
    return case


PC, AC = "propagation-complete", "arc-consistent"
# The strength each built-in claim declares, from its paper or its construction; the at-most-ones declare
# theirs beside their registration (models/constraints/amo). tests/test_strength_atlas.py checks them all.
CLAIMED = {
    "lex-leader": PC,  # the chain of lex.py (Crawford et al.'s predicate with an auxiliary per prefix)
    "adjacency support": AC, "adjacency conflict": f"not {AC}",  # Gent 2002: support clauses keep AC, conflicts do not
    "domain direct": AC, "domain order": AC, "domain log": AC,
    "all-different direct, values used once": f"not {AC}",  # the pairwise decomposition misses Hall sets
    "all-different direct, values at most once": f"not {AC}",
    "tatami corners": f"not {PC}", "tatami directions": f"not {PC}",  # a tiling is a global property
    "shikaku cover": f"not {PC}", "shikaku pack": f"not {PC}",
    "tour crt": PC, "tour rank": PC, "tour ordering": PC, "tour cutset": PC, "tour position": PC,
    "tour distance": PC, "tour transitive": PC,  # each on its part only
    "tour binary": f"not {PC}",  # an incrementer's carry chain
    "prime-grid domain order": PC, "prime-grid domain log": PC, "prime-grid adjacency order": PC,
    "prime-grid adjacency log": f"not {PC}", "prime-grid all-different order": f"not {PC}",
    "prime-grid all-different log": f"not {PC}",
    "prime-grid all-different hall": PC,  # Bessiere et al., IJCAI 2009, Theorem 1: bounds consistency
}


def counted(labels: list[str]) -> dict[str, int]:
    """How many clauses of each family label."""
    return dict(Counter(labels))


def fresh(formula: Formula, primary: list[int], about: str) -> Constraint:
    """The clauses ``formula`` holds, on the ``primary`` variables it made, with their families."""
    labels = [origin.family.split(":", 1)[-1] for origin in formula.origins()]
    return Constraint(list(formula.clauses), primary, {v: formula.pool.obj(v) for v in primary}, about, counted(labels))


def cardinality_case(name: str, sizes: range, exactly: bool) -> list[Constraint]:
    """``at_most_one(lits)`` (or ``exactly_one``) in the named encoding, on ``n`` fresh literals for each size."""
    built = []
    for n in sizes:
        formula = Formula("strength")
        lits = [formula.var(f"x{i}") for i in range(n)]
        with formula.family("one of"):
            (amo.exactly_one if exactly else amo.at_most_one)(formula, lits, name)
        built.append(fresh(formula, lits, f"n = {n}"))
    return built


def sliced(puzzle: str, text: str, encoding: str, primary: Pick, auxiliary: Pick | None = None,
           params: Mapping[str, str] | None = None, families: tuple[str, ...] = ()) -> Constraint:
    """The clauses of ``puzzle``'s CNF of ``text`` about the variables whose pool keys ``primary`` picks.

    A clause belongs when its scope lies within those variables and the ``auxiliary`` ones (and, when
    ``families`` names some, its family label starts with one of them).
    """
    from gridsat.models import get_puzzle
    from gridsat.models.constraints import origins_of
    from gridsat.solvers.gate import resolve_encoding

    game = get_puzzle(puzzle)
    instance = game.parse(text, params or {})
    formulation = game.cnf(instance, resolve_encoding(game, "cnf", encoding))
    pool = formulation.pool
    keys = {var: pool.obj(var) for var in range(1, pool.top + 1)}
    chosen = [var for var, key in keys.items() if key is not None and primary(key)]
    allowed = set(chosen) | {var for var, key in keys.items() if key is not None and auxiliary and auxiliary(key)}
    clauses, labels = [], []
    for clause, origin in zip(formulation.cnf.clauses, origins_of(formulation), strict=True):
        scope = origin.scope if origin.scope is not None else [abs(lit) for lit in clause]
        label = origin.family.split(":", 2)[-1]
        if set(scope) <= allowed and (not families or label.startswith(families)):
            clauses.append(list(clause))
            labels.append(label)
    return Constraint(clauses, chosen, {var: keys[var] for var in chosen}, f"{puzzle} {text} {encoding}",
                      counted(labels))


CARDINALITY_SIZES = range(2, 11)  # n = 10: 3^10 partial assignments, exhaustive at -k 10 in seconds


def cardinality_claims() -> Iterator[Claim]:
    """Every at-most-one and exactly-one encoding registered now (a plugin's too), on 2 to 10 literals,
    but those that need CNF+ (``native``): they write no clauses, the solver propagates them itself."""
    sizes = CARDINALITY_SIZES
    for exactly, group, what in ((False, "at-most-one", "at_most_one"), (True, "exactly-one", "exactly_one")):
        for name in (n for n in amo.ENCODINGS if not amo.ENCODINGS.needs[n]):
            declared = amo.DECLARED.get(name)
            yield Claim(f"{group} {name}", "propagation",
                        lambda name=name, exactly=exactly: cardinality_case(name, sizes, exactly),
                        f"{sizes.start} to {sizes.stop - 1} literals, as models/constraints/amo.{what} writes them",
                        ("one of at_most", "one of at_least") if exactly else ("one of at_most",),
                        claimed=declared.strength if declared else "")


def register_cardinality() -> None:
    """The at-most-one and exactly-one cases, followed live (``cardinality_claims``): an encoding a plugin
    registers later is checked like the built-in ones."""
    CASES.follow(cardinality_claims)


def claims() -> Mapping[str, Claim]:
    """The registry as it is now, every at-most-one encoding registered so far included."""
    return CASES


def cells(*where: tuple[int, int]) -> Pick:
    """Prime-grid one-hot variables ``("x", r, c, v)`` of the given cells."""
    return lambda key: isinstance(key, tuple) and key[0] == "x" and tuple(key[1:3]) in where


def register_adjacency() -> None:
    """Prime-grid's two adjacency rules, on one edge with both cells' one-hot domains."""
    edge = cells((0, 0), (0, 1))
    for how in ("support", "conflict"):
        register(Claim(f"adjacency {how}", "arc", lambda how=how: [sliced(
            "prime-grid", "2x3", f"{how}+noparity+nosymmetry", edge)],
            "a 2x3 prime-grid's edge (0,0)-(0,1): both cells' one value each, and the edge's clauses",
            ("one value per cell", "a neighbour sums" if how == "support" else "no non-prime neighbours")))


def register_domains() -> None:
    """Finite-domain variables as gridsat writes them: one-hot, order-encoded and binary."""
    register(Claim("domain direct", "arc", lambda: [sliced("prime-grid", "2x3", "noparity+nosymmetry", cells((0, 0)))],
                  "a prime-grid cell's one-hot value (exactly one, pairwise)", ("one value per cell",)))
    u = (0, 0)
    register(Claim("domain order", "arc", lambda: [sliced("knights-tour", TOUR_BOARD, "rank", square_keys(("ge",), u))],
                  "a knight's-tour square's rank, order-encoded (the p >= k ladder)", ("rank order",)))
    register(Claim("domain log", "arc", lambda: [sliced(
        "knights-tour", TOUR_BOARD, "binary", square_keys(("bit",), u), families=("rank below n",))],
        f"a knight's-tour square's rank in binary, below n (a {TOUR_BOARD} board: 4 bits, below 12)",
        ("rank below n",)))


def register_alldifferent() -> None:
    """The direct all-different: one value per cell, each value at most once or exactly once."""
    line = cells((0, 0), (0, 1), (0, 2), (0, 3))
    alldiff = ("one value per cell", "value")
    register(Claim("all-different direct, values used once", "arc", lambda: [sliced(
        "prime-grid", "1x4", "noparity+nosymmetry", line, params={"max": "4"}, families=alldiff)],
        "a 1x4 row of values 1..4: one value per cell, every value exactly once",
        ("one value per cell", "value used once")))
    register(Claim("all-different direct, values at most once", "arc", lambda: [sliced(
        "prime-grid", "1x3", "noparity+nosymmetry", line, families=alldiff)],
        "a 1x3 row of values 1..4: one value per cell, every value at most once",
        ("one value per cell", "value at most once")))


def square_keys(kinds: tuple[str, ...], *squares: object) -> Pick:
    """Knight's-tour pool keys ``(kind, square, ...)`` of the given kinds and squares."""
    return lambda key: isinstance(key, tuple) and key[0] in kinds and key[1] in squares


def arc_and(kinds: tuple[str, ...], u: tuple[int, int], v: tuple[int, int]) -> Pick:
    """The arc u -> v and the ``kinds`` variables of u and v."""
    named = square_keys(kinds, u, v)
    return lambda key: key == ("arc", u, v) or named(key)


TOUR_BOARD = "3x4"  # the smallest board whose knight graph has a triangle of its chordal completion
SUBTOURS = "subtour elimination as a whole"
LEFT_OUT = {"cutset": "subtour elimination", "position": "one step per square (a pigeonhole) and every other step"}


def register_tours() -> None:
    """Each knight's-tour encoding's local constraint on a 3x4 board (open tours), around one arc, one
    square, two steps or one triangle: a claim about that part, never about the tour constraint (no
    polynomial CNF of a Hamiltonian cycle is propagation-complete unless P = NP)."""
    u, v, w, square = (0, 0), (1, 2), (2, 1), (0, 1)
    local = {
        "crt": (arc_and(("residue",), u, v), None, ("one residue per node", "an arc steps the residue"),
                "an arc and the residues of its ends"),
        "rank": (arc_and(("ge",), u, v), None, ("rank order", "ranks rise by one along an arc"),
                 "an arc and the order-encoded ranks of its ends"),
        "ordering": (arc_and(("ge",), u, v), None, ("rank order", "ranks rise along an arc"),
                     "an arc and the order-encoded ranks of its ends"),
        "binary": (arc_and(("bit",), u, v), square_keys(("carry",), u, v), ("carries", "an arc adds one"),
                   "an arc and the binary ranks of its ends (carries auxiliary)"),
        "cutset": (lambda key: isinstance(key, tuple) and (key[0] in ("first", "last") and key[1] == square
                                                          or key[0] == "arc" and square in key[1:]),
                   None, ("one arc in and one out", "no arc and its reverse"), "the degree constraints of one square"),
        "position": (lambda key: isinstance(key, tuple) and key[0] == "at" and key[2] in (0, 1), None,
                     ("one square per step", "a knight move"), "two consecutive steps, one square each"),
        "distance": (arc_and(("rank",), u, v), None, ("rank order", "an arc's head ranks"),
                     "an arc and the distance-pruned positions of its ends"),
        "transitive": (lambda key: isinstance(key, tuple) and key[0] in ("arc", "before") and set(key[1:]) <= {u, v, w},
                       None, ("an arc orders its ends", "no ordering cycle"),
                       "the arcs and ordering variables of one triangle"),
    }
    for tour, (primary, auxiliary, families, part) in local.items():
        register(Claim(f"tour {tour}", "propagation", lambda tour=tour, primary=primary, auxiliary=auxiliary: [
            sliced("knights-tour", TOUR_BOARD, tour, primary, auxiliary)], f"a {TOUR_BOARD} board: {part}",
            families, part, LEFT_OUT.get(tour, SUBTOURS)))


def register_tatami() -> None:
    """Tatami's corner clauses with one mat per cell, on a small room."""
    register(Claim("tatami corners", "propagation", lambda: [sliced("tatami", "3x4", "pairwise", lambda key: True)],
                  "a 3x4 room: one mat per cell (pairwise) and no four mats meeting at a corner",
                  ("one mat per cell", "no four mats meet")))
    register(Claim("tatami directions", "propagation", lambda: [sliced(
        "tatami", "3x4", "directions+pairwise", lambda key: True)],
        "a 3x4 room: one direction per cell (pairwise), mates agree, and the corner clauses on directions",
        ("one direction per cell", "mates agree", "no four mats meet")))


def register_shikaku() -> None:
    """Shikaku's two ways of covering the cells, on a small puzzle: every candidate rectangle."""
    rects: Pick = lambda key: isinstance(key, tuple) and key[0] == "rect"  # noqa: E731
    for cells_rule in ("cover", "pack"):
        register(Claim(f"shikaku {cells_rule}", "propagation", lambda cells_rule=cells_rule: [sliced(
            "shikaku", SHIKAKU, f"{cells_rule}+pairwise+nosymmetry", rects)],
            f"the 4x3 puzzle {SHIKAKU}: one rectangle per clue and {CELL_RULES[cells_rule]} (pairwise)",
            ("one rectangle per clue", CELL_FAMILIES[cells_rule])))


CELL_RULES = {"cover": "exactly one per cell", "pack": "at most one per cell"}
CELL_FAMILIES = {"cover": "one rectangle per cell", "pack": "at most one rectangle per cell"}
SHIKAKU = "4x3:a4e4a4b"  # three 4s, every clue with two or more rectangles (no unit clause decides one)


def lex_case(sizes: range, leq: Leq | None = None) -> list[Constraint]:
    """``lex_leq(xs, ys)`` (or a registered ``leq``) on ``n`` fresh pairs of literals for each size, as
    symmetry breaking writes it."""
    from gridsat.models.constraints.lex import lex_leq

    leq = leq or lex_leq
    built = []
    for n in sizes:
        formula = Formula("strength")
        xs, ys = [formula.var(f"x{i}") for i in range(n)], [formula.var(f"y{i}") for i in range(n)]
        with formula.family("lex"):
            leq(formula, xs, ys)
        built.append(fresh(formula, xs + ys, f"n = {n}"))
    return built


def breaking_claims() -> Iterator[Claim]:
    """The comparison of every symmetry-breaking encoding registered now (a plugin's too, models/breaking.py)."""
    from gridsat.models.breaking import BREAKINGS

    for name, way in list(BREAKINGS.items()):
        yield Claim(f"lex-leader {name}", "propagation", lambda leq=way.leq: lex_case(range(1, 5), leq),
                    f"x <=lex y on 1 to 4 pairs of literals, as the {name} symmetry-breaking encoding writes it")


def register_lex() -> None:
    """The lex-leader comparison of symmetry breaking (models/constraints/lex.py), and of every encoding
    registered for it, followed live (``breaking_claims``)."""
    register(Claim("lex-leader", "propagation", lambda: lex_case(range(1, 5)),
                   "x <=lex y on 1 to 4 pairs of literals, the chain of models/constraints/lex.py"))
    CASES.follow(breaking_claims)


def tagged(tags: tuple[str, ...], *where: tuple[int, int]) -> Pick:
    """Prime-grid pool keys ``(tag, r, c, ...)`` of the given tags and cells (any cell: none given)."""
    return lambda key: isinstance(key, tuple) and key[0] in tags and (not where or tuple(key[1:3]) in where)


def register_numbers() -> None:
    """Prime-grid's order and log domains, their adjacency and all-different, and the Hall intervals
    (models/constraints/domains.py, alldiff.py)."""
    row, edge = ((0, 0), (0, 1), (0, 2)), ((0, 0), (0, 1))
    domain = ("order chain", "candidate values")
    order, log, sums, differ = ("order chain",), ("candidate values",), ("a neighbour sums",), ("values all differ",)
    cases = [  # name, instance, encoding, params, primary, auxiliary, families sliced, families needed, about
        ("prime-grid domain order", "2x3", "order", {}, tagged(("ge",), (0, 0)), None, domain, order,
         "a 2x3 prime-grid's cell (0,0): the order chain and its range"),
        ("prime-grid domain log", "2x3", "log", {"max": "6"}, tagged(("bit",), (0, 0)), None, domain, log,
         "a 2x3 prime-grid's cell (0,0) over 1..6: three bits, the patterns past 6 forbidden"),
        ("prime-grid adjacency order", "2x3", "order", {}, tagged(("ge",), *edge), None, (*domain, *sums),
         order + sums, "the edge (0,0)-(0,1): both cells' order literals and the support clauses"),
        ("prime-grid adjacency log", "2x3", "log", {"max": "6"}, tagged(("bit",), *edge), None, (*domain, *sums),
         log + sums, "the edge (0,0)-(0,1) over 1..6: both cells' bits and the support clauses"),
        ("prime-grid all-different order", "1x3", "order", {}, tagged(("ge",), *row), None, (*domain, *differ),
         order + differ, "a 1x3 row of values 1..4: the per-value conflict clauses"),
        ("prime-grid all-different log", "1x3", "log", {}, tagged(("bit",), *row), None, (*domain, *differ),
         differ, "a 1x3 row of values 1..4 (two bits each, none to forbid): the per-value conflict clauses on bits"),
        ("prime-grid all-different hall", "1x3", "hall", {}, tagged(("ge",), *row), tagged(("in",)),
         (*domain, "interval membership", "hall interval"), (*order, "interval membership", "hall interval"),
         "a 1x3 row of values 1..4: the Hall intervals"),
    ]
    for name, text, encoding, params, primary, auxiliary, families, needed, about in cases:
        register(Claim(name, "propagation", lambda text=text, full=f"{encoding}+noparity+nosymmetry", params=params,
                       primary=primary, auxiliary=auxiliary, families=families: [
                           sliced("prime-grid", text, full, primary, auxiliary, params, families)], about, needed))


register_cardinality()
register_lex()
register_adjacency()
register_domains()
register_alldifferent()
register_tatami()
register_shikaku()
register_tours()
register_numbers()
