"""gridsat: combinatorial puzzles as CP-SAT models and CNF, cross-checked against reference searches.

    >>> import gridsat
    >>> gridsat.count("tatami", "4x7").count
    3

``solve``, ``count``, ``enumerate``, ``crosscheck``, ``formulate`` and ``load`` are the API (see ``gridsat.api``); the
puzzles are ``gridsat.models``, the backends ``gridsat.solvers``, the benchmark harness
``gridsat.benchmarks``. OR-Tools and PySAT load only when a formulation is built.
"""

from typing import TYPE_CHECKING, Any

# Where each name of the API lives. They are imported on first use (PEP 562), so that ``gridsat`` (the
# command line's ``gridsat.__main__``) starts in milliseconds and can catch a Ctrl-C while the rest loads.
_HOMES = {
    "count": "gridsat.api", "crosscheck": "gridsat.api", "enumerate": "gridsat.api", "formulate": "gridsat.api",
    "load": "gridsat.api", "mutate": "gridsat.api", "solve": "gridsat.api",
    "Benchmark": "gridsat.harness", "bench": "gridsat.harness",
    "get_puzzle": "gridsat.models", "names": "gridsat.models",
    "BackendUnavailable": "gridsat.models.errors", "GridsatError": "gridsat.models.errors",
    "InvalidInstance": "gridsat.models.errors", "InvalidOption": "gridsat.models.errors",
    "UnknownName": "gridsat.models.errors",
    "Puzzle": "gridsat.models.puzzle",
    "Report": "gridsat.solvers.checks.crosscheck",
    "MutationReport": "gridsat.solvers.mutation.mutate",
    "Orbit": "gridsat.solvers.orbits.counting", "OrbitOutcome": "gridsat.solvers.orbits.counting",
    "OrbitReport": "gridsat.solvers.orbits.counting", "Orbits": "gridsat.solvers.orbits.counting",
    "Enumeration": "gridsat.solvers.run", "Outcome": "gridsat.solvers.run",
    "Split": "gridsat.solvers.splitting.parallel",
    "__version__": "gridsat.models.version",
}

if TYPE_CHECKING:
    from gridsat.api import count, crosscheck, enumerate, formulate, load, mutate, solve
    from gridsat.harness import Benchmark, bench
    from gridsat.models import get_puzzle, names
    from gridsat.models.errors import BackendUnavailable, GridsatError, InvalidInstance, InvalidOption, UnknownName
    from gridsat.models.puzzle import Puzzle
    from gridsat.solvers.checks.crosscheck import Report
    from gridsat.solvers.mutation.mutate import MutationReport
    from gridsat.solvers.orbits.counting import Orbit, OrbitOutcome, OrbitReport, Orbits
    from gridsat.solvers.run import Enumeration, Outcome
    from gridsat.solvers.splitting.parallel import Split


def __getattr__(name: str) -> Any:
    """An API name, imported on first use (and kept as the module's attribute from then on)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'gridsat' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), "VERSION" if name == "__version__" else name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
