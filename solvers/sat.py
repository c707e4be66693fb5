"""The PySAT backend: any PySAT solver, enumeration by blocking clauses over the projection only."""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gridsat.models.errors import BackendUnavailable, InvalidOption, UnknownName
from gridsat.models.formulation import CnfFormulation, Key
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import Request
from gridsat.solvers.parts import Part, interrupted_split, split_prefix
from gridsat.solvers.stop import Stop

DEFAULT_SOLVER = "cadical195"
# Conflicts per call: between calls the loop looks at the clock and lets Ctrl-C through (CaDiCaL
# holds the GIL and cannot be interrupted from another thread, so budgets are the only way).
BUDGET = 20_000
# These cannot solve with a budget; kissat cannot even solve twice, so it can only find one solution.
UNLIMITED = frozenset({"lingeling", "kissat404"})
ONE_SHOT = frozenset({"kissat404"})


@functools.cache
def solver_names() -> list[str]:
    """The solvers this PySAT build can start, default first (SolverNames lists some it lacks)."""
    from pysat.solvers import NoSuchSolverError, Solver, SolverNames

    names = []
    for name in sorted(n for n in vars(SolverNames) if not n.startswith("_")):
        try:
            Solver(name=name).delete()
        except NoSuchSolverError:
            continue
        names.append(name)
    names.remove(DEFAULT_SOLVER)
    return [DEFAULT_SOLVER, *names]


@dataclass
class SatJob:
    """A CNF and a solver name, ready to enumerate."""

    formulation: CnfFormulation
    solver: str
    label: str
    exhaustive: bool = True
    units: list[list[int]] = field(default_factory=list)  # a part's fixed projection variables

    def size(self) -> dict[str, int]:
        return self.formulation.size()

    def restrict(self, part: Part) -> None:
        """Fix the part's projection variables by unit clauses."""
        pool = self.formulation.pool
        self.units += [[pool.id(key) if value else -pool.id(key)] for key, value in part.fixed]

    def oracle(self) -> Any:
        """A solver loaded with the CNF and the part's units."""
        from pysat.solvers import NoSuchSolverError, Solver

        f = self.formulation
        try:
            oracle = Solver(name=self.solver, bootstrap_with=f.cnf.clauses)
        except NoSuchSolverError:
            raise BackendUnavailable(f"PySAT solver {self.solver!r} is not built into this python-sat") from None
        for unit in self.units:
            oracle.add_clause(unit)
        if f.projection:
            # Mention the highest projection variable, so that the solver's model covers every
            # projection variable, including any that no clause constrains.
            top = max(f.projection)
            oracle.add_clause([top, -top])
        return oracle

    def split(self, target: int, cap: int, stop: Stop) -> list[Part]:
        """Parts on a prefix of the projection, their projections enumerated by the solver.

        One solver serves every prefix: each prefix's blocking clauses carry a fresh activation
        literal that only that prefix's calls assume, so they never cut another prefix's models.
        """
        f = self.formulation
        with self.oracle() as oracle:
            fresh = [max(f.cnf.nv, f.pool.top)]

            def projections(onto: list[Key], limit: int) -> list[tuple[int, ...]] | None:
                variables = [f.pool.id(key) for key in onto]
                fresh[0] += 1
                active = fresh[0]
                found: list[tuple[int, ...]] = []
                while True:
                    answer = self._solve(oracle, stop, [active])
                    if answer is None:
                        raise interrupted_split(stop)
                    if not answer:
                        return found
                    model = oracle.get_model()
                    values = tuple(int(model[v - 1] > 0) for v in variables)
                    found.append(values)
                    if len(found) > limit:
                        return None
                    other = [-v if value else v for v, value in zip(variables, values, strict=True)]
                    oracle.add_clause([-active, *other])

            return split_prefix([f.pool.obj(v) for v in f.projection], projections, target, cap)

    def solutions(self, stop: Stop) -> Iterator[Any]:
        f = self.formulation
        with self.oracle() as oracle:
            while True:
                if not self._solve(oracle, stop):  # None (stopped) or False (no more solutions)
                    return
                model = oracle.get_model()
                yield from f.solutions_of(f.values(model))
                if self.solver in ONE_SHOT:
                    stop.request(f"{self.solver} cannot solve incrementally, so it finds one solution")
                    return
                # Block this assignment of the projection, never of the auxiliaries, so that the
                # auxiliaries of an encoding cannot multiply the count.
                oracle.add_clause(f.blocking_clause(model))

    def _solve(self, oracle: Any, stop: Stop, assumptions: list[int] | None = None) -> bool | None:
        """One satisfiability call in budgeted slices; None when the stop came first."""
        assumed = assumptions or []
        if self.solver in UNLIMITED:
            return None if stop.expired() else _interruptible(lambda: oracle.solve(assumptions=assumed))
        while not stop.expired():
            oracle.conf_budget(BUDGET)
            answer = _interruptible(lambda: oracle.solve_limited(assumptions=assumed))
            if answer is not None:
                return answer
        return None


def _interruptible(call: Callable[[], bool | None]) -> bool | None:
    """Make a Ctrl-C caught inside PySAT's C code a KeyboardInterrupt again.

    PySAT installs its own SIGINT handler around a call from the main thread and raises its
    ``pysolvers.error("Caught keyboard interrupt")``, which is not a KeyboardInterrupt.
    """
    try:
        return call()
    except Exception as error:
        if "keyboard interrupt" in str(error).lower():
            raise KeyboardInterrupt from None
        raise


class SatBackend:
    """PySAT with a solver of the user's choice."""

    name = "sat"
    summary = "PySAT (default cadical195); enumerates with blocking clauses on the projection"
    takes = ("encoding", "solver")

    def supported(self) -> bool:
        return importlib.util.find_spec("pysat") is not None  # without importing it: listing stays fast

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        return {"encoding": puzzle.cnf_encodings.tokens(), "solver": solver_names()}

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> SatJob:
        solver = request.solver or DEFAULT_SOLVER
        if solver not in solver_names():
            raise UnknownName("solver", solver, solver_names())
        if solver in ONE_SHOT and request.limit != 1:
            raise InvalidOption(f"solver {solver!r} cannot solve incrementally: use it with 'solve' only")
        encoding = puzzle.cnf_encodings.resolve(request.encoding, f" for the CNF of {puzzle.name}")
        label = f"{encoding.name}/{solver}"
        job = SatJob(puzzle.cnf(instance, encoding), solver, label)
        if request.part is not None:
            job.restrict(request.part)
        return job
