"""How a split run sizes its parts: the estimate of the run's length, the target time of a part, and
the replay of a tree that holds parts split before they started. No test here runs a solver or reads
a clock: the ledgers are written by hand."""

from __future__ import annotations

import random
import statistics

import pytest

from gridsat.solvers.splitting import schedule, split_policy
from gridsat.solvers.splitting.schedule import Ledger, Span
from gridsat.solvers.splitting.split_policy import choose, part_seconds, replay


def ledger_with(roots: int, finished: dict[int, float], starts: list[float] | None = None) -> Ledger:
    """A ledger of ``roots`` equal first parts, of which ``finished`` (index -> seconds) ran one after another."""
    ledger = Ledger()
    ledger.planted(list(range(roots)))
    at = 0.0
    for index, seconds in finished.items():
        ledger.started(index, at, "w")
        ledger.ended(index, at + seconds, took=seconds)
        at += seconds
    for seconds in starts or []:
        ledger.found_first(seconds)
    return ledger


def test_the_estimate_is_the_time_so_far_over_the_share_of_the_search_it_covered() -> None:
    assert ledger_with(10, {}).estimate(5.0) is None  # no part finished: nothing to go on
    ledger = ledger_with(10, {0: 2.0, 1: 4.0})
    assert ledger.estimate(6.0) == pytest.approx(6.0 / 0.2)
    ledger.started(2, 6.0, "w")  # a running part counts its time so far and its whole share
    assert ledger.estimate(7.0) == pytest.approx(7.0 / 0.3)
    # Split before it started: its share passes to its sub-parts, and a finished sub-part counts its own.
    ledger.divided(3, [10, 11])
    assert ledger.share[10] == ledger.share[11] == pytest.approx(0.05)
    ledger.started(10, 7.0, "w")
    ledger.ended(10, 8.0, took=1.0)
    assert ledger.estimate(8.0) == pytest.approx((2.0 + 4.0 + 2.0 + 1.0) / 0.35)


def test_a_run_split_again_that_threw_its_count_away_adds_no_time_to_the_estimate() -> None:
    ledger = ledger_with(4, {0: 1.0})
    ledger.started(1, 1.0, "w")
    ledger.splitting(1)  # being split again
    ledger.ended(1, 3.0, thrown=True, took=2.0)
    ledger.divided(1, [4, 5])
    assert ledger.estimate(3.0) == pytest.approx(1.0 / 0.25)


def test_parts_are_aimed_at_a_multiple_of_their_start_up_and_a_long_count_gets_more_of_them() -> None:
    ledger = ledger_with(32, {0: 1.0}, starts=[0.05] * 8)
    assert ledger.restart() == pytest.approx(0.05)
    long_part = part_seconds(ledger, 3600.0, workers=2)
    assert long_part == pytest.approx(split_policy.PART_RESTARTS * 0.05)  # whatever the run's length past that
    assert part_seconds(ledger, 3600.0, workers=100) == long_part  # and whatever the number of workers
    assert part_seconds(ledger, 60.0, workers=2) == pytest.approx(60.0 / split_policy.SCALE_PARTS)  # a minute's count
    short_part = part_seconds(ledger, 300.0, workers=32)
    assert short_part == pytest.approx(300.0 / (split_policy.GRAIN * 32))  # five minutes on many workers
    assert part_seconds(ledger, 10.0, workers=2) == pytest.approx(split_policy.LEAST_RESTARTS * 0.05)  # never too short
    assert 3600.0 / long_part > 60.0 / part_seconds(ledger, 60.0, 2)  # an hour's count ends finer than a minute's
    assert part_seconds(ledger_with(32, {0: 1.0}, starts=[0.001] * 8), 5.0, 2) == split_policy.PART_FLOOR


def test_the_start_up_of_a_part_is_the_lower_quartile_of_its_first_solutions_or_the_median_part() -> None:
    assert ledger_with(4, {}).restart() is None
    assert ledger_with(4, {0: 1.0, 1: 3.0, 2: 8.0}).restart() == 3.0  # no first solutions: the median part
    assert ledger_with(4, {0: 1.0}, starts=[0.1, 0.2, 0.3, 0.4, 5.0]).restart() == pytest.approx(0.15)


def test_the_lower_quartile_kept_sorted_is_the_statistics_modules() -> None:
    draw = random.Random(7)
    for size in (2, 3, 4, 5, 8, 101, 1000):
        values = [draw.expovariate(20) for _ in range(size)]
        ledger = ledger_with(4, {}, starts=values)
        assert ledger.starts == sorted(values)
        assert schedule.lower_quartile(ledger.starts) == pytest.approx(statistics.quantiles(values, n=4)[0])


def test_a_part_chosen_ahead_of_need_has_run_past_its_share() -> None:
    ledger = ledger_with(10, {})
    ledger.started(0, 0.0, "a")
    ledger.started(1, 2.0, "b")
    # The whole run is expected to take 30 s, so a part 3 s: part 0 has run 3.5 s, part 1 only 1.5 s.
    assert choose(ledger, 3.5, age=0.5, whole=30.0) == 0
    assert choose(ledger, 3.5, age=0.5, whole=50.0) is None  # 5 s each: neither has outrun its share
    assert choose(ledger, 3.5, age=0.5) == 0  # for an idle worker, the oldest


def test_a_part_split_before_it_started_costs_nothing_in_the_replay() -> None:
    ledger = Ledger()
    ledger.planted([0, 1])
    ledger.divided(0, [2, 3, 4, 5])  # never ran: its sub-parts are known and start at once
    ledger.spans = [Span(1, "w", 0.0, 1.0), *(Span(i, "w", 0.0, 1.0) for i in (2, 3, 4, 5))]
    assert replay(ledger, 5) == pytest.approx(5.0)
    assert replay(ledger, 1) == pytest.approx(1.0)


def test_a_waiting_part_is_piloted_before_any_estimate_and_split_to_size_after() -> None:
    ledger = ledger_with(10, {})
    assert split_policy.refinement(ledger, 3, 0.0, workers=2) == split_policy.Refinement(split_policy.PILOT)
    ledger.divided(3, [10, 11])
    assert split_policy.refinement(ledger, 10, 0.0, workers=2) is None  # no estimate: only a first-split part
    ledger = ledger_with(10, {0: 1.0}, starts=[0.001] * 8)  # 10 s of part time, parts of PART_FLOOR
    sized = split_policy.refinement(ledger, 3, 1.0, workers=2)
    assert sized is not None and sized.parts > split_policy.PILOT
    assert (sized.whole, sized.seconds) == (ledger.estimate(1.0), split_policy.PART_FLOOR)
    ledger.indivisible(4)
    assert split_policy.refinement(ledger, 4, 1.0, workers=2) is None  # its backend found no finer split


def test_an_idle_worker_gets_the_oldest_part_split_finer_than_a_busy_one() -> None:
    ledger = ledger_with(10, {})
    ledger.started(0, 0.0, "a")
    ledger.started(1, 0.9, "b")
    idle = split_policy.resplit_choice(ledger, 1.0, 0.5, 2, idle=True, low=True)
    assert idle == (0, max(8, split_policy.RESPLIT_PER_WORKER * 2))
    assert idle[1] >= split_policy.RESPLIT_PARTS  # a busy worker's part, mostly near its end, into no more
    assert split_policy.resplit_choice(ledger, 1.0, 0.5, 2, idle=False, low=False) == (0, split_policy.RESPLIT_PARTS)
    assert split_policy.resplit_choice(ledger, 0.1, 0.5, 2, idle=False, low=False) is None  # within its budget
    ledger.splitting(0)  # already being split: the next oldest is too young
    assert split_policy.resplit_choice(ledger, 1.0, 0.5, 2, idle=True, low=True) is None


def test_the_ledger_records_the_first_idle_worker_the_plans_and_where_parts_were_split() -> None:
    ledger = ledger_with(4, {0: 1.0})
    ledger.went_idle(2.0)
    ledger.went_idle(3.0)
    assert ledger.first_idle == 2.0
    ledger.planned(1.23456, 40.0, 0.5)
    assert ledger.plans == [{"at": 1.235, "run_seconds": 40.0, "part_seconds": 0.5, "parts": 80}]
    ledger.divided(1, [4, 5])  # before it started
    ledger.started(2, 1.0, "w")
    ledger.splitting(2)
    ledger.ended(2, 2.0, took=1.0)
    ledger.divided(2, [6, 7])  # while it ran
    ledger.started(3, 2.0, "w")
    ledger.splitting(3)
    ledger.unsplit(3)  # it finished before it noticed
    assert ledger.split_counts() == (1, 1)


def test_the_probe_runs_until_the_split_s_fixed_costs_are_a_small_share_of_its_time() -> None:
    # 16 parts per worker each starting in 10 ms, and the last part alone at the end: 0.26 s of fixed costs;
    # a named number of parts lets the probe be shorter than SHORT.
    fixed = 32 / 2 * 0.01 + split_policy.PART_FLOOR
    kept = split_policy.probe_seconds(0.01, 2, 32, keeps=True, least=1.0)
    assert 1.0 < kept < split_policy.LONGEST
    assert kept == pytest.approx(fixed / split_policy.OVERHEAD)
    # A count that ends just after its split takes at most 1 + OVERHEAD times one plain search.
    assert (kept + fixed) / kept == pytest.approx(1 + split_policy.OVERHEAD)
    # ... up to LONGEST: dearer start-ups no longer hold the probe alone.
    assert split_policy.probe_seconds(0.05, 2, 32, keeps=True, least=1.0) == split_policy.LONGEST
    # Cheap start-ups: until the first split's parts would run PART_FLOOR each, were the rest as long.
    assert split_policy.probe_seconds(0.001, 2, 32, keeps=True) == pytest.approx(32 * split_policy.PART_FLOOR)
    assert split_policy.probe_seconds(5.0, 2, 32, keeps=True) == split_policy.probe_seconds(
        split_policy.PROBE, 2, 32, keeps=True)  # a search to a first solution longer than PROBE is no start-up
    # Thrown away when the run splits: about as long as the fixed costs (rent or buy).
    assert split_policy.probe_seconds(0.01, 2, 32, keeps=False) == pytest.approx(fixed)
    assert split_policy.probe_seconds(0.0, 64, 32, keeps=False) >= split_policy.PROBE


def test_after_a_kept_probe_no_part_is_piloted() -> None:
    ledger = ledger_with(10, {})
    assert split_policy.refinement(ledger, 3, 0.0, workers=2, pilot=False) is None


def test_beside_local_workers_the_probe_may_stretch_in_wall_time() -> None:
    # Its length is then processor time: on a shared machine it ends later by the clock, at most
    # SLOWEST times its length and the wait for a worker later; a Dask cluster's probe ends on time.
    stretched = 10.0 + split_policy.SLOWEST * 2.0 + split_policy.PROBE_WAIT
    assert split_policy.probe_deadline(10.0, 2.0, waits=True) == stretched
    assert split_policy.probe_deadline(10.0, 2.0, waits=False) == 12.0


def test_the_workers_start_a_worker_start_up_before_the_probe_may_end() -> None:
    earliest = split_policy.probe_seconds(0.0, 2, 32, keeps=True)
    assert split_policy.launch_seconds(2, 32) == pytest.approx(earliest - split_policy.WORKER_START)
    assert split_policy.launch_seconds(2, 16) > 0  # a count shorter than that starts no worker
    assert split_policy.launch_seconds(2, 16) < split_policy.probe_seconds(0.0, 2, 16, keeps=True)
    # a probe whose work is thrown away forks them once it has searched its least, which it searches on past anyway
    thrown = split_policy.launch_seconds(2, 32, keeps=False)
    assert 0 < thrown == split_policy.PROBE <= split_policy.probe_seconds(0.0, 2, 32, keeps=False)


def test_a_kept_probe_of_a_long_count_ends_within_seconds_whatever_its_parts_cost_to_start(monkeypatch) -> None:
    # A kept probe ran until 16 start-ups per worker were a tenth of it, each start-up measured
    # by the clock (0.1 s for cpsat on a loaded machine): 17 s alone, a third of prime-grid 5x5's count,
    # while the second worker waited. Its first split is now smaller, and the probe at most LONGEST.
    kept = split_policy.first_parts(2, kept=True)
    assert kept < split_policy.first_parts(2)
    for start, parts in ((split_policy.PROBE, 32), (split_policy.PROBE, kept), (0.03, kept), (0.08, kept)):
        assert split_policy.probe_seconds(start, 2, parts, keeps=True) == split_policy.SHORT == split_policy.LONGEST
    # a count of seconds still runs alone: the probe is as long as it was
    assert split_policy.probe_seconds(0.0, 2, kept, keeps=True) == split_policy.SHORT
    # The regressions planted: the probe uncapped, and a first split of 16 parts per worker.
    monkeypatch.setattr(split_policy, "LONGEST", float("inf"))
    assert split_policy.probe_seconds(split_policy.PROBE, 2, 32, keeps=True) > 15
    assert split_policy.probe_seconds(0.08, 2, kept, keeps=True) > 7  # cpsat on prime-grid 5x5, a quiet machine



def test_a_probe_whose_rest_looks_short_searches_on_and_a_long_one_splits() -> None:
    p = split_policy
    # prime-grid 4x5 on sat after 3.2 s: the parts beside the probe said it had found 69% of their solutions
    rest = 3.2 * 0.31 / 0.69
    assert p.prolonging(3.2, 690, 1000, 70, 0.0) == pytest.approx(p.PROLONG_MARGIN * rest)
    # prime-grid 5x5/1..25 after 3.2 s: 5.8% found, a rest of about 52 s: the run splits
    assert p.prolonging(3.2, 58, 1000, 22, 0.0) == 0.0
    # almost all found: at least a quarter of what it searched, so that it is not looked at again and again
    assert p.prolonging(3.2, 999, 1000, 70, 0.0) == pytest.approx(p.PROLONG_LEAST * 3.2)
    # too few parts finished to say, or none of their solutions found by the probe: no more time
    assert p.prolonging(3.2, 690, 1000, p.PROLONG_PIECES - 1, 0.0) == 0.0
    assert p.prolonging(3.2, 0, 1000, 70, 0.0) == 0.0
    # never more than PROLONG_MOST in all
    assert p.prolonging(3.2, 690, 1000, 70, p.PROLONG_MOST - 0.5) == pytest.approx(0.5)
    assert p.prolonging(3.2, 690, 1000, 70, p.PROLONG_MOST) == 0.0


def test_a_probe_expected_to_end_alone_holds_the_parts_beside_it_and_a_long_one_does_not() -> None:
    p = split_policy
    # prime-grid 4x5 on sat, 1.15 s into its 3.2 s: 916 of 4,748 solutions in 20 parts beside it, a rest of about
    # 4.8 s: it ends within 3.2 s past its time, as prolonging would let it, and what the parts count is thrown away
    assert p.rest_of(1.15, 916, 4748, 20) == pytest.approx(1.15 * (4748 - 916) / 916)
    assert p.ends_alone(1.15, 3.2, 916, 4748, 20)
    # ... the same share past its time: what prolonging would give it, no more
    assert p.ends_alone(3.2, 3.2, 690, 1000, 70) == (p.prolonging(3.2, 690, 1000, 70, 0.0) > 0)
    # prime-grid 5x5/1..25, about 30 s alone: 3% found after 1 s is a rest of 32 s, and the parts go on
    assert not p.ends_alone(1.0, 3.2, 30, 1000, 20)
    # too few parts finished to say, or none of their solutions found by the probe yet: nothing is held
    assert not p.ends_alone(1.15, 3.2, 916, 4748, p.PROLONG_PIECES - 1)
    assert not p.ends_alone(0.87, 3.2, 0, 2860, 11)
    assert p.rest_of(0.87, 0, 2860, 11) is None
