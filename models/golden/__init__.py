"""Golden counts: known answers with their sources, shipped with gridsat as package data.

One TOML file per puzzle (``tatami``, ``prime_grid``, ``knights_tour``; Shikaku's is
``shikaku/golden``, beside the puzzle files it names) and one for orbit counts (``orbits``). Each
``[[count]]`` table names an instance and its ``count`` beside a ``source``: an OEIS number, the
seed text, or the independent method and run that produced it. The tests and the benchmark
scripts both read these files, so an installed benchmark checks its counts too.

An entry marked ``slow = true`` takes seconds to minutes to count; the tests run it under the
``slow`` marker or skip it saying which benchmark checks it.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from gridsat.models.puzzle import Case


def golden(name: str) -> dict[str, Any]:
    """The golden file ``NAME.toml`` as a dict (``golden("tatami")["count"]``, ``golden("shikaku/golden")``)."""
    return tomllib.loads(resources.files(__name__).joinpath(f"{name}.toml").read_text(encoding="utf-8"))


def counts(name: str) -> list[dict[str, Any]]:
    """The ``[[count]]`` entries of the golden file ``NAME.toml``."""
    return golden(name)["count"]


def cases(name: str, key: str, params: tuple[str, ...] = (), *, fast: bool = True) -> list[Case]:
    """The ``[[count]]`` entries of ``NAME.toml`` as ``Case``s: the instance under ``key``, its parameters
    (a ``params`` table, or the top-level keys named in ``params``); ``fast``: without ``slow`` ones."""
    found = []
    for entry in counts(name):
        if fast and entry.get("slow"):
            continue
        given = {k: str(v) for k, v in entry.get("params", {}).items()}
        given |= {k: str(entry[k]) for k in params if k in entry}
        found.append(Case(entry[key], given, int(entry["count"]), entry["source"]))
    return found


def path(*parts: str) -> Path:
    """A file of this folder on disk, e.g. ``path("shikaku", "seven.txt")`` (puzzle files are read by name).

    gridsat installs as plain files (never a zip), so the resource is a real path."""
    folder = resources.files(__name__)
    return Path(str(folder.joinpath(*parts) if parts else folder))


def oeis_rooms() -> dict[tuple[int, int], int]:
    """Tatami's OEIS A068920 as shipped, unpacked: antidiagonal k holds t(1,k), t(2,k-1), ..., t(k,1)."""
    terms, table, k = list(golden("tatami")["oeis"]["antidiagonals"]), {}, 1
    while terms:
        for r in range(1, k + 1):
            table[(r, k + 1 - r)] = terms.pop(0)
        k += 1
    return table


# Where each built-in puzzle's golden file keeps its instances: file, instance key, top-level parameter keys.
FILES = {"tatami": ("tatami", "room", ()), "prime-grid": ("prime_grid", "grid", ("max", "min")),
         "knights-tour": ("knights_tour", "board", ()), "shikaku": ("shikaku/golden", "instance", ())}


def known_cases(puzzle: Any) -> list[Case]:
    """Every golden count of ``puzzle`` (slow ones too): its golden file and, for tatami, the whole OEIS
    table; a plugin's are the golden cases of its ``MutationCorpus``. A Shikaku file is named by path."""
    if puzzle.name not in FILES:
        return list(puzzle.mutation.corpus()) if puzzle.mutation.corpus else []
    name, key, params = FILES[puzzle.name]
    found = cases(name, key, params, fast=False)
    if puzzle.name == "shikaku":
        found = [Case(str(path("shikaku", c.text)) if c.text.endswith(".txt") else c.text, c.params, c.count, c.source)
                 for c in found]
    if puzzle.name == "tatami":
        found += [Case(f"{r}x{c}", {}, n, f"OEIS A068920: t({r},{c}) = {n}") for (r, c), n in oeis_rooms().items()]
    return found


_PARSED: dict[str, dict[Any, Case]] = {}


def golden_count(puzzle: Any, instance: Any) -> Case | None:
    """The golden count of ``instance`` (a parsed instance of ``puzzle``) with its source, or None when
    none is known. Instances are matched parsed, so ``3x3 -p max=10`` is ``3x3``'s default range."""
    if puzzle.name not in _PARSED:
        table: dict[Any, Case] = {}
        for case in known_cases(puzzle):
            table.setdefault(puzzle.parse(case.text, case.params), case)
        _PARSED[puzzle.name] = table
    try:
        return _PARSED[puzzle.name].get(instance)
    except TypeError:  # an instance that cannot be hashed has no golden entry to match
        return None
