"""The ``frontier`` backend: counting by dynamic programming over a frontier (simpath, transfer matrix).

A puzzle declares a frontier formulation (``Puzzle.frontier.spec``, a ``FrontierSpec``: the element
order, the state and the transition; see models/frontier.py); the engine here walks the elements
one layer at a time, holding every distinct state once with the number of partial solutions that
reach it, so a count costs the number of states, not the number of solutions. Counts are exact
integers of any size (residues modulo 2**64 and a few primes, rebuilt by the Chinese remainder
theorem: ``solvers.frontier_engine.residues``). The layer driver is ``solvers.frontier_engine.layers``
(partitions, spill files, checkpoints), the kernels ``solvers.frontier_engine.kernels`` (numba, compiled
once and cached on disk).
"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gridsat.models.errors import InvalidOption
from gridsat.models.frontier import FrontierSpec
from gridsat.models.params import excerpt
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import (
    BACKENDS,
    COUNT,
    LAYERS,
    TIME_LIMIT,
    UP_TO,
    Backend,
    Request,
    Tally,
    backend_class,
    bound_choice,
    join_or,
)
from gridsat.solvers.host.machine import check_folder
from gridsat.solvers.stop import INTERRUPTED, Stop

if TYPE_CHECKING:
    from gridsat.solvers.frontier_engine.layers import EngineRun

MB = 1 << 20
# An eighth of the process's budget is kept from the engine for what its meter does not count (file buffers,
# thread stacks, the heap's free holes); the engine's resident check allows the same eighth
# (solvers.frontier_engine.spill.SLACK_SHARE, not imported here: the engine loads numpy and numba)
SLACK = 8
MIN_SHARE = MB  # the least the engine may be left (a small layer's rows; a partition that cannot fit stops the run)
BURNSIDE_LABEL = "folds"  # what a count by Burnside's lemma reports as its method


def spec_of(puzzle: Puzzle, instance: Instance, up_to: str | None) -> tuple[FrontierSpec, int]:
    """The instance's spec and what its native count is multiplied by for ``up_to``."""
    if puzzle.frontier is None:
        raise InvalidOption(FrontierBackend().refusal(puzzle) or "")
    spec = puzzle.frontier.spec(instance)
    if up_to not in spec.scale:
        raise InvalidOption(spec.refuse.format(up_to=up_to))
    return spec, spec.scale[up_to]


def by_burnside(puzzle: Puzzle, instance: Instance, up_to: str | None) -> bool:
    """Whether ``up_to`` is counted by Burnside's lemma: the puzzle lists what each element of the group fixes
    (then ``count --json`` gives every fix(g), even where the spec's own ``scale`` would reach ``up_to``)."""
    return up_to is not None and puzzle.frontier is not None and puzzle.frontier.fixed is not None


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
    takes = ("memory", "spill")
    can = frozenset({COUNT, UP_TO, TIME_LIMIT, LAYERS})
    install = "pip install 'gridsat[frontier]' (numba: JIT-compiled at run time, no C compiler needed)"

    def supported(self) -> bool:
        return importlib.util.find_spec("numba") is not None

    def refusal(self, puzzle: Puzzle) -> str | None:
        if puzzle.frontier is not None:
            return None
        counters = [name for name in BACKENDS if name != self.name and counts(name, puzzle)]
        return f"{puzzle.name} has no frontier formulation: count it with {join_or(counters)}"

    def counts_orbits(self, puzzle: Puzzle) -> bool:
        """Where the puzzle lists what each element fixes (knight's tours, tatami): Burnside's lemma on folds."""
        return puzzle.frontier is not None and puzzle.frontier.fixed is not None

    def vet(self, puzzle: Puzzle, request: Request, *, counting: bool) -> None:
        """Refused before numba compiles (seconds with a cold cache): a spill folder that cannot take
        files, and numba settings the kernels cannot run under."""
        super().vet(puzzle, request, counting=counting)
        if request.spill is not None:
            check_folder(request.spill, "spill")
        threads = os.environ.get("NUMBA_NUM_THREADS")
        if threads is not None and not (threads.strip().isdigit() and int(threads) >= 1):
            raise InvalidOption(f"NUMBA_NUM_THREADS={excerpt(threads)} must be a whole number of at least 1 "
                                "(or unset)")
        if os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0"):
            raise InvalidOption("NUMBA_DISABLE_JIT is set: the frontier's kernels run only compiled (unset it)")

    def tally(self, puzzle: Puzzle, instance: Instance, request: Request, stop: Stop, *, up_to: str | None = None,
              progress: Callable[[str], None] | None = None) -> Tally:
        """The exact count (``up_to``: of tours up to reversal...), or ``Tally(None, ...)`` when stopped."""
        built = time.perf_counter()
        if by_burnside(puzzle, instance, up_to):
            return burnside(puzzle, instance, request, stop, up_to, progress)
        spec, scale = spec_of(puzzle, instance, up_to)
        build_seconds = load_engine(built)
        checkpoint = layer_checkpoint(puzzle, instance, request, up_to)
        run = run_engine(spec, request, stop, progress, checkpoint)
        if run is None:
            return Tally(None, spec.order, {"elements": spec.elements}, build_seconds=build_seconds)
        count = None if run.count is None else run.count * scale
        details = details_of(spec, run)
        if checkpoint is not None and checkpoint.lost is not None:  # the answer stands; the file is not kept
            details["checkpoint"] = f"not kept: {checkpoint.lost}"
        return Tally(count, spec.order, {"elements": spec.elements, "state_words": spec.words}, details,
                     seconds=run.seconds, build_seconds=build_seconds)


def layer_checkpoint(puzzle: Puzzle, instance: Instance, request: Request, up_to: str | None) -> Any:
    """The request's checkpoint file for this count (None without one)."""
    if request.checkpoint is None:
        return None
    from gridsat.solvers.frontier_engine.layer_checkpoint import LayerCheckpoint

    return LayerCheckpoint(request.checkpoint, {"puzzle": puzzle.name, "instance": puzzle.describe(instance),
                                                "up_to": up_to, "backend": FrontierBackend.name})


def load_engine(built: float) -> float:
    """Compile or load the kernels: the seconds since ``built``, the count's build time."""
    import gridsat.solvers.frontier_engine.kernels  # noqa: F401

    return time.perf_counter() - built


def run_engine(spec: FrontierSpec, request: Request, stop: Stop, progress: Callable[[str], None] | None,
               checkpoint: Any = None) -> EngineRun | None:
    """One count of ``spec`` in this process or on the request's cluster; None when Ctrl-C came first."""
    # numpy and the layer driver load here, not with the backend registry: a process that lists
    # backends must not start numpy's OpenBLAS threads (forked workers need a single-threaded parent)
    from gridsat.solvers.frontier_engine.layers import run_spec

    memory = None if request.memory is None else request.memory * MB
    try:
        if request.scheduler is not None:
            from gridsat.solvers.frontier_engine.dask_layers import run_on_cluster

            return run_on_cluster(spec, stop, request.scheduler, memory=memory, progress=progress,
                                  checkpoint=checkpoint)
        return run_spec(spec, stop, memory=engine_share(memory), progress=progress,
                        threads=bound_choice(request).threads, spill=request.spill, checkpoint=checkpoint)
    except KeyboardInterrupt:
        stop.request(INTERRUPTED)
        return None
    finally:
        if checkpoint is not None:
            checkpoint.close()


def engine_share(memory: int | None) -> int:
    """The engine's budget when the whole process may hold ``memory`` bytes (None: the default share of the
    memory available): less what the process holds now and a ``SLACK`` share for what the engine does not
    count (file buffers, the allocator's free pages, passing copies of a partition)."""
    from gridsat.solvers.host.machine import default_memory, resident_bytes

    whole = default_memory() if memory is None else memory
    held = resident_bytes()
    share = whole - held - whole // SLACK
    if share < MIN_SHARE:
        raise InvalidOption(f"memory={whole // MB}: the budget bounds the whole process, which holds {held // MB} MB "
                            f"before counting; give at least {(held + MIN_SHARE) * SLACK // (SLACK - 1) // MB + 1} MB")
    return share


def burnside(puzzle: Puzzle, instance: Instance, request: Request, stop: Stop, up_to: str,
             progress: Callable[[str], None] | None) -> Tally:
    """Orbits by Burnside's lemma: (1/|G|) * the sum over the group of fix(g), each fix(g) a frontier count
    (on the fold the puzzle gives) or known by a proof. ``details`` hold every fix(g) (``fixed``: solutions in
    the puzzle's own convention, ``fixed_counts``) and how it was found (``fixed_by``); stopped, the count is None."""
    built = time.perf_counter()
    assert puzzle.frontier is not None and puzzle.frontier.fixed is not None  # by_burnside said so
    elements = puzzle.frontier.fixed(instance, up_to)
    if request.checkpoint is not None and sum(e.spec is not None for e in elements) > 1:
        raise InvalidOption(f"--checkpoint keeps the layers of one count; this count up to {up_to} makes one for "
                            "several elements of the group (drop --checkpoint)")
    build_seconds = load_engine(built)
    fixed: dict[str, int] = {}
    how: dict[str, str] = {}
    states, seconds, details = 0, 0.0, {}
    for element in elements:
        if element.spec is None:
            fixed[element.element], how[element.element] = element.known or 0, f"none: {element.why}"
            continue
        checkpoint = layer_checkpoint(puzzle, instance, request, up_to)  # one element counted at most (above)
        started = time.perf_counter()
        run = run_engine(element.spec, request, stop, progress, checkpoint)
        seconds += run.seconds if run is not None else time.perf_counter() - started
        if run is None or run.count is None:  # stopped: the seconds counted so far, the stopped count's too
            return Tally(None, BURNSIDE_LABEL, details={"fixed": fixed, "fixed_by": how}, seconds=seconds,
                         build_seconds=build_seconds)
        fixed[element.element] = run.count * element.scale
        how[element.element] = f"counted: {element.spec.order}, {sum(run.states)} states"
        states += sum(run.states)
        details = details or details_of(element.spec, run)  # the first count's layers (the identity's)
        if checkpoint is not None and checkpoint.lost is not None:  # the answer stands; the file is not kept
            details["checkpoint"] = f"not kept: {checkpoint.lost}"
    details |= {"fixed": fixed, "fixed_by": how, "fixed_counts": dict(puzzle.count_meta), "states_total": states}
    return Tally(sum(fixed.values()) // len(elements), BURNSIDE_LABEL, {"elements": len(elements)}, details,
                 seconds=seconds, build_seconds=build_seconds)


def details_of(spec: FrontierSpec, run: EngineRun) -> dict[str, Any]:
    """What a run reports beside its count: the layers, their states, the memory and disk it held."""
    return {
        "order": spec.order, "frontier_width": spec.width, "layers": spec.elements,
        "peak_states": run.peak_states, "peak_layer": run.peak_layer + 1, "peak_memory": run.peak_memory,
        "bytes_per_state": round(run.bytes_per_state, 1), "states_total": sum(run.states), "lanes": run.lanes,
        "threads": run.threads, "partitions": run.partitions, "spilled_layers": run.spilled,
        "packed_layers": run.packed, "engine_budget": run.budget,
        "peak_disk": run.peak_disk, **({"resumed_at_layer": run.resumed} if run.resumed else {}),
        **({"checkpoints_skipped": run.checkpoints_skipped} if run.checkpoints_skipped else {}),
        **({"checkpoint_layer": run.kept_layer} if run.kept_layer is not None else {}),
        **({"workers": run.workers} if run.workers else {}),
        **spec.details, **summary_of(run.states),
    }


def counts(name: str, puzzle: Puzzle) -> bool:
    """Whether the registered backend ``name`` counts ``puzzle`` (by enumeration or by its own counter)."""
    try:
        backend = backend_class(name)()
        return COUNT in backend.can and backend.refusal(puzzle) is None
    except Exception:  # a backend whose module cannot load here does not count anything
        return False
