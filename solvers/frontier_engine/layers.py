"""The frontier engine's layer driver: a spec's states walked one element (layer) at a time.

A layer is a ``Shelf`` of partitions. Each layer, the parents are expanded a partition at a time (and
each partition let go of once expanded), their children gathered by partition in ``Bins``, then each
partition merged on its own into the next layer's states. When the layer would not fit in the memory
budget, the children and the merged partitions go to files in the spill folder instead, and memory is
set by the largest partition, not the layer. Counts start in one lane (modulo 2**64) and are widened to
the lanes the spec's bound needs only when a layer's exact total could pass 2**63 (see ``Lanes``); while
they are small, a spec with spare high bits in its state's last word keeps the count there (packed rows,
see ``solvers.frontier_engine.kernels``).
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from gridsat.models.frontier import FrontierSpec
from gridsat.solvers.frontier_engine.residues import crt, moduli_for
from gridsat.solvers.frontier_engine.spill import GB, PIECE_BYTES, Bins, Meter, Shelf, SpillFolder, spans_of
from gridsat.solvers.host.machine import cores, default_memory, minor_faults, release_freed, steady_allocator
from gridsat.solvers.stop import INTERRUPTED, Stop

MB = 1 << 20
PROGRESS_EVERY = 0.5  # seconds between progress lines
CHUNK = 1 << 21  # parents one kernel call expands at most: its scratch stays small
SMALL_LAYER = 1 << 18  # parents a layer may have and still be expanded whole, without partitions in files
THREADED_LAYER = 1 << 12  # parents from which a small layer is shared among the threads
MIN_SLICE = 1 << 10  # and at least (but for the last): fewer are not worth a thread's hand-over
TASKS = 16  # tasks a thread a layer at least (up to CHUNK parents each): a task's scratch stays a sliver of the layer
PART_ROWS = 1 << 17  # children a partition aims at: its merge table (2x) stays within a cache-friendly size
# and in a layer that goes to disk, where each task's share of each partition is a write of its own (16 us
# of processor time, most of it the system's): the widest 8x8 closed layers' 16,384 partitions made
# pieces of some 100 rows, 0.16 us a child, against some 10 ns a child that a merge of 4x the rows costs.
SPILL_PART_ROWS = 1 << 19
SAFE_TOTAL = float(1 << 63)  # one lane holds exact counts while a layer's total stays below this
# Parents of a layer from which expand runs with the step bound into it (some 10 ns a child less): its
# compile (some 1.5 s, once a process) pays off over the large layers of a long count; small counts never pay it.
BIND_FROM = 1 << 21
# Tasks of a large layer queued beyond one a thread: a thread that finishes its task takes the next at once,
# while the driver reads the next partition from its file (with none queued, it waited for the driver).
AHEAD = 1
TAPER = 3  # a large layer's last tasks shrink to an eighth of ``step`` at least (``Expansion.want``)
SCRATCH = ("children", "part", "ordered")  # the kinds of a thread's expansion scratch (``Tables``)
PACK_BITS = 24  # spare bits a spec's state leaves from which counts start packed in them


@dataclass
class EngineRun:
    """What one engine run found: the native count (None when stopped) and what it held."""

    count: int | None
    layers: int
    peak_states: int = 0
    peak_layer: int = 0
    peak_memory: int = 0  # bytes of states, children and scratch held at once (the engine's own arrays)
    peak_disk: int = 0  # bytes of spill files held at once
    states: list[int] = field(default_factory=list)  # parents per layer
    memory: list[int] = field(default_factory=list)  # bytes held at each layer's peak
    layer_seconds: list[float] = field(default_factory=list)  # each layer's wall-clock seconds
    layer_cpu: list[float] = field(default_factory=list)  # and the process's processor seconds (every thread)
    layer_system: list[float] = field(default_factory=list)  # of them, the system's (os.times)
    layer_faults: list[int] = field(default_factory=list)  # and the process's minor page faults
    lanes: int = 1
    partitions: int = 1
    spilled: int = 0  # layers whose children went to disk
    packed: int = 0  # layers made with packed rows (the count in the state's spare bits)
    budget: int = 0  # the bytes the engine's arrays were allowed
    threads: int = 1
    workers: list[dict[str, Any]] = field(default_factory=list)  # a cluster's workers: each one's share and peak
    resumed: int = 0  # the layer a checkpoint resumed from (0: a fresh run)
    checkpoints_skipped: int = 0  # checkpoints not written: the disk was wanted for spill files
    kept_layer: int | None = None  # the layer the checkpoint holds when the run ends (None: none written)
    seconds: float = 0.0
    started: float = 0.0  # time.perf_counter() when the run started (layer i ends sum(layer_seconds[:i + 1]) later)

    @property
    def bytes_per_state(self) -> float:
        """Memory at the peak per state of the widest layer."""
        return self.peak_memory / max(1, self.peak_states)


@dataclass
class Lanes:
    """The count lanes: one (modulo 2**64) while every count is exact in it, then all the spec's bound needs.

    While one lane is used, the driver knows each layer's total (``total``, summed as floats: within a
    millionth) and so that each count in it is exact; before a layer whose children's total could pass
    2**63, every state's count is copied into the other lanes (lane j = count mod moduli[j]). Packed
    (``shift`` not 0: the count in the bits ``shift`` and up of the state's last word), the same holds
    for a total below 2**(63 - shift), and the widening unpacks the rows.
    """

    moduli: list[int]  # every lane the bound needs: 2**64 first, then primes
    used: int = 1
    shift: int = 0  # packed rows: the state's bits in its last word (0: a column a lane)
    total: float = 1.0  # the current layer's total while one lane is used
    exact: int = 0  # the solutions counted while one lane was used, exactly
    residues: list[int] = field(default_factory=list)  # and after, lane by lane

    def array(self) -> np.ndarray:
        """The moduli of the lanes in use, as the kernels read them (lane 0's is 0: it wraps)."""
        return np.array([0] + self.moduli[1 : self.used], dtype=np.uint64)

    def must_widen(self, choices: int) -> bool:
        safe = SAFE_TOTAL / (1 << self.shift)
        return (self.used < len(self.moduli) or self.shift > 0) and choices * self.total * (1 + 1e-6) + 1 >= safe

    def widen(self) -> None:
        self.used, self.shift = len(self.moduli), 0
        self.residues = [0] * self.used

    def accept(self, acc: np.ndarray) -> None:
        """The solutions one layer completed (``acc``: lanes per task)."""
        if self.used == 1:
            self.exact += int(sum(int(x) for x in acc[:, 0]))  # exact: below the layer's bound
            return
        for j, m in enumerate(self.moduli):
            self.residues[j] = (self.residues[j] + sum(int(x) for x in acc[:, j])) % m

    def count(self) -> int:
        if self.used == 1:
            return self.exact
        return crt([(self.exact + r) % m for r, m in zip(self.residues, self.moduli, strict=True)], self.moduli)


class Tables:
    """Each thread's merge table, spill-file buffer and expansion scratch, kept for the run (fresh pages are
    faulted in, and zeroed, by the system one at a time: 6% of the processor time of 8x8 closed tours' first
    60 layers went to zeroing). ``merge`` leaves its table zeroed; each is made anew only when it needs more
    rows, or a quarter of them."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter
        self.held: dict[tuple[int, str], np.ndarray] = {}

    def get(self, children: int, width: int) -> np.ndarray:
        """This thread's table, with room for ``children`` rows ``width`` wide."""
        from gridsat.solvers.frontier_engine import kernels

        return self.kept("table", 1 << kernels.table_bits(children), 1 << kernels.table_bits(children), width)

    def gather(self, children: int, width: int) -> np.ndarray:
        """This thread's buffer for a partition's children read from its spill file (``children`` rows at
        least; its rows are not zeroed)."""
        return self.kept("gather", children, children + (children >> 2), width)[:children]

    def states(self, rows: int, width: int) -> np.ndarray:
        """This thread's buffer for a merged partition that goes to its spill file (``rows`` rows; a layer's
        merges let it go): fresh pages a partition, faulted in and zeroed, cost the system more than the write."""
        return self.kept("states", rows, rows + (rows >> 2), width)[:rows]

    def scratch(self, kind: str, rows: int, width: int, grow: bool) -> np.ndarray:
        """This thread's expansion scratch of ``kind``: ``rows`` rows at least (``grow``: made with room for a
        quarter more, as layers in memory grow; a layer on disk lets it go and is planned to the row)."""
        return self.kept(kind, rows, rows + (rows >> 2) * grow, width)[:rows]

    def kept(self, kind: str, rows: int, make: int, width: int) -> np.ndarray:
        """This thread's array of ``kind`` with ``rows`` rows or more (not over four times): else one of
        ``make`` rows, zeroed."""
        key = threading.get_ident(), kind
        array = self.held.get(key)
        if array is None or not rows <= array.shape[0] <= 4 * max(rows, 1) or array.shape[1] != width:
            if array is not None:
                self.meter.sub(array.nbytes)
            array = np.zeros((make, width), np.uint64)
            self.meter.add(array.nbytes)
            self.held[key] = array  # one key a thread: no other thread writes it
        return array

    def release(self, kinds: tuple[str, ...] | None = None) -> None:
        """The arrays of ``kinds`` let go of (None: every kind)."""
        for key in [key for key in self.held if kinds is None or key[1] in kinds]:
            self.meter.sub(self.held.pop(key).nbytes)


@dataclass
class Engine:
    """One run's fixed parts: the spec, the stop flag, the threads and the memory budget."""

    spec: FrontierSpec
    stop: Stop
    pool: ThreadPoolExecutor
    threads: int
    budget: int
    folder: SpillFolder
    lanes: Lanes
    run: EngineRun
    data: np.ndarray
    meter: Meter = field(default_factory=Meter)
    tables: Tables = field(init=False)
    clocks: tuple[float, float, float, int] = field(default_factory=lambda: layer_clocks())

    def __post_init__(self) -> None:
        self.tables = Tables(self.meter)

    @property
    def width(self) -> int:
        return self.spec.words if self.lanes.shift else self.spec.words + self.lanes.used


def run_spec(spec: FrontierSpec, stop: Stop, *, memory: int | None = None,
             progress: Callable[[str], None] | None = None, threads: int | None = None,
             spill: str | Path | None = None, checkpoint: Any = None) -> EngineRun:
    """Count ``spec``'s solutions layer by layer; ``EngineRun.count`` is None when ``stop`` ended it first
    (its reason set: the time limit, the memory budget ``memory`` bytes or the disk running out).
    ``spill``: the folder spill files go under; ``checkpoint``: a ``LayerCheckpoint`` to resume from and save to."""
    started = time.perf_counter()
    threads = threads or cores()  # every core, as CP-SAT and numba take them; --jobs N asks for fewer
    run = EngineRun(None, spec.elements, threads=threads, started=started)
    if spec.fixed is not None:
        run.count, run.seconds = spec.fixed, time.perf_counter() - started
        return run
    folder = SpillFolder(spill)
    folder.check()
    steady_allocator()
    lanes = Lanes(moduli_for(spec.bound_bits), shift=packing(spec, checkpoint))
    try:
        with ThreadPoolExecutor(threads) as pool:
            run.budget = default_memory() if memory is None else memory
            engine = Engine(spec, stop, pool, threads, run.budget, folder,
                            lanes, run, np.ascontiguousarray(spec.data, dtype=np.int64),
                            clocks=(started, *layer_clocks()[1:]))
            engine.meter.track(run.budget)
            try:
                walk(engine, progress, checkpoint, started)
            finally:
                engine.tables.release()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: a partial answer, the layers reached, no count
        stop.request(INTERRUPTED)
    finally:
        run.peak_disk = max(run.peak_disk, folder.peak_bytes)
        folder.remove()
        if checkpoint is not None:
            checkpoint.close()
            run.kept_layer = checkpoint.saved_layer if checkpoint.saved_layer >= 0 else None
    run.seconds = time.perf_counter() - started
    return run


def packing(spec: FrontierSpec, checkpoint: Any) -> int:
    """The ``shift`` of packed rows for ``spec`` (0: a column a lane): packed when its state leaves
    ``PACK_BITS`` or more high bits of its last word unset (a checkpoint keeps rows a column a lane)."""
    if checkpoint is not None or spec.spare_bits < PACK_BITS:
        return 0
    return 64 - spec.spare_bits


def root(spec: FrontierSpec, lanes: Lanes, meter: Meter) -> Shelf:
    """The first layer: the root state, reached one way."""
    rows = np.zeros((1, spec.words if lanes.shift else spec.words + lanes.used), dtype=np.uint64)
    rows[0, : len(spec.initial)] = spec.initial
    if lanes.shift:
        rows[0, spec.words - 1] |= np.uint64(1) << np.uint64(lanes.shift)
    else:
        rows[0, spec.words] = 1
    shelf = Shelf(1, rows.shape[1], meter)
    shelf.put(0, rows)
    return shelf


@dataclass
class Finished:
    """The last finished layer: its number, its states (held whole through the next layer's hand-overs
    unless the checkpoint has it already) and the lanes as they stood then. What a stop writes."""

    layer: int
    shelf: Shelf
    lanes: Lanes


def finished(engine: Engine, layer: int, shelf: Shelf) -> Finished:
    """``shelf`` as layer ``layer``, finished, with a copy of the lanes (the next layer changes them)."""
    return Finished(layer, shelf, replace(engine.lanes, residues=list(engine.lanes.residues)))


def keep(checkpoint: Any, engine: Engine, last: Finished) -> None:
    """A stop (the time limit, the memory budget, Ctrl-C or SIGTERM): the checkpoint gets the last finished
    layer, whatever the clock, unless it has it already."""
    if checkpoint is not None and checkpoint.saved_layer != last.layer:
        checkpoint.save(engine, last.layer, last.shelf, final=True, lanes=last.lanes)


def walk(engine: Engine, progress: Callable[[str], None] | None, checkpoint: Any, started: float) -> None:
    """The layer loop: sets ``engine.run.count`` when every layer is done. With a checkpoint, a stop writes
    the last finished layer: a layer the file does not hold yet is held whole while the next one is made."""
    spec, run, lanes = engine.spec, engine.run, engine.lanes
    first, shelf = 0, None
    if checkpoint is not None:
        resumed = checkpoint.load(engine)
        if resumed is not None:
            first, shelf = resumed
            run.resumed = first
    if shelf is None:
        shelf = root(spec, lanes, engine.meter)
    last, last_report = finished(engine, first, shelf), started
    try:
        for layer in range(first, spec.elements):
            n = shelf.states
            run.states.append(n)
            if n > run.peak_states:
                run.peak_states, run.peak_layer = n, layer
            if n == 0:
                break
            if engine.stop.expired():
                keep(checkpoint, engine, last)
                return
            if checkpoint is not None and checkpoint.saved_layer != layer:
                shelf.hold()
            if lanes.must_widen(spec.choices):
                shelf = widen(engine, shelf)
            shelf = step_layer(engine, layer, shelf)
            if shelf is None:
                keep(checkpoint, engine, last)
                return
            done, last = last, finished(engine, layer + 1, shelf)  # the new layer is whole before the old goes
            done.shelf.release()
            if checkpoint is not None:
                checkpoint.save(engine, layer + 1, shelf)
            now = time.perf_counter()
            if progress is not None and now - last_report >= PROGRESS_EVERY:
                last_report = now
                where = "on disk" if shelf.folder is not None else "in memory"
                progress(f"layer {layer + 1} of {spec.elements}: {shelf.states:,} states, "
                         f"{max(run.memory[-1:] or [0]) // MB:,} MB at the peak, {where}")
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the last finished layer is written, then the run ends
        keep(checkpoint, engine, last)
        raise
    shelf.release()
    if checkpoint is not None:
        checkpoint.save(engine, spec.elements, Shelf(0, engine.width, engine.meter), final=True)
    run.lanes = lanes.used
    run.count = lanes.count()


def widen(engine: Engine, shelf: Shelf) -> Shelf:
    """Every state's count copied into every lane the bound needs (see ``Lanes``)."""
    from gridsat.solvers.frontier_engine import kernels

    shift = engine.lanes.shift
    engine.lanes.widen()
    moduli, words = engine.lanes.array(), engine.spec.words
    wide = Shelf(shelf.parts, engine.width, engine.meter, shelf.folder)
    for p in range(shelf.parts):
        narrow = shelf.take(p)
        rows = np.empty((narrow.shape[0], engine.width), np.uint64)
        kernels.widen(narrow, rows, words, moduli, shift)
        engine.meter.sub(narrow.nbytes)
        wide.put(p, rows)
    return wide


@dataclass
class Plan:
    """How one layer runs: its children's partitions, and whether they go to disk."""

    parts: int
    spill: bool
    children: int  # expected children (an upper bound)
    memory: int  # bytes the layer is expected to hold at its peak
    slice: int  # parents a kernel call expands at most
    keep: int = 0  # spilled: children and merged partitions stay in memory while the meter is below this


def plan_layer(engine: Engine, layer: int, shelf: Shelf) -> Plan | None:
    """The plan for expanding ``shelf``: in memory when the layer fits the budget, else spilled in
    partitions and slices small enough for it; None (the stop's reason set) when even those cannot fit."""
    spec, run, threads = engine.spec, engine.run, engine.threads
    row = engine.width * 8
    n = shelf.states
    # Memory is planned for the most children a layer can have (a parent has at most ``choices``), so the
    # budget holds whatever the layer brings; the disk, for the children the growth so far foretells.
    children = n * spec.choices + 1
    growth = run.states[-1] / run.states[-2] if len(run.states) > 1 and run.states[-2] else spec.choices
    expected = int(n * min(spec.choices, max(1.0, growth) * 1.5)) + 1  # raw children: before equal states merge
    scratch_row = spec.choices * (2 * row + 8)  # a parent's children, their partitions, the children ordered
    merge_row = row * 4 + row // 2  # a child's row, its table slots (at most 2.5), its merged row

    def partitions(rows: int) -> int:
        parts = 1
        while parts < threads or children // parts > rows:
            parts *= 2
        return parts

    parts = partitions(PART_ROWS)
    step = min(-(-n // (threads * TASKS)), CHUNK)
    scratch = threads * step * scratch_row
    merge = threads * (children // parts + 1) * merge_row
    pieces = min(-(-n // max(MIN_SLICE, step)) * parts, children) * PIECE_BYTES  # a piece a task a partition
    # and what the process grew by beyond the meter (the allocator's free pages): resident all the same,
    # handed back to the system first when the layer would not fit with them
    in_memory = shelf.memory() + max(n, children) * row + scratch + merge + pieces
    if in_memory + engine.meter.uncounted() > engine.budget:
        release_freed()
    in_memory += engine.meter.uncounted() + kept_beside(engine, shelf, in_memory)
    if in_memory <= engine.budget:
        return Plan(parts, False, children, in_memory, CHUNK)
    # On disk: a quarter of the budget for the slices' scratch, a quarter for the merges, and the rest
    # for the parent partitions being expanded (a thread's and the next one's).
    slice_ = max(MIN_SLICE, min(CHUNK, engine.budget // 4 // (threads * scratch_row)))
    parts = partitions(max(MIN_SLICE, min(SPILL_PART_ROWS, engine.budget // 4 // (threads * merge_row))))
    parents = (threads + 1) * max(shelf.sizes) * row
    on_disk = threads * slice_ * scratch_row + threads * (children // parts + 1) * merge_row + parents
    if on_disk > engine.budget:
        engine.stop.request(f"out of the memory budget at layer {layer + 1} of {run.layers}: one partition needs "
                            f"{on_disk // MB:,} MB (peak states {run.peak_states:,})")
        return None
    # The parents' files go as they are read and each partition's merged states (no more rows than its
    # children) replace its children's file: at the peak the disk holds about the children.
    need, free = expected * row, engine.folder.free_bytes()
    if need > free:
        engine.stop.request(f"out of disk at layer {layer + 1} of {run.layers}: its spill files need about "
                            f"{need / GB:.1f} GB and {free / GB:.1f} GB is free under {engine.folder.base}")
        return None
    open_files(parts)
    # What the budget has beyond the slices, merges and parents in flight keeps children and merged
    # partitions in memory (the parents the last layer kept there are in the meter): memory before disk.
    # Less a task's children a thread: threads may each find room for theirs at once.
    keep = engine.budget - on_disk - threads * slice_ * spec.choices * row
    return Plan(parts, True, children, on_disk, slice_, keep=keep)


def open_files(parts: int) -> None:
    """Room for one spill file a partition: the soft limit on open files raised as far as needed."""
    try:
        import resource
    except ImportError:  # not on a POSIX system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = parts + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))


def step_layer(engine: Engine, layer: int, shelf: Shelf) -> Shelf | None:
    """The next layer's states from ``shelf``'s (let go of as they are expanded); None when stopped."""
    if shelf.states <= SMALL_LAYER and shelf.folder is None:
        need = small_need(engine, shelf)
        if need + kept_beside(engine, shelf, need) <= engine.budget:
            return small_layer(engine, layer, shelf)
    plan = plan_layer(engine, layer, shelf)
    if plan is None:
        return None
    run = engine.run
    run.partitions = max(run.partitions, plan.parts)
    folder = engine.folder if plan.spill else None
    run.spilled += plan.spill
    if plan.spill:
        engine.tables.release()  # the merge tables grow again to this layer's partitions, planned to fit
    bins = Bins(plan.parts, engine.width, engine.meter, folder, plan.keep)
    try:
        acc = expand_layer(engine, layer, shelf, bins, plan)
        if plan.spill:  # the merges' share of the budget, planned without the scratch
            engine.tables.release(SCRATCH)
        if engine.stop.expired():
            return None
        nxt = merge_layer(engine, bins, Shelf(plan.parts, engine.width, engine.meter, folder, plan.keep))
    finally:
        bins.close()
    engine.lanes.accept(acc)
    note_peak(engine)
    return nxt


def kept_beside(engine: Engine, shelf: Shelf, need: int) -> int:
    """What the meter holds besides ``shelf``'s partitions in memory: every thread's tables and buffers kept for the
    run (``Tables``), a held layer's. A layer's plan (``need`` bytes with the shelf) counts them: a thread that merged
    an earlier layer keeps its table, which no plan of this layer names (6x6 closed tours at a budget of 1 MB took
    1,126,368 bytes at layer 39 in 4 runs of 40, the main thread's table and both workers' kept). When they would
    not fit beside the layer, the tables are let go of first: they save zeroing, not memory."""
    if need + engine.meter.now - shelf.memory() > engine.budget:
        engine.tables.release()
    return max(0, engine.meter.now - shelf.memory())


def small_need(engine: Engine, shelf: Shelf) -> int:
    """The bytes ``small_layer`` holds at most: the parents twice, the children twice with their
    partitions, and a merge table for all of them."""
    n, row, choices = shelf.states, engine.width * 8, engine.spec.choices
    return 2 * n * row + n * choices * (2 * row + 8) + table_bytes(n * choices, engine.width)


def small_layer(engine: Engine, layer: int, shelf: Shelf) -> Shelf:
    """A layer small enough to hold whole, without the hand-overs of a large one: each thread expands a
    share of the parents into one array, ordered by partition (one a thread), then merges its partition."""
    items = [shelf.take(q) for q in range(shelf.parts)]
    parents = items[0] if len(items) == 1 else np.concatenate(items)
    threads = 1 if parents.shape[0] < THREADED_LAYER else engine.threads
    whole = WholeLayer(engine, layer, parents, threads)
    held = parents.nbytes if len(items) > 1 else 0  # the partitions' copy, beside them
    engine.meter.add(held)
    if threads == 1:
        whole.expand(0)
        results = [whole.merge(0)]
    else:
        list(engine.pool.map(whole.expand, range(threads)))
        results = list(engine.pool.map(whole.merge, range(whole.parts)))
    engine.meter.sub(held + parents.nbytes + sum(children.nbytes for children, _ in whole.made))
    nxt = Shelf(whole.parts, engine.width, engine.meter)
    for p, (states, _) in enumerate(results):
        nxt.put(p, states)
    engine.lanes.total = sum(total for _, total in results)
    engine.lanes.accept(whole.acc)
    note_peak(engine)
    engine.run.partitions = max(engine.run.partitions, whole.parts)
    return nxt


def note_peak(engine: Engine) -> None:
    """The memory a layer held at its peak, into the run's record (and the meter's peak reset)."""
    peak = engine.meter.reset_peak()
    engine.run.memory.append(peak)
    engine.run.peak_memory = max(engine.run.peak_memory, peak)
    engine.run.packed += engine.lanes.shift > 0
    clocks = layer_clocks()
    engine.run.layer_seconds.append(clocks[0] - engine.clocks[0])
    engine.run.layer_cpu.append(clocks[1] - engine.clocks[1])
    engine.run.layer_system.append(clocks[2] - engine.clocks[2])
    engine.run.layer_faults.append(clocks[3] - engine.clocks[3])
    engine.clocks = clocks


def layer_clocks() -> tuple[float, float, float, int]:
    """Wall seconds, the process's processor and system seconds, and its minor page faults, now."""
    return time.perf_counter(), time.process_time(), os.times().system, minor_faults()


class WholeLayer:
    """A small layer's children, held whole: thread ``t`` expands its share of the parents into one array
    ordered by partition (``expand``); partition ``p`` is then merged from every thread's piece of it."""

    def __init__(self, engine: Engine, layer: int, parents: np.ndarray, threads: int) -> None:
        self.engine, self.layer, self.parents = engine, layer, parents
        n = parents.shape[0]
        self.parts = 1 << (threads.bit_length() - 1)  # a power of two, at most one a thread
        self.bounds = [n * t // threads for t in range(threads + 1)]
        self.moduli = engine.lanes.array()
        self.acc = np.zeros((threads, engine.lanes.used), np.uint64)
        # each thread's children, ordered by partition, and where each partition starts
        self.made: list[tuple[np.ndarray, np.ndarray]] = []
        self.made += [(np.empty((0, engine.width), np.uint64), np.zeros(2, np.int64))] * threads

    def expand(self, t: int) -> None:
        from gridsat.solvers.frontier_engine import kernels

        engine, spec, meter = self.engine, self.engine.spec, self.engine.meter
        lo, hi = self.bounds[t], self.bounds[t + 1]
        children = np.empty(((hi - lo) * spec.choices, engine.width), np.uint64)
        part = np.empty(children.shape[0], np.int64)
        meter.add(children.nbytes + part.nbytes)
        m = kernels.expand(spec.step, engine.data, self.layer, self.parents, lo, hi, spec.words, spec.choices,
                           self.moduli, spec.scratch, np.uint64(self.parts - 1), children, part, self.acc, t,
                           engine.lanes.shift)
        starts = np.array([0, m], np.int64)
        if self.parts > 1:
            ordered = np.empty_like(children)
            meter.add(ordered.nbytes)
            starts = np.empty(self.parts + 1, np.int64)
            kernels.scatter(children, part, m, ordered, starts)
            meter.sub(children.nbytes)
            children = ordered
        meter.sub(part.nbytes)
        self.made[t] = (children, starts)

    def merge(self, p: int) -> tuple[np.ndarray, float]:
        from gridsat.solvers.frontier_engine import kernels

        engine, meter = self.engine, self.engine.meter
        pieces = [children[starts[p] : starts[p + 1]] for children, starts in self.made]
        rows = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        copy = rows.nbytes if len(pieces) > 1 else 0
        meter.add(copy)
        merged = kernels.merge(rows, engine.spec.words, self.moduli, engine.tables.get(rows.shape[0], engine.width),
                               engine.lanes.shift)
        meter.sub(copy)
        return merged


def expand_layer(engine: Engine, layer: int, shelf: Shelf, bins: Bins, plan: Plan) -> np.ndarray:
    """Every parent's children into ``bins``; returns the solutions completed here (lanes per task)."""
    return Expansion(engine, layer, shelf, bins, plan).run()


class Expansion:
    """A large layer's parents expanded into ``bins``, a task at a time on the engine's threads.

    Partitions are taken in order and cut into tasks of ``step`` parents (fewer at the layer's end; small
    partitions gathered into one, so that a task's children reach the bins in one piece a partition). A partition
    is let go of once the tasks that read it are done; ``AHEAD`` tasks wait beyond one a thread.
    """

    def __init__(self, engine: Engine, layer: int, shelf: Shelf, bins: Bins, plan: Plan) -> None:
        self.engine, self.layer, self.shelf, self.bins, self.plan = engine, layer, shelf, bins, plan
        self.moduli, self.pmask = engine.lanes.array(), np.uint64(plan.parts - 1)
        self.kernel = expand_kernel(engine.spec, shelf.states)
        tasks_total = sum(-(-size // MIN_SLICE) for size in shelf.sizes)
        self.acc = np.zeros((max(1, tasks_total), engine.lanes.used), dtype=np.uint64)  # lanes per task
        self.step = max(MIN_SLICE, min(plan.slice, -(-shelf.states // (engine.threads * TASKS))))
        # [a partition's rows, the last task that reads them (None: not yet), the buffer it was read into or None]
        self.held: list[list[Any]] = []
        self.spare: list[np.ndarray] = []  # buffers that partitions read from files were read into, free again
        self.lent: np.ndarray | None = None  # the buffer ``buffer`` handed out last
        self.running: list[Any] = []
        self.batch: list[tuple[np.ndarray, int, int]] = []
        self.size = self.k = self.finished = 0
        self.left = shelf.states  # parents not yet in a task or the batch

    def want(self) -> int:
        """Parents the task being gathered takes: ``step``, and fewer (down to an eighth) as the layer's end
        nears, so that the threads finish together rather than one running the last long task alone."""
        ending = (self.left + self.size) // (2 * self.engine.threads)
        return max(MIN_SLICE, self.step >> TAPER, min(self.step, ending))

    def room(self, need: int) -> tuple[np.ndarray, np.ndarray]:
        """This thread's scratch: the children and their partitions (kept for the run with the merge tables,
        as the children ordered by partition that go to the files are: fresh pages cost the system more than
        the rows' writes)."""
        tables, width = self.engine.tables, self.engine.width
        need = max(need, self.step * self.engine.spec.choices)  # a layer's last, short task keeps them too
        grow = not self.plan.spill
        children, part = (tables.scratch(kind, need, 1 if kind == "part" else width, grow) for kind in SCRATCH[:2])
        return children, part[:, 0].view(np.int64)

    def expand(self, task: tuple[int, list[tuple[np.ndarray, int, int]]]) -> None:
        from gridsat.solvers.frontier_engine import kernels

        spec, k, pieces = self.engine.spec, *task
        children, part = self.room(sum(hi - lo for _, lo, hi in pieces) * spec.choices)
        m = 0
        for parents, lo, hi in pieces:
            m += self.kernel(self.engine.data, self.layer, parents, lo, hi, spec.words, spec.choices, self.moduli,
                             spec.scratch, self.pmask, children[m:], part[m:], self.acc, k, self.engine.lanes.shift)
        starts = np.empty(self.plan.parts + 1, np.int64)
        kernels.count_parts(part, m, starts)
        spans = spans_of(starts)
        held = self.bins.room(spans, children.shape[1])
        if held is not None:  # each partition's piece made, and the children copied straight into it
            made = [(p, np.empty((b - a, children.shape[1]), np.uint64)) for p, a, b in spans]
            addresses = np.zeros(self.plan.parts, np.uint64)
            addresses[[p for p, _ in made]] = [piece.__array_interface__["data"][0] for _, piece in made]
            kernels.scatter_into(children, part, m, addresses)
            self.bins.hold(made, held)
            return
        ordered = self.engine.tables.scratch("ordered", children.shape[0], children.shape[1], not self.plan.spill)
        kernels.scatter(children, part, m, ordered, starts)
        self.bins.write(ordered, spans)

    def submit(self) -> None:
        self.running.append(self.engine.pool.submit(self.expand, (self.k, self.batch)))
        for entry in self.held:
            if entry[1] is None:
                entry[1] = self.k
        self.batch, self.size, self.k = [], 0, self.k + 1

    def settle(self, limit: int) -> None:
        """Wait until at most ``limit`` tasks run, and let go of the partitions that no task reads now."""
        while len(self.running) > limit:
            self.running.pop(0).result()
            self.finished += 1
        while self.held and self.held[0][1] is not None and self.held[0][1] < self.finished:
            rows, _, lent = self.held.pop(0)
            self.engine.meter.sub(rows.nbytes)
            if lent is not None and len(self.spare) <= self.engine.threads + 1:
                self.spare.append(lent)

    def buffer(self, rows: int) -> np.ndarray:
        """Room for a partition of ``rows`` parents read from its file: a buffer an earlier one was read into and
        no task reads now, or a new one with a quarter more (fresh pages a partition, faulted in and zeroed,
        cost the system more than the read). At most a buffer a partition held, as the plan allows."""
        fits = [i for i, spare in enumerate(self.spare) if rows <= spare.shape[0] <= 4 * max(rows, 1)]
        self.lent = self.spare.pop(fits[0]) if fits else np.empty((rows + (rows >> 2), self.engine.width), np.uint64)
        return self.lent[:rows]

    def take(self, q: int) -> None:
        """Partition ``q``'s parents cut into tasks; the last partition's remainder submitted too."""
        self.lent = None
        parents = self.shelf.take(q, self.buffer)
        self.held.append([parents, None, self.lent])
        lo, n = 0, parents.shape[0]
        while lo < n:
            hi = min(n, lo + max(0, self.want() - self.size))
            if hi > lo:
                self.batch.append((parents, lo, hi))
                self.size, self.left, lo = self.size + hi - lo, self.left - (hi - lo), hi
            if self.size >= self.want():
                self.submit()
        if self.batch and q == self.shelf.parts - 1:
            self.submit()
        self.held[-1][1] = None if self.batch else self.k - 1  # the pending batch reads it yet, or the last task did

    def run(self) -> np.ndarray:
        try:
            for q in range(self.shelf.parts):
                self.take(q)
                self.settle(self.engine.threads + AHEAD)
                if self.engine.stop.expired():
                    break
            self.settle(0)
        finally:
            for future in self.running:
                future.cancel()
                if not future.cancelled():
                    future.exception()  # waits: its kernel cannot be stopped halfway
            self.engine.meter.sub(sum(entry[0].nbytes for entry in self.held))
        return self.acc


def expand_kernel(spec: FrontierSpec, parents: int) -> Callable[..., int]:
    """The expand kernel for a layer of ``parents``, called without the step: from ``BIND_FROM`` parents the
    one with the spec's step bound into it (compiled once a process, see ``kernels.expander``)."""
    from gridsat.solvers.frontier_engine import kernels

    if parents < BIND_FROM:
        return functools.partial(kernels.expand, spec.step)
    return kernels.expander(spec.step)


def merge_layer(engine: Engine, bins: Bins, shelf: Shelf) -> Shelf:
    """Each partition's children merged into its distinct states, on the shelf; the layer's total noted.

    The heap's pages that the children's pieces free, partition by partition, stay with the process for the
    merged states and the next layer's pieces: handed back to the system (``release_freed``), they were
    faulted in and zeroed again (8x8 closed tours' first 60 layers, 7 of them on disk: 2.26 million page
    faults against 1.60, 85.9 user and system seconds against 71.5). The plan hands them back when a layer
    would not fit with them, and a layer on disk when its resident memory passes the budget (``Meter.holds``).
    """
    from gridsat.solvers.frontier_engine import kernels

    moduli, words, meter = engine.lanes.array(), engine.spec.words, engine.meter
    totals = [0.0] * shelf.parts

    def merge(p: int) -> None:
        children = bins.take(p, lambda rows: engine.tables.gather(rows, engine.width))
        table = engine.tables.get(sum(piece.shape[0] for piece in children), engine.width)
        n, bits = kernels.insert_pieces(children, words, moduli, table, engine.lanes.shift)
        meter.sub(sum(piece.nbytes for piece in children))
        del children
        kept = shelf.keeps(n * engine.width * 8)
        states = np.empty((n, engine.width), np.uint64) if kept else engine.tables.states(n, engine.width)
        totals[p] = kernels.collect(table, bits, states, words, engine.lanes.shift)
        shelf.put(p, states, kept)

    try:
        list(engine.pool.map(merge, range(shelf.parts)))
    finally:
        engine.tables.release(("states",))
    engine.lanes.total = sum(totals)
    return shelf


def table_bytes(children: int, width: int) -> int:
    """What ``merge``'s table of ``children`` rows holds."""
    from gridsat.solvers.frontier_engine import kernels

    return (1 << kernels.table_bits(children)) * width * 8
