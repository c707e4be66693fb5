"""gridsat: combinatorial puzzles as CP-SAT models and CNF, cross-checked against reference searches.

    >>> import gridsat
    >>> gridsat.count("tatami", "4x7").count
    3

``solve``, ``count``, ``enumerate``, ``crosscheck``, ``formulate`` and ``load`` are the API (see ``gridsat.api``); the
puzzles are ``gridsat.models``, the backends ``gridsat.solvers``, the benchmark harness
``gridsat.benchmarks``. OR-Tools and PySAT load only when a formulation is built.
"""

from gridsat import display as _display  # noqa: F401 - hands results the SVG drawing of their solutions
from gridsat.api import count, crosscheck, enumerate, formulate, load, mutate, solve
from gridsat.harness import Benchmark, bench
from gridsat.models import get_puzzle, names
from gridsat.models.errors import BackendUnavailable, GridsatError, InvalidInstance, InvalidOption, UnknownName
from gridsat.models.puzzle import Puzzle
from gridsat.models.version import VERSION
from gridsat.solvers.checks.crosscheck import Report
from gridsat.solvers.mutation.mutate import MutationReport
from gridsat.solvers.orbits.counting import Orbit, OrbitOutcome, OrbitReport, Orbits
from gridsat.solvers.run import Enumeration, Outcome
from gridsat.solvers.splitting.parallel import Split

__version__ = VERSION

__all__ = [
    "BackendUnavailable",
    "Benchmark",
    "Enumeration",
    "GridsatError",
    "InvalidInstance",
    "InvalidOption",
    "MutationReport",
    "Orbit",
    "OrbitOutcome",
    "OrbitReport",
    "Orbits",
    "Outcome",
    "Puzzle",
    "Report",
    "Split",
    "UnknownName",
    "bench",
    "count",
    "crosscheck",
    "enumerate",
    "formulate",
    "get_puzzle",
    "load",
    "mutate",
    "names",
    "solve",
]
