"""Mutants: one bug in an encoding, as (family, operator, selector), applied to any formulation of it.

A formulation written through the constraint library (models/constraints) knows the family of each clause or
constraint (its *members*) and the variables each is about. A mutant picks the members of one family
that its selector chooses, by their variables' keys (as an off-by-one loop bound or a wrong parity
test would), and applies its operator to each. The same mutant applies to every instance of a corpus,
as a bug in the encoding's code would.
"""

from __future__ import annotations

import dataclasses
import tempfile
import zlib
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridsat.models.constraints import origins_of
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key, Refine
from gridsat.models.puzzle import Cell, Instance, Puzzle
from gridsat.solvers.backend import formulate

# Selectors: which members of a family the bug touches; operators: what it does to each (both are
# described in the README's "Mutation testing" section).
SELECTORS = ("all", "last-row", "last-col", "border", "even", "odd", "orientation", "hash")
CNF_OPERATORS = ("drop", "drop-literal", "add-literal", "flip", "swap")
LAZY_OPERATORS = ("skip-round", "drop-cut")
CPSAT_OPERATORS = ("drop", "bound", "drop-literal", "flip", "drop-tuple", "add-tuple", "drop-arc", "drop-var")
LAZY_FAMILY = "refine"  # the family of a lazy formulation's refinement clauses


@dataclass(frozen=True, order=True)
class Mutant:
    """One bug: the family it is in, what it does, and to which members."""

    family: str
    operator: str
    selector: str = "all"

    @property
    def name(self) -> str:
        return f"{self.family} {self.operator} [{self.selector}]"


def key_cells(key: Key) -> list[Cell]:
    """The board cells a variable's key names: its (row, col) pairs, else its first two integers."""
    if not isinstance(key, tuple):
        return []
    pairs = [k for k in key if isinstance(k, tuple) and len(k) == 2 and all(type(x) is int for x in k)]
    if pairs:
        return pairs
    ints = [k for k in key if type(k) is int]
    return [(ints[0], ints[1])] if len(ints) >= 2 else [(ints[0], 0)] if ints else []


@dataclass
class Built:
    """A formulation built while recording: its members' families and the keys each is about."""

    kind: str  # "cnf" or "cpsat"
    formulation: Any
    families: list[str]
    keys: list[list[Key]]
    proto: Any = None  # CP-SAT: the model as a protobuf message (cp_model_pb2), for reading and mutating
    last: Cell = (0, 0)  # the largest row and column any key names
    places: list[list[Cell]] = field(default_factory=list)  # the board cells each member's keys name
    instance: str = ""  # the instance it was built for, as a user would type it
    # Every mutant of a family asks for its members, and each operator for the same selections: kept.
    _members: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _chosen: dict[tuple[str, str], list[int]] = field(default_factory=dict, repr=False)
    _messages: dict[str, list[Any]] = field(default_factory=dict, repr=False)

    def members(self, family: str) -> list[int]:
        if not self._members:
            for i, f in enumerate(self.families):
                self._members.setdefault(f, []).append(i)
        return self._members.get(family, [])

    def messages(self, family: str) -> list[Any]:
        """The constraint messages of ``family``'s members (CP-SAT): every operator asks for them."""
        if family not in self._messages:
            self._messages[family] = [self.proto.constraints[i] for i in self.members(family)]
        return self._messages[family]

    def chosen(self, family: str, selector: str) -> list[int]:
        """The members of ``family`` that ``selector`` picks."""
        if (family, selector) not in self._chosen:
            self._chosen[family, selector] = selected(selector, self.keys, self.members(family), self.last,
                                                      self.places)
        return self._chosen[family, selector]


def build(puzzle: Puzzle, instance: Instance, kind: str, encoding: Any) -> Built:
    """Build ``kind``'s formulation of ``instance`` while recording the families of its members."""
    formulation = formulate(puzzle, instance, kind, encoding)
    origins = origins_of(formulation)
    cells = puzzle.mutation.cells or key_cells
    if kind == "cnf":
        pool = formulation.pool
        # In the order the clause names them (orientation reads the first), each once.
        keys = [list(dict.fromkeys(k for v in (o.scope if o.scope is not None else [abs(lit) for lit in c])
                                   if (k := pool.obj(v)) is not None))
                for o, c in zip(origins, formulation.cnf.clauses, strict=True)]
        built = Built(kind, formulation, [o.family for o in origins], keys)
        if formulation.refine is not None:
            built.families.append(LAZY_FAMILY)  # one pseudo-member: the refinement itself
            built.keys.append([])
    else:
        proto = to_message(formulation.model)
        names = {var.Index(): key for key, var in formulation.primary.items()}
        keys = [list(dict.fromkeys(names.get(v, proto.variables[v].name) for v in constraint_vars(c)))
                for c in proto.constraints]
        built = Built(kind, formulation, [o.family for o in origins], keys, proto)
    built.places = places_of(built.keys, cells)
    built.last = (max((r for where in built.places for r, _ in where), default=0),
                  max((c for where in built.places for _, c in where), default=0))
    return built


def to_message(model: Any) -> Any:
    """A CP-SAT model as a ``cp_model_pb2.CpModelProto`` (the protobuf API reads and edits constraints).

    It goes through protobuf's binary form in a file (OR-Tools' model hands out no bytes): protobuf's
    text parser is pure Python, and reading the model's text took three quarters of a mutation run."""
    from ortools.sat import cp_model_pb2

    with tempfile.TemporaryDirectory(prefix="gridsat-model-") as folder:
        path = Path(folder, "model.pb")  # not .txt: export_to_file writes the binary form
        if not model.export_to_file(str(path)):
            raise OSError(f"OR-Tools could not write the model to {path}")
        return cp_model_pb2.CpModelProto.FromString(path.read_bytes())


def var_of(ref: int) -> int:
    return ref if ref >= 0 else -ref - 1


def constraint_vars(message: Any) -> list[int]:
    """Every variable a constraint message mentions (through vars, literals and enforcement literals), in order."""
    found: list[int] = []
    for described, value in message.ListFields():
        if described.name in ("vars", "literals", "enforcement_literal"):
            found += [var_of(v) for v in value]
        elif described.message_type is not None:
            for item in (value if not hasattr(value, "ListFields") else [value]):  # repeated, or one message
                found += constraint_vars(item)
    return found


def places_of(keys: list[list[Key]], cells: Callable[[Key], list[Cell]]) -> list[list[Cell]]:
    """The board cells each member's keys name (each key read once: a variable is in many members)."""
    known: dict[Key, list[Cell]] = {}
    for ks in keys:
        for k in ks:
            if k not in known:
                known[k] = cells(k)
    return [[cell for k in ks for cell in known[k]] for ks in keys]


def selected(selector: str, keys: list[list[Key]], members: list[int], last: Cell,
             places: list[list[Cell]]) -> list[int]:
    """The members a selector picks, given each member's keys, the cells they name, and the largest row
    and column."""
    if selector == "all":
        return list(members)
    if selector == "hash":
        return [i for i in members if signature(sorted(map(repr, keys[i]))) % 4 == 0]
    picked = []
    for i in members:
        where = places[i]
        if not where:
            continue
        if selector == "last-row":
            hit = any(r == last[0] for r, _ in where)
        elif selector == "last-col":
            hit = any(c == last[1] for _, c in where)
        elif selector == "border":
            hit = any(r in (0, last[0]) or c in (0, last[1]) for r, c in where)
        elif selector == "orientation":  # laid along a row: its first two cells share one
            hit = len(where) > 1 and where[0][0] == where[1][0] and where[0] != where[1]
        else:  # even, odd
            hit = sum(where[0]) % 2 == (selector == "odd")
        if hit:
            picked.append(i)
    return picked


# CNF operators: a clause and the family's next member's clause give the new clause (None: drop it).

def _add_literal(clause: list[int], other: list[int]) -> list[int]:
    extra = next((lit for lit in other if abs(lit) not in {abs(x) for x in clause}), None)
    return clause if extra is None else [*clause, extra]


def _swap(clause: list[int]) -> list[int]:
    pos = next((i for i, lit in enumerate(clause) if lit > 0), None)
    neg = next((i for i, lit in enumerate(clause) if lit < 0), None)
    if pos is None or neg is None:
        return clause
    out = list(clause)
    out[pos], out[neg] = -clause[neg], -clause[pos]
    return out


CLAUSE_OPS: dict[str, Callable[[list[int], list[int]], list[int] | None]] = {
    "drop": lambda clause, other: None,
    "drop-literal": lambda clause, other: clause[:-1] if clause else clause,
    "add-literal": _add_literal,
    "flip": lambda clause, other: [*clause[:-1], -clause[-1]] if clause else clause,
    "swap": lambda clause, other: _swap(clause),
}


def mutate_cnf(mutant: Mutant, built: Built, puzzle: Puzzle) -> CnfFormulation | None:
    """The mutated formulation, or None when the mutant changes nothing here."""
    f: CnfFormulation = built.formulation
    if mutant.operator in LAZY_OPERATORS:
        if f.refine is None or mutant.family != LAZY_FAMILY:
            return None
        return dataclasses.replace(f, refine=lazy_refine(f.refine, mutant.operator))
    picked = built.chosen(mutant.family, mutant.selector)
    if not picked:
        return None
    op = CLAUSE_OPS[mutant.operator]
    clauses = list(f.cnf.clauses)
    family = built.members(mutant.family)
    after = {a: family[(j + 1) % len(family)] for j, a in enumerate(family)}
    changed = False
    for i in picked:
        new = op(list(clauses[i]), list(f.cnf.clauses[after[i]]))
        if new != list(clauses[i]):
            clauses[i] = new
            changed = True
    if not changed:
        return None
    cnf = type(f.cnf)()  # a CNFPlus keeps its native at-most constraints, which no mutant touches
    cnf.clauses = [c for c in clauses if c is not None]
    cnf.nv = f.cnf.nv
    if hasattr(f.cnf, "atmosts"):
        cnf.atmosts = f.cnf.atmosts
    # A mutant may break the promise behind ``block_true_only`` (every solution sets as many projection
    # variables): a weakened "one value per cell" lets a model set two, and the true-only blocking clause of
    # the right solution would hide it. Blocking whole projections finds it, as a repeat or an invalid one.
    return dataclasses.replace(f, cnf=cnf, block_true_only=False)


def lazy_refine(refine: Refine, operator: str) -> Refine:
    """A refinement with a bug: it skips its first round, or forgets the last clause of each round."""
    rounds = [0]

    def mutated(model: list[int]) -> list[list[int]]:
        cuts = refine(model)
        rounds[0] += 1
        if operator == "skip-round":
            return [] if rounds[0] == 1 else cuts
        return cuts[:-1] if len(cuts) > 1 else cuts

    return mutated


# CP-SAT operators: edit a copy of one constraint message in place; False when it does not apply.

def _bound(c: Any, proto: Any) -> bool:
    if not c.HasField("linear"):
        return False
    low, high = -(2**63), 2**63 - 1
    c.linear.domain[:] = [d + 1 if low < d < high else d for d in c.linear.domain]
    return True


def _bool_list(c: Any) -> Any:
    for name in ("bool_or", "bool_and", "exactly_one", "at_most_one"):
        if c.HasField(name):
            return getattr(c, name).literals
    return None


def _drop_literal(c: Any, proto: Any) -> bool:
    lits = _bool_list(c)
    if not lits:
        return False
    del lits[-1]
    return True


def _flip(c: Any, proto: Any) -> bool:
    lits = _bool_list(c)
    if not lits:
        return False
    lits[-1] = -lits[-1] - 1
    return True


def _table_width(c: Any) -> int:
    return len(c.table.exprs) or len(c.table.vars)


def _drop_tuple(c: Any, proto: Any) -> bool:
    width = _table_width(c) if c.HasField("table") else 0
    if not width or len(c.table.values) < width:
        return False
    del c.table.values[-width:]
    return True


def _add_tuple(c: Any, proto: Any) -> bool:
    width = _table_width(c) if c.HasField("table") else 0
    if not width or not c.table.values or c.table.negated:
        return False
    rows = {tuple(c.table.values[i:i + width]) for i in range(0, len(c.table.values), width)}
    first = list(c.table.values[:width])
    expr = c.table.exprs[0] if c.table.exprs else None
    var = expr.vars[0] if expr is not None and expr.vars else c.table.vars[0] if c.table.vars else None
    if var is None:
        return False
    domain = proto.variables[var_of(var)].domain
    coeff, offset = (expr.coeffs[0], expr.offset) if expr is not None else (1, 0)
    # A value the tuple's other places do not hold: a tuple repeating a value is often ruled out elsewhere
    # (an AllDifferent beside the table), and the bug would be a mutant in name only.
    for value in range(domain[0], min(domain[-1], domain[0] + 1000) + 1):
        candidate = tuple([coeff * value + offset, *first[1:]])
        if candidate not in rows and candidate[0] not in first[1:]:
            c.table.values.extend(candidate)
            return True
    return False


def _drop_var(c: Any, proto: Any) -> bool:
    if not c.HasField("all_diff") or len(c.all_diff.exprs) < 2:
        return False
    del c.all_diff.exprs[-1]
    return True


CONSTRAINT_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "bound": _bound, "drop-literal": _drop_literal, "flip": _flip, "drop-tuple": _drop_tuple,
    "add-tuple": _add_tuple, "drop-var": _drop_var,
}


def cpsat_edits(mutant: Mutant, built: Built, puzzle: Puzzle) -> dict[int, Any]:
    """The constraints the mutant changes: index -> the new constraint message (None: dropped)."""
    f: CpsatFormulation = built.formulation
    proto = built.proto
    edits: dict[int, Any] = {}
    if mutant.operator == "drop-arc":
        cells = puzzle.mutation.cells or key_cells
        names = {var.Index(): key for key, var in f.primary.items()}
        for i in built.members(mutant.family):
            c = proto.constraints[i]
            if not c.HasField("circuit"):
                continue
            arcs = list(zip(c.circuit.tails, c.circuit.heads, c.circuit.literals, strict=True))
            arc_keys = [[names.get(var_of(lit), proto.variables[var_of(lit)].name)] for _, _, lit in arcs]
            gone = set(selected(mutant.selector, arc_keys, list(range(len(arcs))), built.last,
                                places_of(arc_keys, cells)))
            if gone:
                new = type(c)()
                new.CopyFrom(c)
                kept = [a for j, a in enumerate(arcs) if j not in gone]
                new.circuit.tails[:] = [t for t, _, _ in kept]
                new.circuit.heads[:] = [h for _, h, _ in kept]
                new.circuit.literals[:] = [lit for _, _, lit in kept]
                edits[i] = new
    else:
        for i in built.chosen(mutant.family, mutant.selector):
            if mutant.operator == "drop":
                edits[i] = None
                continue
            new = type(proto.constraints[i])()
            new.CopyFrom(proto.constraints[i])
            if CONSTRAINT_OPS[mutant.operator](new, proto):
                edits[i] = new
    return edits


def mutate_cpsat(mutant: Mutant, built: Built, puzzle: Puzzle) -> CpsatFormulation | None:
    """The mutated formulation (a copy of the model), or None when the mutant changes nothing here."""
    f: CpsatFormulation = built.formulation
    edits = cpsat_edits(mutant, built, puzzle)
    if not edits:
        return None
    return dataclasses.replace(f, model=edited_model(f.model, edits))


def edited_model(model: Any, edits: dict[int, Any]) -> Any:
    """A copy of the CP-SAT ``model`` with ``edits`` (constraint index -> its new message, None: dropped).

    The copy is made by OR-Tools (its C++ model), and only the edited constraints go through protobuf's
    text form, which is pure Python: a whole model written as text and parsed again for each implication
    question took 60% of a mutation run (``redundancy.none_broken``)."""
    from google.protobuf import text_format
    from ortools.sat.python import cp_model

    copy = cp_model.CpModel()
    copy.Proto().copy_from(model.Proto())
    constraints = copy.Proto().constraints
    # holds the edited constraints (a proto's parts die with their model): a bare model proto, since a CpModel
    # costs a quarter of a millisecond to make (OR-Tools adds its camelCase names to each one)
    scratch = type(copy.Proto())()
    for i, new in edits.items():
        fresh = scratch.constraints.add()  # empty: a constraint that always holds
        if new is not None:
            fresh.merge_text_format(text_format.MessageToString(new))
        constraints[i].copy_from(fresh)
    return copy


def mutate(mutant: Mutant, built: Built, puzzle: Puzzle) -> Any:
    """The mutated formulation of ``built``, or None when the mutant changes nothing on this instance."""
    return mutate_cnf(mutant, built, puzzle) if built.kind == "cnf" else mutate_cpsat(mutant, built, puzzle)


def applies(operator: str, kind: str, family: str, built: Built) -> bool:
    """Whether ``operator`` can change some member of ``family`` in ``built`` (with every member chosen)."""
    if kind == "cnf":
        if (operator in LAZY_OPERATORS) != (family == LAZY_FAMILY):
            return False
        return operator in LAZY_OPERATORS or any(
            CLAUSE_OPS[operator](list(c), list(c)) != list(c) or operator == "add-literal"
            for c in (built.formulation.cnf.clauses[i] for i in built.members(family)))
    messages = built.messages(family)
    if operator == "drop":
        return bool(messages)
    if operator == "drop-arc":
        return any(m.HasField("circuit") for m in messages)
    for m in messages:
        copy = type(m)()
        copy.CopyFrom(m)
        if CONSTRAINT_OPS[operator](copy, built.proto):
            return True
    return False


def catalogue(kind: str, builts: Sequence[Built], puzzle: Puzzle) -> list[Mutant]:
    """Every mutant of the families found in ``builts`` that changes at least one of them: each operator
    that applies, with each selector (one that picks nothing anywhere is no bug at all)."""
    operators = (*CNF_OPERATORS, *LAZY_OPERATORS) if kind == "cnf" else CPSAT_OPERATORS
    families = sorted({family for built in builts for family in built.families})
    found: set[Mutant] = set()
    for family in families:
        holders = [b for b in builts if family in b.families]
        for operator in operators:
            if not any(applies(operator, kind, family, b) for b in holders):
                continue
            selectors: tuple[str, ...] = ("all",) if operator in LAZY_OPERATORS else SELECTORS
            for selector in selectors:
                mutant = Mutant(family, operator, selector)
                if any(mutate(mutant, b, puzzle) is not None for b in holders):
                    found.add(mutant)
    return sorted(found)


def signature(value: Hashable) -> int:
    """A stable small hash (sampling and selectors must not depend on PYTHONHASHSEED)."""
    return zlib.crc32(repr(value).encode())
