"""The ``frontier`` backend: counting by dynamic programming over a frontier (simpath, transfer matrix).

A puzzle declares a frontier formulation (``Puzzle.frontier.spec``, a ``FrontierSpec``: the element
order, the state and the transition; see models/frontier.py); the engine here walks the elements
one layer at a time, holding every distinct state once with the number of partial solutions that
reach it, so a count costs the number of states, not the number of solutions. Counts are exact
integers of any size (residues modulo 2**64 and a few primes, rebuilt by the Chinese remainder
theorem). The kernels are in ``frontier_engine`` (numba, compiled once and cached on disk).
"""

from __future__ import annotations

import importlib.util
import math
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from gridsat.models.errors import InvalidOption
from gridsat.models.frontier import FrontierSpec
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import (
    BACKENDS,
    COUNT,
    TIME_LIMIT,
    UP_TO,
    Backend,
    Request,
    Tally,
    backend_class,
    join_or,
)
from gridsat.solvers.machine import cores
from gridsat.solvers.stop import INTERRUPTED, Stop

MB = 1 << 20
DEFAULT_SHARE = 0.6  # of the memory available when a run starts: room for the rest of the machine
PROGRESS_EVERY = 0.5  # seconds between progress lines
# Below this many parents one partition (one thread) does the layer: the tables fit in the cache, where
# a second thread, which repeats every step to keep its own partition, costs more than it saves.
SMALL_LAYER = 1 << 18


def is_prime(n: int) -> bool:
    """Miller-Rabin with the bases that decide every n < 3.3 * 10**24."""
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def primes_below(limit: int, count: int) -> list[int]:
    """The ``count`` largest primes below ``limit``."""
    found, n = [], limit - 1
    while len(found) < count:
        if is_prime(n):
            found.append(n)
        n -= 1
    return found


PRIME_BITS = 62  # lanes beyond the first are modulo primes below 2**62: two residues add without overflow


def moduli_for(bound_bits: int) -> list[int]:
    """The moduli whose product exceeds 2**bound_bits: 2**64 first, then primes below 2**62."""
    extra = max(0, math.ceil((bound_bits - 64) / (PRIME_BITS - 1)))  # each prime is above 2**61
    return [1 << 64] + primes_below(1 << PRIME_BITS, extra)


def crt(residues: list[int], moduli: list[int]) -> int:
    """The least non-negative x with x = residues[i] mod moduli[i] (pairwise coprime moduli)."""
    x, m = 0, 1
    for r, n in zip(residues, moduli, strict=True):
        t = ((r - x) * pow(m, -1, n)) % n
        x, m = x + m * t, m * n
    return x


def default_memory() -> int:
    """Bytes a run may hold by default: a share of the memory available now."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(int(line.split()[1]) * 1024 * DEFAULT_SHARE)
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES") * DEFAULT_SHARE)
    except (ValueError, OSError, AttributeError):
        return 4 << 30


@dataclass
class Run:
    """What one engine run found: the native count (None when stopped) and what it held."""

    count: int | None
    layers: int
    peak_states: int = 0
    peak_layer: int = 0
    peak_memory: int = 0
    states: list[int] = field(default_factory=list)  # parents per layer
    lanes: int = 1
    partitions: int = 1
    threads: int = 1
    seconds: float = 0.0


def idle_cpus() -> int:
    """The cores not busy with other work (by the load average), at least one: a second thread on a
    core that another process holds slows a layer down instead of splitting it."""
    try:
        busy = os.getloadavg()[0]
    except (OSError, AttributeError):
        busy = 0.0
    return max(1, min(cores(), round(cores() - busy)))


def row_words(words: int, lanes: int) -> int:
    """A table row: a tag, the state, the lanes; three words padded to four (no row straddles a cache line)."""
    need = 1 + words + lanes
    return 4 if need == 3 else need


def run_spec(
    spec: FrontierSpec,
    stop: Stop,
    *,
    memory: int | None = None,
    progress: Callable[[str], None] | None = None,
    threads: int | None = None,
) -> Run:
    """Count ``spec``'s solutions layer by layer; ``Run.count`` is None when ``stop`` ended it first
    (its reason set: the time limit, or the memory budget ``memory`` bytes running out)."""
    import numpy as np

    started = time.perf_counter()
    budget = default_memory() if memory is None else memory
    mods = moduli_for(spec.bound_bits)
    moduli = np.array([0] + mods[1:], dtype=np.uint64)
    lanes, n_layers = len(mods), spec.elements
    threads = threads or idle_cpus()
    parts_max = 1 << (max(1, threads).bit_length() - 1)
    run = Run(None, n_layers, lanes=lanes, threads=threads)
    if spec.fixed is not None:
        run.count, run.seconds = spec.fixed, time.perf_counter() - started
        return run
    with ThreadPoolExecutor(parts_max) as pool:
        return layers(spec, stop, run, pool, parts_max, budget, moduli, mods, progress, started)


def root_layer(spec: FrontierSpec, lanes: int) -> tuple[Any, Any]:
    """The first layer: one table holding the root state, reached one way in every count lane."""
    import numpy as np

    words = spec.words
    tin = np.zeros((1, 1, row_words(words, lanes)), dtype=np.uint64)
    tin[0, 0, 0] = 1  # any non-zero tag: the root row is occupied
    tin[0, 0, 1 : 1 + len(spec.initial)] = spec.initial
    tin[0, 0, 1 + words : 1 + words + lanes] = 1
    return tin, np.ones(1, dtype=np.int64)


def layers(spec: FrontierSpec, stop: Stop, run: Run, pool: ThreadPoolExecutor, parts_max: int, budget: int,
           moduli: Any, mods: list[int], progress: Callable[[str], None] | None, started: float) -> Run:
    """The layer loop of ``run_spec``."""
    import numpy as np

    from gridsat.solvers import frontier_engine as engine

    words, lanes, n_layers = spec.words, len(mods), spec.elements
    width = row_words(words, lanes)
    tin, fin = root_layer(spec, lanes)
    acc = np.zeros((parts_max, lanes), dtype=np.uint64)  # accepted counts, per thread
    data = np.ascontiguousarray(spec.data, dtype=np.int64)
    last_report = started
    for layer in range(n_layers):
        n = int(fin.sum())
        run.states.append(n)
        if n > run.peak_states:
            run.peak_states, run.peak_layer = n, layer
        if n == 0:
            break
        if stop.expired():
            return finish(run, started)
        parts = 1 if n < SMALL_LAYER else parts_max
        run.partitions = max(run.partitions, parts)
        rows = max(64, n * 8 // (5 * parts))  # at 3/5 full if the next layer is as large as this one
        need = tin.nbytes + parts * rows * width * 8
        if need > budget:
            return out_of_memory(run, stop, layer, started, need)
        tout = np.zeros((parts, rows, width), dtype=np.uint64)
        fill = np.zeros(parts, dtype=np.int64)
        pos = np.zeros((parts, 2), dtype=np.int64)
        run.peak_memory = max(run.peak_memory, need)
        if parts == 1:
            while True:
                engine.expand(spec.step, data, layer, tin, fin, words, spec.choices, moduli, tout, fill, pos, acc,
                              spec.scratch, 0)
                if pos[0, 0] < 0:
                    break
                tout = grow(run, stop, pool, tin, tout, budget, layer, started)
                if tout is None:
                    return finish(run, started)
        else:
            tout = split_layer(spec, run, stop, pool, data, layer, tin, fin, moduli, tout, fill, acc, budget, started)
            if tout is None:
                return finish(run, started)
        # The next layer's parents, dense: each table's rows moved to its front, then copied out of it.
        del tin
        each(pool, parts, partial(engine.compact, tout))
        tin, fin = np.ascontiguousarray(tout[:, : max(1, int(fill.max()))]), fill
        run.peak_memory = max(run.peak_memory, tout.nbytes + tin.nbytes)
        del tout
        now = time.perf_counter()
        if progress is not None and now - last_report >= PROGRESS_EVERY:
            last_report = now
            progress(f"layer {layer + 1} of {n_layers}: {int(fin.sum()):,} states, {tin.nbytes // MB:,} MB")
    run.count = crt([sum(int(r) for r in acc[:, j]) % m for j, m in enumerate(mods)], mods)
    return finish(run, started)


def grow(run: Run, stop: Stop, pool: ThreadPoolExecutor, tin: Any, tout: Any, budget: int, layer: int,
         started: float) -> Any:
    """``tout`` with every partition's table half as large again (None: past the memory budget)."""
    import numpy as np

    from gridsat.solvers import frontier_engine as engine

    parts, rows, width = tout.shape
    rows = rows * 3 // 2 + 8 * engine.BATCH
    need = tin.nbytes + tout.nbytes + parts * rows * width * 8
    run.peak_memory = max(run.peak_memory, need)
    if need > budget:
        out_of_memory(run, stop, layer, started, need)
        return None
    grown = np.zeros((parts, rows, width), dtype=np.uint64)
    each(pool, parts, partial(engine.regrow, tout, grown))
    return grown


CHUNK = 1 << 15  # parents a thread expands before the children are inserted


def split_layer(spec: FrontierSpec, run: Run, stop: Stop, pool: ThreadPoolExecutor, data: Any, layer: int, tin: Any,
                fin: Any, moduli: Any, tout: Any, fill: Any, acc: Any, budget: int, started: float) -> Any:
    """One layer on several threads: each expands a share of the parents and files the children by
    partition, then each inserts its own partition's children (no step is taken twice)."""
    import numpy as np

    from gridsat.solvers import frontier_engine as engine

    parts, words = tout.shape[0], spec.words
    flat = tin.reshape(-1, tin.shape[2])
    ekeys = np.empty((parts, parts, CHUNK * spec.choices, 1 + words), dtype=np.uint64)
    efrom = np.empty((parts, parts, CHUNK * spec.choices), dtype=np.int64)
    ecount = np.zeros((parts, parts), dtype=np.int64)
    done = np.zeros((parts, parts), dtype=np.int64)
    run.peak_memory = max(run.peak_memory, tin.nbytes + tout.nbytes + ekeys.nbytes + efrom.nbytes)
    for lo in range(0, flat.shape[0], parts * CHUNK):
        def file(t: int, lo: int = lo) -> None:
            start = lo + t * CHUNK
            engine.emit(spec.step, data, layer, flat, fin, tin.shape[1], words, spec.choices, start,
                        min(start + CHUNK, flat.shape[0]), moduli, ekeys[t], efrom[t], ecount, acc, spec.scratch, t)

        each(pool, parts, file)
        done[:] = 0
        while True:
            each(pool, parts, partial(engine.insert, ekeys, efrom, ecount, flat, words, moduli, tout, fill, done))
            if (done >= ecount).all():
                break
            tout = grow(run, stop, pool, tin, tout, budget, layer, started)
            if tout is None:
                return None
    return tout


def each(pool: ThreadPoolExecutor, parts: int, job: Callable[[int], None]) -> None:
    """``job(p)`` for every partition, one thread each (the kernels release the GIL)."""
    if parts == 1:
        job(0)
    else:
        list(pool.map(job, range(parts)))


def finish(run: Run, started: float) -> Run:
    run.seconds = time.perf_counter() - started
    return run


def out_of_memory(run: Run, stop: Stop, layer: int, started: float, need: int) -> Run:
    """End the run on the memory budget, with the reason the CLI maps to its exit status."""
    stop.request(f"out of the memory budget at layer {layer + 1} of {run.layers} (peak states {run.peak_states:,})")
    run.peak_memory = max(run.peak_memory, need)
    return finish(run, started)


def spec_of(puzzle: Puzzle, instance: Instance, up_to: str | None) -> tuple[FrontierSpec, int]:
    """The instance's spec and what its native count is multiplied by for ``up_to``."""
    if puzzle.frontier is None:
        raise InvalidOption(FrontierBackend().refusal(puzzle) or "")
    spec = puzzle.frontier.spec(instance)
    if up_to not in spec.scale:
        raise InvalidOption(spec.refuse.format(up_to=up_to))
    return spec, spec.scale[up_to]


def summary_of(states: list[int]) -> dict[str, Any]:
    """The states per layer, whole when short, else sampled at 64 evenly spaced layers."""
    if len(states) <= 200:
        return {"states_per_layer": states}
    stride = max(1, len(states) // 64)
    return {"states_per_layer_sampled": {str(i): states[i] for i in range(0, len(states), stride)}}


class FrontierBackend(Backend):
    """Counts by dynamic programming over the frontier of a puzzle's ``FrontierSpec``."""

    name = "frontier"
    summary = "counts by dynamic programming over a frontier (simpath / transfer matrix), exact big integers"
    takes = ("memory",)
    can = frozenset({COUNT, UP_TO, TIME_LIMIT})
    install = "pip install 'gridsat[frontier]' (numba: JIT-compiled at run time, no C compiler needed)"

    def supported(self) -> bool:
        return importlib.util.find_spec("numba") is not None

    def refusal(self, puzzle: Puzzle) -> str | None:
        if puzzle.frontier is not None:
            return None
        counters = [name for name in BACKENDS if name != self.name and counts(name, puzzle)]
        return f"{puzzle.name} has no frontier formulation: count it with {join_or(counters)}"

    def tally(self, puzzle: Puzzle, instance: Instance, request: Request, stop: Stop, *, up_to: str | None = None,
              progress: Callable[[str], None] | None = None) -> Tally:
        """The exact count (``up_to``: of tours up to reversal...), or ``Tally(None, ...)`` when stopped."""
        built = time.perf_counter()
        spec, scale = spec_of(puzzle, instance, up_to)
        import gridsat.solvers.frontier_engine  # noqa: F401  (compiles or loads the kernels: build time)

        build_seconds = time.perf_counter() - built
        memory = None if request.memory is None else request.memory * MB
        try:
            run = run_spec(spec, stop, memory=memory, progress=progress)
        except KeyboardInterrupt:
            stop.request(INTERRUPTED)
            return Tally(None, spec.order, {"elements": spec.elements}, build_seconds=build_seconds)
        details: dict[str, Any] = {
            "order": spec.order, "frontier_width": spec.width, "layers": spec.elements,
            "peak_states": run.peak_states, "peak_layer": run.peak_layer + 1, "peak_memory": run.peak_memory,
            "states_total": sum(run.states), "lanes": run.lanes, "threads": run.threads,
            "partitions": run.partitions, **spec.details, **summary_of(run.states),
        }
        count = None if run.count is None else run.count * scale
        return Tally(count, spec.order, {"elements": spec.elements, "state_words": spec.words}, details,
                     seconds=run.seconds, build_seconds=build_seconds)


def counts(name: str, puzzle: Puzzle) -> bool:
    """Whether the registered backend ``name`` counts ``puzzle`` (by enumeration or by its own counter)."""
    try:
        backend = backend_class(name)()
        return COUNT in backend.can and backend.refusal(puzzle) is None
    except Exception:  # a backend whose module cannot load here does not count anything
        return False
