"""The CP-SAT backend: enumeration through OR-Tools' solution callback, with one worker."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gridsat.models.formulation import CpsatFormulation
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import Request
from gridsat.solvers.stop import Stop
from gridsat.solvers.stream import Emit, stream


@dataclass
class CpsatJob:
    """A CP-SAT model ready to enumerate (or, asked for one solution, to search with every core)."""

    formulation: CpsatFormulation
    label: str
    single: bool = False
    exhaustive: bool = True

    def size(self) -> dict[str, int]:
        return self.formulation.size()

    def solutions(self, stop: Stop) -> Iterator[Any]:
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        if self.single:
            solver.parameters.num_workers = 0  # all cores: a portfolio finds one solution fastest
        else:
            # One worker: enumeration with a portfolio of workers is not supported, and one
            # sequential search is what the duplicate check expects to see.
            solver.parameters.enumerate_all_solutions = True
            solver.parameters.num_workers = 1
        # CP-SAT's own SIGINT handler would fight Python's (and abort the process); Ctrl-C reaches
        # the reading thread as KeyboardInterrupt instead, and that halts the search.
        solver.parameters.catch_sigint_signal = False
        if stop.remaining() is not None:
            solver.parameters.max_time_in_seconds = max(stop.remaining() or 0.0, 1e-3)
        formulation = self.formulation
        primary = list(formulation.primary.items())

        class Collector(cp_model.CpSolverSolutionCallback):
            def __init__(self, emit: Emit) -> None:
                super().__init__()
                self.emit = emit

            def on_solution_callback(self) -> None:
                values = {key: self.Value(var) for key, var in primary}
                for solution in formulation.solutions_of(values):
                    if not self.emit(solution):
                        self.StopSearch()
                        return

        def produce(emit: Emit) -> None:
            status = solver.Solve(formulation.model, Collector(emit))
            if status == cp_model.MODEL_INVALID:
                raise RuntimeError(f"CP-SAT rejected the model: {formulation.model.Validate()}")
            if status in (cp_model.FEASIBLE, cp_model.UNKNOWN) and not stop.expired():
                stop.request("CP-SAT stopped before finishing the search")

        yield from stream(produce, solver.StopSearch, stop)


class CpsatBackend:
    """Google OR-Tools CP-SAT."""

    name = "cpsat"
    summary = "OR-Tools CP-SAT; enumerates with its solution callback on one worker"
    takes = ("encoding",)

    def supported(self) -> bool:
        return importlib.util.find_spec("ortools") is not None  # without importing it: listing stays fast

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        return {"encoding": puzzle.cpsat_encodings.tokens()}

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> CpsatJob:
        encoding = puzzle.cpsat_encodings.resolve(request.encoding, f" for the CP-SAT model of {puzzle.name}")
        return CpsatJob(puzzle.cpsat(instance, encoding), encoding.name, single=request.limit == 1)
