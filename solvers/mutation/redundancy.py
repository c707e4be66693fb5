"""Redundancy proofs: is a mutated formulation the same formula as the original on one instance?

Each constraint only in one of them must be implied by the other: with its negation added, the other
is infeasible. For CNF that is one SAT call per clause under assumptions; for CP-SAT, one CP-SAT
call per constraint of a kind whose negation is a constraint too (linear, Boolean, cardinality,
table); any other kind proves nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from gridsat.solvers.mutation.relaxation import proved_by_counting

OWN = "a changed clause on the puzzle's own variables"
# Conflicts one mutant's CNF proofs (on all the instances it changes) may spend in their SAT calls:
# a count, not seconds, so that the same mutants get the same verdicts on any machine. Some implied
# clauses follow only by counting (a pigeonhole: n squares, n steps, one square per step), which
# resolution proves only slowly: one mutant of the knight's tour position encoding took 140 s.
PROOF_CONFLICTS = 200_000
SLICE = 20_000  # conflicts one SAT call may spend before the LP relaxation is asked about the clauses left
LOW, HIGH = -(2**62), 2**62  # CP-SAT's domain bounds, far beyond any variable of a puzzle
BUDGET = "the implication proof ran past its budget"  # then " of N conflicts, ..."
UNCOUNTED = "and the LP relaxation did not prove it"


class OutOfBudget(Exception):
    """A proof spent its conflicts without an answer."""


@dataclass
class Budget:
    """The conflicts the SAT calls of one or several proofs may spend together, and those spent."""

    limit: int = PROOF_CONFLICTS
    spent: int = 0


def implied_both_ways(original: Any, mutated: Any, budget: Budget | None = None) -> tuple[bool, str]:
    """Whether two CNFs are equivalent by clause implication: each clause only in one is implied by the
    other; when not, why nothing is proved (or, on the puzzle's own variables, what differs; or that the
    proof ran past its ``budget``, which earlier proofs may have drawn on)."""
    before = Counter(tuple(sorted(c)) for c in original.cnf.clauses)
    after = Counter(tuple(sorted(c)) for c in mutated.cnf.clauses)
    projection = set(original.projection)
    budget = budget or Budget()
    for lost, holder in ((before - after, mutated), (after - before, original)):
        # Clauses on the puzzle's own variables first: one of them not implied proves the mutant is not
        # redundant, which says more than an auxiliary clause that is not implied.
        own: list[list[int]] = []
        aux: list[list[int]] = []
        for c in lost:
            (own if all(abs(lit) in projection for lit in c) else aux).append(list(c))
        try:
            clause = first_not_implied(with_natives(holder.cnf), own, aux, budget=budget)
        except OutOfBudget:
            return False, f"{BUDGET} of {budget.limit:,} conflicts {UNCOUNTED}"
        if clause is not None:
            # With an auxiliary variable in the clause, or refinement clauses still to come, a model
            # of the rest that breaks it may project onto a real solution: nothing is proved either way.
            return False, ("a changed clause has auxiliary variables" if clause in aux else
                           "a lazy formulation's refinement is left out" if original.refine is not None else
                           OWN)
    return True, ""


def with_natives(cnf: Any) -> list[list[int]]:
    """The clauses of ``cnf``, and when it is a CNF+ its native at-most-k constraints written as clauses (a
    sequential counter over fresh variables), which the proofs' solvers take no other way: without them,
    a clause that the native at-most-ones imply (a cell's at-least-one, with the areas summing to the
    grid's) looked not implied."""
    atmosts = getattr(cnf, "atmosts", None)
    if not atmosts:
        return cnf.clauses
    from pysat.card import CardEnc, EncType

    top = max([cnf.nv, *(abs(lit) for clause in cnf.clauses for lit in clause)])
    out = list(cnf.clauses)
    for lits, bound in atmosts:
        written = CardEnc.atmost(lits=list(lits), bound=bound, top_id=top, encoding=EncType.seqcounter)
        out += written.clauses
        top = max(top, written.nv)
    return out


def first_not_implied(clauses: list[list[int]], *wanted: list[list[int]],
                      budget: Budget | None = None) -> list[int] | None:
    """A clause of the ``wanted`` lists (searched in order: one of the first list that is not implied comes
    before any of the second) that ``clauses`` do not imply (with its negation assumed, they are
    satisfiable), or None when they imply them all. With a ``budget``, raises ``OutOfBudget`` once the SAT
    calls have spent its conflicts (counted in it, so that one budget can cover several calls of this
    function) and the LP relaxation (``solvers.mutation.relaxation``) does not prove the clauses left. A SAT
    call that outruns ``SLICE`` conflicts first has the relaxation asked about the clauses left, once, and
    the calls go on with those it leaves.

    Most implied clauses are implied by unit propagation alone (a weakened clause by its original, an
    at-most-one pair by the rest of its group): one propagation each settles those, far cheaper than a
    solver call. The rest of each list take one SAT call together: the clauses with the negation of one
    of them (whichever the solver picks, behind a selector literal) are unsatisfiable exactly when they
    imply every one. What makes one implied clause hard to prove (a counting argument, such as the ranks
    of a tour being all of 0..n-1) is mostly shared by the others, so the solver learns it once: on the
    knight's tour ``distance`` encoding's dropped "at most one above" clauses, 10 to 30 times fewer
    conflicts than one call per clause."""
    asked = [clause for group in wanted for clause in group]
    if not asked:
        return None
    from pysat.solvers import Solver

    with Solver(name="maplechrono", bootstrap_with=clauses) as propagator:
        # propagate() says False when the negated clause conflicts by unit propagation: it is implied.
        hard = [[c for c in group if propagator.propagate(assumptions=[-lit for lit in c])[0]] for group in wanted]
    if not any(hard):
        return None
    with Solver(name="cadical195", bootstrap_with=clauses) as oracle:
        proof = Proof(oracle, clauses, asked, budget)
        for group in hard:
            broken = proof.one_broken(group)
            if broken is not None:
                return broken
    return None


class Proof:
    """The SAT calls of one ``first_not_implied``: an incremental oracle on the clauses, fresh selector
    variables for each call's negations, and whether the LP relaxation was asked yet (once)."""

    def __init__(self, oracle: Any, clauses: list[list[int]], asked: list[list[int]], budget: Budget | None):
        from pysat.formula import IDPool

        self.oracle, self.clauses, self.asked, self.budget = oracle, clauses, asked, budget
        top = max((abs(lit) for c in (*clauses, *asked) for lit in c), default=0)
        self.pool = IDPool(start_from=top + 1)  # selectors: above every variable of the clauses
        self.counted = False

    def one_broken(self, group: list[list[int]]) -> list[int] | None:
        """The first clause of ``group`` that a model of the clauses breaks, or None when none can be broken."""
        pending = group
        while pending:
            answer = self.some_negation(pending)
            if answer is False:
                return None
            if answer is not None:  # a model: the first clause it breaks
                return next(c for c in pending if not any(lit in answer for lit in c))
            # A call that outruns a slice of the budget may be a counting argument: it is cut short
            # there, once, so the relaxation gets asked before the whole budget is spent.
            if self.counted:
                raise OutOfBudget
            self.counted = True
            proved = {tuple(p) for p in proved_by_counting(self.clauses, pending, beside=self.asked)}
            pending = [c for c in pending if tuple(c) not in proved]
        return None

    def some_negation(self, pending: list[list[int]]) -> set[int] | bool | None:
        """A model of the clauses that breaks one of ``pending`` (its literals), False when there is none,
        None when the budget's slice ran out. Each negation sits behind a selector and one selector must
        hold, all of it only while this call's activation literal is assumed (then retired by a unit clause)."""
        active = self.pool.id(("call", self.pool.top))
        selectors = []
        for clause in pending:
            selector = self.pool.id(("negation", active, len(selectors)))
            selectors.append(selector)
            for lit in clause:
                self.oracle.add_clause([-selector, -lit])
        self.oracle.add_clause([-active, *selectors])
        try:
            if self.budget is None:
                answer = self.oracle.solve(assumptions=[active])
            else:
                left = self.budget.limit - self.budget.spent
                if left <= 0:
                    return None
                before = self.oracle.accum_stats()["conflicts"]  # the oracle's stats add up over its calls
                self.oracle.conf_budget(left if self.counted else min(SLICE, left))
                answer = self.oracle.solve_limited(assumptions=[active])
                self.budget.spent += self.oracle.accum_stats()["conflicts"] - before
            return set(self.oracle.get_model()) if answer else answer  # read before the clause below
        finally:
            self.oracle.add_clause([-active])


def implies(clauses: list[list[int]], clause: list[int]) -> bool:
    """Whether ``clauses`` imply ``clause``: with its negation assumed, they are unsatisfiable."""
    return first_not_implied(clauses, [clause]) is None


def negation(c: Any) -> list[Any] | None:
    """Constraint messages that hold exactly when ``c`` is broken, or None for a kind not handled."""
    from ortools.sat import cp_model_pb2

    out = []
    if c.enforcement_literal:  # broken: every enforcement literal holds and the body fails
        out.append(cp_model_pb2.ConstraintProto(bool_and=cp_model_pb2.BoolArgumentProto(
            literals=list(c.enforcement_literal))))
    kind = c.WhichOneof("constraint")
    body = cp_model_pb2.ConstraintProto()
    if kind is None:
        return None  # an empty constraint always holds: it cannot be broken
    if kind == "bool_or":
        body.bool_and.literals.extend(-lit - 1 for lit in c.bool_or.literals)
    elif kind == "bool_and":
        body.bool_or.literals.extend(-lit - 1 for lit in c.bool_and.literals)
    elif kind in ("exactly_one", "at_most_one"):
        lits = getattr(c, kind).literals
        # sum of literals as a linear expression: a negated literal -v-1 is 1 - v.
        for lit in lits:
            body.linear.vars.append(lit if lit >= 0 else -lit - 1)
            body.linear.coeffs.append(1 if lit >= 0 else -1)
        offset = sum(1 for lit in lits if lit < 0)
        allowed = [1, 1] if kind == "exactly_one" else [0, 1]
        body.linear.domain.extend(complement([a - offset for a in allowed]))
    elif kind == "linear":
        body.linear.CopyFrom(c.linear)
        body.linear.ClearField("domain")
        body.linear.domain.extend(complement(list(c.linear.domain)))
    elif kind == "table":
        body.table.CopyFrom(c.table)
        body.table.negated = not c.table.negated
    else:
        return None
    if kind == "linear" or kind in ("exactly_one", "at_most_one"):
        if not body.linear.domain:
            return []  # it holds always: nothing breaks it (an empty list proves nothing is needed)
    out.append(body)
    return out


def complement(domain: list[int]) -> list[int]:
    """The intervals outside a sorted domain [a0, b0, a1, b1, ...], within LOW..HIGH."""
    out, start = [], LOW
    for a, b in zip(domain[::2], domain[1::2], strict=True):
        if a > start:
            out += [start, a - 1]
        start = b + 1
    if start <= HIGH:
        out += [start, HIGH]
    return out


def cpsat_implied_both_ways(proto: Any, model: Any, edits: dict[int, Any], time_limit: float) -> bool:
    """Whether the model ``proto`` with ``edits`` (index -> new constraint, None: dropped) is the same
    model: every original constraint changed is implied by the edited model, every new one by the original.
    ``model``: the ``CpModel`` that ``proto`` was read from, which the questions are copies of."""
    for holder, wanted in ((edits, [proto.constraints[i] for i in edits]),
                           ({}, [new for new in edits.values() if new is not None])):
        negations = [negation(c) for c in wanted]
        if any(n is None for n in negations):
            return False
        if not none_broken(model, holder, [n for n in negations if n], time_limit):
            return False
    return True


def none_broken(model: Any, edits: dict[int, Any], negations: list[list[Any]], time_limit: float) -> bool:
    """Whether no solution of the ``CpModel`` ``model`` with ``edits`` (as ``mutants.edited_model`` takes
    them) satisfies any of the ``negations`` (each a list of constraint messages): one CP-SAT call on a copy,
    each negation behind a fresh literal and one of them required."""
    from google.protobuf import text_format
    from ortools.sat.python import cp_model

    from gridsat.solvers.mutation.mutants import edited_model

    if not negations:
        return True
    question = edited_model(model, edits)
    asked = question.Proto()
    guards = []
    for negated in negations:
        guard = len(asked.variables)
        asked.variables.add().domain.extend([0, 1])
        guards.append(guard)
        for c in negated:
            added = asked.constraints.add()
            added.merge_text_format(text_format.MessageToString(c))  # a few literals: cheap as text
            added.enforcement_literal.append(guard)
    asked.constraints.add().bool_or.literals.extend(guards)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.catch_sigint_signal = False
    return solver.Solve(question) == cp_model.INFEASIBLE
