"""CP-SAT's enumeration certified (``--backend cpsat --certify``): its solutions blocked in the puzzle's CNF,
and the CNF with those blocking clauses refuted by a solver that writes an LRAT proof, which gridsat checks.

CP-SAT writes no proof a checker can read, so its "no more solutions" is replayed in the puzzle's CNF
(``solvers.gate.replayed_in``: breaking the symmetry CP-SAT's model breaks; where it breaks none, the CNF's
default choices, a lazy one included, whose cuts the refutation takes inside one solver call, and where it
breaks one, the exact choices, over which the orbits are proved): each
solution CP-SAT reports is read into the CNF's projection (``cnf_values``; a variable named by CP-SAT's
key, or a one-hot ``(tag, *key, value)`` variable of CP-SAT's integer ``key``), each image too when CP-SAT's
model kept one solution per orbit (the group acting on the CNF's variables), and blocked by a clause over
every projection variable (over its true ones alone where the CNF blocks so: ``block_true_only``). A
proof-writing PySAT solver then refutes the CNF with every solution blocked (a lazy CNF's cuts added as
the sat backend adds them, each kept with its witness). The certificate is the sat backend's own
(``solvers.proof.certificate``), judged and kept the same way, so ``gridsat check-proof``
reads it unchanged; nothing in it trusts CP-SAT. It is refused if the CNF has a solution CP-SAT did not
report, or if CP-SAT reported more solutions than the certificate blocks (a repeat).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import compress
from typing import Any

from gridsat.models.encoding import Encoding
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.proof.certificate import Certificate, Identity, Judgement, judge, write
from gridsat.solvers.proof.certified import prove, stopped
from gridsat.solvers.proof.claim import Certify
from gridsat.solvers.proof.heap import uncollected
from gridsat.solvers.proof.orbits import unbroken_of
from gridsat.solvers.stop import Stop

PROVER = "cadical195"  # writes LRAT (``certificate.proof_format``), the fastest to check, with IPASIR-UP for cuts


@dataclass
class Reading:
    """How to read the CNF's projection from CP-SAT's values, made once per search (``reading``): each model
    is then read by its values' places, with no key looked up (a key is a tuple, hashed afresh each time)."""

    keys: list[Key]  # the CNF variables read, in projection order
    same: list[tuple[int, int]]  # a CNF variable named by CP-SAT's key: the key's place, and the variable's
    one_hot: dict[tuple[int, int], int]  # (the place of CP-SAT's integer key, a value) -> its one-hot variable's
    integers: list[int]  # the places of CP-SAT's keys with one-hot variables

    def read(self, values: Sequence[int]) -> list[int]:
        """The 0/1 values, in projection order, that CP-SAT's ``values`` (in the keys' order) give the CNF
        variables read."""
        row = [0] * len(self.keys)
        for at, place in self.same:
            row[place] = int(values[at])
        for at in self.integers:
            place = self.one_hot.get((at, values[at]))
            if place is not None:  # a value with no one-hot variable sets none of them
                row[place] = 1
        return row


def reading(f: CnfFormulation, given: Sequence[Key], partial: bool = False) -> Reading | str:
    """How to read the CNF's projection from CP-SAT's values of the keys ``given``, in that order (``partial``:
    the CNF variables those keys name only), or why a CNF variable has no CP-SAT counterpart."""
    at = {key: i for i, key in enumerate(given)}
    plan = Reading([], [], {}, [])
    for key in f.keys:
        if key in at:
            plan.same.append((at[key], len(plan.keys)))
        elif isinstance(key, tuple) and len(key) > 2 and key[1:-1] in at:
            plan.one_hot[(at[key[1:-1]], key[-1])] = len(plan.keys)  # the one-hot variable of an integer's value
        elif not partial:
            return f"the CNF variable {key!r} stands for no CP-SAT variable"
        else:
            continue
        plan.keys.append(key)
    plan.integers = list(dict.fromkeys(i for i, _ in plan.one_hot))
    return plan


def cnf_values(f: CnfFormulation, values: Mapping[Key, int], partial: bool = False) -> dict[Key, int] | str:
    """The CNF's projection, key by key, of CP-SAT's primary ``values`` (``partial``: of those given only),
    or why a CNF variable has no CP-SAT counterpart."""
    plan = reading(f, list(values), partial)
    if isinstance(plan, str):
        return plan
    return dict(zip(plan.keys, plan.read(list(values.values())), strict=True))


def replay_for(puzzle: Puzzle, instance: Instance, request: Any, source: CpsatFormulation,
               encoding: str) -> CpsatReplay:
    """A certified CP-SAT search's replay (the checker compiled, or loaded from numba's cache, now)."""
    import importlib.util

    from gridsat.models.errors import BackendUnavailable
    from gridsat.solvers.backend import bound_choice

    if importlib.util.find_spec("numba") is None:
        raise BackendUnavailable("certify=True checks proofs with numba-compiled code: pip install 'gridsat[certify]'")
    from gridsat.solvers.proof.drat import warm_up

    wish = request.certify.into(request.part.index if request.part is not None else None)
    replay = CpsatReplay.start(wish, puzzle, instance, source, encoding, bound_choice(request).replay)
    warm_up()
    return replay


def clause_of(f: CnfFormulation, values: Mapping[Key, int]) -> list[int]:
    """The clause over every projection variable that rules out exactly this projection."""
    index = dict(zip(f.keys, f.projection, strict=True))
    return [-index[key] if value else index[key] for key, value in values.items()]


@dataclass
class CpsatReplay:
    """The solutions of one CP-SAT search as it runs, and its certificate once CP-SAT said "no more"."""

    wish: Certify
    puzzle: Puzzle
    instance: Instance
    source: CpsatFormulation
    certificate: Certificate
    header: list[str] = field(default_factory=list)
    keys: list[Key] = field(default_factory=list)  # CP-SAT's primary keys, in the order of ``found``'s values
    found: list[tuple[int, ...]] = field(default_factory=list)  # CP-SAT's primary values, model by model
    reported: int = 0  # the solutions CP-SAT's models stand for (images included)
    verdict: Judgement | None = None

    @classmethod
    def start(cls, wish: Certify, puzzle: Puzzle, instance: Instance, source: CpsatFormulation,
              encoding: str, cnf_encoding: Encoding) -> CpsatReplay:
        """The replay of a CP-SAT search of ``source`` (built with ``encoding``) in the CNF of ``cnf_encoding``
        (the gate's ``Choice.replay``: exact, breaking the symmetry the model breaks)."""
        f = puzzle.cnf(instance, cnf_encoding)
        if bool(f.images) != bool(source.images) or f.orbits_of != source.orbits_of:
            raise ValueError(f"the CNF {cnf_encoding.name} keeps other solutions than the CP-SAT model {encoding}")
        ident = Identity(puzzle.name, wish.instance, dict(wish.params), cnf_encoding.name, PROVER)
        header = [f"gridsat {puzzle.name} {puzzle.describe(instance)}: the solutions CP-SAT ({encoding}) reported, "
                  f"blocked in the CNF {cnf_encoding.name}"]
        unbroken = unbroken_of(puzzle, instance, f, cnf_encoding)
        return cls(wish, puzzle, instance, source, Certificate(ident, f, unbroken=unbroken), header)

    def add(self, values: Mapping[Key, int], solutions: int) -> None:
        if not self.keys:
            self.keys = list(values)
        self.found.append(tuple(values.values()))  # every model holds the same keys, in the same order
        self.reported += solutions

    def restrict(self, part: Any, keys: list[Key]) -> None:
        """A part's cube in the CNF: its fixed CP-SAT values as unit clauses, and the models a run split
        again counted already blocked (a value with no CNF counterpart is refused by ``judge``, unread)."""
        f = self.certificate.formulation
        fixed = cnf_values(f, dict(part.fixed), partial=True)
        literals = [-lit for lit in clause_of(f, fixed)] if isinstance(fixed, dict) else []
        plan = reading(f, keys)  # one reading for every model blocked in the cube
        # blocked as the sat backend blocks them in a cube (``blocking_of``), the form the check requires
        self.certificate.within(literals, [] if isinstance(plan, str) else
                                [f.blocking_of(plan.read(row)) for row in part.blocked])

    def block(self) -> str:
        """Every model CP-SAT found blocked in the CNF; why not, when one cannot be read."""
        f = self.certificate.formulation
        if not self.found:
            return ""
        plan = reading(f, self.keys)
        if isinstance(plan, str):
            return plan
        for values in self.found:
            row = plan.read(values)
            # by its true variables alone where the CNF blocks so (one value per cell): a smaller proof, and
            # the certificate's check propagates the rest (solvers.proof.models.first_not_one)
            clause = f.blocking_of(row)
            # with the decoding the judge may adopt (``Certificate.adopt_searched``)
            self.certificate.block(clause, f.decode(dict(zip(f.keys, row, strict=True))),
                                   tuple(sorted(compress(f.projection, row))))
        return ""

    @uncollected(settled=True)  # over the whole certificate, which the run keeps (solvers.proof.heap)
    def finish(self, stop: Stop | None = None) -> Judgement | None:
        """Block CP-SAT's solutions, refute the rest with an LRAT proof, judge the certificate and keep it;
        a time limit or Ctrl-C that comes first (``stop``) leaves no verdict and writes no folder."""
        failure = self.block()
        counted = None
        if not failure and not stopped(stop):
            failure, counted = prove(self.certificate, self.puzzle, self.instance,
                                     "the CNF has a solution CP-SAT did not report", stop)
        if stopped(stop):
            return None
        self.verdict = judge(self.certificate, self.puzzle, self.instance, counted)
        if not failure and self.verdict.solutions != self.reported:
            failure = f"CP-SAT reported {self.reported} solutions, the certificate stands for {self.verdict.solutions}"
        if failure:
            self.verdict = replace(self.verdict, certified=False, failure=failure)
        if self.wish.folder is not None:
            write(self.certificate, self.wish.folder, self.header)
        return self.verdict
