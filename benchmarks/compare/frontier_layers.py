"""The frontier engine layer by layer: states, the engine's bytes, the process's resident memory and time.

    python -m gridsat.benchmarks.compare.frontier_layers 6x6 --closed
    python -m gridsat.benchmarks.compare.frontier_layers 8x8 --closed --layers 60 --memory 1000 --unpacked
    python -m gridsat.benchmarks.compare.frontier_layers 8x8 --closed --layers 60 --unmirrored

Runs the count in this process (``run_spec``, both cores), stopped after ``--layers`` layers when given
(the first k layers of a board are those of the whole count), while a thread samples the process's
resident memory (``VmRSS``) every 20 ms. A row a layer: its parents, the engine's own bytes at its peak
(``EngineRun.memory``), the most resident memory sampled during it, its wall seconds, the
processor seconds of every thread (the machine is shared: compare processor seconds, not wall), of
them the system's, and the process's minor page faults.
With ``--unpacked`` the same layers run again with the count in a column of its own (rows of
``words + 1`` words, as before counts were packed into the state's spare bits), and the ratios are
printed from the one run. With ``--unmirrored`` they run again with each state kept apart from its mirror
image (``frontier.mirror_tables``; before 2026-11-29 every count did), and the ratios of states, the widest
layer, the engine's peak and processor seconds are printed, with whether the counts agree (of a whole count:
of the first k layers' tours there are none).

Its measurement log (the runs behind its targets and the constants they tuned) is in the documentation:
docs/measurements/frontier-layers.md.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import dataclass, replace

from gridsat.models.knights_tour.board import Board
from gridsat.solvers.frontier_engine.layers import EngineRun, run_spec
from gridsat.solvers.host.machine import resident_bytes
from gridsat.solvers.stop import Stop

MB = 1 << 20
SAMPLE_EVERY = 0.02  # seconds between resident-memory samples


class Sampler:
    """A thread that samples ``resident_bytes()`` until stopped: (time.perf_counter(), bytes) pairs."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, int]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def sample(self) -> None:
        while not self.done.is_set():
            self.samples.append((time.perf_counter(), resident_bytes()))
            self.done.wait(SAMPLE_EVERY)

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()

    def peak(self, start: float, end: float) -> int:
        """The most resident memory sampled between ``start`` and ``end`` (or the last sample before)."""
        inside = [rss for t, rss in self.samples if start <= t <= end]
        before = [rss for t, rss in self.samples if t < start][-1:]
        return max(inside or before or [0])


@dataclass
class Profile:
    """One run's layers: the run and the resident memory at each layer's peak."""

    run: EngineRun
    rss: list[int]
    baseline: int  # resident memory before the run

    def row(self, i: int) -> list[str]:
        run = self.run
        parents = run.states[i] if i < len(run.states) else 0
        return [f"{i + 1}", f"{parents:,}", f"{run.memory[i] / MB:,.0f}", f"{self.rss[i] / MB:,.0f}",
                f"{run.layer_seconds[i]:.2f}", f"{run.layer_cpu[i]:.2f}", f"{run.layer_system[i]:.2f}",
                f"{run.layer_faults[i]:,}"]


def profile(board: Board, layers: int | None, memory: int, packed: bool, mirrored: bool = True) -> Profile:
    """Count ``board``'s tours for its first ``layers`` layers (all: None), sampled layer by layer; ``mirrored``
    False keeps each state apart from its mirror image (``frontier.mirror_tables``)."""
    from gridsat.models.knights_tour.frontier import build

    spec = build(board, mirrored=mirrored)
    if layers is not None:
        spec = replace(spec, elements=min(spec.elements, layers))
    if not packed:
        spec = replace(spec, spare_bits=0)
    baseline = resident_bytes()
    with Sampler() as sampler:
        run = run_spec(spec, Stop(), memory=memory * MB)
    ends, at = [], run.started
    for seconds in run.layer_seconds:
        ends.append((at, at + seconds))
        at += seconds
    return Profile(run, [sampler.peak(a, b) for a, b in ends], baseline)


def report(name: str, prof: Profile) -> list[str]:
    run = prof.run
    lines = [f"{name}: {len(run.layer_seconds)} layers, {sum(run.states):,} states, widest {run.peak_states:,} "
             f"(layer {run.peak_layer + 1}); engine peak {run.peak_memory / MB:,.0f} MB "
             f"({run.bytes_per_state:.1f} bytes a state), resident peak {max(prof.rss) / MB:,.0f} MB "
             f"(before the run {prof.baseline / MB:,.0f} MB); {sum(run.layer_cpu):.1f} processor s, "
             f"{sum(run.layer_seconds):.1f} wall s ({sum(run.layer_system):.1f} system s, "
             f"{sum(run.layer_faults):,} minor faults); {run.spilled} layers spilled, "
             f"disk peak {run.peak_disk / MB:,.0f} MB",
             "layer | parents | engine MB | resident MB | wall s | processor s | system s | minor faults"]
    lines += [" | ".join(prof.row(i)) for i in range(len(run.layer_seconds))]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board", help="RxC, e.g. 8x8")
    parser.add_argument("--closed", action="store_true", help="closed tours (default open)")
    parser.add_argument("--layers", type=int, default=None, help="stop after this many layers")
    parser.add_argument("--memory", type=int, default=4000,
                        help="the engine's own budget, MB (run_spec's: what the process holds besides is measured)")
    parser.add_argument("--unpacked", action="store_true", help="also run with the count in a column of its own")
    parser.add_argument("--unmirrored", action="store_true",
                        help="also run with each state kept apart from its mirror image")
    args = parser.parse_args(argv)
    rows, cols = (int(x) for x in args.board.lower().split("x"))
    board = Board(rows, cols, args.closed)
    packed = profile(board, args.layers, args.memory, packed=True)
    for line in report("packed rows", packed):
        print(line, flush=True)
    if args.unpacked:
        wide = profile(board, args.layers, args.memory, packed=False)
        for line in report("unpacked rows", wide):
            print(line, flush=True)
        print(f"packed / unpacked: engine peak {packed.run.peak_memory / max(1, wide.run.peak_memory):.2f}, "
              f"processor s {sum(packed.run.layer_cpu) / max(1e-9, sum(wide.run.layer_cpu)):.2f}, "
              f"states equal: {packed.run.states == wide.run.states}")
    if args.unmirrored:
        apart = profile(board, args.layers, args.memory, packed=True, mirrored=False)
        for line in report("mirror images kept apart", apart):
            print(line, flush=True)
        print(f"merged / apart: states {sum(packed.run.states) / max(1, sum(apart.run.states)):.2f}, widest "
              f"{packed.run.peak_states / max(1, apart.run.peak_states):.2f}, engine peak "
              f"{packed.run.peak_memory / max(1, apart.run.peak_memory):.2f}, processor s "
              f"{sum(packed.run.layer_cpu) / max(1e-9, sum(apart.run.layer_cpu)):.2f}, "
              f"count equal: {packed.run.count == apart.run.count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
