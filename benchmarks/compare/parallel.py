"""Split counts side by side: --jobs 1 against --jobs 2 for cpsat and sat, beside a plain C backtracker.

    python -m gridsat.benchmarks.compare.parallel                   # prime-grid 5x5/1..25 and knight's tours 6x6 closed
    python -m gridsat.benchmarks.compare.parallel --cases prime      # one of them
    python -m gridsat.benchmarks.compare.parallel --parts 400        # a finer split, for the part statistics
    python -m gridsat.benchmarks.compare.parallel --ceiling sat cpsat  # and what two cores give this machine at all
    python -m gridsat.benchmarks.compare.parallel --cases prime --timeline parts.csv  # and every part's run

Every configuration runs in this process one after the other (the split ones start their own
worker processes), so the ratios compare like with like on this shared machine. The C backtracker
is the plain one: cells in row-major order, values ascending, each value checked against the left
and the upper neighbour; it is compiled on the spot with ``cc -O2`` (skipped, with a message,
where there is no C compiler).

Targets: prime-grid 5x5/1..25 with --jobs 2 at least 2x faster than the C backtracker on sat, and
cpsat with --jobs 2 at least as fast as it; --jobs 2 at least 1.7x faster than --jobs 1 on cpsat
and 1.9x on sat for prime-grid 5x5/1..25 on an idle machine, 1.7x for the tours; the 6x6
closed tours counted in at most 3 s on the fastest backend.
Part statistics of each split run (solvers.splitting.schedule records them), and how the run sized its parts
(how its workers started and how long the probe searched, the first split, the parts split before
they started and while they ran, and the first and last
estimate of the run's part time they were sized by, beside the part time it took): the final parts (after every
split again), how many parts were split again and the seconds their stopped runs threw away, the
largest final part's share of the summed part time, each worker's busy share (time in parts /
wall time), the time from the first worker with nothing queued to the end, and the speed-up on
16, 100 and 1000 workers that a replay of the recorded tree of parts under the same policy
predicts (summed final part time / the replay's end; and, fairer, since finer parts add start-ups
to the part time, the --jobs 1 count's time / the replay's end). Part times are wall times on the worker,
model building included. Targets for splitting again: on 100 workers at least 60x, the largest final part
at most 1%, no worker idle more than 5% of the wall time with --jobs 2.

What this script measured when the split policy's constants (solvers.splitting.split_policy) were tuned:
- PROBE (when the probe's work was thrown away as the run split, and the probe was PROBE seconds; it
  now runs until splitting can pay, at least PROBE, and a sat or cpsat probe keeps its count). At
  0.2 s, knights-tour 6x6 closed on sat took 1.66-2.01 s, at 0.1 s 1.48-1.50 s, at 0.05 s 1.36 s;
  but at 0.05 s counts of 0.06-0.1 s split and took 0.1-0.15 s more (and ``gridsat count
  knights-tour 4x5 --backend cpsat --jobs 2``).
- PROBE_WAIT: a forked worker is ready at once, a spawned one takes 0.25 s (sat) to 0.5 s (cpsat:
  OR-Tools loads in 0.24 s). With a flat 0.2 s probe, knights-tour 5x5 on cpsat took 0.5 s alone
  and 1.3 s split: its parts waited for spawned workers.
- AHEAD: at 2 parts per worker ahead, a worker waited for its next part 0.4-0.7 s in a 17 s count
  (prime-grid 5x5 sat) while the parent split parts.
- PILOT: a first-split part handed out whole held the run's longest chain of runs (prime-grid 5x5
  sat, 0.28 s of a 0.49 s chain).
- LEAST_BUDGET: at 1.0 s the parts kept before a split held the tail (prime-grid 5x5 cpsat: largest
  part 1.9%, 42x predicted on 100 workers); at 0.5 s, 1.1-1.2% and 65-69x, for 2-7% more part time on
  two workers. Once a worker kept its CNF from part to part (a sat part starts in about 3 ms), the
  runs kept before a split at 0.5 s held the tail again (prime-grid 5x5 sat: 1.9-2.4%); at 0.2 s,
  1.0-1.1%.
- The ledger's running totals: summed afresh on every look, the parent of the 6x6 open count spent
  its whole core on them and left the workers waiting.
- The replay puts a split part's sub-parts at the head of the queue: at the tail, it had a chain of
  runs wait behind parts that were not on it.
- warm(): loading the solver library within a worker's first part once made the first estimate of a
  run's length 40x too long, and its parts far too many.

Processor seconds: beside each split run's wall time, what its probe, its parent in all and its parts
(per worker) spent, against the --jobs 1 count's; "on free cores" is the --jobs 1 count's over the
probe and the busiest worker's parts, about what two cores of its own would give; ``unshared`` says
why a split run did not share out the work (tests/test_parallel.py holds a count of seconds to it).
These hold on a loaded machine, where the wall-time ratios of --jobs 2 against --jobs 1 do not.

--jobs 2 slower than --jobs 1 on cpsat: measured on the shared two-core machine at a load
of 7 to 15 (other developers' test runs), so in processor seconds, one run each:
- The cause: a probe that keeps its count ran until the first split's start-ups (16 per worker, each
  measured by the clock, at most 0.1 s) were a tenth of it, and at least 3.2 s. The clock's start-up
  of a cpsat part of prime-grid 5x5 was 0.09-0.13 s at a load of 5 (0.03-0.05 s of processor time),
  so the probe was 17 s of processor time alone (38 s by the clock) while the workers waited: a
  third of the 50-60 s count on one core. Not the cause: the splitting solver (84 cpsat parts from
  relaxed projections in 0.01 s), the probe's models left out of each part (a part with 205 of them
  2.61 s, without 2.40 s; with 49, 2.23 s against 2.60 s), the probe stopping between two models
  (it did, at the length the policy said). Parts sized by the clock on a loaded machine came out
  too many: prime-grid 5x5 sat split into 2,766 parts, the run's part time estimated at 245 s for
  about 40 s of processor time.
- Now start-ups and part times are processor seconds, a kept probe's first split is 8 parts per
  worker, and it runs at least 3.2 s (prime-grid 4x5 on sat, 3.0 s of processor time alone, runs
  alone): the cpsat probe of prime-grid 5x5 was 2.0-2.9 s of processor time at a load of 9 to 15,
  5.4 s at a load of 2 to 4 (a worker's start-up measure varies, and the probe is ten times it).
- Measured after the change, before a running part's age was divided by the clock's stretch (load 14
  to 18): sat --jobs 1 44.7 s of processor time; --jobs 2 probe 3.2 s, parts 57.2 s (28.5 s and 28.6 s
  per worker), its parent 24.7 s in all, 3,198 parts of which 294 split again while running (parts
  running long by the loaded clock): 1.35x the work, 1.40x on free cores by processor seconds; the
  100-worker replay 85.5x, largest part 0.5%. cpsat (8 parts per worker, part times by the clock):
  --jobs 1 106 s of processor time, --jobs 2 probe 2.1 s and parts 82.9 s (41.0 s and 41.9 s), 552
  parts; the 100-worker replay 52.1x, largest part 1.1% (with 4 parts per worker: 41.6x, 1.3%).
  prime-grid 4x5 on cpsat (tests/test_parallel.py): 10.4-13.3 s alone; split, probe 1.9-2.9 s and
  parts 9.0-15.3 s once parts were timed in processor seconds (23.8 s and 34.1 s before).
  Tried and left out, a running part aged by the clock's stretch (load 16 to 27), sat --jobs 2: probe 2.5 s, parts
  40.1 s (20.0 s and 20.1 s), parent 9.0 s, 656 parts: 0.95x the work of the --jobs 1 run above and
  2.0x on free cores by processor seconds, but the 100-worker replay 37.4x with the largest part
  2.4% (a part of about 1 s was never split again: the stretch is an average, and the load varied).
  At a load of 4 to 6, with it: 498 parts, 32.4 s of parts, replay 31.9x, largest 3.1%; without it:
  933 parts, 33.4 s of parts, replay 49.3x, largest 1.2% (--jobs 1: 34.6 s).
- At a load of 2 to 4, with the stretch (about 1 at that load): cpsat --jobs 1 70.9 s (72.3 s of processor time),
  --jobs 2 50.2 s by the clock (1.41x); probe 5.4 s, parts 63.3 s (32.1 s and 31.3 s), 473 parts:
  0.95x the work, 1.93x on free cores; replay 47.5x on 100 workers, largest part 1.6%. sat --jobs 1
  35.7 s (34.6 s), --jobs 2 41.2 s by the clock at a load of 4.7 (the workers shared the cores with
  others); probe 3.2 s, parts 32.4 s (16.2 s each): 1.03x the work, 1.77x on free cores.
  Wall-clock ratios were not measured: they mean nothing at that load. To measure them on an idle
  machine: ``python -m gridsat.benchmarks.compare.parallel --cases prime`` (both backends, --jobs 1
  then 2, the C backtracker first) and ``python -m gridsat.benchmarks.compare.jobs --cases short
  --repeat 3``.

Measured on a quiet machine (2026-11-28, one run each, nothing else running), after the kept probe's
first split became 8 parts per worker and start-ups processor seconds: prime-grid 5x5/1..25 cpsat
--jobs 1 65.63 s, --jobs 2 40.06 s (1.64x; target 1.7x: missed); sat 34.94 s and 22.11 s (1.58x; 1.9x:
missed); the C backtracker 41.30 s. The processor seconds say 2.01x (cpsat) and 1.83x (sat) on free
cores: the parent (10.8 s, 7.5 s) and the probe (7.8 s, 3.2 s) share the two cores with the workers.
The 100-worker replay: cpsat 50.2x, largest part 1.2% (met); sat 23.0x, largest part 3.8% (missed).

The parent's processor seconds ("parent" in --json's split record) include its probe's: the parent's
own share above is 3.0 s (cpsat) and 4.3 s (sat). Measured on the loaded two-core machine (load 20 to
25, 2026-11-28), prime-grid 4x5/1..20 cpsat --jobs 2 under cProfile: after its probe, the parent spent
most of its time splitting parts, and most of that projecting the model's constraints into a relaxation
again for every part (``project`` 18 s of the 33 s in ``relaxed_projections`` by the loaded clock; the
CP-SAT calls 10 s). A search now keeps its relaxation per prefix length: splitting a part into 8 in the
parent took 12.3 ms of processor time (4x5, 20 parts) and 12.8 ms (5x5/1..25, 40 parts) before, 5.0 ms
and 6.4 ms after, side by side in one process. Whole runs were not compared: at that load one 4x5 run
split into 195 parts, the next into 789.
The sat parent, same load, prime-grid 5x5/1..25 --jobs 2 under cProfile, stopped after 600 s (660,120
counted, 3,268 parts): processor seconds probe 2.8, parent 25.7 in all (22.9 after its probe), parts
79.2. By the loaded clock, 254 s of the parent's 600 s went to ``SatSearch.split``'s exact projections,
one CaDiCaL call per sub-part (16,688 calls, 204 s); reading each model's prefix 11 s.
The sat split now takes a relaxation, as cpsat's does: the prefix assignments unit propagation leaves
(``propagated_projections``, minicard's ``propagate``, about 4 us a call on prime-grid 5x5 against
CaDiCaL's 60 us). Loaded machine (load 6 to 9, 2026-11-28), processor seconds, side by side in one
process: a prefix of 50 variables of prime-grid 5x5/1..25 gives 1,850 parts in 0.056 s against 1,249
exact projections in 4.92 s (40 variables: 704 in 0.019 s against 484 in 2.18 s). The 704 parts
(220 of them empty, 1.55 s in all) counted one after another took 34.5 s, the whole count 51.8 s
(the other order: 35.4 s and 48.1 s): the one solver of a whole count carries every blocking clause.
One split run after the change, same load: sat --jobs 1 44.06 s; --jobs 2 probe 3.22 s, parent 6.02 s
in all (2.80 s after its probe; 5.15 s in the quiet run above), parts 48.07 s (23.24 s and 24.83 s),
2,357 final parts (203 split again while running, by the loaded clock), the largest 0.3% of the part
time; the 100-worker replay 80.5x (73.8x over --jobs 1's processor seconds); the work 1.16x --jobs
1's, 1.57x on free cores. Not changed, and why 1.9x on sat is out of reach as it stands: a kept
probe searches alone at least ``SHORT`` (3.2 s), so with --jobs 1 at 35.4 s and no other cost, two
cores end at 3.2 + 32.2 / 2 = 19.3 s, 1.83x; a probe of at most about 1.8 s is needed, which
splits counts of 2 to 3 s (prime-grid 4x5 on sat, the short-count target), not measurable here.
On the quiet machine the parts took 1.2x the processor seconds of --jobs 1's search after the probe
on both backends (cpsat 74.2 s for 61.8 s, sat 39.1 s for 32.2 s): ``--ceiling sat cpsat`` (two
copies of a count at once) says how much of that two busy virtual cores cost each other.

The cpsat probe and part start-ups (measured on the loaded two-core machine, 2026-11-28, load
2 to 7 from other developers' runs, so in processor seconds; wall times there mean nothing). Where the
cpsat parent's processor time went (cProfile, prime-grid 5x5/1..25 --jobs 2, load about 4): 6.0 s in
all, 4.0 s of them its probe (CP-SAT's search, and verifying and digesting its 43,336 solutions); of
the 2.0 s after it, 1.6 s in 211 CP-SAT solves of relaxations (``relaxed_projections``: splitting
parts), the rest reading messages. A relaxation is now enumerated without presolve or probing: 60
parts split into 366 in 0.18 s against 0.24 s (the same parts). A cpsat part's start (opening it 3.5
ms, presolving and searching to its first solution 60-90 ms) is mostly CP-SAT's own: a part now
searches without probing, which took its parts 15% less processor time (prime-grid 5x5, 40 parts of
about 0.08 s, one after another) and 35% less on knights-tour 6x6 closed (30 parts); a whole count the
same (prime-grid 4x5 6.4-6.7 s against 6.8-6.9 s, knights-tour 5x5 0.26-0.29 s against 0.25-0.27 s),
so only parts do. Without presolve as well, prime-grid's parts gained 5% more, the tours' lost 20%.
Whole split runs side by side (prime-grid 5x5/1..25 cpsat --jobs 2, load 3 to 4, alternated, the parts'
probing put back in the workers for the other arm): parts 60.0 s and 60.8 s of processor time without
probing against 71.2 s and 63.6 s with it (4-16% less); probe 3.9 s and parent 4.6-4.9 s in all either way.
The kept probe ran until the first split's start-ups were a tenth of it: 8 start-ups of 0.05-0.09 s
per worker, 5.4-7.7 s alone on a quiet machine. It now searches at most ``split_policy.LONGEST``
(3.2 s, as long as ``SHORT``), so a count of a few seconds still runs alone and a long one is shared
out sooner. ``--cases prime`` before, then after (one run each, load 3 to 7, processor seconds):
cpsat --jobs 1 85.2 s; --jobs 2 probe 3.77 s, parts 93.3 s (46.0 s and 47.3 s), parent 5.86 s in all:
1.14x the work, 1.67x on free cores; after: --jobs 1 79.9 s and 81.1 s; --jobs 2 probe 3.60 s and 3.63 s,
parts 77.9 s and 72.3 s (39.5 s and 38.4 s; 36.3 s and 36.1 s), parent 5.29 s and 5.03 s in all (1.7 s
and 1.4 s after the probe, 2.1 s before): 1.02x and 0.94x the work, 1.85x and 2.03x on free cores; the
100-worker replay 71.2x and 65.9x, largest part 0.6% and 0.8% (before 69.1x, 0.8%). The probe's length
in these runs was already about 3.6 s: a loaded worker measured a start-up of 0.03-0.04 s; on a quiet
machine it measures 0.06-0.09 s, where the cap saves 2 to 4.5 s alone. sat, unchanged: --jobs 1 37.7 s
and 37.9 s; --jobs 2 probe 3.22 s and 3.27 s, parts 37.7 s and 35.2 s: 1.63x and 1.82x on free cores;
the 100-worker replay 72.4x and 81.4x, largest part 0.5% and 0.7%, where the quiet run above gave 36.6x
and 1.8% (on a loaded machine a running part ages faster by the clock and is split sooner; not
reproduced here). Not changed: sat's 3.2 s kept probe, which bounds its two-worker speed-up at about
1.83x; at ``SHORT`` 2.0 or 1.6 s prime-grid 4x5 on sat (3.1-4.4 s of processor time alone at that load)
split, and its parts took 1.1x to 2.2x the work of the count alone, one run against the next.
Tried and left out: a part running when the queue ran dry waits ``RESPLIT_AGE`` (0.5 s) before it is
split for the idle worker, while a busy worker's is split at its budget (0.2 s for sat's parts), and
0.5 s is about the largest part of the quiet sat run above (1.8% of 31 s). Waiting the lesser of the
two, side by side with the policy as it is (sat --jobs 2, load 2 to 3, two runs each, alternated):
parts 49.9 s and 48.0 s of processor time against 42.7 s and 43.3 s, largest part 1.06% and 1.60%
against 0.83% and 1.14%, replay 68.4x and 46.2x against 62.5x and 67.3x: more work, and no smaller
tail. (At a load of 4, one run with it: 1,650 final parts, largest 0.67%, replay 83.4x.)
``--cases prime`` once more, with it (load 2 to 5; cpsat's budget, about 0.55 s, is over 0.5 s, so its
run was as without it): cpsat --jobs 1 72.9 s of processor time; --jobs 2 probe 3.57 s, parts 68.2 s (33.8 s
and 34.4 s), parent 4.76 s in all: 0.98x the work, 1.92x on free cores, replay 66.4x, largest part 0.8%.
sat --jobs 1 33.1 s (37.7-37.9 s in the runs above: processor times vary this much at that load);
--jobs 2 probe 3.22 s, parts 40.1 s (19.4 s and 20.6 s), 1,183 final parts: 1.31x the work, 1.39x on
free cores, replay 78.7x, largest part 0.7%. The wall-clock ratios (cpsat 1.24x, sat 1.03x) say
nothing at that load: the lead measures them on quiet cores.

On two quiet cores with these changes (2026-11-28, ``--cases prime``, one run, nothing else running):
cpsat --jobs 1 55.94 s, --jobs 2 33.41 s: **1.67x** (target 1.7x; the quiet run above: 1.37x); probe
3.66 s, parts 58.54 s, parent 4.43 s of processor time, the work 0.86x --jobs 1's (72.40 processor s),
2.20x on free cores; 492 final parts, largest 1.0%; replay 59.1x on 100 workers. sat 31.83 s -> 20.97 s:
**1.52x** (target 1.9x; above: 1.63x); probe 3.22 s, parts 32.69 s, parent 4.26 s, the work 1.13x; 621
final parts, largest **1.6%**, replay **44.2x** on 100 workers (targets 1.5% and 50x; above: 1.8%,
36.6x). Short counts (``compare.jobs --cases short --repeat 3``, the same session): 0.94x to 1.11x
(tatami 3x16 on the reference backend 0.36 s and 0.40 s, alone both ways).

Where sat's --jobs 2 time goes, and the second core during the probe (2026-11-29, the shared
two-core machine at a load of 1.4 to 5.7, so processor seconds; the wall times there mean nothing, and
the lead measures them on quiet cores). The timeline (``timeline``, ``--timeline``) of prime-grid
5x5/1..25 sat --jobs 2 before the change (load 2 to 3.5): the probe 0-4.11 s by the clock (3.22 s of
processor time); the workers forked at 3.36 s, ready at once (a forked worker's start is not a cost
here), their first parts at 4.20 s; then both busy to the end, 1,381 runs, 19.17 s and 19.02 s of
processor time, the last worker alone 0.09 s at the end; the parent 1.64 s after its probe. So the
costs, largest first: the parts took 38.19 s against the 30.0 s the --jobs 1 count (33.24 s) spent after
its first 3.2 s: 8.2 s more, mostly the start of each sat part (an empty one, 60 of the first 200 of a
704-part split, takes 7.3 ms: loading the CNF's 5,054 clauses one by one into a fresh CaDiCaL, about
half of it, and its first solve), with 875 of the 1,381 runs under 20 ms (median 12 ms, where parts are
aimed at 0.1 s: a relaxation's sub-parts are uneven, and many hold nothing); then the probe, 3.22 s
with the second core idle; then the parent (1.6 s); the start and the end's imbalance under 0.2 s.
The change: beside two or more local workers, a plain count's kept probe starts them after
``split_policy.SPECULATE`` (1 s) of processor time, and all of them but one count parts of the first
split, each split into ``BESIDE_PARTS`` (8) first, whole, while the probe searches on; the probe's
models that fall in them are taken off its count when the run splits. Side by side, in one process,
alternated (sat --jobs 2; --jobs 1 37.25 s of processor time; load 1.7 to 3.6): with it, 18 and 28
parts beside the probe (3,960 and 4,112 of its solutions counted twice, taken off), parts 35.9 s and
40.3 s, on free cores 1.85x and 1.64x (the parts beside the probe left out of the longest path), the
100-worker replay 64.1x and 70.6x, largest part 1.5% and 1.1%; without it, parts 38.0 s and 41.1 s,
1.66x and 1.57x, 73.3x and 76.3x, 0.7% and 0.8%. At a load of 4 to 6 (a test run of this session
beside the first; alternated the same way, --jobs 1 31.6 s): with it 1.26x and 1.39x, without 1.30x
and 1.58x, the last as the machine went quiet (21.3 s by the clock, 609 parts, largest 2.2%, replay
33.3x: on quiet cores fewer parts are split again, and the largest part is over 1.5%, as in the quiet
run above). ``--cases prime`` with the change
(load 2.5 to 5): cpsat --jobs 1 88.4 s of processor time; --jobs 2 probe 3.21 s, parts 72.0 s (35.9 s
and 36.1 s; 22 beside the probe), parent 4.62 s: 0.85x the work, 2.28x on free cores, 781 final parts,
largest 0.7%, replay 71.6x. sat --jobs 1 32.0 s; --jobs 2 probe 3.21 s, parts 37.1 s (18.8 s and
18.3 s; 31 beside the probe), parent 4.74 s: 1.26x the work, 1.53x on free cores, 1,282 final parts,
largest 1.0%, replay 78.7x. Short counts (``compare.jobs --cases short --repeat 2``, load 2.3): 0.95x to
1.09x (prime-grid 4x5 on sat 2.80 s and 2.97 s, 1.06x, alone: the parts counted beside its probe
thrown away); again, with the final code (load 1.1 to 1.5): 0.90x to 1.06x, prime-grid 4x5 on sat 1.04x,
alone. ``--cases prime`` once more with the final code (load 1.1 at the start, 3.8 at the end: the wall
times say nothing): cpsat --jobs 1 69.9 s of processor time; --jobs 2 probe 3.21 s (5.65 s by the clock:
spawned workers, ready late in it), parts 75.4 s (37.2 s and 38.3 s; 20 beside the probe, 1.0 s of
them), parent 4.63 s: 1.12x the work, 1.71x on free cores, 685 final parts, largest 0.6%, replay 80.1x.
sat --jobs 1 40.6 s; --jobs 2 probe 3.22 s (5.14 s by the clock), parts 37.8 s (19.1 s and 18.8 s; 29
beside the probe, 1.8 s of them), parent 4.77 s: 1.01x the work, **1.90x on free cores**, 1,344 final
parts, largest 1.1%, replay 79.3x; the timeline: both workers from 5.23 s to 42.52 s, none alone at the
end. Left: a sat part's start (solvers/backends/sat.py loads a fresh solver clause by clause,
outside this change) times the number of parts is now the largest cost on sat, and a quiet machine's
largest part (1.6 to 2.2%) misses the 1.5% goal; 1.9x on sat needs both.

On two quiet cores with the parts beside the probe (2026-11-29, ``--cases prime``, one run, nothing else
running): cpsat --jobs 1 54.81 s, --jobs 2 33.43 s: **1.64x** (target 1.7x); probe 3.22 s, parts 59.52 s
(20 beside the probe, 1.0 s of them), parent 3.96 s: 0.88x the work of --jobs 1 (71.30 processor s), 2.19x
on free cores, 525 final parts, largest 0.9%, replay 59.2x on 100 workers. sat 32.64 s -> 22.24 s:
**1.47x** (target 1.9x); probe 3.21 s, parts 37.38 s (17 beside the probe, 2.1 s of them), parent 4.22 s:
1.24x the work, 1.56x on free cores, 717 final parts (median 0.023 s), largest **1.4%**, replay **67.5x**
on 100 workers (58.9x over --jobs 1's processor time): the forecast's targets met, the wall's not. Short
counts (``compare.jobs --cases short --repeat 3``, the same session): 0.89x to 1.05x. A profile of one
sat worker (300 parts, cProfile) put its solver calls at 7.4 of 26.1 profiled seconds, the rule
verifier's 378k calls at 4.8 (the same per solution as --jobs 1), each part's fresh solver loaded clause
by clause at 2.4, and each part's blocked rows written as clauses at 0.7: a part's start is about 8 ms
profiled, a third of a part of the median 23 ms.

Where the wall clock goes and larger parts in the middle of a run (2026-11-29, the shared two-core
machine at a load of 2.5 to 5.3: processor seconds; wall times there mean nothing). From the quiet run above:
cpsat's --jobs 1 kept 1.30 cores busy (71.30 processor s in 54.81 s: CP-SAT's search thread beside the one that
reads, verifies and digests each solution), so "on free cores" (a worker's processor seconds taken as its wall
time) overstates what two cores give it. All of --jobs 2's processor seconds, parent 3.96 (its probe's 3.22
included) and parts 59.52, spread over two cores end at best in 31.74 s: 1.73x. The rest of the 33.43 s is in
no processor figure: the workers were spawned beside the probe's solver thread, each loading Python, gridsat and
OR-Tools again (0.84 s user and 0.10 s system measured alone here) on the run's two cores while the probe
searched, and the probe's first second (``SPECULATE``) left the second core idle. sat's --jobs 1 kept one core
busy: parent 4.22 and parts 37.38 end at best in 20.80 s (1.57x; measured 1.47x), so sat misses in work: its
parts took 37.38 s for the about 29.4 s --jobs 1 spent past its first 3.2 s, 8 s more over about 800 runs
(10 ms a run: a fresh CaDiCaL loaded with the 5,013 clauses, 2.1 ms measured, of which pysat's Python loop
0.4 ms; its first solves with nothing learnt; the part's run opened and its messages). The parent's 4.22 s are
its probe's 3.21 s (a search, its solutions verified and digested as --jobs 1 does) and about 1 s after it:
under cProfile (sat, loaded) 2.4 s after the probe, of them reading the workers' messages 0.79 s and unpickling
them 0.52 s, splitting parts 0.58 s (the relaxation's propagations 0.38 s), the policy's looks 0.54 s, and
accounting for the messages 0.38 s.
Where sat's short runs came from (one run, its ledger's tree): of 1,779 runs, 1,217 (17.4 s of processor time,
14 ms on average) were sub-parts of the 103 parts split again past their budget while every worker was busy,
about 12 each (``RESPLIT_PARTS`` 8, up to twice as many taken); those parts had run 0.05 to 0.14 s (past 0.2 s
by the loaded clock), and their sub-parts summed to 0.1 to 0.3 s: most of such a part is counted before it is
split, and every sub-part starts afresh. ``RESPLIT_PARTS`` 4 was tried (an idle worker's part still into 8). Side
by side, alternated (sat --jobs 2, load 2.8 to 5.3): at 8, parts 47.6 s and 44.7 s of processor time, 1,774
and 1,777 final parts, replay 80.9x and 62.5x on 100 workers, largest 0.8% and 1.5%; at 4, 41.7 s, 38.5 s and
40.7 s, 995, 923 and 1,014 parts, 74.2x, 71.0x and 63.1x, 1.1%, 1.05% and 1.5%. At 2 (one run): 36.8 s, 671
parts, 60.9x, 1.2%: budget splits chain deeper, and the forecast falls with them; not taken. Parts aimed at
0.15 s instead of 0.1 s (``PART_RESTARTS`` 40) beside 4: 42.2 s and 41.3 s, no gain; not taken. cpsat at 4 (one
run each): parts 72.3 s, 712 parts, 61.2x, against 75.7 s, 729 parts, 70.1x (its parts outrun their budget far
less). A kept probe's local workers are now forked held at the run's start, while the process runs one thread,
and released when due: cpsat side by side (load 3.7 to 5.3), forked: probe 3.66 s by the clock, parts 72.5 s;
spawned: probe 5.07 s, parts 79.9 s. Their cost where the probe answers: knights-tour 5x5 on cpsat, in one
process, five runs each alternated, 0.509 s against 0.479 s median (two forks, and the parent's pages copied on
write while its probe searches). ``--cases prime`` with both changes (load 4.3 to 5.3): cpsat --jobs 1 67.06
processor s; --jobs 2 probe 3.21 s, parts 67.58 s (33.69 s and 33.89 s; 24 beside the probe), parent 4.18 s in
all: 1.06x the work, 1.85x on free cores, 689 final parts, largest 0.7%, replay 69.6x on 100 workers; workers
forked. sat --jobs 1 35.10 s; --jobs 2 probe 3.21 s, parts 39.04 s (19.43 s and 19.61 s; 35 beside the probe),
parent 4.81 s: 1.20x the work, 1.60x on free cores, 1,065 final parts (median 0.018 s), largest 1.1%, replay
74.2x. The line "on N cores end at best" now says how far a quiet machine's wall ratio can go. Left: sat's
1.9x needs its parts' work within about 5% of --jobs 1's (now 1.2x): a part's start (a fresh solver each) is
the cost, not the policy.

Then on two quiet cores (2026-11-29, ``--cases prime``, twice): cpsat --jobs 1 53.34 s and 60.48 s, --jobs 2
35.15 s and 33.30 s: 1.52x and 1.82x (work 0.99x and 0.81x; --jobs 1 kept 1.27 and 1.29 cores busy), forecast
61.6x and 61.8x, largest part 0.8%. sat 32.09 s and 32.30 s, --jobs 2 17.95 s and 17.99 s: 1.79x and 1.80x
(target 1.9x; work 1.02x and 1.00x, the parts' 29.5 s and 29.2 s now within 1.00x of --jobs 1's past its probe:
the loaded figures above overstated them), but the forecast 48.0x and 41.5x (largest 1.4% and 1.2%). Quiet,
sat --jobs 2 alone, one after the other: ``RESPLIT_PARTS`` 4 gave 21.91 s and 17.70 s, 60.2x and 49.9x; 8 gave
17.85 s and 18.16 s, 51.8x and 55.8x; 6 gave 17.97 s and 18.88 s, 55.4x and 48.0x. The part time was the same
(28.8 to 29.5 s, but 36.8 s in the 21.91 s run), so ``RESPLIT_PARTS`` is 8 again: only it kept the forecast
above 50x every time. With it, a third quiet ``--cases prime``: cpsat 54.81 s to 31.34 s, 1.75x (work 0.85x,
at best 1.82x), forecast 55.9x, largest 0.9%; sat 31.14 s to 17.87 s, 1.74x (work 1.04x, at best 1.88x),
forecast 51.8x, largest 1.2%. What is left of sat's 1.9x is not work but the clock: 33.2 s of processor time on two
cores end at best in 16.6 s (1.95x), and the runs took 18.0 s, the workers idle 16 to 20% of it: that share is
of the whole run, and the workers are busy from the probe's end on, so it is mostly the probe's 3.2 s, in which
the second core counts 1 to 2 s of parts beside it. One part queued ahead beside the probe (quiet, one run) raised
that to 3.2 s but took 18.71 s, with the forecast at 46.1x and the largest part 2.0%: parts beside the probe run
whole, and the probe's models in them are counted twice; not taken.

The second core from the probe's first half second (2026-11-29, LOADED: the shared two-core machine at a
load of 3 to 13 from the other helper's runs, so processor seconds only; every wall time here means nothing, and the
lead measures them on quiet cores). The parts beside a kept probe started after ``SPECULATE`` = 1 s of its processor
time; now 0.5 s. (A trial start at 0 s was read as "not told": ``launch_at or inf`` started them at 2.7 s; fixed,
and tests/test_parallel.py holds it.) prime-grid 5x5/1..25 sat --jobs 2 in one process, alternated, the parts
beside the probe in processor seconds: at 1.0, 2.07, 1.99, 1.98, 1.20 (its probe cut to 2.12 s by the clock at a
load of 13), 2.02 and 1.81 s; at 0.5, 2.22 and 2.49 s; at 0.3, 2.67 and 2.68 s; at 0.05, 2.89 and 2.89 s. The rest
moved with the load more than between arms: parts 34.1 to 73.4 s at 1.0 and 35.8 to 59.1 s at the others, the
100-worker replay 67.6x to 95.4x, the largest part 0.23% to 1.18% (every run over 50x and under 1.5%). cpsat, one
run each (load 9 to 10): at 1.0 beside 1.49 s, parts 88.6 s, replay 88.8x, largest 0.49%; at 0.3 beside 1.88 s,
parts 80.2 s, replay 75.5x, largest 0.58%. So about half a second more of the second core's work during the probe:
on two quiet cores that is at most about 0.25 s off sat's 17.9 s (1.74x to about 1.77x, not measured), not the
1.9x target, for which the runs must also lose about 1.5 s of the processor time past the probe (the parts'
start-ups and the parent's 1 s after its probe). Short counts: at 0.3, knights-tour 5x5 on cpsat (about 0.5 s of
its probe's processor time) started its workers and took 0.50 s against 0.44 s (median of 8, in one process, load
5), so 0.5: there it started them in 3 runs of 8, 0.51 s against 0.50 s at 1.0; knights-tour 5x5 on sat (0.2 s)
starts none at 0.3 or 0.5 (0.193 s and 0.192 s). ``compare.jobs --cases short --repeat 5`` at 0.3 (load 4 to 7):
0.92x to 1.09x (knights-tour 5x5 sat 0.82 s and 0.89 s, alone both ways: its workers never started); before, at 1.0
(load 8): 0.94x to 1.10x; at 0.5, the final value (load 4 to 5): 0.95x to 1.21x, the 1.21x knights-tour 5x5 on sat
(0.49 s and 0.59 s), whose workers start at neither value: six alternated pairs of it right after gave 1.03x to 1.11x
(0.58-0.63 s against 0.62-0.69 s), the held forked workers' cost, as before this change. The lead's quiet run decides.

The lead's quiet runs of it (2026-11-29, nothing else running, load 1.4 to 2.5 from the runs themselves):
``--cases prime`` gave cpsat 60.90 s to 33.42 s, 1.82x (work 0.82x, at best 1.88x), forecast 61.0x, largest part
0.9%; sat 32.55 s to 19.71 s, 1.65x (work 1.12x, at best 1.75x), forecast 49.0x (under 50x), largest 1.1%. Then sat
alone, ``SPECULATE`` set to 1.0 and 0.5 in turn in the same process: 1.0 gave 33.13 s to 22.94 s (1.44x, parts 38.7
s, forecast 71.2x, largest 1.3%) and 32.85 s to 19.48 s (1.69x, parts 32.4 s, 51.5x, 1.6%); 0.5 gave 35.83 s to
22.41 s (1.60x, parts 37.9 s, 60.6x, 1.1%) and 32.34 s to 19.86 s (1.63x, parts 33.2 s, 63.6x, 1.4%). The parts'
processor time moved from 32.4 to 38.7 s between runs of the same code, against 28.8 to 29.5 s the session before
on the same commands: this machine ran slower that day (the frontier's 8x8 closed count took 10% more user time,
while its 60-layer proxy measured the same on the code before and after), and the two values cannot be told apart
in four runs; 0.5 stays. Short counts (``compare.jobs --cases short --repeat 5``): 0.96x to 1.05x, except tatami
3x16 on the reference backend, 0.40 s to 0.46 s, 1.13x (1.48x, 0.42 s to 0.62 s, with ``--repeat 3`` an hour
before): over the 1.1x target, where the session before measured 1.01x and 1.04x. Its search ends in 0.05 s and
starts no worker, so what it pays is the held forked workers' start and end.

The short count and the parent past the probe (2026-11-29, LOADED: the shared two-core machine at a load
of 7 to 20 from the other helpers' runs; processor seconds only, every wall time here means nothing). tatami 3x16 on
the reference backend paid no held workers: a reference probe cannot keep its count (``late`` is for kept probes),
so its two workers were forked with the run, not held, and warmed up (the run opened twice and searched to its first
solution) beside its 0.04 s of search on the run's two cores. A probe whose work is thrown away now forks them once
it has searched ``PROBE`` (0.1 s) of processor time, where forking is safe then (split_policy.FORK_LATE): tatami
3x16 starts no worker process (the command line, counted: one pool forked before, none after); prime-grid 4x4 on the
reference backend, which splits, probed 0.17 s of processor time either way. Eight alternated pairs of tatami 3x16
(load 14, processor seconds of the command and its workers, median): before, --jobs 1 0.558 s, --jobs 2 0.585 s;
after, 0.520 s and 0.571 s: at that load the processor seconds do not tell a 0.03 s difference apart, the lead's quiet
``compare.jobs`` decides. The sat parent past its probe (prime-grid 5x5/1..25 --jobs 2, timed inside the run, load 13,
one run of 3,350 final parts): 6.63 s of processor time in all, its probe about 3.2 s; splitting parts
(``Partition._divide``) 0.95 s, the policy's looks (``resplit_choice``) 0.23 s over about 10,000 calls, the rest
reading messages and handing out parts. Under cProfile the brief's 0.70 s in ``choose_resplit`` was nearly all
``_divide`` (the split found for the chosen part), not the policy. Two changes: the relaxation's backtracker
(solvers/backends/sat.py ``propagated_projections``) takes over its parent's values and reads only the literals
propagation set of the prefix, the same projections in the same order (130 prefixes each of prime-grid 5x5,
knights-tour 6x6 closed and prime-grid 4x5 against the old code): 64 splits of parts 0.101 s against 0.114 s (best of
five, loaded); and the policy looks when a part ends and at most every 20 ms otherwise (``parallel.LOOK``), not after
each of a part's two or three messages (``start``, ``progress``): prime-grid 4x5 on sat split after a 0.5 s probe,
222 looks for 398 messages (50,784 counted; one run). Whole runs
could not be compared at that load (side by side, alternated, the same code gave 3,350 and 6,140 final parts).
``--cases prime --backends sat`` after both (load 15 to 19): --jobs 1 hit the 300 s limit (777,096 counted);
--jobs 2 917,848 exactly, 241 s by the clock, probe 13.9 s by the clock, parts 71.5 s of processor time (35.6 s and
36.0 s, 7 beside the probe on each worker), 4,850 final parts (median 8 ms: a loaded clock ages running parts
fast), largest 0.3%, replay **93.6x** on 100 workers (target 50x, largest part 1.5%: met at that load; the quiet
forecast is the lead's). Not done: the quiet wall ratios (sat 1.9x), and a kept probe's held workers (forked at the
start, two forks and a join of about 20-45 ms by the loaded clock, 4 ms of processor time), which a cpsat or sat
probe cannot fork later: its solver searches in a thread of its own from the start.

A part's start, and one solver per worker (2026-11-29, LOADED: the shared two-core machine at a load of 3 to 9 from
the other helpers' runs, so processor seconds only; every wall time here means nothing). ``compare.part_start``
counts a sample of parts one after another in one process, its arms alternated part by part. A sat part of
prime-grid 5x5/1..25 (206 parts of a 1,026-part split) spent 3.6 ms loading a fresh CaDiCaL and 25.2 ms searching;
one solver held for all of them, each part's cube assumed and its blocking clauses under a selector of its own
(retired when the part ends), spent no load and 43.9 ms (47.3 ms in a second run) searching: a fresh solver with
the cube assumed searched 41.3 ms, so the assumptions cost it, and the held solver was not built; nor a hybrid
(held until its 8th to 64th model, then fresh: 0.93x to 1.15x the fresh part's time over three samples). What was
kept: a sat part loads its units before the CNF (3.5 to 5.3% less a part in that benchmark), and a cpsat part
copies the model its worker built once instead of building it (0.7 ms against 5.3 to 5.7 ms, of parts of about
0.12 s). Whole runs, alternated in one process, before and after (``--jobs 2``): cpsat (load 6.0 to 7.7) parts
134.91 s and 131.19 s of processor time over 1,014 and 1,201 runs, after 101.50 s and 112.98 s over 1,007 and
1,081 runs; at a load of 3.4 to 5, 108.22 s over 835 runs before and 108.64 s over 804 after: the 5 ms a part the
copy saves is about 4%, and whole runs at these loads vary more than that. sat (load 5.8 to 7.5) parts 68.33 s and
68.80 s over 3,098 and 2,478 runs, after 67.81 s and 55.85 s over 3,109 and 2,502 runs; at a load of 1.2 to 3.4,
62.58 s and 66.01 s over 1,088 and 2,021 runs before, 60.92 s and 57.04 s over 1,053 and 1,133 after (9% less part
time over the four pairs, with as many runs: noise at these loads may be most of it).
``--cases prime`` before (load 0.5 at the start, 5 to 7.6 from the other helpers' runs through it): cpsat --jobs 1
98.82 processor s; --jobs 2 probe 3.23 s, parts 114.66 s, parent 4.91 s: 1.19x the work, 1.65x on free cores, 745
final parts, largest 0.7%, forecast 65.9x on 100 workers (56.8x over --jobs 1's processor time); sat --jobs 1 48.28
s; --jobs 2 probe 3.21 s, parts 66.65 s, parent 5.81 s: 1.45x the work, 1.37x on free cores, 2,121 final parts,
largest 1.0%, forecast 76.1x (55.1x). After (load 8 to 4.5): cpsat --jobs 1 115.60 s; --jobs 2 probe 3.23 s, parts
120.30 s, parent 5.27 s: 1.07x the work, 1.82x on free cores, 843 final parts, largest 0.6%, forecast 66.6x (64.0x);
sat --jobs 1 54.55 s; --jobs 2 probe 3.22 s, parts 64.32 s, parent 5.36 s: 1.24x the work, 1.62x on free cores,
1,686 final parts, largest 1.2%, forecast 79.3x (67.3x). The machine ran slow all session, even as it went quiet
(the C backtracker 74 s and 106 s, against 41 s on quiet cores before; prime-grid 4x5 on sat --jobs 1 4.4 to 5.8 s
at a load of 1.3, against 2.2 to 2.8 s): such a count then outlasts the kept probe's 3.2 s of processor time and
splits (``compare.jobs --cases short --repeat 3`` at a load of 1.5 to 2: 4.28 s against 5.80 s, 1.36x, 45 parts;
the other short counts 0.85x to 1.04x, alone). The quiet wall-clock ratios are the lead's to measure.

``--cases prime --backends cpsat`` on 2026-11-29 (load 0.9 to 2 at the starts; 4c62857 is the code before the
solver thread handed solutions over in batches, solvers/threaded.py): --jobs 1 96.47 s (4c62857), 93.39, 74.01 and
110.61 s (after), each keeping 1.01 to 1.02 cores busy; --jobs 2 40.65 s (4c62857), 38.03, 42.02 and 44.43 s:
2.37x, and 2.46x, 1.76x and 2.49x. The parts' processor seconds: 74.46 (4c62857), 69.89, 77.79 and 82.67, 0.76x to
1.08x --jobs 1's; forecasts 53.7x to 61.2x on 100 workers, largest part 0.8% to 1.0%. The single CP-SAT search of
--jobs 1 varied from 74 to 111 s by the clock on the same code, the split runs from 38 to 44 s: the ratio moves
with the single search. ``--backends sat`` the same day: --jobs 1 46.79 s, --jobs 2 31.29 s, 1.50x (1.9x: missed);
its probe and parts 3.21 and 55.29 processor s, 1.25x --jobs 1's 46.78 s (922 final parts, median 0.026 s); forecast
74.1x, largest 1.0%. ``compare.jobs --cases short --repeat 3``: prime-grid 4x5 on sat 3.95 s against 4.96 s, 1.26x
(19 parts: the single search outlasts the kept probe's 3.2 processor seconds on this machine today); the other
short counts 0.74x to 1.06x, alone.

This benchmark opened its split runs itself, as plain counts, and so counted parts beside the probe; ``gridsat count
--jobs`` opened them as orbit counts "up to nothing", which never did (solvers/route.py). It now opens them by the
command's route (``route.open_count``). The command, alternated on this code and on the code before, prime-grid
5x5/1..25 on sat: --jobs 2 30.24 and 30.59 s (before 30.36 and 33.86 s), --jobs 1 45.75 and 48.46 s: 1.51x and
1.58x. Then, after a probe whose rest the parts beside it put short searches on alone (split_policy ``prolonging``;
this count's probe had found 5.8% by them, and split as before): ``--cases prime --backends sat`` --jobs 1 48.85 s,
--jobs 2 33.74 s, 1.45x (target 1.9x: missed); probe and parts 3.31 and 59.87 processor s, 1.29x --jobs 1's 48.84 s,
946 final parts, median 0.027 s; forecast 77.7x on 100 workers, largest part 1.0%. ``--backends cpsat`` right
after (load 1 at the start): --jobs 1 101.89 s, --jobs 2 44.36 s, 2.30x (target 1.7x); probe and parts 3.25 and
81.76 processor s, 0.82x --jobs 1's 104.19 s, 558 final parts; forecast 61.0x on 100 workers, largest part 0.8%.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from gridsat.api import load
from gridsat.models.golden import counts
from gridsat.solvers.backend import COUNT, Request
from gridsat.solvers.gate import Job, bind
from gridsat.solvers.route import open_count
from gridsat.solvers.run import Outcome, consume, execute
from gridsat.solvers.splitting.parallel import Split, SplitRun
from gridsat.solvers.splitting.pool import single_threaded_blas
from gridsat.solvers.splitting.schedule import Ledger
from gridsat.solvers.splitting.split_policy import replay

WORKERS = (16, 100, 1000)  # the cluster sizes the replay predicts for
C_BACKTRACKER = r"""
#include <stdio.h>
#include <stdlib.h>
static int R, C, M, cell[64], used[256], prime[512];
static long long count;
static void fill(int pos) {
    if (pos == R * C) { count++; return; }
    for (int v = 1; v <= M; v++) {
        if (used[v]) continue;
        if (pos % C && !prime[cell[pos - 1] + v]) continue;
        if (pos >= C && !prime[cell[pos - C] + v]) continue;
        used[v] = 1; cell[pos] = v; fill(pos + 1); used[v] = 0;
    }
}
int main(int argc, char **argv) {
    R = atoi(argv[1]); C = atoi(argv[2]); M = atoi(argv[3]);
    for (int n = 2; n < 512; n++) { prime[n] = 1; for (int d = 2; d * d <= n; d++) if (n % d == 0) prime[n] = 0; }
    fill(0);
    printf("%lld\n", count);
    return 0;
}
"""

SIX_CLOSED = ("6x6", {"closed": "true"})
# The expected counts are the golden ones that ship with gridsat (models/golden, with their sources).
CASES = {
    "prime": ("prime-grid", "5x5", {"max": "25"},
              next(e["count"] for e in counts("prime_grid") if (e["grid"], e.get("max")) == ("5x5", 25))),
    "tours": ("knights-tour", "6x6", {"closed": "true"},  # OEIS A001230 x 2 (directed)
              next(e["count"] for e in counts("knights_tour") if (e["board"], e["params"]) == SIX_CLOSED)),
}


@dataclass
class Timing:
    label: str
    count: int
    seconds: float
    complete: bool
    ledger: Ledger | None = None  # a split run's parts, where and how long they ran
    resplit: float | None = None  # the split run's policy: seconds before a part may be split again
    plan: dict | None = None  # how the split run sized its parts (its --json "split")
    cpu: float | None = None  # processor seconds of this process (--jobs 1: the whole count)
    beside: frozenset[int] = frozenset()  # a split run's parts counted beside its probe, while it searched

    @property
    def workers_cpu(self) -> dict[str, float]:
        """A split run's processor seconds in parts, per worker (none for one process)."""
        return self.ledger.statistics(self.seconds)["part_cpu"] if self.ledger is not None and self.ledger.spans else {}

    @property
    def work(self) -> float | None:
        """Processor seconds of the count: one process's, or a split run's probe and parts."""
        if self.plan is None:
            return self.cpu
        probe = self.plan["cpu_seconds"].get("probe") or 0.0
        return probe + self.plan["cpu_seconds"]["parts"]

    @property
    def critical(self) -> float | None:
        """Processor seconds on the longest path of a split run: the probe, then the busiest worker's parts
        (about its wall time on cores of its own), the parts counted beside the probe left out (they ran on
        the core it left idle; one still running when it ended makes this a little short); one process's, for one."""
        if self.plan is None or self.ledger is None:
            return self.cpu
        after: dict[str, float] = {}
        for span in self.ledger.spans:
            if span.index not in self.beside:
                after[span.worker] = after.get(span.worker, 0.0) + (span.cpu or 0.0)
        return (self.plan["cpu_seconds"].get("probe") or 0.0) + max(after.values(), default=0.0)


# What a split count must show against the same count in one process, in processor seconds (so that it
# holds on a loaded machine, where wall times say little): every worker did at least WORKER_SHARE of the
# one-process count's work, and the probe and the parts together at most WORK_RATIO times it. Parts of
# a count of seconds are fine (a 256th of it, for a hundred workers) and each starts its model afresh:
# prime-grid 4x5 on cpsat (10-12 s alone) took 1.75x, 2.2x and 3.0x the work in parts at a load of 13 to
# 15 on two cores, where parts running long by the clock are split again far more often than on an idle
# machine (prime-grid 5x5 on cpsat: 1.8x, 5,933 parts, against 0.9x and 473 parts at a load of 2 to 4).
WORKER_SHARE, WORK_RATIO = 0.2, 4.0


def unshared(one: Timing, two: Timing) -> str | None:
    """Why the split count ``two`` did not share out the work of the one-process count ``one`` (None: it
    did), in processor seconds; a count that ran alone (the probe finished it) shared nothing."""
    if not (one.complete and two.complete and one.count == two.count):
        return f"the counts differ or are incomplete: {one.count} against {two.count}"
    if two.plan is None or not two.workers_cpu or two.work is None or two.critical is None or not one.cpu:
        return "it ran alone: the probe counted it all"
    workers = two.workers_cpu
    least = min(workers.values()) if len(workers) > 1 else 0.0
    if least < WORKER_SHARE * one.cpu:
        return (f"a worker did {least:.2f} s of parts, under {WORKER_SHARE:.0%} of the {one.cpu:.2f} s "
                f"one process took (probe {two.plan['cpu_seconds'].get('probe') or 0:.2f} s)")
    if two.work > WORK_RATIO * one.cpu:
        return f"the probe and the parts took {two.work:.2f} s, over {WORK_RATIO}x the {one.cpu:.2f} s of one process"
    return None


def c_backtracker(rows: int, cols: int, high: int) -> Timing | str:
    """The C backtracker's count and wall time, or why it did not run."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return "no C compiler here: the C backtracker is skipped"
    with tempfile.TemporaryDirectory() as folder:
        source, binary = Path(folder) / "fill.c", Path(folder) / "fill"
        source.write_text(C_BACKTRACKER)
        subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], check=True)
        started = time.perf_counter()
        done = subprocess.run([str(binary), str(rows), str(cols), str(high)], capture_output=True, text=True,
                              check=True)
        return Timing("C backtracker (cc -O2)", int(done.stdout), time.perf_counter() - started, True)


def timed(puzzle: str, instance: str, params: dict[str, str], backend: str, encoding: str | None, jobs: int,
          parts: int | None, time_limit: float, resplit: float | None = Split.resplit) -> Timing:
    """One count, wall clock from the call to the answer (building, probing, splitting included)."""
    chosen, parsed = load(puzzle, instance, params)
    split = None if jobs == 1 else Split(jobs=jobs, parts=parts, resplit=resplit)
    bound = bind(backend, chosen, Job(COUNT, Request(encoding=encoding), time_limit=time_limit, split=split))
    started, used = time.perf_counter(), time.process_time()
    ledger, plan, beside = None, None, frozenset()
    if split is None:
        outcome: Outcome = execute(chosen, parsed, bound)
    else:
        run = open_count(chosen, parsed, bound)  # as ``gridsat count --jobs`` opens it
        assert isinstance(run, SplitRun)
        outcome = consume(run)
        ledger, plan, beside = run.ledger, outcome.details.get("split"), frozenset(p.index for p in run.beside.early)
        if plan is None or "cpu_seconds" not in plan:  # the probe finished it: one process counted it all
            ledger, plan = None, None
    seconds, cpu = time.perf_counter() - started, time.process_time() - used
    name = f"{backend}{':' + encoding if encoding else ''} --jobs {jobs}"
    return Timing(name, outcome.count, seconds, outcome.complete, ledger, resplit, plan, cpu, beside)


def ceiling(puzzle: str, instance: str, params: dict[str, str], backend: str) -> str:
    """What two cores give this machine: the same one-process count alone, then two copies at once.

    Two copies do the work of --jobs 2 with no splitting at all, so 2 x alone / together is the
    most --jobs 2 can gain here (two "cores" that share caches or a quota give far less than 2).
    """
    command = [sys.executable, "-m", "gridsat", "count", puzzle, instance, "--backend", backend, "--quiet",
               *(f"-p{k}={v}" for k, v in params.items())]

    def wall(copies: int) -> float:
        started = time.perf_counter()
        children = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for _ in range(copies)]
        for child in children:
            child.wait()
        return time.perf_counter() - started

    alone, together = wall(1), wall(2)
    return (f"two copies of the one-process {backend} count at once: {together:.2f} s, one alone {alone:.2f} s; "
            f"two cores do {2 * alone / together:.2f}x the work of one here, the most --jobs 2 can gain")


def one_process(rows: list[Timing | str], row: Timing) -> Timing | None:
    """The --jobs 1 row of the same configuration as a --jobs 2 ``row`` (None for a row that is one)."""
    twin = row.label.replace("--jobs 2", "--jobs 1")
    return next((r for r in rows if isinstance(r, Timing) and r.label == twin and r is not row), None)


def report(rows: list[Timing | str], golden: int) -> None:
    """The table: each row's time, its speed-up over the C backtracker (when it ran) and, for a split
    run, over the same configuration's --jobs 1 row."""
    c = next((r for r in rows if isinstance(r, Timing) and r.label.startswith("C ")), None)
    print(f"{'configuration':<34} {'count':>10} {'seconds':>9} {'vs C':>8} {'vs --jobs 1':>12}")
    for row in rows:
        if isinstance(row, str):
            print(f"  ({row})")
            continue
        mark = "" if row.complete and row.count == golden else "  INCOMPLETE" if not row.complete else "  WRONG"
        vs_c = f"{c.seconds / row.seconds:.2f}x" if c and row is not c else "-"
        single = one_process(rows, row)
        vs_one = f"{single.seconds / row.seconds:.2f}x" if single else "-"
        print(f"{row.label:<34} {row.count:>10} {row.seconds:9.2f} {vs_c:>8} {vs_one:>12}{mark}", flush=True)


def part_statistics(row: Timing, single: Timing | None = None) -> None:
    """The split run's parts: how finely it ended, how busy its workers were, how far it would scale.

    The replay's figure divides the summed part time by the replay's end, so start-ups that finer
    parts add inflate it; beside it, the ``single`` process's count time over the same end (what a
    user would gain over ``--jobs 1``)."""
    if row.ledger is None or not row.ledger.spans:
        return
    stats = row.ledger.statistics(row.seconds)
    age = row.resplit if row.resplit is not None else float("inf")
    busy = ", ".join(f"{w.removeprefix('gridsat-')} {b:.1%} (idle {1 - b:.1%})" for w, b in stats["busy_share"].items())
    idle = stats["idle_to_end"]
    print(f"  {row.label}: {stats['final_parts']} final parts ({stats['split_again']} split again, "
          f"{stats['thrown_away_seconds']:.1f} s of their runs thrown away), the largest "
          f"{stats['largest_share']:.1%} of {stats['part_seconds']:.1f} s of part time (median part "
          f"{stats['median_part']:.3f} s); busy {busy}; "
          f"first idle worker to the end {'-' if idle is None else f'{idle:.2f} s'}; predicted speed-up on "
          + ", ".join(f"{n} workers {replay(row.ledger, n, age):.1f}x" for n in WORKERS), flush=True)
    if single is not None and single.complete and single.cpu and stats["part_seconds"] > 0:
        ends = [stats["part_seconds"] / replay(row.ledger, n, age) for n in WORKERS]
        print(f"    over {single.label} ({single.cpu:.2f} processor seconds): predicted on "
              + ", ".join(f"{n} workers {single.cpu / end:.1f}x" for n, end in zip(WORKERS, ends, strict=True)),
              flush=True)
    if single is not None and single.complete and row.complete and single.cpu and row.work and row.critical:
        cpu = row.plan["cpu_seconds"] if row.plan else {}
        each = ", ".join(f"{w.removeprefix('gridsat-')} {c:.2f}" for w, c in row.workers_cpu.items())
        print(f"    processor seconds: probe {cpu.get('probe') or 0:.2f}, parts {cpu.get('parts', 0):.2f} ({each}), "
              f"parent in all {cpu.get('parent') or 0:.2f}; {single.label} {single.cpu:.2f}; work (probe and parts) "
              f"{row.work / single.cpu:.2f}x {single.label}'s; on free cores {single.cpu / row.critical:.2f}x faster "
              f"({single.label}'s over the probe and the busiest worker's parts)", flush=True)
        print(f"    the work shared out: {unshared(single, row) or 'yes'}; {cores_bound(single, row)}", flush=True)
    if row.plan is not None:
        estimates = row.plan["estimates"]
        said = "; ".join(f"at {e['at']:.1f} s: {e['run_seconds']:.1f} s of part time, parts of "
                         f"{e['part_seconds']:.2f} s, {e['parts']} parts" for e in estimates) or "none"
        last = row.plan["estimate_at_end"]
        end = "-" if last is None else f"{last['run_seconds']:.1f} s, parts of {last['part_seconds']:.2f} s"
        probe = row.plan["probe_seconds"]
        print(f"    workers {row.plan['workers']}, probe {'-' if probe is None else f'{probe:.2f} s'}; "
              f"first split {row.plan['first_parts']} parts, split before they started "
              f"{row.plan['split_before_start']}, while they ran {row.plan['split_while_running']}; estimates "
              f"(first, last): {said}; at the end {end}; the run's part time was {stats['part_seconds']:.1f} s",
              flush=True)


def cores_bound(single: Timing, row: Timing) -> str:
    """The most the split run ``row`` could gain over ``single`` by the clock: all its processor seconds (the
    parent's, its probe's included, and the parts') spread evenly over its workers' cores, against the one
    process's wall time, which may itself keep more than one core busy (cpsat's search thread beside the thread
    that reads and verifies its solutions). Wall times: meaningful on quiet cores only."""
    cores = max(1, len(row.workers_cpu))
    cpu = row.plan["cpu_seconds"] if row.plan else {}
    spent = (cpu.get("parent") or 0.0) + cpu.get("parts", 0.0)
    return (f"its {spent:.2f} processor s on {cores} cores end at best in {spent / cores:.2f} s, "
            f"{single.seconds * cores / spent:.2f}x {single.label}'s {single.seconds:.2f} s (which kept "
            f"{single.cpu / single.seconds:.2f} cores busy); by the clock it took {row.seconds:.2f} s")


def timeline(row: Timing, path: Path | None = None) -> None:
    """Where a split run's wall time went, by the parent's clock (seconds from the run's start): the probe, then
    per worker when it started its first part and ended its last, its parts and their processor seconds (of
    those counted beside the probe too: the parent hears of them when the probe ends, so they show as starting
    then), and how long the last worker ran alone at the end; ``path``: every part's run as a CSV
    line (index, worker, heard started, ended, processor seconds, split again, beside the probe)."""
    if row.ledger is None or not row.ledger.spans or row.plan is None:
        return
    workers: dict[str, list] = {}
    for span in row.ledger.spans:
        began = span.start if span.began is None else span.began
        first, last, parts, beside, cpu, early = workers.get(span.worker, (began, span.end, 0, 0, 0.0, 0.0))
        near = span.index in row.beside
        workers[span.worker] = (min(first, began), max(last, span.end), parts + 1, beside + near,
                                cpu + (span.cpu or 0.0), early + near * (span.cpu or 0.0))
    ends = sorted(w[1] for w in workers.values())
    alone = ends[-1] - ends[-2] if len(ends) > 1 else 0.0
    print(f"    timeline: probe 0-{row.plan['probe_seconds']:.2f} s; " + "; ".join(
        f"{w.removeprefix('gridsat-')} {first:.2f}-{last:.2f} s, {parts} parts, {cpu:.2f} processor s ({beside} "
        f"beside the probe, {early:.2f} s)" for w, (first, last, parts, beside, cpu, early) in sorted(workers.items()))
        + f"; the last worker alone at the end {alone:.2f} s; the run {row.seconds:.2f} s", flush=True)
    if path is not None:
        with path.open("a") as out:
            for s in row.ledger.spans:
                out.write(f"{row.label},{s.index},{s.worker},{s.began},{s.end:.4f},{s.cpu},{int(s.split)},"
                          f"{int(s.index in row.beside)}\n")


def main() -> int:
    single_threaded_blas()  # as the command line does, so that split runs start their workers as there
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--parts", type=int, help="parts to aim for in the split runs (default: gridsat's)")
    parser.add_argument("--time-limit", type=float, default=300, help="seconds per run (default 300)")
    parser.add_argument("--no-resplit", action="store_true", help="never split a running part again (as before "
                        "parts were split again), for the comparison")
    parser.add_argument("--backends", nargs="+", choices=("cpsat", "sat"), default=["cpsat", "sat"])
    parser.add_argument("--jobs", nargs="+", type=int, default=[1, 2], help="worker counts to time (default 1 2)")
    parser.add_argument("--tour-encodings", nargs="+", default=[None],
                        help="CNF encodings for the tours (default: the default encoding)")
    parser.add_argument("--ceiling", nargs="*", choices=("cpsat", "sat"), default=None,
                        help="also measure what two cores give on this machine (two copies of a count at once) "
                             "for these backends (default: sat)")
    parser.add_argument("--timeline", type=Path, help="append every part's run of the split runs to this CSV file")
    args = parser.parse_args()
    for case in args.cases:
        puzzle, instance, params, golden = CASES[case]
        print(f"\n{puzzle} {instance} {' '.join(f'{k}={v}' for k, v in params.items())} (expected {golden})")
        rows: list[Timing | str] = []
        if case == "prime":
            rows.append(c_backtracker(5, 5, 25))
        encodings = args.tour_encodings if case == "tours" else [None]
        configs = [("cpsat", None)] * ("cpsat" in args.backends) + [("sat", e) for e in encodings] * (
            "sat" in args.backends)
        for backend, encoding in configs:
            for jobs in args.jobs:
                row = timed(puzzle, instance, params, backend, encoding, jobs, args.parts, args.time_limit,
                            None if args.no_resplit else Split.resplit)
                rows.append(row)
                print(f"  {row.label}: {row.count} in {row.seconds:.2f} s", flush=True)
        print()
        report(rows, golden)
        for row in rows:
            if isinstance(row, Timing):
                part_statistics(row, one_process(rows, row))
                timeline(row, args.timeline)
        for backend in (args.ceiling or ["sat"]) if args.ceiling is not None else []:
            print("  " + ceiling(puzzle, instance, params, backend), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
