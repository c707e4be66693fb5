"""The frontier engine's layers on a Dask cluster: each worker holds its share of every layer.

Partition ``p`` of every layer belongs to worker ``p % W``. A worker keeps its partitions in its own
process (``HELD``, one entry a run), so a layer is never gathered in one place. A layer goes in
``ROUNDS`` rounds: in each, every worker expands a share of its parents (letting each go once
expanded), keeps the children of its own partitions and hands back those of the others, which Dask
carries to their owners (``receive``); then every worker merges its partitions. The client only
schedules and adds up the solutions completed; it holds no states. The tasks are Dask futures pinned
to their worker; gridsat writes no scheduler of its own.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gridsat.models.errors import InvalidOption
from gridsat.models.frontier import FrontierSpec
from gridsat.solvers.frontier_engine.layers import PART_ROWS, PROGRESS_EVERY, EngineRun, Lanes, Tables
from gridsat.solvers.frontier_engine.residues import moduli_for
from gridsat.solvers.frontier_engine.spill import Meter
from gridsat.solvers.splitting.pool import connect
from gridsat.solvers.stop import Stop

MB = 1 << 20
ROUNDS = 4  # rounds a large layer is expanded in: children in flight between workers stay a fraction of it
# Parents a kernel call expands: a worker runs one at a time, so its scratch can stay small (a share
# of the layer is what it should hold, not a thread's large slice).
SLICE = 1 << 16
BIG_LAYER = 1 << 16  # states from which a layer goes in rounds (below, one round: fewer hand-overs)


@dataclass
class Share:
    """One worker's part of a run: its partitions of the current layer and the children coming to it."""

    spec: FrontierSpec
    index: int  # this worker's place among the run's workers
    workers: int
    lanes: int = 1
    moduli: np.ndarray = field(default_factory=lambda: np.zeros(1, np.uint64))
    parts: dict[int, np.ndarray] = field(default_factory=dict)
    coming: dict[int, list[np.ndarray]] = field(default_factory=dict)
    meter: Meter = field(default_factory=Meter)
    away: int = 0  # bytes handed back this layer: held here until the client lets their futures go
    tables: Tables = field(init=False)

    def __post_init__(self) -> None:
        self.tables = Tables(self.meter)

    @property
    def width(self) -> int:
        return self.spec.words + self.lanes


HELD: dict[tuple[str, str], Share] = {}  # (run, worker address) -> its share, in the worker's process


def here(run: str) -> Share:
    from distributed import get_worker

    return HELD[(run, get_worker().address)]


def by_name(spec: FrontierSpec) -> tuple[FrontierSpec, tuple[str, str]]:
    """The spec without its step, and where the step lives. A numba function is pickled with its code, so a
    worker would compile it afresh (seconds, or minutes for a large step); imported, it loads from numba's
    cache on disk."""
    return replace(spec, step=None), (spec.step.py_func.__module__, spec.step.py_func.__qualname__)


def start(run: str, spec: FrontierSpec, step: tuple[str, str], index: int, workers: int) -> None:
    """A worker's share of a new run (``spec`` and its ``step`` as ``by_name`` sends them); worker 0 holds the
    root state."""
    from importlib import import_module

    from distributed import get_worker

    spec = replace(spec, step=getattr(import_module(step[0]), step[1]))
    share = Share(spec, index, workers)
    HELD[(run, get_worker().address)] = share
    if index == 0:
        rows = np.zeros((1, spec.words + 1), dtype=np.uint64)
        rows[0, : len(spec.initial)] = spec.initial
        rows[0, spec.words] = 1
        share.parts[0] = rows
        share.meter.add(rows.nbytes)


def widen(run: str, moduli: list[int]) -> None:
    """Every count of this worker's partitions copied into every lane (see ``solvers.frontier_engine.layers.Lanes``)."""
    from gridsat.solvers.frontier_engine import kernels

    share = here(run)
    share.lanes = len(moduli)
    share.moduli = np.array([0] + moduli[1:], dtype=np.uint64)
    for p, narrow in list(share.parts.items()):
        wide = np.empty((narrow.shape[0], share.width), np.uint64)
        kernels.widen(narrow, wide, share.spec.words, share.moduli, 0)
        share.meter.add(wide.nbytes)
        share.meter.sub(narrow.nbytes)
        share.parts[p] = wide


Bundle = tuple[dict[int, dict[int, np.ndarray]], list[int], int]


def expand_round(run: str, layer: int, parts: int, round_: int, rounds: int, released: int) -> Bundle:
    """Expand this round's share of this worker's parents into ``parts`` partitions: keep the children
    of its own partitions, hand back the others' (worker -> partition -> rows), with the lanes of the
    solutions completed and the bytes handed back. ``released``: the bytes handed back last round,
    which their owners now hold."""
    from gridsat.solvers.frontier_engine import kernels

    share = here(run)
    share.meter.sub(released)
    share.away -= released
    spec, width = share.spec, share.width
    acc = np.zeros((1, share.lanes), np.uint64)
    away: dict[int, dict[int, list[np.ndarray]]] = {}
    for q in [q for q in share.parts if (q // share.workers) % rounds == round_]:
        parents = share.parts.pop(q)
        for lo in range(0, parents.shape[0], SLICE):
            hi = min(parents.shape[0], lo + SLICE)
            children = np.empty(((hi - lo) * spec.choices, width), np.uint64)
            part = np.empty(children.shape[0], np.int64)
            ordered = np.empty_like(children)
            scratch = children.nbytes * 2 + part.nbytes
            share.meter.add(scratch)
            m = kernels.expand(spec.step, np.ascontiguousarray(spec.data, dtype=np.int64), layer, parents, lo, hi,
                               spec.words, spec.choices, share.moduli, spec.scratch, np.uint64(parts - 1), children,
                               part, acc, 0, 0)
            starts = np.empty(parts + 1, np.int64)
            kernels.scatter(children, part, m, ordered, starts)
            for p in range(parts):
                rows = ordered[starts[p] : starts[p + 1]].copy()
                if rows.shape[0] == 0:
                    continue
                share.meter.add(rows.nbytes)
                owner = p % share.workers
                if owner == share.index:
                    share.coming.setdefault(p, []).append(rows)
                else:
                    away.setdefault(owner, {}).setdefault(p, []).append(rows)
            share.meter.sub(scratch)
        share.meter.sub(parents.nbytes)
        del parents
    sent = {w: {p: pieces[0] if len(pieces) == 1 else np.concatenate(pieces) for p, pieces in by_part.items()}
            for w, by_part in away.items()}
    # what is handed back stays in this worker's memory until its owner has it: the meter keeps counting it
    nbytes = sum(rows.nbytes for by_part in sent.values() for rows in by_part.values())
    share.away += nbytes
    return sent, [int(x) for x in acc[0]], nbytes


def pick(bundle: Bundle, worker: int) -> dict[int, np.ndarray]:
    """The children of a bundle that belong to ``worker``."""
    return bundle[0].get(worker, {})


def summary(bundle: Bundle) -> tuple[list[int], int]:
    """A bundle's lanes of completed solutions and bytes handed back (what the client gathers)."""
    return bundle[1], bundle[2]


def receive(run: str, *picks: dict[int, np.ndarray]) -> int:
    """The children other workers made for this worker's partitions, kept until the merge."""
    share = here(run)
    got = 0
    for picked in picks:
        for p, rows in picked.items():
            share.coming.setdefault(p, []).append(rows)
            share.meter.add(rows.nbytes)
            got += rows.shape[0]
    return got


def merge(run: str) -> tuple[int, float, int]:
    """Each of this worker's partitions merged into its distinct states: (states, lane-0 total, peak bytes).
    It runs once every worker has received its children and the client has let the hand-backs go."""
    from gridsat.solvers.frontier_engine import kernels

    share = here(run)
    share.meter.sub(share.away)
    share.away = 0
    states, total = 0, 0.0
    for p in sorted(share.coming):
        pieces = share.coming.pop(p)
        children = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        if len(pieces) > 1:
            share.meter.add(children.nbytes)
            share.meter.sub(sum(piece.nbytes for piece in pieces))
        del pieces
        rows, part_total = kernels.merge(children, share.spec.words, share.moduli,
                                         share.tables.get(children.shape[0], share.width), 0)
        share.meter.sub(children.nbytes)
        share.meter.add(rows.nbytes)
        share.parts[p] = rows
        states += rows.shape[0]
        total += part_total
    return states, total, share.meter.peak


def finish(run: str) -> None:
    """This worker's share of the run dropped."""
    from distributed import get_worker

    HELD.pop((run, get_worker().address), None)


@dataclass
class Cluster:
    """The client side of one run: the workers and the futures it schedules on them."""

    client: Any
    workers: list[str]
    run: str

    def on_each(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """``fn(run, *args)`` on every worker, pinned there; the results in worker order."""
        futures = [self.client.submit(fn, self.run, *args, workers=[w], pure=False, allow_other_workers=False)
                   for w in self.workers]
        return self.client.gather(futures)


def layer_on(cluster: Cluster, layer: int, parts: int, rounds: int) -> tuple[list[list[int]], list[Any]]:
    """A layer on every worker, in ``rounds``: expand, carry each worker's children to it, then merge.
    Returns the lanes of the solutions completed and each worker's (states, lane-0 total, peak bytes)."""
    client, workers = cluster.client, cluster.workers

    def pinned(fn: Callable[..., Any], *args: Any, at: str) -> Any:
        return client.submit(fn, *args, workers=[at], pure=False, allow_other_workers=False)

    lane_sums: list[list[int]] = []
    released = [0] * len(workers)  # bytes each worker handed back last round, now with their owners
    for round_ in range(rounds):
        bundles = [pinned(expand_round, cluster.run, layer, parts, round_, rounds, released[i], at=w)
                   for i, w in enumerate(workers)]
        picks = {(i, j): pinned(pick, bundles[i], j, at=workers[i])
                 for i in range(len(workers)) for j in range(len(workers)) if i != j}
        got = [pinned(receive, cluster.run, *[picks[(i, j)] for i in range(len(workers)) if i != j], at=w)
               for j, w in enumerate(workers)]
        sums = client.gather([pinned(summary, b, at=w) for b, w in zip(bundles, workers, strict=True)] + got)
        # The owners have their children: with these futures gone, Dask lets the senders' copies go.
        del bundles, picks, got
        lane_sums += [lanes for lanes, _ in sums[: len(workers)]]
        released = [nbytes for _, nbytes in sums[: len(workers)]]
    merged = client.gather([pinned(merge, cluster.run, at=w) for w in workers])
    return lane_sums, merged


def run_on_cluster(spec: FrontierSpec, stop: Stop, scheduler: str, *, memory: int | None = None,
                   progress: Callable[[str], None] | None = None, checkpoint: Any = None) -> EngineRun:
    """Count ``spec``'s solutions with the layers spread over a Dask cluster's workers."""
    if checkpoint is not None:
        raise InvalidOption("a checkpoint does not apply with a Dask scheduler: the layers stay on the workers "
                            "(checkpoint a count on one machine)")
    started = time.perf_counter()
    run = EngineRun(None, spec.elements)
    if spec.fixed is not None:
        run.count, run.seconds = spec.fixed, time.perf_counter() - started
        return run
    client = connect(scheduler)
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise InvalidOption(f"the Dask scheduler {scheduler!r} has no workers")
    cluster = Cluster(client, workers, uuid.uuid4().hex)
    run.threads = len(workers)
    lanes = Lanes(moduli_for(spec.bound_bits))
    try:
        for i, w in enumerate(workers):
            client.submit(start, cluster.run, *by_name(spec), i, len(workers), workers=[w], pure=False,
                          allow_other_workers=False).result()
        walk(cluster, spec, stop, run, lanes, memory, progress, started)
    finally:
        try:
            cluster.on_each(finish)
        finally:
            client.close()
    run.seconds = time.perf_counter() - started
    return run


def walk(cluster: Cluster, spec: FrontierSpec, stop: Stop, run: EngineRun, lanes: Lanes, memory: int | None,
         progress: Callable[[str], None] | None, started: float) -> None:
    """The layer loop on the cluster; sets ``run.count`` when every layer is done."""
    states, last_report = 1, started
    peaks = [0] * len(cluster.workers)
    for layer in range(spec.elements):
        run.states.append(states)
        if states > run.peak_states:
            run.peak_states, run.peak_layer = states, layer
        if states == 0:
            break
        if stop.expired():
            return
        if lanes.must_widen(spec.choices):
            lanes.widen()
            cluster.on_each(widen, lanes.moduli)
        parts = len(cluster.workers) * ROUNDS  # every worker has a partition for every round
        while states * spec.choices // parts > PART_ROWS:
            parts *= 2
        run.partitions = max(run.partitions, parts)
        rounds = ROUNDS if states >= BIG_LAYER else 1
        acc, merged = layer_on(cluster, layer, parts, rounds)
        lanes.accept(np.array(acc, dtype=object))
        states = sum(n for n, _, _ in merged)
        lanes.total = sum(t for _, t, _ in merged)
        peaks = [max(a, peak) for a, (_, _, peak) in zip(peaks, merged, strict=True)]
        if memory is not None and max(peaks) > memory:
            stop.request(f"out of the memory budget at layer {layer + 1} of {run.layers}: a worker held "
                         f"{max(peaks) // MB:,} MB (peak states {run.peak_states:,})")
            return
        now = time.perf_counter()
        if progress is not None and now - last_report >= PROGRESS_EVERY:
            last_report = now
            progress(f"layer {layer + 1} of {spec.elements}: {states:,} states on {len(cluster.workers)} workers")
    run.lanes = lanes.used
    run.peak_memory = max(peaks)
    run.workers = [{"worker": w, "peak_memory": p} for w, p in zip(cluster.workers, peaks, strict=True)]
    run.count = lanes.count()
