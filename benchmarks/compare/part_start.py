"""What a part of a split run costs to start, and what one solver or one model per worker would save.

    python -m gridsat.benchmarks.compare.part_start                       # prime-grid 5x5/1..25, sat and cpsat
    python -m gridsat.benchmarks.compare.part_start --backends sat --parts 2000 --every 10

The run is split as a split run's parent splits it (into about ``--parts`` parts), and every ``--every``-th part
is counted here, in this process, by each arm in turn (alternated part by part, so that both meet the same load),
in processor seconds; the arms must count the same.

- sat ``fresh``: what a part does (solvers.backends.sat): a fresh CaDiCaL loaded with the part's cube as unit
  clauses, then the CNF; ``units last``: the CNF first, then the units (as parts did before). ``held``: one solver
  for every part, loaded once; each part's cube assumed, with a selector literal of its own under which its
  blocking clauses go in, retired (its negation added as a unit) when the part ends.
- cpsat ``build``: the model built afresh for each part, its values fixed by constraints. ``copy``: a copy of the
  model the worker built once (solvers.backends.cpsat ``part_model``), as parts do now.

What it measured (2026-11-29, the shared two-core machine at a load of 3 to 6, processor seconds):

- sat, prime-grid 5x5/1..25, 1,026 parts, every 5th (206 parts, 169,008 solutions), units last: 3.6 ms a part to
  load and 25.2 ms to search it, held 43.9 ms to search (no load): a held solver costs a part 1.5 times as much. With
  the cube assumed, a fresh solver searched 41.3 ms (load 3.7 ms): the assumptions cost it, not the solver's
  learnt clauses or its parts' retired clauses (held 46.1 ms there); likely, CaDiCaL simplifies a part's formula
  with its units, and under assumptions it decides the cube again at every call, one call a model. An empty part
  (38 to 40% of a split into 2,000 parts: relaxed projections) took 3.4 to 3.7 ms held against 5.8 to 6.0 ms
  fresh, but a part held until its 8th to 64th model and then counted on in a fresh solver (the models so far
  blocked there) took 0.93x to 1.15x fresh's time over three samples: not built. A fresh solver's load is
  CaDiCaL's own (2.9 ms to load and delete 5,013 clauses, of which pysat's Python loop is little: calling its C
  function directly took about as long). Units first against units last (alternated, 3,814 parts every 7th and
  1,026 every 4th): 2.97 and 8.23 ms against 3.28 and 8.55 ms; 2.96 and 27.41 ms against 3.13 and 28.33 ms (5.3%
  and 3.5% less in all).
- cpsat, prime-grid 5x5/1..25, 510 parts, every 8th (64 parts, 12,378 solutions): build 5.7 ms and search 117.2
  ms a part; copy 0.7 ms and 115.2 ms; copy without presolve 0.7 ms and 113.6 ms. ``part_model`` alone: 0.37 ms.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable

from gridsat.api import load
from gridsat.solvers.backend import COUNT, CPSAT, Request, bound_choice, formulate
from gridsat.solvers.cubes import Part
from gridsat.solvers.gate import Job, bind
from gridsat.solvers.stop import Stop

Arm = Callable[[Part], tuple[int, float, float]]  # a part -> its solutions, seconds to start, seconds to search


def sat_arms(puzzle, instance, request: Request) -> dict[str, Arm]:
    """The sat arms: a fresh solver per part with the cube as units (first, or after the CNF), and one held solver
    with the cube assumed."""
    from pysat.solvers import Solver

    search = bind("sat", puzzle, Job(COUNT, request)).backend.prepare(puzzle, instance, request)
    f = search.formulation
    top = max(f.projection)

    def count(oracle, assumed: list[int], selector: int | None = None) -> int:
        found = 0
        while oracle.solve(assumed):
            model = oracle.get_model()
            found += len(f.stands_for(f.decode(f.values(model))))
            oracle.add_clause(f.blocking_clause(model) + ([-selector] if selector else []))
        return found

    def fresh(units_first: bool) -> Arm:
        def run(part: Part) -> tuple[int, float, float]:
            started = time.process_time()
            oracle = Solver(name=search.solver)
            units = [[f.literal(key, value)] for key, value in part.fixed]
            for clauses in ([units, f.cnf.clauses] if units_first else [f.cnf.clauses, units]):
                oracle.append_formula(clauses)
            oracle.add_clause([top, -top])
            loaded = time.process_time()
            found = count(oracle, [])
            searched = time.process_time()
            oracle.delete()
            return found, loaded - started, searched - loaded
        return run

    held = Solver(name=search.solver, bootstrap_with=f.cnf.clauses)
    held.add_clause([top, -top])
    selectors = iter(range(max(f.cnf.nv, f.pool.top) + 1, sys.maxsize))

    def shared(part: Part) -> tuple[int, float, float]:
        started = time.process_time()
        selector = next(selectors)
        found = count(held, [f.literal(key, value) for key, value in part.fixed] + [selector], selector)
        held.add_clause([-selector])
        return found, 0.0, time.process_time() - started

    return {"units last": fresh(False), "fresh": fresh(True), "held": shared}


def cpsat_arms(puzzle, instance, request: Request) -> dict[str, Arm]:
    """The cpsat arms: the model built for each part, or a copy of one built once (``part_model``)."""
    from ortools.sat.python import cp_model

    from gridsat.solvers.backends.cpsat import part_model

    encoding = bound_choice(request).encoding
    assert encoding is not None

    class Tally(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.found = 0

        def on_solution_callback(self) -> None:
            self.found += 1

    def arm(make: Callable[[], object]) -> Arm:
        def run(part: Part) -> tuple[int, float, float]:
            started = time.process_time()
            formulation = make()
            for key, value in part.fixed:
                formulation.model.Add(formulation.primary[key] == value)
            built = time.process_time()
            solver = cp_model.CpSolver()
            solver.parameters.enumerate_all_solutions = True
            solver.parameters.num_workers = 1
            solver.parameters.cp_model_probing_level = 0  # as a part searches (solvers.backends.cpsat)
            tally = Tally()
            solver.Solve(formulation.model, tally)
            return tally.found, built - started, time.process_time() - built
        return run

    return {"build": arm(lambda: formulate(puzzle, instance, CPSAT, encoding)),
            "copy": arm(lambda: part_model(puzzle, instance, encoding))}


def measure(backend: str, parts: int, every: int) -> None:
    puzzle, instance = load("prime-grid", "5x5", {"max": "25"})
    request = bind(backend, puzzle, Job(COUNT, Request())).request  # its encoding resolved by the gate
    whole = bind(backend, puzzle, Job(COUNT, request)).backend.prepare(puzzle, instance,
                                                                        dataclasses.replace(request, part=Part()))
    split = whole.split(parts, 2 * parts, Stop())
    sample = split[::every]
    arms = (sat_arms if backend == "sat" else cpsat_arms)(puzzle, instance, dataclasses.replace(request, part=Part()))
    totals = {name: [0, 0.0, 0.0] for name in arms}
    for i, part in enumerate(sample):
        order = list(arms) if i % 2 == 0 else list(reversed(arms))
        found = {}
        for name in order:
            count, start, search = arms[name](part)
            found[name] = count
            totals[name][0] += count
            totals[name][1] += start
            totals[name][2] += search
        if len(set(found.values())) != 1:
            raise SystemExit(f"part {part.index}: the arms counted {found}")
    print(f"{backend}: prime-grid 5x5/1..25 split into {len(split)} parts, {len(sample)} counted by each arm")
    for name, (count, start, search) in totals.items():
        print(f"  {name:>10}: {count} solutions; a part {1000 * start / len(sample):.2f} ms to start, "
              f"{1000 * search / len(sample):.2f} ms to search; {start + search:.2f} s in all", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", nargs="+", choices=("sat", "cpsat"), default=["sat", "cpsat"])
    parser.add_argument("--parts", type=int, default=None, help="parts to split into (default: sat 1000, cpsat 500)")
    parser.add_argument("--every", type=int, default=None, help="count every n-th part (default: sat 5, cpsat 8)")
    args = parser.parse_args()
    for backend in args.backends:
        sat = backend == "sat"
        measure(backend, args.parts or (1000 if sat else 500), args.every or (5 if sat else 8))
    return 0


if __name__ == "__main__":
    sys.exit(main())
