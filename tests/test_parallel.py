"""Counting in disjoint parts: splits that are exact, worker processes, checkpoints, signals and Dask."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gridsat as gs
from conftest import ROOT, bound, count_orbits, execute, finish, gridsat, patience, spawn, split_run_of
from gridsat.api import load
from gridsat.models.golden import counts
from gridsat.models.solution import freeze
from gridsat.progress import time_left
from gridsat.solvers.backend import Request, get_backend
from gridsat.solvers.cubes import Part, shared_out, split_ordinals, split_prefix
from gridsat.solvers.run import Progress, consume
from gridsat.solvers.splitting import split_policy
from gridsat.solvers.splitting.checkpoint import Checkpoint
from gridsat.solvers.splitting.parallel import ProbeClock, Split, SplitRun, conquer
from gridsat.solvers.splitting.pool import LocalPool, start_method
from gridsat.solvers.stop import Stop

LINUX_ONLY = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")

# (puzzle, instance, params, backend, encoding, golden count and its source in models/golden)
CASES = [
    ("prime-grid", "4x4", {"max": 16}, "sat", None, 2992),
    ("prime-grid", "4x4", {"max": 16}, "sat", "conflict+noparity+nosymmetry", 2992),
    ("prime-grid", "4x4", {"max": 16}, "cpsat", None, 2992),
    ("prime-grid", "4x4", {"max": 16}, "cpsat", "boolean+noparity", 2992),
    ("prime-grid", "3x4", {"max": 13}, "sat", "parity+nosymmetry", None),
    ("tatami", "6x6", {}, "sat", "seqcounter", None),
    ("tatami", "5x8", {}, "cpsat", None, None),
    ("knights-tour", "5x5", {}, "sat", None, 1728),
    ("knights-tour", "5x5", {}, "cpsat", None, 1728),
    ("knights-tour", "3x10", {"closed": True}, "sat", "ordering", 32),
    ("knights-tour", "3x10", {"closed": True}, "cpsat", None, 32),
    ("knights-tour", "5x5", {"start": "0,0"}, "sat", "position+seqcounter", 304),
    ("shikaku", "5x5:e8e6a3_3f3b2", {}, "sat", "pack", 1),
    ("shikaku", "seed", {}, "cpsat", "nooverlap2d", 1),
    # The reference backend splits the seed algorithms' own search trees (the last field names the algorithm).
    ("tatami", "3x16", {}, "reference", "rowscan", None),
    ("prime-grid", "4x4", {"max": 16}, "reference", "dfs", 2992),
    ("shikaku", "models/golden/shikaku/seven.txt", {}, "reference", "propagate", 7),
    ("shikaku", "models/golden/shikaku/seven.txt", {}, "reference", "cells", 7),
    ("knights-tour", "5x5", {"start": "0,0"}, "reference", "backtrack", 304),  # slow: about 6 s
]


def request_of(backend: str, choice: str | None, part: Part | None = None) -> Request:
    """The request of a case: an encoding, or for the reference backend an algorithm."""
    if backend == "reference":
        return Request(algorithm=choice, part=part)
    return Request(encoding=choice, part=part)


def case_id(case: tuple) -> str:
    puzzle, instance, params, backend, encoding, _ = case
    return " ".join([puzzle, instance, *(f"{k}={v}" for k, v in params.items()), backend, encoding or "default"])


def solutions_by_part(puzzle, parsed, backend: str, encoding: str | None, parts: list[Part]) -> dict:
    """Each solution of the parts -> the index of the one part that holds it (none may repeat one)."""
    seen: dict = {}
    for part in parts:
        found = execute(puzzle, parsed, backend, request_of(backend, encoding, part), keep=True)
        assert found.complete and not found.invalid
        for solution in found.solutions:
            key = freeze(solution)
            assert key not in seen, f"part {part} repeats a solution of part {seen.get(key)}"
            seen[key] = part.index
    return seen


@pytest.mark.parametrize("case", [pytest.param(c, id=case_id(c), marks=[pytest.mark.slow] * (c[4] == "backtrack"))
                                  for c in CASES])
def test_parts_are_disjoint_and_together_hold_every_solution(case: tuple) -> None:
    puzzle_name, instance, params, backend, encoding, golden = case
    if instance.startswith("models/"):
        instance = str(ROOT / instance)
    puzzle, parsed = load(puzzle_name, instance, params)
    request = bound(puzzle, backend, request_of(backend, encoding)).request  # its encoding resolved by the gate
    whole = execute(puzzle, parsed, backend, request, keep=True)
    parts = get_backend(backend).prepare(puzzle, parsed, request).split(16, 256, Stop())
    seen = solutions_by_part(puzzle, parsed, backend, encoding, parts)
    assert set(seen) == {freeze(s) for s in whole.solutions}
    assert len(seen) == whole.count == (golden if golden is not None else whole.count)
    assert len(parts) > 1 or whole.count <= 1
    # Split again while they run: the largest part's sub-parts, and the largest of those again
    # (a reference part that owns one decision goes a level deeper), partition it.
    part = max(parts, key=lambda p: sum(v == p.index for v in seen.values()))
    for _ in range(2):
        mine = {k for k, v in seen.items() if v == part.index}
        subs = get_backend(backend).prepare(puzzle, parsed, request).split(4, 64, Stop(), within=part)
        seen = solutions_by_part(puzzle, parsed, backend, encoding, subs)
        assert set(seen) == mine, f"the sub-parts of {part} do not hold exactly its solutions"
        assert len(subs) > 1 or len(mine) <= 1 or backend == "reference"  # a search tree may end in a path
        if len(subs) == 1:
            break
        part = max(subs, key=lambda p: sum(v == p.index for v in seen.values()))


@pytest.mark.parametrize("backend", ["cpsat", "sat"])
def test_a_worker_builds_the_model_once_for_the_parts_it_counts(backend: str, monkeypatch) -> None:
    # A worker builds the run's formulation once and each part starts from it: a sat part loads the CNF as it is, a
    # cpsat part copies the model and fixes its values in the copy (building it again took 5.7 ms of a 117 ms part
    # of prime-grid 5x5/1..25). The regression planted: the copy left out, each part's values pile up in the model
    # every part shares, and every part after the first counts next to nothing.
    from gridsat.solvers import backend as backends
    from gridsat.solvers.backends import cpsat

    built: list[str] = []
    build = backends.formulate
    monkeypatch.setattr(backends, "formulate", lambda *args: built.append(args[2]) or build(*args))
    monkeypatch.setattr(backends, "_last_part", {})
    puzzle, parsed = load("prime-grid", "4x4", {"max": 16})
    request = bound(puzzle, backend).request
    parts = get_backend(backend).prepare(puzzle, parsed, request).split(8, 32, Stop())
    counted = [execute(puzzle, parsed, backend, dataclasses.replace(request, part=part)).count for part in parts]
    assert len(parts) > 2 and sum(counted) == 2992 and built == [backends.CNF if backend == "sat" else backends.CPSAT]
    if backend == "cpsat":
        monkeypatch.setattr(cpsat, "part_model", lambda p, i, e: backends.part_formulation(p, i, backends.CPSAT, e))
        again = [execute(puzzle, parsed, backend, dataclasses.replace(request, part=part)).count for part in parts]
        assert again[0] == counted[0] and sum(again) < 2992


def every_projection(asked: list[int]) -> Callable[[list, int], list[tuple[int, ...]] | None]:
    """Projections of a run whose every assignment is a solution, noting each prefix length asked."""
    def projections(onto: list, cap: int) -> list[tuple[int, ...]] | None:
        asked.append(len(onto))
        found = [tuple((n >> i) & 1 for i in range(len(onto))) for n in range(2 ** len(onto))]
        return None if len(found) > cap else found

    return projections


def test_split_prefix_grows_the_prefix_until_there_are_enough_parts() -> None:
    keys = list("abcdef")
    asked: list[int] = []
    projections = every_projection(asked)
    parts = split_prefix(keys, projections, target=5, cap=100)
    assert asked == [1, 2, 3] and len(parts) == 8  # the prefix grows by half (at least one key): three give 8
    assert parts[3] == Part(3, (("a", 1), ("b", 1), ("c", 0)))
    asked.clear()
    # Six and five keys give more than the cap: the longest prefix with fewer, four keys, is used.
    assert len(split_prefix(keys, projections, target=50, cap=20)) == 16 and asked == [1, 2, 3, 4, 6, 5]
    assert split_prefix([], projections, 5, 100) == [Part()]
    asked.clear()
    # Six keys give 64, at most twice the target of 40: taken, without bisecting to five keys (32).
    assert len(split_prefix(keys, projections, target=40, cap=100)) == 64 and asked == [1, 2, 3, 4, 6]
    asked.clear()
    # ... but 64 for a target of 20 is bisected: five keys give 32, within twice the target.
    assert len(split_prefix(keys, projections, target=20, cap=100)) == 32 and asked == [1, 2, 3, 4, 6, 5]


def test_split_prefix_takes_a_siblings_length_when_it_gives_enough_parts() -> None:
    keys = list("abcdef")
    asked: list[int] = []
    projections = every_projection(asked)
    # Four keys give 16, between target and cap: taken at once, where growing from one key asks four times.
    assert len(split_prefix(keys, projections, target=5, cap=100, start=4)) == 16 and asked == [4]
    asked.clear()
    # Too many for the cap: bisected down from there, as without a start.
    assert len(split_prefix(keys, projections, target=5, cap=10, start=5)) == 8 and asked == [5, 2, 3]
    asked.clear()
    within = Part(0, (("a", 1), ("b", 0)))  # a start no longer than the part's own prefix is ignored
    split_prefix(keys, projections, target=3, cap=100, within=within, start=2)
    assert asked == [3]
    asked.clear()
    # One key more than the part's own already gives more than the cap: taken all the same, not left whole.
    within = Part(0, (("a", 1),))
    assert len(split_prefix(keys, projections, target=2, cap=3, within=within)) == 4 and asked == [2, 2]


def test_split_ordinals_cover_every_decision_once() -> None:
    parts = split_ordinals(10, 3, 4)
    assert [(p.lo, p.hi) for p in parts] == [(0, 2), (2, 5), (5, 7), (7, 10)]
    assert [p.shallow for p in parts] == [True, False, False, False]
    assert split_ordinals(0, 2, 4) == [Part(0, depth=2, lo=0, hi=0, shallow=True)]


def test_parts_round_trip_through_json() -> None:
    part = Part(7, ((("arc", (0, 0), (1, 2)), 1), (("x", 0, 0, 3), 0)), 2, 4, 9, True)
    assert Part.from_json(json.loads(json.dumps(part.to_json()))) == part


def split_run(puzzle: str, instance: str, params: dict, backend: str, **options) -> SplitRun:
    chosen, parsed = load(puzzle, instance, params)
    split = Split(jobs=2, probe=0, parts=options.pop("parts", 24), checkpoint=options.pop("checkpoint", None),
                  resplit=options.pop("resplit", Split.resplit))
    return split_run_of(chosen, parsed, backend, Request(options.pop("encoding", None)), split, **options)


@pytest.mark.parametrize("backend, params, golden", [("cpsat", {}, 1728), ("sat", {}, 1728),
                                                     ("reference", {"start": "0,0"}, 304)])
def test_two_workers_count_what_one_search_counts(backend: str, params: dict, golden: int) -> None:
    run = split_run("knights-tour", "5x5", params, backend)
    outcome = consume(run)
    assert (outcome.count, outcome.complete, outcome.duplicates) == (golden, True, 0)
    assert outcome.parts == outcome.parts_done > 1 and len(run.part_seconds) == outcome.parts


# No --parts: the first part per worker is split before it starts (before any part finished, so in
# every run whatever the machine's speed), and the parts that follow as the estimate says.
@pytest.mark.parametrize("case", [
    ("knights-tour", "5x5", {}, "cpsat", None, 1728),
    ("knights-tour", "5x5", {}, "sat", None, 1728),
    ("prime-grid", "4x4", {"max": 16}, "sat", "conflict+noparity+nosymmetry", 2992),
    ("prime-grid", "4x4", {"max": 16}, "reference", "dfs", 2992),
    ("tatami", "3x16", {}, "reference", "rowscan", None),
], ids=case_id)
def test_parts_split_before_they_start_count_what_one_search_counts(case: tuple) -> None:
    puzzle_name, instance, params, backend, choice, golden = case
    puzzle, parsed = load(puzzle_name, instance, params)
    if golden is None:
        golden = execute(puzzle, parsed, backend, request_of(backend, choice)).count
    run = split_run_of(puzzle, parsed, backend, request_of(backend, choice), Split(jobs=2, probe=0))
    outcome = consume(run)
    assert (outcome.count, outcome.complete, outcome.duplicates, outcome.invalid) == (golden, True, 0, [])
    plan = outcome.details["split"]
    assert plan["split_before_start"] >= 1 and plan["first_parts"] == len(run.ledger.roots)
    ran = {s.index for s in run.ledger.spans}
    assert any(index not in ran for index in run.ledger.children)  # split without ever running
    assert outcome.parts == outcome.parts_done == len(run.ledger.roots) + sum(
        len(c) - 1 for c in run.ledger.children.values())


def test_named_parts_are_not_split_before_they_start() -> None:
    run = split_run("knights-tour", "5x5", {}, "sat", parts=24)
    assert consume(run).count == 1728
    assert run.outcome.details["split"]["split_before_start"] == 0


def test_a_checkpoint_records_parts_split_before_they_start(tmp_path: Path) -> None:
    path = tmp_path / "count.json"
    chosen, parsed = load("knights-tour", "5x5", {})
    split = Split(jobs=2, probe=0, checkpoint=path)
    first = consume(split_run_of(chosen, parsed, "sat", Request(), split))
    assert first.count == 1728 and first.details["split"]["split_before_start"] >= 1
    lines = path.read_text().splitlines()
    splits = [json.loads(line) for line in lines if '"split"' in line]
    assert splits and all("count" not in line for line in splits[:1])  # split unstarted: nothing kept
    again = split_run_of(chosen, parsed, "sat", Request(), split)
    assert consume(again).count == 1728 and again.ledger.spans == []  # every part was recorded
    # As if killed right after the first split before a start was written: its sub-parts count it all.
    at = next(i for i, line in enumerate(lines) if '"split"' in line)
    path.write_text("\n".join(lines[: at + 1]) + "\n")
    resumed = split_run_of(chosen, parsed, "sat", Request(), split)
    assert (consume(resumed).count, resumed.outcome.complete) == (1728, True)


def test_enumerate_in_parts_streams_each_solution_once() -> None:
    run = split_run("prime-grid", "4x4", {"max": 16}, "sat", deliver=True)
    solutions = list(run)
    whole = gs.enumerate("prime-grid", "4x4", params={"max": 16}, backend="sat")
    assert sorted(map(freeze, solutions)) == sorted(map(freeze, whole))
    assert (run.outcome.count, run.outcome.duplicates, run.outcome.complete) == (2992, 0, True)


def test_a_solution_limit_ends_a_split_enumeration() -> None:
    run = split_run("knights-tour", "5x5", {}, "sat", deliver=True, limit=100)
    assert len(list(run)) == 100
    assert (run.outcome.count, run.outcome.complete, run.outcome.reason) == (100, False, "solution limit")


def test_a_time_limit_gives_a_partial_split_count() -> None:
    # The limit scales with the load: on shared cores a fixed 3 s could pass in imports and start-ups
    # before any part was done (a count of 0).
    limit = patience(3, margin=1)
    run = split_run("prime-grid", "5x5", {"max": 25}, "sat", time_limit=limit)
    started = time.monotonic()
    outcome = consume(run)
    assert time.monotonic() - started < limit + patience(12, margin=1)
    assert not outcome.complete and outcome.reason == "time limit" and 0 < outcome.count < 917848


def test_a_tiny_instance_is_answered_without_splitting() -> None:
    outcome = gs.count("prime-grid", "3x3", backend="sat", split=gs.Split(jobs=2))
    assert (outcome.count, outcome.parts, outcome.parts_done) == (128, 1, 1)


@pytest.mark.parametrize("method", [pytest.param("fork", marks=LINUX_ONLY), "spawn"])
def test_a_script_without_a_main_guard_counts_on_workers(tmp_path: Path, method: str) -> None:
    # Spawned workers would run such a script again, each starting workers of its own; a thread left
    # running makes the pool spawn them. The 3x10 open tours take about 0.6 s on sat, which a probe
    # would answer alone: with none (probe=0) the count is split.
    script = tmp_path / "count.py"
    busy = "import threading\nthreading.Thread(target=threading.Event().wait, daemon=True).start()\n"
    script.write_text(f'{busy if method == "spawn" else ""}import gridsat\n'
                      'o = gridsat.count("knights-tour", "3x10", backend="sat", split=gridsat.Split(jobs=2, probe=0))\n'
                      'print(o.details["split"]["workers"], o.count, o.complete, o.parts == o.parts_done > 1)\n')
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=patience(40),
                          cwd=tmp_path)
    # Not stderr == "": multiprocessing's resource tracker may warn of a semaphore on a loaded machine.
    assert (done.stdout, done.returncode) == (f"{method}ed 6096 True True\n", 0), done.stderr
    assert "Traceback" not in done.stderr and "Error" not in done.stderr


@LINUX_ONLY
def test_the_command_line_forks_its_workers_with_or_tools_loaded() -> None:
    # OR-Tools loads numpy, whose OpenBLAS would start a thread of its own and make every split cpsat
    # run spawn its workers (0.5 s each to start, against milliseconds forked) unless told not to, as
    # the command line does before anything loads numpy.
    code = ("from gridsat.solvers.splitting.pool import single_threaded_blas, start_method\n"
            "single_threaded_blas()\n"
            "import ortools.sat.python.cp_model, pysat.solvers, gridsat.cli\n"
            "print(start_method())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=patience(20), cwd=ROOT,
                          env={k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"})
    assert (done.stdout, done.stderr) == ("fork\n", "")


def test_workers_are_spawned_beside_another_thread() -> None:
    stop = threading.Event()
    beside = threading.Thread(target=stop.wait, daemon=True)
    beside.start()
    try:
        assert start_method() == "spawn"
    finally:
        stop.set()


def test_a_worker_is_ready_once_it_has_warmed_up_even_when_warming_up_fails(tmp_path: Path) -> None:
    warmed = tmp_path / "warmed"
    for warm in (functools.partial(Path.touch, warmed), functools.partial(os.remove, tmp_path / "missing")):
        pool = LocalPool(1, conquer, warm)
        try:
            deadline = time.monotonic() + 60
            while not pool.ready() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert pool.ready() and warmed.exists()
        finally:
            pool.close()


@pytest.mark.parametrize("ready", [False, True])
def test_the_probe_searches_on_until_a_worker_is_ready(ready: bool, monkeypatch) -> None:
    # Asked for 0.01 s, the probe of a 0.06 s count searches on while no worker is ready (here never,
    # with a wait long enough for any machine) and answers it whole; with a worker ready it splits.
    # Real workers' start-up races the count on a loaded machine, so readiness is set here.
    monkeypatch.setattr(LocalPool, "start_cost", lambda self: 0.0 if ready else None)
    monkeypatch.setattr(split_policy, "PROBE_WAIT", 120.0)
    chosen, parsed = load("prime-grid", "4x4", {"max": 16})
    outcome = consume(split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2, probe=0.01)))
    assert (outcome.count, outcome.complete) == (2992, True)
    assert outcome.parts > 1 if ready else outcome.parts == 1


def test_a_puzzle_the_workers_cannot_find_by_name_is_refused_before_any_work() -> None:
    unnamed = dataclasses.replace(gs.get_puzzle("knights-tour"), name="my-tours")
    with pytest.raises(gs.InvalidOption, match="'my-tours' is not a built-in or plugin puzzle"):
        gs.count(unnamed, "5x5", backend="sat", split=gs.Split(jobs=2))
    assert gs.count(unnamed, "3x4", backend="sat").count == 16  # one process needs no name


@pytest.mark.parametrize("keyword", ["jobs", "scheduler", "parts", "checkpoint"])
def test_the_split_keywords_of_the_last_release_are_gone(keyword: str) -> None:
    # Deprecated in 0.2.0 and removed after it: a split is ``split=Split(...)``.
    with pytest.raises(TypeError, match=f"'{keyword}'"):
        gs.count("prime-grid", "3x3", backend="sat", **{keyword: 2})


def test_a_checkpoint_resumes_the_parts_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "count.json"
    # No part split again: the file is what gridsat wrote before parts were split again, and reads the same.
    first = consume(split_run("knights-tour", "5x5", {}, "sat", checkpoint=path, resplit=None))
    assert first.count == 1728
    lines = path.read_text().splitlines()
    header, records = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    assert len(header["parts"]) == first.parts == len(records)
    # As if killed after three parts, in the middle of writing the fourth record.
    path.write_text("\n".join(lines[:4]) + "\n" + lines[4][:7])
    resumed = split_run("knights-tour", "5x5", {}, "sat", checkpoint=path, resplit=None)
    assert consume(resumed).count == 1728 and resumed.outcome.parts_done == first.parts
    kept = Checkpoint(path, resumed.checkpoint.fingerprint)
    assert kept.load() and len(kept.done) == first.parts
    assert sum(r["count"] for r in kept.done.values()) == 1728


def test_checkpoint_lines_reordered_are_refused_but_a_file_cut_after_any_line_resumes(tmp_path: Path) -> None:
    path = tmp_path / "count.json"
    first = split_run("knights-tour", "5x5", {}, "sat", checkpoint=path, resplit=None)
    assert consume(first).count == 1728
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) > 3
    path.write_text(lines[0] + lines[2] + lines[1] + "".join(lines[3:]))
    with pytest.raises(gs.InvalidOption, match="line 2 is damaged, or was not written after line 1 of this file"):
        consume(split_run("knights-tour", "5x5", {}, "sat", checkpoint=path, resplit=None))
    path.write_text(lines[0] + "".join(lines[2:]))  # a line left out between others
    with pytest.raises(gs.InvalidOption, match="line 2 is damaged, or was not written after line 1 of this file"):
        consume(split_run("knights-tour", "5x5", {}, "sat", checkpoint=path, resplit=None))
    path.write_text("".join(lines[:3]))  # the lines after the third lost: their parts are counted again
    resumed = split_run("knights-tour", "5x5", {}, "sat", checkpoint=path, resplit=None)
    assert consume(resumed).count == 1728


def test_only_parts_a_checkpoint_held_before_the_run_show_as_resumed(tmp_path: Path) -> None:
    path = tmp_path / "count.json"  # no file yet: this run writes it, and resumes nothing
    seen: list[Progress] = []
    first = consume(split_run("knights-tour", "5x5", {}, "sat", checkpoint=path, resplit=None,
                              on_progress=seen.append))
    assert first.count == 1728 and seen
    assert all(p.parts_resumed == 0 and p.resumed == 0 for p in seen)
    assert any(time_left(p) is not None for p in seen), "a fresh checkpointed run estimates its time left"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:4]) + "\n")  # three parts recorded, as if killed
    seen.clear()
    consume(split_run("knights-tour", "5x5", {}, "sat", checkpoint=path, resplit=None, on_progress=seen.append))
    assert seen and all(p.parts_resumed == 3 and p.resumed == sum(json.loads(r)["count"] for r in lines[1:4])
                        for p in seen)


def test_a_checkpoint_of_another_run_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    assert gridsat("count", "prime-grid", "3x3", "--jobs", "2", "--checkpoint", str(path)).stdout == "128\n"
    done = gridsat("count", "prime-grid", "3x3", "-p", "max=11", "--jobs", "2", "--checkpoint", str(path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "was written for another run: its instance is '3x3/1..10', this run's is '3x3/1..11'" in done.stderr
    other = gridsat("count", "prime-grid", "3x3", "--backend", "sat", "--checkpoint", str(path))
    assert other.returncode == 2 and "its backend is 'cpsat', this run's is 'sat'" in other.stderr
    path.write_text("not json\n")
    assert "is not a gridsat checkpoint" in gridsat("count", "prime-grid", "3x3", "--checkpoint", str(path)).stderr


@pytest.mark.slow  # counts prime-grid 4x5/1..21 (about 6 s of search), and may wait a minute for the resumed count
def test_ctrl_c_prints_a_partial_count_and_the_same_command_resumes(tmp_path: Path) -> None:
    # A count long enough to split after its probe: the checkpoint holds the probe's kept count, then
    # finished parts. Eight parts named: the probe that keeps its work runs alone about 1 + 40 x a part's
    # start-up seconds (1.1 to 2.6 s, against 7 to 33 s at 64 parts, which needed the 5x5/1..25 count
    # of 28 s and more, twice over with the resumed run), and the parts split further as they run.
    path = tmp_path / "c.json"
    command = [sys.executable, "-m", "gridsat", "count", "prime-grid", "4x5", "-p", "max=21", "--backend",
               "sat", "--jobs", "2", "--parts", "8", "--checkpoint", str(path)]
    child = spawn(command)
    # No deadline tuned to a quiet machine (about 10 s there): on shared cores the probe's processor
    # time stretches over minutes (a fixed 120 s sent Ctrl-C before any part was done). Only a count
    # that ends, or a hang, stops the wait.
    deadline = time.monotonic() + patience(600)
    while not path.exists() or path.read_text().count('"part":') < 3:
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            pytest.fail(f"the count recorded fewer than 3 parts before it {'ended' if child.poll() else 'hung'}")
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    out, err = finish(child, timeout=patience(20))
    assert child.returncode == 130, err
    partial = re.fullmatch(r"at least (\d+) \(incomplete: interrupted; (\d+) of (\d+) parts done\)\n", out)
    assert partial, out
    assert 0 < int(partial[1]) < 50784 and 3 <= int(partial[2]) < int(partial[3])
    assert "Traceback" not in err
    assert json.loads(path.read_text().splitlines()[1])["split"] == 0  # the probe's count, kept
    resumed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert (resumed.returncode, resumed.stdout) == (0, "50784\n"), resumed.stderr  # the golden count of 4x5/1..21


def test_a_dask_cluster_counts_what_local_workers_count() -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as c:
        chosen, parsed = load("knights-tour", "5x5", {})
        run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2, scheduler=c.scheduler_address, probe=0))
        outcome = consume(run)
    assert (outcome.count, outcome.complete) == (1728, True) and outcome.parts > 1


def test_bad_parallel_options_are_one_line_errors() -> None:
    for args, named in [(["--jobs", "-1"], "'-1'"), (["--parts", "0"], "'0'"),
                        (["--checkpoint", "/no/such/folder/c.json"], "'/no/such/folder'"),
                        (["--limit", "5", "--checkpoint", "c.json"], "--checkpoint")]:
        done = gridsat("count", "tatami", "4x7", *args)
        assert done.returncode == 2 and named in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


def test_interrupted_split_counts_say_how_many_parts_were_done() -> None:
    from gridsat.cli import describe_count
    from gridsat.solvers.run import Outcome

    outcome = Outcome("knights-tour", "6x6", "sat", "x", count=5, complete=False, reason="interrupted", parts=64,
                      parts_done=3)
    assert describe_count(gs.get_puzzle("knights-tour"), outcome, False) == (
        "at least 5 (tours: directed; incomplete: interrupted; 3 of 64 parts done)")


@pytest.mark.parametrize("backend", ["cpsat", "sat"])
def test_orbit_counts_split_into_parts_equal_whole_ones(backend: str) -> None:
    from gridsat.solvers.orbits.counting import OrbitVariant

    # 22 geometrically distinct open tours of 4x5, 164 directed (OEIS A328341; models/golden/orbits.toml). The
    # 5x5 open tours (112 and 1728) took 20 s on cpsat in a full suite; the tests of orbits count them whole.
    chosen, parsed = load("knights-tour", "4x5", {})
    whole = count_orbits(chosen, parsed, backend, Request(), up_to="symmetry")
    split = Split(jobs=2, probe=0, parts=24)
    canonical = consume(split_run_of(chosen, parsed, backend, Request(), split, variant=OrbitVariant("symmetry")))
    assert (canonical.count, canonical.held, canonical.complete, canonical.problems) == (22, 164, True, [])
    assert canonical.sizes == whole.sizes and canonical.parts > 1
    burnside = count_orbits(chosen, parsed, backend, Request(), up_to="symmetry", method="burnside", split=split)
    assert (burnside.count, burnside.fixed["identity"], burnside.complete) == (22, 164, True)


def test_orbits_of_a_symmetry_breaking_encoding_split_into_parts() -> None:
    from gridsat.solvers.orbits.counting import OrbitVariant

    chosen, parsed = load("prime-grid", "4x4", {"max": 16})  # 2992 fillings, orbits of 8, leaders kept
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2, probe=0, parts=16),
                       variant=OrbitVariant("symmetry"))
    outcome = consume(run)
    assert (outcome.count, outcome.held, outcome.invalid, outcome.problems) == (374, 2992, [], [])


def test_orbit_representatives_stream_from_parts_with_their_sizes() -> None:
    from gridsat.solvers.orbits.counting import OrbitVariant

    chosen, parsed = load("knights-tour", "5x5", {})
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2, probe=0, parts=24),
                       variant=OrbitVariant("reversal"), deliver=True)
    orbits = list(run)
    assert len(orbits) == 864 and {o.size for o in orbits} == {2}
    assert (run.outcome.count, run.outcome.held, run.outcome.duplicates) == (864, 1728, 0)


def split_again(start: Callable[[], SplitRun], check: Callable[[SplitRun, Any], None], tries: int = 4) -> None:
    """Run ``start()`` to its end and ``check`` its answer, until a run splits a running part again.

    Whether a part is still running when the parent looks depends on the machine's load, so a run
    that ended before any split is run again (each answer is checked all the same); never splitting
    in ``tries`` runs fails."""
    for _ in range(tries):
        run = start()
        check(run, list(run) if run.deliver else consume(run))
        if run.ledger.children:
            return
    raise AssertionError(f"no part was split again in {tries} runs")


# Split again while they run: two parts, no minimum age, and a budget of a twentieth of a second, so
# that running parts are stopped and split again (formulation backends hand back what they counted).
RESPLIT_CASES = [
    ("knights-tour", "3x10", {}, "sat", None, 6096),
    ("knights-tour", "5x5", {}, "cpsat", None, 1728),
    ("knights-tour", "5x5", {}, "sat", "position+seqcounter", 1728),
    ("prime-grid", "4x5", {"max": 20}, "cpsat", "boolean+noparity", 5232),
    ("prime-grid", "4x4", {"max": 16}, "sat", "conflict+noparity+nosymmetry", 2992),
    ("knights-tour", "5x5", {"start": "0,0"}, "reference", "backtrack", 304),
    ("prime-grid", "4x4", {"max": 16}, "reference", "dfs", 2992),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=case_id(c)) for c in RESPLIT_CASES])
def test_parts_split_again_while_they_run_count_what_one_search_counts(case: tuple, monkeypatch) -> None:
    monkeypatch.setattr(split_policy, "LEAST_BUDGET", 0.05)
    puzzle_name, instance, params, backend, choice, golden = case
    puzzle, parsed = load(puzzle_name, instance, params)
    if golden is None:
        golden = execute(puzzle, parsed, backend, request_of(backend, choice)).count

    def check(run: SplitRun, outcome: Any) -> None:
        assert (outcome.count, outcome.complete, outcome.duplicates, outcome.invalid) == (golden, True, 0, [])
        assert outcome.parts == outcome.parts_done == len(run.ledger.roots) + sum(
            len(c) - 1 for c in run.ledger.children.values())

    split_again(lambda: split_run_of(puzzle, parsed, backend, request_of(backend, choice),
                                 Split(jobs=2, probe=0, parts=2, resplit=0)), check)


@pytest.mark.parametrize("backend, board", [("cpsat", "5x5"), ("sat", "3x10")])
def test_orbit_counts_split_again_while_they_run_equal_whole_ones(backend: str, board: str, monkeypatch) -> None:
    from gridsat.solvers.orbits.counting import OrbitVariant

    monkeypatch.setattr(split_policy, "LEAST_BUDGET", 0.05)
    chosen, parsed = load("knights-tour", board, {})
    whole = count_orbits(chosen, parsed, backend, Request(), up_to="symmetry")
    split = Split(jobs=2, probe=0, parts=2, resplit=0)

    def check(run: SplitRun, canonical: Any) -> None:
        assert (canonical.count, canonical.held, canonical.complete, canonical.problems) == (
            whole.count, whole.held, True, [])
        assert canonical.sizes == whole.sizes

    split_again(lambda: split_run_of(chosen, parsed, backend, Request(), split, variant=OrbitVariant("symmetry")),
                check)


@pytest.mark.parametrize("backend, choice", [("sat", None), ("reference", "dfs")])
def test_enumerate_with_parts_split_again_streams_each_solution_once(backend: str, choice: str | None,
                                                                      monkeypatch) -> None:
    monkeypatch.setattr(split_policy, "LEAST_BUDGET", 0.05)
    puzzle, parsed = load("knights-tour", "3x10", {}) if backend == "sat" else load("prime-grid", "4x4", {"max": 16})
    split = Split(jobs=2, probe=0, parts=2, resplit=0)
    whole = execute(puzzle, parsed, backend, request_of(backend, choice), keep=True)

    def check(run: SplitRun, solutions: Any) -> None:
        assert sorted(map(freeze, solutions)) == sorted(map(freeze, whole.solutions))
        assert (run.outcome.count, run.outcome.duplicates, run.outcome.complete) == (whole.count, 0, True)

    split_again(lambda: split_run_of(puzzle, parsed, backend, request_of(backend, choice), split, deliver=True), check)


@pytest.mark.parametrize("puzzle_name, instance, params, algorithm", [
    ("prime-grid", "4x4", {"max": 16}, "dfs"), ("tatami", "3x16", {}, "rowscan"),
    ("knights-tour", "5x5", {"start": "0,0"}, "backtrack")])
def test_a_reference_part_split_again_hands_back_the_decisions_it_has_not_searched(
        puzzle_name: str, instance: str, params: dict, algorithm: str, monkeypatch) -> None:
    from gridsat.solvers.backends import reference

    monkeypatch.setattr(reference, "GRACE", 3600.0)  # never thrown away for being slow
    puzzle, parsed = load(puzzle_name, instance, params)
    request = request_of("reference", algorithm)
    parts = get_backend("reference").prepare(puzzle, parsed, request).split(6, 64, Stop())
    part = max((p for p in parts if p.hi - p.lo > 1 and not p.shallow),
               key=lambda p: execute(puzzle, parsed, "reference", request_of("reference", algorithm, p)).count)
    whole = execute(puzzle, parsed, "reference", request_of("reference", algorithm, part), keep=True)
    search = get_backend("reference").prepare(puzzle, parsed, request_of("reference", algorithm, part))
    before = []
    for solution in search.solutions(Stop()):
        before.append(freeze(solution))
        search.handback.drain()  # asked at its first solution: it ends the decision it is in
    handback = search.handback
    assert handback.cut and part.lo < handback.upto < part.hi
    rest = dataclasses.replace(part, lo=handback.upto)
    after = execute(puzzle, parsed, "reference", request_of("reference", algorithm, rest), keep=True)
    assert sorted(before + [freeze(s) for s in after.solutions]) == sorted(freeze(s) for s in whole.solutions)
    assert before and after.count  # both sides hold solutions: the hand-back split the part


@pytest.mark.parametrize("backend, seed", [("sat", None), ("sat", 1), ("cpsat", None)])
def test_the_prefixes_a_probe_reads_as_it_searches_are_its_models_rows_cut_short(backend: str, seed: int | None
                                                                                 ) -> None:
    # A split run's probe reads the prefixes of the models it counted while it searches (``BesideProbe._tally``),
    # from the sat backend's blocking clauses (a scrambled formula's too: its variables renamed and flipped),
    # without making the whole rows; they must be what the rows would say.
    puzzle, parsed = load("knights-tour", "3x4", {})
    request = Request("cutset", seed=seed) if seed else Request()
    bound_to = bound(puzzle, backend, request)
    search = bound_to.backend.prepare(puzzle, parsed, bound_to.request)
    search.handback.recording = True
    assert sum(1 for _ in search.solutions(Stop())) == 16
    rows = search.handback.rows()
    for length in (1, 5, len(rows[0])):
        assert search.handback.prefixes(length) == [row[:length] for row in rows]
        assert search.handback.prefixes(length, 3, 9) == [row[:length] for row in rows[3:9]]
    assert len({row[:5] for row in rows}) > 1  # the prefixes tell the models apart


def test_a_cpsat_part_asked_to_stop_before_it_counts_its_last_model_hands_it_back_uncounted() -> None:
    # A part whose worker is asked to stop (to be split again) before the search reaches its model must
    # say it was cut, so that its sub-parts count that model. CP-SAT stopped at the last model of a
    # part reports OPTIMAL, and a part so stopped ended complete with nothing counted: under load, a
    # split orbit count lost an orbit (111 of 112 knight's tours of 5x5). The sat backend never
    # refuses a model: it looks before each solver call.
    puzzle, parsed = load("knights-tour", "5x5", {})
    whole = bound(puzzle, "cpsat").backend.prepare(puzzle, parsed, bound(puzzle, "cpsat").request)
    whole.handback.recording = True
    solutions = whole.solutions(Stop())
    next(solutions)
    row = whole.handback.rows()[0]
    solutions.close()
    part = Part(1, tuple(zip(whole.formulation.primary, row, strict=True)))  # every variable fixed: one model
    assert execute(puzzle, parsed, "cpsat", Request(part=part)).count == 1
    search = bound(puzzle, "cpsat").backend.prepare(puzzle, parsed, bound(puzzle, "cpsat", Request(part=part)).request)
    search.handback.drain()
    assert (list(search.solutions(Stop())), search.handback.cut, search.handback.rows()) == ([], True, [])


def test_kill_9_while_parts_are_split_again_then_the_same_command_gives_the_exact_total(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    args = ["count", "knights-tour", "6x6", "-p", "closed=true", "--backend", "sat", "--jobs", "2", "--parts", "2",
            "--checkpoint", str(path)]
    # Two parts of about a second each, and the first run splits running parts again after a fifth of
    # a second, so that the checkpoint holds re-splits (with the counts they kept) when it is killed.
    script = ("import sys\nfrom gridsat.solvers.splitting import split_policy\nsplit_policy.LEAST_BUDGET = 0.2\n"
              "from gridsat.__main__ import main\nsys.exit(main())\n")
    child = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=ROOT, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        text = path.read_text() if path.exists() else ""
        if text.count('"split"') >= 2 and text.count('"part"') >= 3:
            break
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGKILL)  # the parent and its workers, at once
    child.communicate(timeout=patience(10))
    lines = path.read_text().splitlines()
    assert any('"split"' in line and '"count"' in line for line in lines), "no re-split was recorded"
    # A kill in the middle of writing a re-split's line: the line is dropped, the part counted again.
    cut = tmp_path / "cut.json"
    last = max(i for i, line in enumerate(lines) if '"split"' in line)
    cut.write_text("\n".join(lines[:last]) + "\n" + lines[last][: len(lines[last]) // 2])
    for checkpoint in (path, cut):
        resumed = gridsat(*args[:-1], str(checkpoint))
        assert (resumed.returncode, resumed.stdout) == (0, "19724 (tours: directed)\n"), resumed.stderr


def test_a_dask_cluster_with_more_workers_than_cores_splits_parts_again(monkeypatch) -> None:
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(split_policy, "LEAST_BUDGET", 0.1)
    with distributed.LocalCluster(n_workers=6, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        # Counts of a few seconds, so that each part still runs when an idle worker asks for it to be split.
        for backend, board, params, golden in [("cpsat", "3x10", {}, 6096), ("sat", "6x6", {"closed": "true"}, 19724)]:
            chosen, parsed = load("knights-tour", board, params)
            split = Split(jobs=2, scheduler=c.scheduler_address, probe=0, parts=2, resplit=0)

            def check(run: SplitRun, outcome: Any, backend: str = backend, golden: int = golden) -> None:
                assert (outcome.count, outcome.complete, outcome.duplicates) == (golden, True, 0), backend

            split_again(lambda chosen=chosen, parsed=parsed, backend=backend, split=split:
                        split_run_of(chosen, parsed, backend, Request(), split), check)


def test_a_search_without_split_points_runs_alone_and_says_why() -> None:
    from gridsat.models.search import Algorithm
    from gridsat.solvers.backends.reference import ReferenceSearch

    chosen, parsed = load("knights-tour", "5x5", {"start": "0,0"})
    found = list(get_backend("reference").prepare(chosen, parsed, Request(algorithm="backtrack")).solutions(Stop()))

    def quiet(instance: Any, stop: Any) -> Any:  # a plugin's search that takes no listener: nothing to number
        yield from found

    search = ReferenceSearch(Algorithm("quiet", "reports no decisions", quiet), parsed)
    assert not search.splittable and search.split(8, 64, Stop()) == [Part()]
    assert split_policy.unsplittable(search) == "quiet reports no decisions to split on"
    # A search that does not see every solution runs alone too: no worker starts, the probe is the run.
    with split_run("knights-tour", "5x5", {}, "reference") as splittable:
        assert splittable.alone is None
    request = Request(algorithm="warnsdorff")
    chosen, parsed = load("knights-tour", "5x5", {})
    alone = split_run_of(chosen, parsed, "reference", request, Split(jobs=2))
    outcome = consume(alone)
    assert alone.pool is None and outcome.parts == 1
    assert outcome.details["split"] == {"alone": "warnsdorff does not search for every solution: there is nothing "
                                                 "to share out"}


def test_a_count_the_probe_finishes_says_it_ran_alone() -> None:
    chosen, parsed = load("prime-grid", "2x2", {})
    probed = consume(split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2, probe=30)))  # surely within it
    assert probed.count == 8 and probed.parts == 1
    assert re.fullmatch(r"the search finished in 0\.\d\d s, before splitting could pay",
                        probed.details["split"]["alone"])
    # The command line says it in one line (8 solutions are found well within the probe's least 0.1 s).
    done = gridsat("count", "prime-grid", "2x2", "--backend", "sat", "--jobs", "2")
    assert done.stdout == "8\n" and done.stderr.count("gridsat: note: not split: the search finished in") == 1
    record = json.loads(gridsat("count", "prime-grid", "2x2", "--backend", "sat", "--jobs", "2", "--json").stdout)
    assert record["split"]["alone"].endswith("before splitting could pay") and record["parts"] == 1
    assert "not split" not in gridsat("count", "prime-grid", "2x2").stderr  # a plain run was never asked to split


# A probe ended before its count is kept (formulation backends): 0.2 s finds models in both counts below,
# which take a second or more alone, so both split.
@pytest.mark.parametrize("backend, puzzle, instance, params, golden", [
    ("sat", "prime-grid", "4x5", {"max": "20"}, 5232),
    pytest.param("cpsat", "knights-tour", "5x5", {}, 1728, marks=pytest.mark.slow)])
def test_a_probe_that_splits_keeps_what_it_counted(backend: str, puzzle: str, instance: str, params: dict[str, str],
                                                   golden: int, tmp_path: Path, monkeypatch) -> None:
    # The first split's parts leave the probe's models out: its count stays and none is counted twice; a
    # checkpoint records the probe as the whole run (part 0) split again with its count, and resumes from it.
    monkeypatch.setattr(LocalPool, "start_cost", lambda self: 0.0)  # spawned workers: the probe would wait for them
    path = tmp_path / "c.jsonl"
    chosen, parsed = load(puzzle, instance, params)
    split = Split(jobs=2, probe=0.2, checkpoint=path)
    outcome = consume(split_run_of(chosen, parsed, backend, Request(), split))
    assert (outcome.count, outcome.complete, outcome.duplicates, outcome.invalid) == (golden, True, 0, [])
    # the split record in the message: this failed once in a full suite (load about 2), and passed alone after
    assert outcome.details["split"]["probe_kept"] is True and outcome.parts > 1, outcome.details["split"]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["parts"] == [Part().to_json()] and lines[1]["split"] == 0 and 0 < lines[1]["count"] < golden
    assert sum(line.get("count", 0) for line in lines[1:]) == golden  # parts split again may keep counts too
    resumed = split_run_of(chosen, parsed, backend, Request(), split)
    assert consume(resumed).count == golden and resumed.ledger.spans == []  # every part was recorded


def test_an_enumeration_whose_probe_was_kept_streams_each_solution_once(monkeypatch) -> None:
    monkeypatch.setattr(LocalPool, "start_cost", lambda self: 0.0)  # the probe ends at 0.2 s, whatever the workers
    chosen, parsed = load("prime-grid", "4x5", {"max": "20"})  # about 1.5 s alone
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2, probe=0.2), deliver=True)
    solutions = {freeze(s) for s in run}
    assert len(solutions) == run.outcome.count == 5232 and run.outcome.duplicates == 0
    assert run.outcome.details["split"]["probe_kept"] is True


def test_an_orbit_count_whose_probe_was_kept_equals_the_whole_one(monkeypatch) -> None:
    from gridsat.solvers.orbits.counting import OrbitVariant

    monkeypatch.setattr(LocalPool, "start_cost", lambda self: 0.0)

    chosen, parsed = load("prime-grid", "4x5", {"max": "20"})  # 5232 fillings (max 21: 50784, 18 s in a full suite)
    whole = count_orbits(chosen, parsed, "sat", Request(), up_to="symmetry")
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2, probe=0.2), variant=OrbitVariant("symmetry"))
    outcome = consume(run)
    assert (outcome.count, outcome.held, outcome.sizes, outcome.problems) == (whole.count, 5232, whole.sizes, [])
    assert outcome.details["split"]["probe_kept"] is True and outcome.parts > 1, outcome.details["split"]


def test_a_reference_probe_cannot_keep_its_count_and_its_parts_count_it_again(monkeypatch) -> None:
    monkeypatch.setattr(LocalPool, "start_cost", lambda self: 0.0)
    chosen, parsed = load("knights-tour", "5x5", {"start": "0,0"})
    outcome = consume(split_run_of(chosen, parsed, "reference", Request(algorithm="backtrack"),
                                   Split(jobs=2, probe=0.01, parts=8)))
    assert (outcome.count, outcome.complete, outcome.duplicates) == (304, True, 0)
    assert outcome.details["split"]["probe_kept"] is False


def test_a_blocking_clause_names_the_row_it_rules_out() -> None:
    formulation = gs.formulate("prime-grid", "3x3", backend="sat")
    model = [v if v % 3 == 0 else -v for v in range(1, formulation.cnf.nv + 1)]
    row = tuple(int(model[v - 1] > 0) for v in formulation.projection)
    assert formulation.row_of(formulation.blocking_clause(model)) == row
    assert formulation.row_of(formulation.blocking_of(row)) == row
    assert formulation.row_of([-model[v - 1] for v in formulation.projection]) == row  # a certified search's clause


def test_a_count_its_probe_finishes_starts_no_worker() -> None:
    # A probe that keeps its work releases the workers only WORKER_START before it may end at the earliest: forked
    # at the start while that is safe, they wait idle until then, and never warm up for a count that ends sooner.
    chosen, parsed = load("prime-grid", "3x3", {})
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2))
    assert consume(run).count == 128 and run.late
    assert run.pool is None or (run.pool.held and not run.pool.ready() and run.pool.method == "fork")


@pytest.mark.parametrize("planted", [False, True])
def test_a_reference_count_its_probe_finishes_forks_no_worker(planted: bool, monkeypatch) -> None:
    # A probe whose work is thrown away (the reference backend's) forked its workers with the run, and they
    # warmed up beside it: tatami 3x16 (a search of about 0.05 s) took up to 1.48x as long on two workers. Forked
    # once it has searched PROBE seconds of processor time, a count that ends sooner starts no process. Planted: forked
    # with the run, as before.
    import multiprocessing

    from gridsat.solvers.splitting import parallel

    # as in a process that runs one thread (the command line's): a test run's leftover threads would make it spawn
    monkeypatch.setattr(parallel, "start_method", lambda: "fork")
    monkeypatch.setattr(split_policy, "FORK_LATE", not planted)
    chosen, parsed = load("tatami", "3x12", {})
    run = split_run_of(chosen, parsed, "reference", Request(), Split(jobs=2))
    before = multiprocessing.active_children()
    assert consume(run).count == 26 and not run.keeps and run.forks_late is not planted
    assert (run.pool is None) is not planted  # planted: two worker processes forked, and terminated unused
    assert multiprocessing.active_children() == before


def test_a_reference_count_longer_than_its_probe_forks_its_workers_late_and_counts_exactly(monkeypatch) -> None:
    # ... and one that runs on forks them once the probe has searched PROBE seconds, from the thread that reads it.
    from gridsat.solvers.splitting import parallel

    monkeypatch.setattr(parallel, "start_method", lambda: "fork")
    chosen, parsed = load("prime-grid", "4x4", {"max": 16})
    run = split_run_of(chosen, parsed, "reference", Request(), Split(jobs=2))
    outcome = consume(run)
    assert run.forks_late and (outcome.count, outcome.complete, outcome.duplicates) == (2992, True, 0)
    # started during the probe (forked where the process runs one thread; whether it split depends on the load: a
    # worker's measured start-up sets how long the probe searches, and a slow one outlasts this count of a second)
    assert run.pool is not None and run.probe_cpu >= split_policy.PROBE


# A kept probe's split count of prime-grid 4x4/1..17 on cpsat (about 1 s alone), split long before it ends, in a
# process that runs one thread as the command line's does (OpenBLAS's pool held off); ``plant``: the workers started
# only when due, beside the probe's solver thread, as before. It prints the split record and the count.
HELD_WORKERS = """
import json, os, sys
os.environ["OPENBLAS_NUM_THREADS"] = "1"
from gridsat.solvers.splitting import parallel, split_policy
if sys.argv[1] == "plant":
    parallel.start_method = lambda: "spawn"
split_policy.SHORT = split_policy.LONGEST = 0.05
split_policy.SPECULATE = 0.01
from gridsat.api import load
from gridsat.solvers.backend import COUNT, Request
from gridsat.solvers.gate import Job, bind
from gridsat.solvers.run import consume
chosen, parsed = load("prime-grid", "4x5", {"max": 20})
outcome = consume(parallel.SplitRun(chosen, parsed, bind("cpsat", chosen, Job(COUNT, Request(),
                                                                              split=parallel.Split(jobs=2)))))
print(json.dumps({"count": outcome.count, "complete": outcome.complete, "parts": outcome.parts,
                  "workers": outcome.details["split"]["workers"]}))
"""


FORKED_WHEN_DUE = """
import json, os, sys
os.environ["OPENBLAS_NUM_THREADS"] = "1"
from gridsat.solvers.backends.sat import SatSearch
from gridsat.solvers.splitting import parallel, split_policy
if sys.argv[1] == "plant":
    SatSearch.threaded = property(lambda self: True)
split_policy.FREE_CORES = 0.0
from gridsat.api import load
from gridsat.solvers.backend import COUNT, Request
from gridsat.solvers.gate import Job, bind
from gridsat.solvers.run import consume
def run(puzzle, size):
    chosen, parsed = load(puzzle, size, {})
    job = bind("sat", chosen, Job(COUNT, Request(), split=parallel.Split(jobs=2)))
    split = parallel.SplitRun(chosen, parsed, job)
    return split, consume(split)
short, counted = run("knights-tour", "5x5")
said = {"short": counted.count, "short_pool": short.pool is not None}
split_policy.SPECULATE, split_policy.SHORT, split_policy.LONGEST, split_policy.SLOWEST = 0.05, 10.0, 10.0, 1000
long, counted = run("prime-grid", "4x5")
said |= {"long": counted.count, "beside": len(long.beside.early), "method": long.pool.method}
print(json.dumps(said))
"""


@pytest.mark.parametrize("planted", [False, True])
def test_a_probe_searching_in_the_thread_that_reads_it_forks_its_workers_only_when_due(planted: bool) -> None:
    # The sat backend's probe on CaDiCaL searches in the thread that reads it: its workers are forked when due, not
    # held from the start, so a count that ends sooner forks none (the fork cost knights-tour 5x5 on sat, 0.19 s of
    # search, about 40 ms); one that runs on forks them then, and they count parts beside it. The bug planted, the
    # search taken to run in a thread of its own: the workers forked with the run. (A process of its own: this one
    # runs other threads, and would spawn its workers.)
    done = subprocess.run([sys.executable, "-c", FORKED_WHEN_DUE, "plant" if planted else "fixed"],
                          capture_output=True, text=True, timeout=patience(120), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["short"] == 1728 and said["long"] == 50784 and said["beside"] > 0 and said["method"] == "fork", said
    assert said["short_pool"] == planted, said


@pytest.mark.parametrize("plant", [False, True])
def test_a_kept_probe_forks_its_workers_held_before_its_solver_thread_starts(plant: bool) -> None:
    # A cpsat probe searches in a thread of its own: workers started beside it were spawned, each loading Python,
    # gridsat and OR-Tools afresh (about 0.9 s of processor time) while the probe searched. Forked held at the start,
    # while the process runs one thread, they are released when due, and the count is exact. A count of seconds
    # (prime-grid 4x4, under a second, was finished by the probe alone while spawned workers loaded, on a busy machine;
    # 4x5/1..20 is about 5 s on cpsat, and the probe splits it after 0.05 s or once the spawned workers are ready).
    golden = next(e["count"] for e in counts("prime_grid") if (e["grid"], e.get("max")) == ("4x5", 20))
    done = subprocess.run([sys.executable, "-c", HELD_WORKERS, "plant" if plant else "fixed"], capture_output=True,
                          text=True, timeout=patience(60), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["complete"] and record["count"] == golden and record["parts"] > 1
    assert record["workers"] == ("spawned" if plant else "forked")


# split_policy.PROLONG_REST that prolongs no probe: at 0, a probe the parts finished beside it said had found all of
# their solutions (a rest of 0 s, which a loaded machine's first few parts gave) was still prolonged, and ended alone
NEVER = -1.0


@pytest.mark.slow
def test_two_workers_share_out_a_long_count_in_processor_seconds(monkeypatch) -> None:
    # A kept probe ran until 16 start-ups per worker were a tenth of it, each start-up measured by a
    # loaded clock (0.1 s for cpsat): the probe counted prime-grid 5x5 alone for 17 s while the second worker
    # waited. Processor seconds, not wall times, so that it holds on a busy machine: a count of several
    # seconds is shared out on both workers, for about the work of one process (benchmarks/compare/parallel).
    from gridsat.benchmarks.compare.parallel import timed, unshared

    golden = next(e["count"] for e in counts("prime_grid") if (e["grid"], e.get("max")) == ("4x5", 21))

    def count(jobs: int):
        return timed("prime-grid", "4x5", {}, "cpsat", None, jobs, None, time_limit=600)

    one = count(1)
    assert one.count == golden and one.complete
    # What a worker measures starting a cpsat part here, in processor seconds, on an idle machine (0.03 s; a
    # worker's own measure varies up to the 0.1 s cap, which makes the probe 9 s, as long as this count).
    ready = LocalPool.start_cost
    monkeypatch.setattr(LocalPool, "start_cost", lambda self: None if ready(self) is None else 0.03)
    # A count of 5 to 12 s: on a fast machine its probe, its time up, may have found half of it and search on
    # alone (split_policy.PROLONG_REST), which is right for it but not what this test is about.
    monkeypatch.setattr(split_policy, "PROLONG_REST", NEVER)
    two = count(2)
    assert unshared(one, two) is None, unshared(one, two)
    # The regression planted: 16 parts per worker after a kept probe, each start-up 0.1 s as a loaded clock said,
    # the probe's length not capped at LONGEST, and not cut short by the clock, as on an idle machine: the probe
    # counts it all alone. That probe is 17 s, and on a busy machine (CI, 2026-11-29) the probe's own processor time
    # for this count passed 17 s where one process took 12.2 s: it split the tail and shared it. So the planted
    # probe is also made ten times one process's time, whatever the machine (a smaller share OVERHEAD allows).
    monkeypatch.setattr(split_policy, "KEPT_PARTS_PER_WORKER", 16)
    monkeypatch.setattr(split_policy, "LONGEST", float("inf"))
    fixed = split_policy.KEPT_PARTS_PER_WORKER * split_policy.PROBE + split_policy.PART_FLOOR
    monkeypatch.setattr(split_policy, "OVERHEAD", min(split_policy.OVERHEAD, fixed / (10 * one.cpu)))
    monkeypatch.setattr(split_policy, "SLOWEST", 1000)
    monkeypatch.setattr(LocalPool, "start_cost", lambda self: None if ready(self) is None else split_policy.PROBE)
    assert unshared(one, count(2)) == "it ran alone: the probe counted it all"


def speculate_at_once(monkeypatch: pytest.MonkeyPatch, probe: float) -> None:
    """Parts counted beside a kept probe from its first 0.05 s of processor time, however busy the machine (no idle
    core asked for), and the probe ``probe`` processor seconds long, ended by them however loaded the machine."""
    monkeypatch.setattr(split_policy, "SPECULATE", 0.05)
    monkeypatch.setattr(split_policy, "FREE_CORES", 0.0)
    monkeypatch.setattr(split_policy, "SHORT", probe)
    monkeypatch.setattr(split_policy, "LONGEST", probe)
    monkeypatch.setattr(split_policy, "SLOWEST", 1000)


@pytest.mark.parametrize("planted", [False, True])
def test_parts_counted_beside_the_probe_give_the_exact_count(planted: bool, monkeypatch) -> None:
    # While a kept probe searches on, a worker counts first-split parts whole beside it, and the probe's
    # models that fall in them are taken off its count: each model stands for its orbit's solutions (four in
    # prime-grid's default CNF). The bug planted, one solution a model, counts three too many of each. Counted
    # as ``gridsat count --jobs 2`` counts it (gridsat.count): the user's route once opened the run as an orbit
    # count "up to nothing", which never counted parts beside its probe, while runs opened here did.
    from gridsat.solvers.splitting import parallel

    speculate_at_once(monkeypatch, probe=1.5)
    monkeypatch.setattr(split_policy, "PROLONG_REST", NEVER)  # ... and is given no more time: the run splits
    monkeypatch.setattr(split_policy, "BESIDE_PARTS", 1)  # whole sixteenths beside it: some hold the probe's models
    if planted:
        monkeypatch.setattr(parallel, "stands_for", lambda search: 1)
    outcome = gs.count("prime-grid", "4x5", backend="sat", split=Split(jobs=2))
    beside = outcome.details["split"].get("beside_probe")
    assert beside is not None, f"no parts were counted beside the probe: {outcome.details['split']}"
    assert beside["parts"] >= 1 and beside["counted_twice"] > 0
    assert outcome.complete and outcome.duplicates == 0 and outcome.details["split"]["probe_kept"]
    assert outcome.count == 50784 + (3 * beside["counted_twice"] if planted else 0)


@pytest.mark.parametrize("planted", ["", "never stopped", "not split again"])
def test_a_part_long_beside_the_probe_is_stopped_and_split_again_when_the_run_splits(planted: str,
                                                                                     monkeypatch) -> None:
    # A part counted beside the probe ran whole until the run split, and on after it: aged from the split, it was
    # split again late or never (prime-grid 5x5 on sat: one such part 2.2% of the work, the 100-worker forecast 42x).
    # Now its worker is asked to stop it after BESIDE_LONGEST seconds (made short here; whole sixteenths beside the
    # probe), and it is split again, keeping its count, when the run splits. Planted: no part stopped; and a part
    # stopped whose rest is never counted (its count taken as finished, the total short).
    from gridsat.solvers.splitting import partition

    speculate_at_once(monkeypatch, probe=1.5)
    monkeypatch.setattr(split_policy, "PROLONG_REST", NEVER)  # the run splits
    monkeypatch.setattr(split_policy, "BESIDE_PARTS", 1)
    monkeypatch.setattr(split_policy, "BESIDE_LONGEST", 1e9 if planted == "never stopped" else 0.02)
    if planted == "not split again":
        monkeypatch.setattr(partition.Partition, "halted", lambda self, index, target: None)
    chosen, parsed = load("prime-grid", "4x5", {})
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2))
    outcome = consume(run)
    split = outcome.details["split"]
    assert "beside_probe" in split and split["probe_kept"], split
    stopped = split["beside_probe"]["stopped_to_split"]
    assert stopped == len(run.beside.halted), split
    if planted == "not split again":  # the stopped part's count taken as its whole: short, and said incomplete
        assert stopped >= 1 and not outcome.complete and outcome.count < 50784, split
        return
    assert outcome.complete and outcome.count == 50784 and outcome.duplicates == 0, split
    if planted == "never stopped":
        assert stopped == 0, split
        return
    assert stopped >= 1, split
    # each part stopped beside the probe was split again (or had finished before it looked) and kept its count
    spans = {s.index: s for s in run.ledger.spans}
    for index in run.beside.halted:
        assert index in run.ledger.children or not spans[index].split, (index, split)
        assert not spans[index].thrown
    assert any(run.ledger.children.get(index) for index in run.beside.halted), split


@pytest.mark.parametrize("planted", [False, True])
def test_a_probe_whose_rest_the_parts_beside_it_put_short_searches_on_alone(planted: bool, monkeypatch) -> None:
    # The probe's time is up at 2 processor seconds of prime-grid 4x5's 4 or so on sat; the parts finished beside
    # it say what share of their solutions it had found, and so how long its rest is: within PROLONG_REST (made
    # long here), it searches on and ends alone, which parts of a short rest would not beat. The bug planted, no
    # rest short enough: it splits. Either way the count is exact (the parts' messages read ahead while the probe
    # was asked for more time reach the run in their turn).
    speculate_at_once(monkeypatch, probe=2.0)
    monkeypatch.setattr(split_policy, "PROLONG_MOST", 60.0)
    monkeypatch.setattr(split_policy, "PROLONG_REST", NEVER if planted else 60.0)
    outcome = gs.count("prime-grid", "4x5", backend="sat", split=Split(jobs=2))
    split = outcome.details["split"]
    assert outcome.complete and outcome.count == 50784 and outcome.duplicates == 0, split
    if planted:
        assert "prolonged" not in split and outcome.parts > 1 and split["probe_kept"], split
    else:
        assert split["alone"].startswith("the search finished") and outcome.parts == 1, split
        assert split["prolonged"]["seconds"] > 0 and split["prolonged"]["parts_finished_beside"] >= 1, split
        assert 0 < split["prolonged"]["found_share"] <= 1, split


@pytest.mark.parametrize("planted", [False, True])
def test_a_probe_expected_to_end_alone_hands_out_no_more_parts_beside_it(planted: bool, monkeypatch) -> None:
    # prime-grid 4x5 on sat, about 2.5 processor seconds, its probe given 10: once the parts finished beside it say
    # that it ends alone, no more are handed out (their work would be thrown away, and counting them slows the probe
    # that shares the machine). The bug planted, parts handed out until the probe ends: none is held back.
    speculate_at_once(monkeypatch, probe=10.0)
    monkeypatch.setattr(split_policy, "HOLD_BESIDE", not planted)
    # ... and, once held, kept held: a rest of up to a minute counts as ending alone (on a loaded machine, a rest
    # estimated again past the usual PROLONG_REST let parts out once more, as it should)
    monkeypatch.setattr(split_policy, "PROLONG_REST", 60.0)
    chosen, parsed = load("prime-grid", "4x5", {})
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2))
    outcome = consume(run)
    split = outcome.details["split"]
    assert outcome.count == 50784 and outcome.complete and outcome.parts == 1 and run.beside.early, split
    if planted:
        assert "held_beside" not in split, split
    else:
        held = split["held_beside"]
        # ... and none was handed out after it was (the parts beside it then are all there were)
        assert 0 < held["after"] < 10.0 and held["parts_beside"] == len(run.beside.early), split
        # the share it was judged by is the probe's models in the parts finished beside it, counted incrementally
        finished = [p for p in run.beside.early if p.index in run.beside.finished]
        rows = run.probe.search.handback.rows()
        assert all(len(p.fixed) in run.beside.prefixes for p in finished)
        assert sum(run.beside.prefixes[len(p.fixed)][p.prefix] for p in finished) == \
            sum(len(p.blocked) for p in shared_out(finished, rows[:run.beside.read]))


@pytest.mark.parametrize("planted", [False, True])
def test_the_first_parts_beside_a_probe_sample_as_many_parts_of_the_first_split(planted: bool, monkeypatch) -> None:
    # The parts finished beside the probe say whether it ends alone by the share of their solutions it found too,
    # which is 0 or 1 for most single parts of the first split: their pieces are handed out in turn, BESIDE_SPREAD
    # parts at a time, so that the first few to finish sample as many parts (the knight's tours of 6x6 were held
    # after 0.7 s and 4 pieces, against 1.8 s and 35 to 40 one part after another). The bug planted, one part at a
    # time: the first pieces are all of one part.
    speculate_at_once(monkeypatch, probe=10.0)
    monkeypatch.setattr(split_policy, "HOLD_BESIDE", False)  # ... and on to the end of the probe
    if planted:
        monkeypatch.setattr(split_policy, "BESIDE_SPREAD", 1)
    chosen, parsed = load("prime-grid", "4x5", {})
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2))
    outcome = consume(run)
    assert outcome.count == 50784 and outcome.complete and len(run.beside.early) >= 4, outcome.details["split"]
    whole_of = {piece: whole for whole, pieces in run.beside.divided.items() for piece in pieces}
    first = {whole_of.get(p.index, p.index) for p in run.beside.early[:4]}
    assert len(first) == (1 if planted else 4), [p.index for p in run.beside.early[:4]]


@pytest.mark.parametrize("planted", [False, True])
def test_a_probe_on_a_busy_machine_counts_no_parts_beside_it_and_its_workers_start_as_before(planted: bool,
                                                                                          monkeypatch) -> None:
    # Parts counted beside the probe take turns with it where no core sat idle while it searched (here: fewer
    # idle than FREE_CORES, made more than any machine has); the workers then start when they would have without
    # them, and the run splits as before. The bug planted, the idle cores not looked at: parts beside it.
    speculate_at_once(monkeypatch, probe=1.5)  # the probe ends before this count of about 2.5 s does
    monkeypatch.setattr(split_policy, "FREE_CORES", 0.0 if planted else 1e6)
    monkeypatch.setattr(split_policy, "PROLONG_REST", NEVER)  # ... and is given no more time: the run splits
    outcome = gs.count("prime-grid", "4x5", backend="sat", split=Split(jobs=2))
    split = outcome.details["split"]
    assert outcome.complete and outcome.count == 50784 and outcome.duplicates == 0, split
    assert outcome.parts > 1 and split["probe_kept"], split
    if planted:
        assert split["beside_probe"]["parts"] >= 1 and "none_beside" not in split, split
    else:
        assert "beside_probe" not in split and 0 <= split["none_beside"]["idle_cores"] < 1e6, split


def test_the_idle_cores_are_the_kernels_idle_time_over_the_wall_time(tmp_path: Path, monkeypatch) -> None:
    from gridsat.solvers.splitting import idle

    ticks = os.sysconf("SC_CLK_TCK")
    stat = tmp_path / "stat"
    monkeypatch.setattr(idle, "STAT", str(stat))
    stat.write_text(f"cpu  10 0 5 {100 * ticks} {2 * ticks} 0 0 0 0 0\ncpu0 5 0 2 1 1 0 0 0 0 0\n")
    clock = iter([50.0, 50.5])
    meter = idle.IdleCores(lambda: next(clock))
    stat.write_text(f"cpu  90 0 9 {int(100.5 * ticks)} {int(2.1 * ticks)} 0 0 0 0 0\n")
    # idle and waiting for input or output: 0.5 + 0.1 core seconds over half a second, 1.2 cores
    assert meter.since() == pytest.approx((0.5 + 0.1) / 0.5, abs=2 / ticks / 0.5)
    monkeypatch.setattr(idle, "STAT", str(tmp_path / "none"))  # not Linux: psutil's reading, where installed
    psutil = pytest.importorskip("psutil")
    assert idle._idle_seconds() == pytest.approx(psutil.cpu_times().idle + getattr(psutil.cpu_times(), "iowait", 0),
                                                 abs=1.0)
    monkeypatch.setitem(sys.modules, "psutil", None)  # ... and none without it: no judgement
    assert idle.IdleCores().since() is None


def test_a_count_its_probe_finishes_throws_away_the_parts_counted_beside_it(monkeypatch) -> None:
    # A count of about 2.5 s of processor time ends within its kept probe and is its answer, whatever the parts
    # counted beside the probe found (the probe made longer than SHORT, 3.2 s: the parent's share of handing out
    # those parts counts in its processor time, and a worker beside it on a loaded machine slows it a little).
    speculate_at_once(monkeypatch, probe=10.0)
    chosen, parsed = load("prime-grid", "4x5", {})
    run = split_run_of(chosen, parsed, "sat", Request(), Split(jobs=2))
    outcome = consume(run)
    assert run.beside.early and outcome.count == 50784 and outcome.complete and outcome.parts == 1
    assert outcome.details["split"]["alone"].endswith("before splitting could pay")


@pytest.mark.parametrize("least", [split_policy.SHORT, 0.05])
def test_workers_not_started_beside_a_probe_start_when_they_would_have_without_it(least: float) -> None:
    # A launch that answers False (no core free for parts beside the probe) is asked again at the time the workers
    # would have started without those parts: later, or at the next look where that time has come (a probe of 0.05 s
    # starts them at once). The bug planted, the launch dropped where that time had come: no worker started, and a
    # cpsat count split only after its probe's deadline, its workers forked once its thread had ended.
    answers = [False, True]
    asked = []
    clock = ProbeClock(None, lambda: None, 2, split_policy.first_parts(2, kept=True), True,
                       lambda: asked.append(time.process_time()) or answers[len(asked) - 1], least=least, launch_at=0.0)
    clock.launch_if_due()
    assert len(asked) == 1 and clock.launch is not None and clock.launch_at == clock.regular
    clock.launch_if_due()
    if clock.regular > 0.0:  # not yet: the probe has not searched that long
        assert len(asked) == 1 and clock.regular == split_policy.launch_seconds(2, clock.parts, least)
    else:
        assert len(asked) == 2 and clock.launch is None


@pytest.mark.parametrize("launch_at", [None, 0.0, split_policy.SPECULATE])
def test_a_kept_probe_starts_its_workers_when_told_however_soon(launch_at: float | None) -> None:
    # The second core idled through the probe until the workers started beside it. A kept probe starts them
    # once it has searched ``launch_at`` seconds of processor time (``SPECULATE``), else WORKER_START before it may
    # end; asked for 0 s they start at its first look (``launch_at or inf`` had taken 0 for "not told": 2.7 s later).
    launched = []
    clock = ProbeClock(None, lambda: None, 2, split_policy.first_parts(2, kept=True), True,
                       lambda: launched.append(time.process_time()), launch_at=launch_at)
    clock.launch_if_due()
    assert len(launched) == (1 if launch_at == 0.0 else 0)  # SPECULATE's processor time has not passed yet
    assert clock.launch_at == (split_policy.launch_seconds(2, clock.parts) if launch_at is None else launch_at)
    assert split_policy.SPECULATE < split_policy.launch_seconds(2, clock.parts)  # ... and sooner than otherwise
