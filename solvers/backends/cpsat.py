"""The CP-SAT backend: enumeration through OR-Tools' solution callback, with one worker."""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gridsat.models.encoding import Encoding
from gridsat.models.formulation import CpsatFormulation, Key, picker
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import (
    CERTIFY,
    CPSAT,
    ENUMERATORS,
    Backend,
    Request,
    bound_choice,
    formulate,
    part_formulation,
)
from gridsat.solvers.cubes import Handback, Part, interrupted_split, split_prefix
from gridsat.solvers.stop import TIME_LIMIT, Stop
from gridsat.solvers.threaded import Emit, generate

if TYPE_CHECKING:  # loaded when a run certifies
    from gridsat.solvers.proof.replay import CpsatReplay


@dataclass
class CpsatSearch:
    """A CP-SAT model ready to enumerate (or, asked for one solution, to search with every core)."""

    formulation: CpsatFormulation
    label: str
    single: bool = False
    exhaustive: bool = True
    seed: int | None = None  # random_seed, with the variables permuted (a benchmark's spread)
    workers: int | None = None  # num_workers when searching for one solution (None: every core)
    counters: dict[str, int] = field(default_factory=dict)  # from the last response
    handback: Handback = field(default_factory=Handback)
    # (prefix length of the part split, sub-parts asked) -> the prefix length the last such split chose
    prefixes: dict[tuple[int, int], int] = field(default_factory=dict)
    relaxations: dict[int, Any] = field(default_factory=dict)  # splitting: by prefix length (relaxed_projections)
    part: bool = False  # searching one part of a split run (``restrict``)
    replay: CpsatReplay | None = None  # --certify: the solutions replayed in the CNF (solvers.proof.replay)

    def certification(self) -> dict[str, Any]:
        """What ``count --json`` says of the certificate (as the sat backend's ``SatSearch`` does)."""
        if self.replay is None:
            return {}
        return {"certified": None} if self.replay.verdict is None else self.replay.verdict.summary()

    def accept(self, solution: Any, frozen: Any = None) -> None:
        """The run's verifier accepted ``solution`` (``solvers.run``): a certificate's judge need not ask again."""
        if self.replay is not None:
            self.replay.certificate.accept(solution, frozen)

    def settle(self, ended: bool, stopped: bool, stop: Stop | None = None) -> None:
        """Certify a "no more solutions" (``ended``: an enumeration that ran to its end, or a search that found
        none), unless the search was stopped early or cut to be split again; ``stop``, a time limit or Ctrl-C
        that comes while it is certified, ends that with no verdict."""
        if self.replay is not None and ended and not stopped and not self.handback.draining:
            self.replay.finish(stop)

    def size(self) -> dict[str, int]:
        return self.formulation.size()

    def statistics(self) -> dict[str, int | None]:
        """CP-SAT's counters: conflicts, branches (its decisions), propagations (Boolean and integer), restarts."""
        return {name: self.counters.get(name) for name in ("conflicts", "decisions", "propagations", "restarts")}

    def configure(self, solver: Any) -> None:
        """Workers, seed and time limit of the solver; enumeration always runs on one worker."""
        if self.single:
            solver.parameters.num_workers = self.workers or 0  # 0: all cores, a portfolio finds one solution fastest
        else:
            # One worker: enumeration with a portfolio of workers is not supported, and one
            # sequential search is what the duplicate check expects to see.
            solver.parameters.enumerate_all_solutions = True
            solver.parameters.num_workers = 1
            if self.part:
                # A part is a small search started afresh, and probing is a start-up cost there: parts of a
                # split run searched one after another took 15% (prime-grid 5x5/1..25, 40 parts) to 35%
                # (knights-tour 6x6 closed, 30 parts) less processor time without it; whole counts the same.
                solver.parameters.cp_model_probing_level = 0
        if self.seed is not None:
            solver.parameters.random_seed = self.seed
            solver.parameters.permute_variable_randomly = True
        # CP-SAT's own SIGINT handler would fight Python's (and abort the process); Ctrl-C reaches
        # the reading thread as KeyboardInterrupt instead, and that halts the search.
        solver.parameters.catch_sigint_signal = False

    def count_from(self, solver: Any) -> None:
        """Keep the counters of the solver's response (none when the solve never finished)."""
        try:
            response = solver.response_proto
        except RuntimeError:
            return
        self.counters = {"conflicts": response.num_conflicts, "decisions": response.num_branches,
                         "propagations": response.num_binary_propagations + response.num_integer_propagations,
                         "restarts": response.num_restarts}

    def restrict(self, part: Part) -> None:
        """Fix the part's primary variables: the model then holds that part's solutions only."""
        self.handback.recording = True
        self.part = True
        for key, value in part.fixed:
            self.formulation.model.Add(self.formulation.primary[key] == value)
        if part.blocked:  # models a run split again already counted
            self.formulation.model.AddForbiddenAssignments(list(self.formulation.primary.values()), part.blocked)
        if self.replay is not None:
            self.replay.restrict(part, list(self.formulation.primary))

    def split(self, target: int, cap: int, stop: Stop, within: Part | None = None) -> list[Part]:
        """Parts on a prefix of the primary variables (``within``: sub-parts of that part, on a longer prefix).

        Each prefix's assignments come from one enumeration of a relaxation: what the model's
        constraints imply about the prefix variables alone (``project``). A relaxation keeps every
        real solution's prefix, so the parts are exhaustive; they are distinct assignments, so
        disjoint; a few may hold no solution. Finding the exact projections instead would cost a
        CP-SAT start per part, far more than a part's own search on small parts.
        """
        primary = [self.formulation.primary[key].Index() for key in self.formulation.primary]
        proto = self.formulation.model.Proto()
        pinned = {self.formulation.primary[key].Index(): value for key, value in (within.fixed if within else ())}

        def projections(onto: list[Key], limit: int) -> list[tuple[int, ...]] | None:
            return relaxed_projections(proto, primary[: len(onto)], limit, stop, pinned, self.relaxations)

        fixed = len(within.fixed) if within else 0
        parts = split_prefix(list(self.formulation.primary), projections, target, cap, within,
                             self.prefixes.get((fixed, target)))
        if parts:
            self.prefixes[(fixed, target)] = len(parts[0].fixed)
        return parts

    def solutions(self, stop: Stop) -> Iterator[Any]:
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        self.configure(solver)
        limited = stop.remaining() is not None
        if limited:
            solver.parameters.max_time_in_seconds = max(stop.remaining() or 0.0, 1e-3)
        formulation, keys = self.formulation, list(self.formulation.primary)
        # The primary values straight from the response: a copy and an itemgetter, not a Value() call each.
        pick = picker([formulation.primary[key].Index() for key in keys])
        handback, replay = self.handback, self.replay

        class Relay(cp_model.CpSolverSolutionCallback):
            def __init__(self, emit: Emit) -> None:
                super().__init__()
                self.emit = emit
                self.stopped = False
                self.refused = False  # a model was left uncounted because the part is being split again

            def on_solution_callback(self) -> None:
                if handback.draining:
                    self.stopped = self.refused = True
                    self.StopSearch()
                    return
                assignment = pick(list(self.Response().solution))
                values = dict(zip(keys, assignment, strict=True))
                solutions = formulation.solutions_of(values)
                for solution in solutions:
                    if not self.emit(solution):
                        self.stopped = True
                        self.StopSearch()
                        return
                if replay is not None:
                    replay.add(values, len(solutions))
                if handback.recording:
                    handback.found.append(tuple(assignment))

        def produce(emit: Emit) -> None:
            handback.halt = solver.StopSearch
            relay = Relay(emit)
            try:
                status = solver.Solve(formulation.model, relay)
            finally:
                handback.halt = None
                self.count_from(solver)
            self.settle(status == cp_model.INFEASIBLE or status == cp_model.OPTIMAL and not self.single, relay.stopped,
                        stop)
            if status == cp_model.MODEL_INVALID:
                raise RuntimeError(f"CP-SAT rejected the model: {formulation.model.Validate()}")
            # Stopped between models to be split again: not a limit. A model refused while draining is uncounted,
            # so the part is cut whatever the status (OPTIMAL when that model was its last: it would end complete).
            if handback.draining and (relay.refused or status in (cp_model.FEASIBLE, cp_model.UNKNOWN)):
                handback.cut = True
                return
            if status in (cp_model.FEASIBLE, cp_model.UNKNOWN) and not stop.expired():
                # Halted by its own time limit, which can run out a little before ours does.
                stop.request(TIME_LIMIT if limited else "CP-SAT stopped before finishing the search")

        yield from generate(produce, solver.StopSearch, stop)


def var(ref: int) -> int:
    """The variable of a literal or variable reference (a negated literal is ``-var - 1``)."""
    return ref if ref >= 0 else -ref - 1


def expr_vars(expr: Any) -> set[int]:
    return {var(v) for v in expr.vars}


def project(constraint: Any, inside: set[int], out: Any) -> None:
    """Add to model ``out`` what ``constraint`` implies about the variables ``inside`` alone.

    Only implications are ever added (a constraint restricted to some of its variables, or left
    out), so every solution of the full model satisfies the result: the relaxation's assignments
    include every real solution's. A kind not handled here is left out, which is always safe.
    """
    if not {var(e) for e in constraint.enforcement_literal} <= inside:
        return  # whether it applies depends on a variable outside
    enforce = list(constraint.enforcement_literal)

    def add() -> Any:
        new = out.Proto().constraints.add()
        new.enforcement_literal.extend(enforce)
        return new

    if constraint.has_exactly_one() or constraint.has_at_most_one():
        literals = list(constraint.exactly_one.literals if constraint.has_exactly_one()
                        else constraint.at_most_one.literals)
        kept = [lit for lit in literals if var(lit) in inside]
        if constraint.has_exactly_one() and len(kept) == len(literals):
            add().exactly_one.literals.extend(kept)
        elif len(kept) > 1:
            add().at_most_one.literals.extend(kept)  # at most one of all, so of these
    elif constraint.has_bool_and():
        kept = [lit for lit in constraint.bool_and.literals if var(lit) in inside]
        if kept:
            add().bool_and.literals.extend(kept)
    elif constraint.has_all_diff():
        kept = [e for e in constraint.all_diff.exprs if expr_vars(e) <= inside]
        if len(kept) > 1:
            new = add()
            for e in kept:
                new.all_diff.exprs.add().copy_from(e)
    elif constraint.has_table():
        project_table(constraint.table, inside, add)
    elif constraint.has_circuit():
        circuit = constraint.circuit  # each node has at most one arc out and one arc in
        for ends in (circuit.tails, circuit.heads):
            by_node: dict[int, list[int]] = {}
            for node, lit in zip(ends, circuit.literals, strict=True):
                if var(lit) in inside:
                    by_node.setdefault(node, []).append(lit)
            for lits in by_node.values():
                if len(lits) > 1:
                    add().at_most_one.literals.extend(lits)
    else:
        kinds = ("bool_or", "bool_xor", "linear")  # kept only whole
        mentioned: set[int] = set()
        for kind in kinds:
            if getattr(constraint, f"has_{kind}")():
                body = getattr(constraint, kind)
                refs = body.vars if kind == "linear" else body.literals
                mentioned = {var(r) for r in refs}
                if mentioned <= inside:
                    out.Proto().constraints.add().copy_from(constraint)
                return


def project_table(table: Any, inside: set[int], add: Callable[[], Any]) -> None:
    """An allowed-assignments table projected onto its columns inside (a forbidden one only whole)."""
    columns = list(table.exprs) if len(table.exprs) else None
    width = len(columns) if columns is not None else len(table.vars)
    if width == 0:
        return
    keep = [i for i in range(width) if (expr_vars(columns[i]) if columns else {var(table.vars[i])}) <= inside]
    if not keep or (table.negated and len(keep) < width):
        return
    values = list(table.values)
    rows = {tuple(values[r + i] for i in keep) for r in range(0, len(values), width)}
    new = add().table
    for i in keep:
        if columns is not None:
            new.exprs.add().copy_from(columns[i])
        else:
            new.vars.append(table.vars[i])
    for row in sorted(rows):
        new.values.extend(row)
    if table.negated:
        new.negated = True


def relaxation(proto: Any, prefix: list[int]) -> Any:
    """The model of what ``proto``'s constraints imply about the ``prefix`` variables alone (every other
    variable pinned to its lowest value: no kept constraint mentions it, so it adds no assignments)."""
    from ortools.sat.python import cp_model

    inside = set(prefix)
    relaxed = cp_model.CpModel()
    for index, variable in enumerate(proto.variables):
        copy = relaxed.Proto().variables.add()
        copy.copy_from(variable)
        if index not in inside:
            low = variable.domain[0]
            copy.domain.clear()
            copy.domain.extend([low, low])
    for constraint in proto.constraints:
        project(constraint, inside, relaxed)
    return relaxed


def relaxed_projections(proto: Any, prefix: list[int], cap: int, stop: Stop, pinned: dict[int, int] | None = None,
                        relaxations: dict[int, Any] | None = None) -> list[tuple[int, ...]] | None:
    """Every assignment of the ``prefix`` variables that satisfies what the model's constraints imply
    about them alone (None when there are more than ``cap``); ``pinned`` variables keep their value.
    ``relaxations``: the relaxations of ``proto`` built so far, by prefix length (a split run splits
    hundreds of parts on a few prefix lengths, and projecting the constraints anew took most of the
    parent's processor time on prime-grid 4x5 cpsat)."""
    from ortools.sat.python import cp_model

    cached = None if relaxations is None else relaxations.get(len(prefix))
    if cached is None:
        cached = relaxation(proto, prefix)
        if relaxations is not None:
            relaxations[len(prefix)] = cached
    relaxed = cp_model.CpModel()
    relaxed.Proto().copy_from(cached.Proto())
    for index, value in (pinned or {}).items():  # a part's own values: its sub-parts keep them
        domain = relaxed.Proto().variables[index].domain
        domain.clear()
        domain.extend([value, value])
    found: list[tuple[int, ...]] = []

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            found.append(tuple(self.Value(relaxed.GetIntVarFromProtoIndex(i)) for i in prefix))
            if len(found) > cap or stop.expired():
                self.StopSearch()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False
    # A relaxation is small and enumerated once: presolve and probing were a quarter of a split's processor time
    # (prime-grid 5x5/1..25, 60 parts split into 366: 0.18 s against 0.24 s), and they change no solution.
    solver.parameters.cp_model_presolve = False
    solver.parameters.cp_model_probing_level = 0
    status = solver.Solve(relaxed, Collect())
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT rejected a relaxation: {relaxed.Validate()}")
    if stop.expired():
        raise interrupted_split(stop)
    return None if len(found) > cap else sorted(found)


def part_model(puzzle: Puzzle, instance: Instance, encoding: Encoding) -> CpsatFormulation:
    """A part's CP-SAT model: a copy of the one its worker process built for the run's parts
    (solvers.backend.part_formulation), to which the part adds its own constraints (``restrict``). Building the
    model afresh for each part took 5.7 ms of a 117 ms part of prime-grid 5x5/1..25 (64 parts, one after
    another), the copy 0.7 ms (python -m gridsat.benchmarks.compare.part_start)."""
    built = part_formulation(puzzle, instance, CPSAT, encoding)
    assert isinstance(built, CpsatFormulation)
    model = built.model.clone()
    primary = {key: model.get_int_var_from_proto_index(var.Index()) for key, var in built.primary.items()}
    return dataclasses.replace(built, model=model, primary=primary)


class CpsatBackend(Backend):
    """Google OR-Tools CP-SAT: every puzzle has a CP-SAT model; the encoding is checked when it is built."""

    name = "cpsat"
    summary = "OR-Tools CP-SAT; enumerates with its solution callback on one worker"
    takes = ("encoding",)
    can = ENUMERATORS | {CERTIFY}
    formulation = CPSAT
    install = "pip install ortools (a dependency of gridsat)"

    def supported(self) -> bool:
        return importlib.util.find_spec("ortools") is not None  # without importing it: listing stays fast

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        return {"encoding": puzzle.cpsat_encodings.tokens()}

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> CpsatSearch:
        choice = bound_choice(request)  # the gate resolved the encoding for CP-SAT, which every puzzle has
        encoding = choice.encoding
        assert encoding is not None, "the gate resolves a CP-SAT encoding for every request it binds"
        # a part of a split run copies its worker's model (``part_model``); a certified one builds its own
        formulation = part_model(puzzle, instance, encoding) if request.part is not None and not choice.proof \
            else formulate(puzzle, instance, CPSAT, encoding)
        job = CpsatSearch(formulation, encoding.name, single=request.limit == 1, seed=request.seed,
                          workers=request.workers)
        if choice.proof:
            from gridsat.solvers.proof.replay import replay_for

            job.replay = replay_for(puzzle, instance, request, job.formulation, encoding.name)
        if request.part is not None:
            job.restrict(request.part)
        return job
