"""What a run's result depends on, so that a change reruns it: its fingerprint.

``gridsat bench`` resumes a results folder by keeping the runs already recorded; a record is kept
only when its fingerprint equals the one its run would get now. The fingerprint holds

- ``gridsat``: gridsat's version;
- ``encoding``: a digest of the source of the puzzle's own package (its formulations, decoder and
  verifier) and of the shared encoding code (``models/constraints``, the formulation and scramble
  modules), so that editing an encoding, a decoder or a constraint reruns that puzzle's runs;
- ``backend``: a digest of the backend's source (its module, or its package);
- ``solver``: the version of the distribution that solves (OR-Tools, PySAT, a counter's);
- ``plugins``: the version of each distribution that registers gridsat entry points.

A change to other code (the runner, the report) reruns nothing; ``--fresh`` reruns everything.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

MODELS = Path(__file__).resolve().parent.parent / "models"
SHARED = (MODELS / "constraints", MODELS / "formulation.py", MODELS / "scramble.py", MODELS / "encoding.py",
          MODELS / "puzzle.py")
SOLVERS = {"cpsat": "ortools", "sat": "python-sat"}  # the distribution that solves, where the backend names none


def version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def sources(module: str) -> list[Path]:
    """The files of ``module``: its package's Python files when it is a package's ``__init__``, else its own."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return []
    origin = Path(spec.origin)
    return sorted(origin.parent.rglob("*.py")) if origin.name == "__init__.py" else [origin]


def digest(paths: list[Path]) -> str:
    """A short digest of the files' names and contents (folders: every Python file under them)."""
    files = sorted({f for p in paths for f in (sorted(p.rglob("*.py")) if p.is_dir() else [p]) if f.is_file()})
    hashed = hashlib.sha256()
    for path in files:
        hashed.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hashed.hexdigest()[:16]


def puzzle_files(name: str) -> list[Path]:
    """The source of the puzzle's own package (a plugin's too), or its module when it has no package."""
    from gridsat import models

    module = models.PUZZLES.get(name) or models.plugins()[name].module
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return []
    origin = Path(spec.origin)
    folder = origin.parent
    if folder == MODELS or not (folder / "__init__.py").is_file():
        return [origin]
    return sorted(folder.rglob("*.py"))


@cache
def plugins() -> dict[str, str]:
    """The version of each distribution that registers a gridsat entry point (a puzzle or backend plugin)."""
    found = {}
    groups = [g for g in metadata.entry_points().groups if g.startswith("gridsat")]
    for point in (p for g in groups for p in metadata.entry_points(group=g)):
        if getattr(point, "dist", None) is not None:
            found[point.dist.name] = point.dist.version
    return dict(sorted(found.items()))


@cache
def fingerprint(puzzle: str, backend: str) -> dict[str, Any]:
    """The fingerprint of a run of ``backend`` on ``puzzle`` (see the module's docstring)."""
    from gridsat.solvers.backend import BACKENDS

    path = BACKENDS.get(backend, "")
    module = path.partition(":")[0]
    try:
        kind = getattr(importlib.import_module(module), path.partition(":")[2], None)
    except ImportError:
        kind = None
    solver = getattr(kind, "distribution", "") or SOLVERS.get(backend)
    return {
        "gridsat": version("gridsat"),
        "encoding": digest([*puzzle_files(puzzle), *SHARED]),
        "backend": digest(sources(module)) if module else None,
        "solver": f"{solver} {version(solver)}" if solver else None,
        "plugins": plugins(),
    }
