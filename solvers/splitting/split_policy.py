"""When a split run splits, and how finely: the policy, read from the run's ledger (solvers.splitting.schedule).

The probe: a run first searches alone, and splits only once splitting can pay. What a split costs is
mostly fixed: every worker starts its share of the first split's parts (``first_parts`` / workers
start-ups, each what a local worker measured while it warmed up, in processor seconds: opening the
run as a part and searching it to its first solution, at most ``PROBE`` seconds, since a longer
search is no start-up), and the last part runs on alone at the end (about ``PART_FLOOR``). A probe
whose search hands back the models it counted (a formulation backend's) keeps its work: the first
split's parts leave those models out, as the sub-parts of a part split again do, so searching alone
longer costs nothing against one plain search but the idle workers; it runs until the fixed costs
are at most ``OVERHEAD`` of the time it has run, so that a count that ends just after its split
takes at most about 1 + ``OVERHEAD`` times a plain search, but no longer than ``LONGEST`` (each
second past it idles every worker but one in a long count), and at least ``SHORT`` seconds: a count
of a few seconds runs alone, since parts of a short rest are start-up more than search, at a cost
the measured start-up misses (a fresh solver has learnt nothing: the last 5% of prime-grid 4x5 sat,
split into 55 parts after its probe, took 1.7 s of part time, and the whole count takes 2 s
alone). Its first split is smaller (``KEPT_PARTS_PER_WORKER``), since every start-up of it makes the
probe ten times as long: at 16 parts per worker, each start-up 0.1 s by a loaded clock, the probe of
prime-grid 5x5/1..25 on cpsat ran alone for 17 s of a 50 s count (``--jobs 2`` was slower
than ``--jobs 1``); its parts are split further as the run's length says. A probe that cannot
hand back (a reference search) loses its work when the run splits: it runs about as long as the
fixed costs (rent or buy: at most twice what the better choice would have cost). Either way at
least ``PROBE`` seconds, and on until the first local worker is ready (``probe_deadline``). A count
that ends by then is answered without splitting. A Dask cluster's probe is ``PROBE`` seconds: its
workers measure nothing. A probe that keeps its work starts the local workers late, ``WORKER_START``
before the earliest it may end (``launch_seconds``): a count that ends sooner warms none up, and pays
nothing for them but, where forking is safe, idle worker processes forked held at the start, before the
probe's solver thread runs (solvers.splitting.parallel); a probe whose work is thrown away, where forking is
safe, forks them once it has searched ``PROBE`` (``FORK_LATE``); a plain count beside two or more starts them after
``SPECULATE``, and all but one count parts of the first split beside the probe (each split into
``BESIDE_PARTS`` first), whole, while it searches on: the second core idled through the probe. Those parts also
say how far the probe got when its time is up: a probe whose rest looks short searches on (``prolonging``); and
before that, once a few have finished: a probe expected to end alone gets no more parts beside it (``ends_alone``).
Parts beside the probe start only where a core sat idle while it searched (``FREE_CORES``).

Beside local workers the probe's length is processor time (its process's, while it searches): on a
machine the run shares, the probe's wall time stretches, and so does what the parts cost to start
(prime-grid 4x5 sat at a load of 5 on two cores: 21 ms of processor time a part against 3.5 ms on
an idle machine, and a probe of wall seconds ended before the count did in most runs, which then
took 1.7 times as long as one plain search); a probe that gets less than 1 / ``SLOWEST`` of a core
ends anyway.

The first split aims at ``PARTS_PER_WORKER`` parts per worker, at least ``MIN_PARTS`` (``first_parts``;
after a kept probe ``KEPT_PARTS_PER_WORKER``; a caller may name its own number, which is kept), many
more than workers so that uneven parts balance. Its parts are handed out ``AHEAD`` per worker ahead
of need; the rest wait in the parent, where they can still be split.

How fine parts are (``part_seconds``): once a part has finished, the ledger estimates the whole run's
part time (``Ledger.estimate``) and what starting a part costs (``Ledger.restart``). A part is then
aimed at the least of: ``PART_RESTARTS`` times that start-up cost (a long run spends about a
twentieth of its time starting parts), 1 / (``GRAIN`` x workers) of the run (a short run on this
pool), and 1 / ``SCALE_PARTS`` of it (so that the recorded parts would keep about a hundred workers
busy); but never less than ``LEAST_RESTARTS`` start-ups nor ``PART_FLOOR`` seconds. So the number of
parts follows from the run's length: a count of seconds keeps its first split, a count of minutes
ends in a few hundred parts, and a count of hours in about (its part time / ``PART_RESTARTS``
start-ups), whatever the number of workers.

Before a part starts (``refinement``): a waiting part expected to run more than ``REFINE`` target
times is split into as many sub-parts as it needs (at most ``REFINE_MAX``), which costs no restart
and throws nothing away. A first-split part is split once it is expected to run more than one
target time, into at least ``PILOT``: the first split was made before any part ran, and the early
estimates lean short (the heavy parts are the ones still running). One handed out before any
estimate exists is split into ``PILOT`` sub-parts, which end soon and give the first estimate;
not after a probe that kept its work: such a run has searched alone until splitting could pay, so
waiting for a first-split part costs little, and pilots of what is often a short rest are mostly
start-up, which the estimate takes for search (prime-grid 4x5 sat on a loaded machine: a rest of
about 1 s estimated at 11 s, and split into 242 parts against 64 without pilots).

While parts run (``resplit_choice``): when a worker would go idle (no part waits), the part that has
run longest, if it has run at least ``RESPLIT_AGE`` seconds, is split again into about
``RESPLIT_PER_WORKER`` sub-parts per worker. The longest-running part is the likeliest to hold the
tail (part times are heavy-tailed); a young part is left alone, since it may be about to end. When
nothing waits but every worker is still busy, the longest-running part that has outrun its share of
the estimated run is split ahead of need. While every worker is busy, a part is split again into
``RESPLIT_PARTS`` once it has run longer than its ``budget``.

``replay`` predicts what the recorded tree of parts would give on more workers under this policy.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass

from gridsat.solvers.splitting.schedule import Ledger

# The probe (module docstring): a split may cost at most this share more than one plain search ...
OVERHEAD = 0.1
PROBE = 0.1  # ... and the probe searches alone for at least this many seconds
# ... and at most this many more, until the first local worker is ready: a part handed out sooner
# would only wait for its worker to start (a spawned one loads its solver library first).
PROBE_WAIT = 1.0
SLOWEST = 4  # ... and its wall time is at most this many times its length (plus PROBE_WAIT)
# Why a split run ran alone (``--json``'s "split": {"alone": ...}, and a note on stderr).
PROBE_FINISHED = "the search finished in {seconds:.2f} s, before splitting could pay"
NO_PARTS = "the search found nothing to split on: one worker ran it whole"
NO_SPLIT_POINTS = "{label} reports no decisions to split on"
NOT_EXHAUSTIVE = "{label} does not search for every solution: there is nothing to share out"
PARTS_PER_WORKER, MIN_PARTS = 16, 32  # the first split's target, unless the caller names one
# ... after a probe that kept its work and ran as long as the policy says (local workers): fewer, since
# each worker starts its share of them even when the count ends just after the split, and the probe
# runs until those start-ups are at most OVERHEAD of it (16 per worker held a cpsat probe 6 to 17 s);
# the parts are split further, before they start and while they run, as the run's length says.
KEPT_PARTS_PER_WORKER = 8
# Seconds of processor time: a kept probe starts the local workers this long before it may end at the
# earliest (a forked worker is ready at once, a spawned one with OR-Tools in about 0.5 s); one not yet
# ready then only makes the probe longer, and its work is kept.
WORKER_START = 0.5
# A probe whose work is thrown away (a reference search's) forks its workers once it has searched ``PROBE`` seconds
# of processor time, where forking is safe then (its search runs in the thread that reads it), not with the run:
# forked at the start, they warmed up beside the probe on the run's two cores, and tatami 3x16 on the reference
# backend (its whole search about 0.05 s) took 1.13x to 1.48x as long on two workers as on one (quiet, the lead).
# It searches at least ``PROBE`` and on past a forked worker's warm-up (a part's start-up and a little search) anyway,
# until its ``first_parts`` / workers start-ups are paid (``probe_seconds``): a long count waits no longer.
FORK_LATE = True
OVERSHOOT = 8  # a prefix whose projections number more than OVERSHOOT x target is not used
# A part split again is small already: a prefix that gives many more sub-parts than asked costs
# more in restarts (each sub-part presolves a copy of the model, or loads a fresh solver) than it gains in balance.
RESPLIT_OVERSHOOT = 2
# Parts per worker handed to the pool ahead of need, so that a worker never waits for its next part
# while the parent splits; the rest wait in the parent, where they can still be split (parts are
# split before they are handed out, so more ahead costs no balance).
AHEAD = 4
REFINE = 2.0  # a waiting part expected to run more than this many part durations is split before it starts
REFINE_MAX = 64  # ... into at most this many sub-parts
PILOT = 4  # ... and one handed out before any part has finished, into this many: the estimate comes early
RESPLIT_AGE = 0.5  # seconds a part must have run before it may be split again for an idle worker
RESPLIT_PER_WORKER = 4  # a part split again for an idle worker: about this many sub-parts per worker (at least 8)
# A part split again for running past its budget, while every worker is busy: into this many. Fewer sub-parts mean
# fewer start-ups (a sat part's is about 6 to 10 ms) but a coarser tail for many workers. On two quiet cores,
# prime-grid 5x5 max=25 sat --jobs 2, one after the other (2026-11-29): at 4, 17.95, 17.99, 17.70 and 21.91 s, the
# 100-worker forecast 48.0x, 41.5x, 49.9x and 60.2x; at 8, 17.85 and 18.16 s, 51.8x and 55.8x; at 6, 17.97 and
# 18.88 s, 55.4x and 48.0x: the part time was the same (28.8 to 29.5 s, but the 21.9 s run's 36.8), and only 8 kept
# the forecast above 50x in every run. (A loaded machine had shown 13% less part time at 4.)
RESPLIT_PARTS = 8
OUTLIER = 2.0  # a running part past this many part durations is split again (every worker busy)
# Before the run's length is estimated, a part may run 1 / (GRAIN x workers) of the work done so
# far: about the share a part has in a first split into GRAIN parts per worker.
GRAIN = 16
# Seconds: a part that runs less is never split again while every worker is busy. Parts kept whole
# longer than this held the tail of the run; much shorter, and restarts cost more than they balance.
# OUTLIER x PART_FLOOR: below it the budget never goes once the run is estimated.
LEAST_BUDGET = 0.2
PART_RESTARTS = 20  # a part is aimed at no more than this many times what starting a part costs (as measured)
SCALE_PARTS = 256  # ... nor more than this share of the run: enough parts to keep about a hundred workers busy
LEAST_RESTARTS = 4  # ... nor less than this many start-ups (a part spends at most a quarter of its time starting)
PART_FLOOR = 0.1  # seconds: no part is aimed shorter (a part also costs its messages and its task)
# Seconds of processor time a kept probe searches at least, so that a count of a few seconds runs alone
# (``MIN_PARTS`` parts of ``PART_FLOOR``): the rest of prime-grid 4x5 on sat (2.3 s alone), split
# after 1.6 s, took 4.1 s of parts for what the probe would have counted in under 1 s (loaded machine).
SHORT = MIN_PARTS * PART_FLOOR
# ... and at most this many, unless its least is longer: a count long enough to split gains the idle workers
# sooner, and a count that ends just after its split pays the first split's start-ups on a short probe
# (cpsat, prime-grid 5x5/1..25: 8 start-ups of 0.05-0.09 s per worker made its probe 5.4-7.7 s of a 50 s count,
# at most 1.1x on a count ending just after it; at 3.2 s, at most about 1.2x on such a count of 3 to 8 s,
# which is neither a count of seconds nor a long one).
LONGEST = SHORT
# Seconds of processor time: a kept probe beside two or more local workers starts them this soon, and all of them
# but one count parts of the first split while it searches on (solvers.splitting.beside, ``BesideProbe._speculate``):
# the second core sat idle through the probe, which alone held prime-grid 5x5 on sat to about 1.8x on two cores.
# A count that ends sooner starts none; one that ends within the probe throws their work away, and pays only
# the workers' start and that split in the parent (about 0.05 s of a count of a second or more). At 1.0 the second
# core idled through the probe's first second. Side by side on a loaded machine (prime-grid 5x5 sat --jobs 2,
# alternated), the parts beside the probe took 1.2 to 2.1 s of processor time at 1.0, 2.2 and 2.5 s at 0.5, 2.7 s at
# 0.3 and 2.9 s at 0.05: each a second-core second the count no longer waits for at the end. Not lower, since a count
# of under a second then starts them too and pays for them: knights-tour 5x5 on cpsat (about 0.5 s of the probe's
# processor time, one CP-SAT thread beside the one that reads it) took 0.50 s against 0.44 s at 0.3 (median of 8,
# loaded), and at 0.5 it started them in 3 runs of 8, at no cost the clock showed.
SPECULATE = 0.5
# ... where at least this many cores sat idle on average since the probe started (solvers.splitting.idle): on a
# machine another process keeps busy, parts beside the probe take turns with it on the cores there are. prime-grid
# 4x5 on sat with one core kept busy elsewhere took 1.27x as long with --jobs 2 as with --jobs 1, its parts beside
# the probe held once it was expected to end alone, and 1.35x not held (medians of 7 in one process).
FREE_CORES = 0.5
BESIDE_PARTS = 8  # ... each of those first-split parts split into this many first, one handed out at a time
BESIDE_SPREAD = 4  # ... this many of those parts at a time, their pieces handed out in turn (``ends_alone``)
# When such a probe's time is up, the parts finished beside it say how far it got: of their solutions, the share it
# had found too (they are a random sample of the first split's). A rest that share puts at no more than
# PROLONG_REST seconds of its search is left to it, at PROLONG_MARGIN times that (``prolonging``), and looked at
# again when that is up, at most PROLONG_MOST seconds more in all: a fresh solver on a part of a short rest pays
# its start-up and relearns what the probe knows (prime-grid 4x5 on sat, about 4 s alone: its probe had found 64%
# and 74% of the solutions after 3.2 s, the parts beside it said 69% and 71%, and the rest split into 47 to 150
# parts took 3.4 to 6.1 processor seconds, --jobs 2 1.25x to 1.45x as long as --jobs 1). A long count's probe has
# found a few per cent by then (prime-grid 5x5/1..25: 5.2%, its parts said 5.8%): it splits as before.
PROLONG_PIECES = 4  # parts finished beside the probe, at least, before their share is read
PROLONG_REST = SHORT
PROLONG_MARGIN = 1.25
# ... and at least this share of what it searched so far: each look reads its new models and the parts' (a look
# every PART_FLOOR held a probe that had found 99.7% of them to 13 s in all, against 4.7 s)
PROLONG_LEAST = 0.25
PROLONG_MOST = 2 * SHORT
# Once PROLONG_PIECES parts have finished beside the probe, before its time is up, the same share says whether it is
# expected to end alone (``ends_alone``); while it is, no more parts are handed out beside it, looked at again every
# HOLD_LOOK seconds: their work would be thrown away, and the worker counting them slows the probe it shares the
# machine with. prime-grid 4x5 on sat (2.6 s alone, 2026-11-30), held after about 1.1 s of its probe: --jobs 2 took
# 3.2 processor seconds against 3.9 before (benchmarks/compare/jobs, best of 5, twice), and in medians of 7 alternated
# runs in one process 1.09x as long as --jobs 1 against 1.11x unheld, 1.27x against 1.35x with a core busy elsewhere.
HOLD_BESIDE = True
# Seconds a part beside the probe runs before its worker is asked to stop it, to be split again when the run splits
# (keeping what it counted): a running part's least budget once the run splits. Left to run on, one part of
# prime-grid 5x5 on sat ran 0.65 s beside the probe, 2.2% of the work, and the 100-worker forecast fell to 42x.
BESIDE_LONGEST = LEAST_BUDGET
HOLD_LOOK = PART_FLOOR


def rest_of(searched: float, found: int, counted: int, pieces: int) -> float | None:
    """Seconds a kept probe that has searched ``searched`` seconds (its processor time) needs to end alone, at the
    rate it found its solutions so far, given ``pieces`` parts finished beside it that hold ``counted`` solutions, of
    which it had found ``found`` (None: too few parts finished to say, or none of their solutions found)."""
    if pieces < PROLONG_PIECES or found <= 0 or counted <= 0:
        return None
    share = min(1.0, found / counted)
    return searched * (1 - share) / share


def prolonging(searched: float, found: int, counted: int, pieces: int, prolonged: float) -> float:
    """Seconds more a kept probe searches once its time is up (0: the run splits now), after ``searched`` seconds
    (its processor time), given ``pieces`` parts finished beside it that hold ``counted`` solutions, of which it had
    found ``found``, and the ``prolonged`` seconds it was given already (see ``PROLONG_REST``)."""
    rest = rest_of(searched, found, counted, pieces)
    if rest is None or rest > PROLONG_REST or prolonged >= PROLONG_MOST:
        return 0.0
    return min(max(PROLONG_MARGIN * rest, PROLONG_LEAST * searched), PROLONG_MOST - prolonged)


def ends_alone(searched: float, seconds: float, found: int, counted: int, pieces: int) -> bool:
    """Whether a kept probe, ``searched`` seconds into a time of ``seconds`` (both its processor time), is expected to
    end alone (``rest_of``): within its time, or past it by no more than ``prolonging`` would give it. Then the parts
    counted beside it are thrown away, and no more are handed out (``HOLD_BESIDE``)."""
    rest = rest_of(searched, found, counted, pieces)
    return rest is not None and rest <= max(0.0, seconds - searched) + PROLONG_REST


def first_parts(workers: int, kept: bool = False) -> int:
    """How many parts the first split aims at, for ``workers`` workers (``kept``: after a probe that kept
    its work and ran as long as the policy says, beside local workers)."""
    return KEPT_PARTS_PER_WORKER * workers if kept else max(MIN_PARTS, PARTS_PER_WORKER * workers)


def unsplittable(search: object) -> str | None:
    """Why a run's search cannot be split at all, known before it starts (None: it may be): a
    search says so with ``splittable`` False (a reference search without split points)."""
    if search is None or getattr(search, "splittable", True):
        return None
    why = NO_SPLIT_POINTS if getattr(search, "exhaustive", True) else NOT_EXHAUSTIVE
    return why.format(label=getattr(search, "label", "the search"))


def probe_seconds(start: float, workers: int, parts: int, *, keeps: bool, least: float = SHORT) -> float:
    """How long the probe searches alone before the run splits (module docstring): ``start`` is what
    starting a part costs, as a worker measured it (at most ``PROBE`` counts); each of ``workers``
    starts its share of the first split's ``parts``; ``keeps``: the probe's work is kept when the run
    splits, when it searches at least ``least`` seconds (a named number of parts: ``PART_FLOOR`` each)."""
    fixed = parts / workers * min(start, PROBE) + PART_FLOOR
    return max(PROBE, min(fixed / OVERHEAD, LONGEST), least) if keeps else max(PROBE, fixed)


def launch_seconds(workers: int, parts: int, least: float = SHORT, *, keeps: bool = True) -> float:
    """When a probe that keeps its work starts the local workers (seconds of its processor time):
    ``WORKER_START`` before the earliest it may end (were starting a part free); a count that ends
    sooner starts none. A probe whose work is thrown away (``keeps`` False), in a process that forks its
    workers: ``PROBE``, the least it searches (``FORK_LATE``)."""
    if not keeps:
        return PROBE
    return max(0.0, probe_seconds(0.0, workers, parts, keeps=True, least=least) - WORKER_START)


def probe_deadline(start: float, seconds: float, waits: bool) -> float:
    """When a probe of ``seconds`` started at ``start`` must end at the latest (wall clock): at once, or
    (``waits``: local workers are starting, and its length is its processor time) after ``SLOWEST``
    times its length and ``PROBE_WAIT`` more, until the first worker is ready."""
    return start + SLOWEST * seconds + PROBE_WAIT if waits else start + seconds


def part_seconds(ledger: Ledger, whole: float, workers: int) -> float:
    """How long a part should run, given the run's estimated part time ``whole`` (module docstring)."""
    start = ledger.restart() or 0.0
    aim = min(PART_RESTARTS * start, whole / (GRAIN * workers), whole / SCALE_PARTS)
    return max(PART_FLOOR, LEAST_RESTARTS * start, aim)


def budget(ledger: Ledger, now: float, workers: int) -> float:
    """How long a part may run while every worker is busy: ``OUTLIER`` part durations once the run's
    length is estimated, else 1 / (``GRAIN`` x ``workers``) of the work done so far, so that no
    final part holds much more than its share, however long the run (at least ``LEAST_BUDGET``
    seconds: every part presolves a copy of its model, or loads a fresh solver, so parts much shorter cost more
    to start than they search)."""
    whole = ledger.estimate(now)
    if whole is not None:
        return max(LEAST_BUDGET, OUTLIER * part_seconds(ledger, whole, workers))
    return max(LEAST_BUDGET, ledger.work_done(now) / (GRAIN * workers))


def choose(ledger: Ledger, now: float, age: float, whole: float | None = None) -> int | None:
    """The running part to split again, if any: the one that has run longest, at least ``age``
    seconds; ``whole``: the run's estimated part time, when a part is chosen ahead of need: one that
    has not yet run as long as its share says it should is left alone (it is likely to end soon, and
    its restart is wasted)."""
    fit = [(now - start, index) for index, (start, _) in ledger.running.items()
           if index not in ledger.children and index not in ledger.unsplittable and now - start >= age
           and (whole is None or now - start >= ledger.expected(index, whole))]
    return max(fit)[1] if fit else None


def resplit_choice(ledger: Ledger, now: float, age: float, workers: int, *, idle: bool,
                   low: bool) -> tuple[int, int] | None:
    """The running part to split again and how many sub-parts to aim at (None: none), given whether a
    worker is ``idle`` now and whether one is about to be (``low``: nothing waits to be handed out)."""
    whole = None if idle else ledger.estimate(now)
    index = None
    if low and whole is not None:  # split ahead of need, a part that has run past its expected time
        index = choose(ledger, now, age, whole)
        idle = index is not None
    if index is None:
        index = choose(ledger, now, age if idle else budget(ledger, now, workers))
    if index is None:
        return None
    return index, max(8, RESPLIT_PER_WORKER * workers) if idle else RESPLIT_PARTS


@dataclass(frozen=True)
class Refinement:
    """How finely to split a part before it starts: into about ``parts`` sub-parts, sized by the run's
    estimated part time ``whole`` and a part's target time ``seconds`` (both None: a pilot split)."""

    parts: int
    whole: float | None = None
    seconds: float | None = None


def refinement(ledger: Ledger, index: int, now: float, workers: int, *, pilot: bool = True) -> Refinement | None:
    """How to split part ``index``, which has not started (None: it runs as it is): see the module's
    docstring (``pilot``: a first-split part handed out before any estimate is split into pilots)."""
    if index in ledger.unsplittable:
        return None
    whole = ledger.estimate(now)
    root = index in ledger.roots
    if whole is None:
        return Refinement(PILOT) if root and pilot else None
    seconds = part_seconds(ledger, whole, workers)
    expected = ledger.expected(index, whole)
    if expected <= (1 if root else REFINE) * seconds:
        return None
    needed = math.ceil(expected / seconds)
    return Refinement(min(REFINE_MAX, max(PILOT, needed) if root else needed), whole, seconds)


def replay(ledger: Ledger, workers: int, age: float = RESPLIT_AGE) -> float:
    """The speed-up the recorded parts predict on ``workers``: the summed time of the parts' useful runs
    over the end of a simulated run of the same tree under the same policy.

    Parts are taken in order, each for its recorded time; a part split again releases its sub-parts
    when its recorded run ends, at the head of the queue, where the run puts them (solvers.splitting.parallel).
    One whose count was thrown away (it could not hand back what it had counted) is split as soon as
    a worker would go idle and it has run ``age`` seconds, as the policy does. A part that finished
    was never split, so its sub-parts are unknown: it runs whole.
    """
    took = {s.index: s.end - s.start for s in ledger.spans}
    thrown = {s.index for s in ledger.spans if s.thrown}
    work = sum(t for i, t in took.items() if i not in thrown)
    if work <= 0:
        return 1.0
    queue = deque(ledger.roots)
    free = workers
    now = 0.0
    running: list[tuple[float, int, float]] = []  # (end, part, start)
    while queue or running:
        while queue and free:
            index = queue.popleft()
            free -= 1
            heapq.heappush(running, (now + took.get(index, 0.0), index, now))
        if free and not queue:  # a worker would go idle: split the oldest part whose work is redone anyway
            fit = [(now - start, index) for _, index, start in running if index in thrown and now - start >= age]
            if fit:
                _, index = max(fit)
                running = [r for r in running if r[1] != index]
                heapq.heapify(running)
                free += 1
                queue.extendleft(reversed(ledger.children[index]))
                continue
        end, index, start = heapq.heappop(running)
        if not queue and free:  # idle until the next part ends or becomes old enough to split
            ripe = [start_ + age for _, i, start_ in running if i in thrown and start_ + age > now]
            if ripe and min(ripe) < end:
                heapq.heappush(running, (end, index, start))
                now = min(ripe)
                continue
        now = max(now, end)
        free += 1
        queue.extendleft(reversed(ledger.children.get(index, [])))
    return work / now if now > 0 else 1.0
