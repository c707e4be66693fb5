"""The search-event hook of every reference algorithm (the contract in gridsat.solvers.backends.algorithms).

Nobody listening or a listener that vetoes nothing changes nothing; places and removes nest like a
path; vetoing the depth-d decisions outside a block of ordinals, once per block, splits the
solutions into disjoint parts whose union is the whole set; the events are the same in every
process.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gridsat.models import get_puzzle
from gridsat.models.golden import path
from gridsat.models.solution import freeze
from gridsat.solvers.backends.algorithms import algorithms
from gridsat.solvers.stop import Stop

SEVEN = str(path("shikaku", "seven.txt"))

# (puzzle, instance, params, algorithm, split depth): small instances with many solutions.
EXHAUSTIVE = [
    ("tatami", "3x16", {}, "rowscan", 4),
    ("prime-grid", "3x3", {}, "dfs", 2),
    ("shikaku", SEVEN, {}, "propagate", 2),
    ("shikaku", SEVEN, {}, "cells", 3),
    ("knights-tour", "3x4", {}, "backtrack", 1),
    ("knights-tour", "4x5", {"start": "0,0"}, "backtrack", 5),
]
EVERY = [(p, a) for p in ("tatami", "prime-grid", "shikaku", "knights-tour") for a in algorithms(p)]


def case_id(case: tuple) -> str:
    return f"{case[0]} {Path(case[1]).name} {case[3]}"


def load(puzzle: str, text: str, params: dict[str, str]):
    return get_puzzle(puzzle).parse(text, params)


class Path_:
    """A listener that checks that places and removes nest like a path, and keeps every event."""

    def __init__(self) -> None:
        self.path: list[tuple[int, object]] = []
        self.events: list[tuple[str, int, object]] = []

    def __call__(self, kind: str, depth: int, what: object) -> None:
        json.dumps(what)  # JSON-ready
        self.events.append((kind, depth, what))
        if kind == "place":
            assert depth == len(self.path) + 1, (kind, depth, self.path)
            self.path.append((depth, what))
        elif kind == "remove":
            assert self.path and self.path[-1] == (depth, what), (kind, depth, what, self.path[-1:])
            self.path.pop()
        elif kind == "solution":
            assert depth == len(self.path)


@pytest.mark.parametrize("case", EXHAUSTIVE, ids=case_id)
def test_listening_changes_nothing_and_places_balance_removes(case):
    puzzle, text, params, name, _ = case
    instance, run = load(puzzle, text, params), algorithms(puzzle)[name].run
    plain = list(run(instance, Stop()))
    watcher = Path_()
    assert list(run(instance, Stop(), watcher)) == plain
    assert list(run(instance, Stop(), lambda kind, depth, what: True)) == plain
    assert watcher.path == [], "every place has its remove at the end of the search"
    kinds = [kind for kind, _, _ in watcher.events]
    assert kinds.count("place") == kinds.count("remove") > 0
    assert [what for kind, _, what in watcher.events if kind == "solution"] == plain
    assert len(plain) > 1


def split(puzzle: str, text: str, params: dict[str, str], name: str, depth: int, blocks: int, block: int):
    """The solutions of the run that keeps the depth-``depth`` decisions whose ordinal is ``block``
    modulo ``blocks``; solutions found above ``depth`` belong to block 0 (every run finds them)."""
    ordinal, kept, shallow = -1, [], set()

    def listen(kind: str, d: int, what: object) -> bool | None:
        nonlocal ordinal
        if kind == "place" and d == depth:
            ordinal += 1
            return ordinal % blocks == block
        if kind == "solution" and d < depth:
            shallow.add(freeze(what))
        return None

    for solution in algorithms(puzzle)[name].run(load(puzzle, text, params), Stop(), listen):
        if block == 0 or freeze(solution) not in shallow:
            kept.append(freeze(solution))
    return kept, ordinal + 1


@pytest.mark.parametrize("case", EXHAUSTIVE, ids=case_id)
def test_vetoes_split_the_solutions_into_disjoint_parts(case):
    puzzle, text, params, name, depth = case
    everything = [freeze(s) for s in algorithms(puzzle)[name].run(load(puzzle, text, params), Stop())]
    for blocks in (2, 3):
        parts = [split(puzzle, text, params, name, depth, blocks, b) for b in range(blocks)]
        found = [s for part, _ in parts for s in part]
        assert sorted(found) == sorted(everything), f"{blocks} blocks: {[len(p) for p, _ in parts]}"
        assert len(set(found)) == len(found)
        assert len({ordinals for _, ordinals in parts}) == 1, "every run sees the same depth-d decisions"
        assert sum(1 for part, _ in parts if part) > 1, "the split should spread the solutions"


@pytest.mark.parametrize("case", EXHAUSTIVE, ids=case_id)
def test_a_vetoed_place_is_removed_at_once_and_never_descended(case):
    puzzle, text, params, name, depth = case
    events: list[tuple[str, int]] = []

    def listen(kind: str, d: int, what: object) -> bool | None:
        events.append((kind, d))
        return False if kind == "place" and d == depth else None

    list(algorithms(puzzle)[name].run(load(puzzle, text, params), Stop(), listen))
    vetoed = [i for i, event in enumerate(events) if event == ("place", depth)]
    assert vetoed and all(events[i + 1] == ("remove", depth) for i in vetoed)
    assert all(d <= depth for kind, d in events if kind == "place")


SHOWN = {"tatami": ("4x7", {}), "prime-grid": ("3x3", {}), "shikaku": ("seed", {}), "knights-tour": ("5x6", {})}


@pytest.mark.parametrize("puzzle, name", EVERY, ids=[f"{p} {a}" for p, a in EVERY])
def test_every_algorithm_reports_its_search(puzzle, name):
    instance = load(puzzle, *(("3x4", {}) if name == "backtrack" else SHOWN[puzzle]))
    watcher = Path_()
    solutions = []
    for solution in algorithms(puzzle)[name].run(instance, Stop(10), watcher):
        solutions.append(solution)
        if len(solutions) == 2:
            break
    kinds = {kind for kind, _, _ in watcher.events}
    assert solutions and {"place", "solution"} <= kinds
    assert [what for kind, _, what in watcher.events if kind == "solution"] == solutions


def test_divide_reports_its_blocks_and_joins():
    board = load("knights-tour", "9x10", {})
    watcher = Path_()
    (tour,) = algorithms("knights-tour")["divide"].run(board, Stop(30), watcher)
    blocks = [what["block"] for kind, _, what in watcher.events if kind == "block"]
    joins = [(depth, what) for kind, depth, what in watcher.events if kind == "join"]
    assert blocks[:1] == [[0, 0, 3, 10]] and {tuple(b) for b in blocks} == {(0, 0, 3, 10), (3, 0, 6, 5), (3, 5, 6, 5)}
    assert [depth for depth, _ in joins[-2:]] == [30, 60]
    assert [what["to"] for _, what in joins[-2:]] == [tour[30], tour[60]]


def digests(cases: list[tuple]) -> list[str]:
    """A hash of every case's event sequence."""
    out = []
    for puzzle, text, params, name in cases:
        digest = hashlib.sha256()
        listen = lambda kind, depth, what, h=digest: h.update(json.dumps([kind, depth, what]).encode())  # noqa: E731
        list(algorithms(puzzle)[name].run(get_puzzle(puzzle).parse(text, params), Stop(), listen))
        out.append(digest.hexdigest())
    return out


def test_events_are_the_same_in_every_process():
    cases = [c[:4] for c in EXHAUSTIVE]
    here = digests(cases)
    script = "import json, sys; from test_events import digests; print(json.dumps(digests(json.loads(sys.argv[1]))))"
    for seed in ("1", "2"):  # string hashing differs between these processes
        child = subprocess.run([sys.executable, "-c", script, json.dumps(cases)], capture_output=True, text=True,
                               env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(Path(__file__).parent)},
                               check=True)
        assert json.loads(child.stdout) == here, seed
