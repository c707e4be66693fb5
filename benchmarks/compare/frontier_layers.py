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

Mirror images merged against kept apart, ``8x8 --closed --layers 60 --memory 4000`` in one script, one after
the other on two quiet cores (2026-11-29): 262,230,251 states against 454,091,327 (0.58), the widest layer
46,817,592 against 91,412,291 (0.51), 71.2 processor s against 109.4 (0.65), 37.1 wall s against 55.6.
The records below were all taken with mirror images kept apart.

The 8x8 figures below were recorded with the parity order of a line's squares, before the mixed and tuned orders
(``frontier.line_order``): under them the first k layers are another part of the walk.

Recorded on this two-core machine shared with other developers (load average 20 and more: wall times
inflated; processor seconds and bytes are the figures to compare), ``8x8 --closed --layers 60 --memory
1000 --unpacked``: the same 382,714,301 states both ways (widest 58,508,236, layer 60); packed rows 91.1
processor s (367 wall s) against 124.2 (629 wall s), 0.73; spill files at most 925 MB against 1,837 MB,
7 layers spilled against 10; engine peaks 922 MB and 885 MB (the budget filled); the packed run's
resident memory at most 1,203 MB with 162 MB before it: within 25 MB of that plus the engine's peak on
the layers in memory, up to 124 MB above it on the spilled layers. Layer 46 (5,869,896 parents, in
memory): 175 MB of engine arrays against 259 MB.
``--layers 54 --memory 500``: 42.0 against 53.0 processor s (0.79).

The meter then learned what the spilled layers hold (each piece of children's cost beyond its rows,
and the process's resident memory before a layer keeps more in memory). ``8x8 --closed --layers 60
--memory 1000``, the code before and after run one after the other (loaded, load average about 8):
the same 382,714,301 states, 7 layers spilled both ways; resident peak 1,189 MB before, 107 MB above
the 162 MB held before the run plus the engine's peak (920 MB), and 1,086 MB after, 3 MB above it (921
MB); 94.7 processor s before, 92.5 after (with the partition sort's two-word copy); spill files at most
928 MB both ways.

Then the step bound into expand (``kernels.expander``), spilled layers in partitions of 2^19 children
and tasks of up to 2^21 parents, a partition's children gathered into a buffer kept for the run. The
code before and after run one after the other (loaded, load average 2 to 6): processor seconds of the
layers, then user + system seconds of the whole command (``/usr/bin/time``):
``8x8 --closed --layers 54 --memory 2000`` 28.8 before, 27.2 after (26.7 + 4.1 s, 25.1 + 3.6 s);
``--memory 300`` (9 layers spilled) 32.9, 29.7 (27.4 + 6.8 s, 25.0 + 6.2 s); ``--layers 60 --memory
1000`` 86.2, 71.5 (71.6 + 16.4 s, 57.3 + 15.8 s; spill files at most 928 MB, 1,241 MB);
``7x7 --layers 70 --memory 2000`` (open tours: 7x7 has no closed tour) 79.6, 67.1 (69.2 + 11.9 s,
58.5 + 10.0 s). More in docs/explanation/frontier.md.

Then no merge hands the heap's freed pages back to the system (the plan does when a layer would not fit
with them), and each thread's expansion scratch is kept for the run. The code before and after run one
after the other (loaded, load average 1 to 6), user + system seconds of the whole command and its page
faults (``/usr/bin/time -v``): ``8x8 --closed --layers 54 --memory 2000`` 24.7 + 3.8, 24.9 + 3.6, 24.2 +
3.5 s before (0.96, 0.93, 0.92 million faults), 23.3 + 1.2, 22.8 + 1.3, 23.6 + 1.4 s after (0.30 million
each), peak resident 868 to 880 MB both ways; ``7x7 --layers 70 --memory 2000`` 57.5 + 9.2, 56.4 + 10.2
(2.8 million faults) against 56.2 + 3.1 twice (0.9 million); ``8x8 --closed --layers 60 --memory 1000``
(7 layers spilled) 69.6 + 16.3, 58.6 + 14.0, 55.4 + 15.3 (2.24 million faults) against 55.8 + 13.0,
58.0 + 13.5, 59.0 + 12.4 (1.60 million): fewer faults and system seconds, the sum within the runs' spread.

Then the children copied straight into the pieces that keep them, the merge inserting each piece into its
table (no copy gathers a partition), and on layers on disk the merged partitions bound for their files and
the parents read from them in buffers kept, not fresh arrays. The engine before (7365a8c) and after run one
after the other (loaded, load average 4 to 8: the runs vary by as much as the change), user + system
seconds of the whole command, page faults, processor seconds of the layers: ``8x8 --closed --layers 54
--memory 2000`` 25.6 + 1.7, 24.6 + 1.5 before (0.31, 0.30 million faults; 25.9, 24.9 s), 24.7 + 1.2, 24.5 +
1.4 after (0.31, 0.30 million; 24.7, 24.4 s), engine peak 706 and 718 MB against 667 and 663 MB; ``8x8
--closed --layers 60 --memory 1000`` (7 layers spilled) 56.5 + 12.3, 60.9 + 14.0 (1.67, 1.68 million; 67.3,
72.9 s) against 54.2 + 12.7, 57.3 + 13.7 (1.26, 1.25 million; 65.2, 69.2 s); ``7x7 --layers 70 --memory
2000`` 58.7 + 3.6, 59.6 + 3.5 (60.8, 61.7 s) against 59.1 + 2.9, 57.9 + 3.5 (60.6, 60.1 s), engine peak
1,462 MB against 1,366 MB. Some 2 to 4% of the processor time at most; the faults of spilled layers a
quarter fewer.

Then the spill files made by the thread that first writes to a partition and closed by the one that
merges it (the driver made and closed them one by one, every thread waiting), a task queued beyond one a
thread in the expansion, and a layer's system seconds and page faults in its row. ``8x8 --closed
--layers 60 --memory 1000`` (7 layers spilled), the engine before (93847ae) and after run alternately on
a heavily loaded machine (load average 9 to 12), user + system seconds of the whole command, processor
seconds of the layers, the pool threads' idle seconds (wall less running and runnable, from their
``schedstat``) and, of them, those while the files were made: before 65.1 + 15.9, 68.5 + 15.4 (79.4, 81.9 s;
idle 22.4 and 15.5 s, 0.8 and 1.5 making files; 1.17 and 1.26 million faults), after 63.4 + 15.1, 58.2 +
14.5 (76.7, 71.0 s; idle 19.4 and 16.4 s, none making files; 1.19 and 1.27 million faults); the same
382,714,301 states, peak resident 1,003 and 1,004 MB against 1,004 and 992 MB. The last 8 layers (7 of
them spilled) took 48,000 to 170,000 faults and 0.2 to 4.8 system seconds each, the layers before them
1,300 to 29,000 and at most 0.14. Then a large layer's last tasks shrink
(to an eighth of a task) so both threads end its expansion together: the same command alternately on a
less loaded machine (load average about 2), before (93847ae) 56.2 + 13.1, 60.5 + 13.4 s (67.6, 72.1
processor s of the layers, 36.3 and 39.0 wall s; 1.27 and 1.25 million faults; peak resident 1,026,940
and 1,020,940 kB), after 58.1 + 13.0, 59.7 + 13.4 s (69.4, 71.4; 37.1, 38.1 wall s; 1.21 and 1.19 million;
1,001,960 and 994,996 kB): no gain beyond the runs' spread at this size. More in
docs/explanation/frontier.md ("Where a core sits idle").
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
