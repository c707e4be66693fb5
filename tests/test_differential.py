"""Differential testing (``gridsat fuzz``): random tiny instances, every configuration, compared with
the puzzles' brute-force oracles; and two planted bugs it must catch with a command that repeats them."""

from __future__ import annotations

import dataclasses
import shlex

import pytest

from conftest import gridsat
from gridsat import api
from gridsat.models import get_puzzle
from gridsat.models.formulation import CnfFormulation
from gridsat.models.puzzle import Puzzle
from gridsat.models.tatami import PUZZLE as TATAMI


@pytest.mark.slow  # about 40 s on a loaded two-core machine: prime-grid alone is 390 pairs an instance
def test_a_seeded_short_run_checks_every_puzzle_and_finds_no_difference():
    # Each instance runs every encoding of the product: prime-grid's CNF alone has 384 (4 domains x 2
    # adjacency rules x 12 at-most-ones x parity x symmetry), so four instances take about 500 pairs.
    report = api.fuzz(seed=1, pairs=500, budget=300, jobs=1)
    assert report.agree, [f"{d.what}: {d.command}" for d in report.differences]
    assert report.pairs >= 500 and report.stopped is None
    assert report.instances >= 4  # the puzzles in turn: each drew at least once
    backends = {label.split(":")[0] for label in report.checked.covered}
    assert {"cpsat", "sat", "reference"} <= backends, backends


def test_the_same_seed_draws_the_same_instances():
    first = api.fuzz(["shikaku"], seed=5, pairs=20, budget=120, jobs=1)
    again = api.fuzz(["shikaku"], seed=5, pairs=20, budget=120, jobs=1)
    assert (first.pairs, first.instances, first.checked.covered) == (again.pairs, again.instances,
                                                                     again.checked.covered)


DROPPED = "tatami:cnf:no four mats meet drop [all]"


def test_a_clause_family_dropped_through_the_mutation_machinery_is_caught_with_its_command():
    report = api.fuzz(["tatami"], seed=1, pairs=60, budget=300, jobs=1, mutant=DROPPED)
    assert not report.agree
    caught = report.differences[0]
    assert caught.label.startswith("sat:") and "break the rules" in caught.what
    assert caught.command.startswith("gridsat fuzz tatami ") and f"--mutant {shlex.quote(DROPPED)}" in caught.command
    again = gridsat(*shlex.split(caught.command)[1:])
    assert again.returncode == 1 and "DIFFERENCE:" in again.stdout, again.stdout + again.stderr
    assert again.stdout.strip().splitlines()[-1].endswith(": 1 difference")


def spare_in_projection(puzzle: Puzzle) -> Puzzle:
    """A projection that is not one-to-one: one free variable more, so each solution comes twice."""
    def cnf(instance, encoding) -> CnfFormulation:
        f = puzzle.cnf(instance, encoding)
        spare = f.pool.id(("spare",))
        f.cnf.nv = max(f.cnf.nv, spare)
        return dataclasses.replace(f, projection=[*f.projection, spare], block_true_only=False,
                                   decode=lambda values: f.decode({k: v for k, v in values.items() if k != ("spare",)}))

    return dataclasses.replace(puzzle, cnf=cnf)


@pytest.fixture
def registered():
    """Replace a registered puzzle for one test (``get_puzzle`` caches what it found)."""
    with pytest.MonkeyPatch.context() as patch:
        def register(puzzle: Puzzle) -> None:
            patch.setattr("gridsat.models.tatami.PUZZLE", puzzle)
            get_puzzle.cache_clear()

        yield register
    get_puzzle.cache_clear()


def test_a_duplicate_producing_projection_is_caught_with_its_command(registered):
    leaky = spare_in_projection(TATAMI)
    report = api.fuzz([leaky], seed=2, pairs=40, budget=300)
    repeated = [d for d in report.differences if "returned more than once" in d.what]
    assert repeated and all(d.label.startswith(("sat:", "d4:", "ganak:")) or "counts" in d.what
                            for d in report.differences)
    # The command repeats it where the bug is in the code: here, the registered puzzle patched.
    registered(leaky)
    again = gridsat(*shlex.split(repeated[0].command)[1:])
    assert again.returncode == 1 and "returned more than once" in again.stdout, again.stdout + again.stderr


def test_fuzz_refuses_bad_requests_in_one_line():
    for args, named in ((["fuzz", "tatami", "3x4", "--backend", "sat", "--encoding", "nonsense"], "nonsense"),
                        (["fuzz", "tatami", "--mutant", "nothing"], "nothing"),
                        (["fuzz", "tatami", "--mutant", "no such family drop [all]"], "no such family"),
                        (["fuzz", "tatami", "--mutant", "tatami:cnf:no four mats meet DROP [1]"], "no operator 'DROP'"),
                        (["fuzz", "tatami", "--mutant", "tatami:cnf:no four mats meet drop [1]"], "no selector '1'"),
                        (["fuzz", "nopuzzle", "--pairs", "1"], "nopuzzle"),
                        (["fuzz", "tatami", "--encoding", "seqcounter"], "--backend")):
        done = gridsat(*args)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and named in done.stderr, done


def test_a_fuzz_that_checks_no_pair_is_no_pass():
    done = gridsat("fuzz", "knights-tour", "3x4", "--backend", "reference", "--algorithm", "warnsdorff")
    assert done.returncode == 3 and ": 0 pairs (instance, configuration) checked" in done.stdout, done.stdout
    assert done.stdout.rstrip().endswith("s: nothing was compared") and "does not search for every" in done.stdout


@pytest.mark.parametrize("jobs", [2])
def test_fuzz_in_worker_processes_reports_what_it_checked(jobs):
    done = gridsat("fuzz", "prime-grid", "--seed", "3", "--pairs", "100", "--jobs", str(jobs), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("fuzz --seed 3: ") and last.endswith(": no difference")
    assert int(last.split()[3]) >= 100


@pytest.mark.parametrize("board", ["3x3", "1x4", "2x3"])
def test_cpsat_closes_no_tour_past_a_square_without_moves(board):
    """Found by ``gridsat fuzz --seed 1``: AddCircuit ignores a node no arc names, so CP-SAT closed a
    "tour" that skipped the centre of 3x3 (and every square of 1xN)."""
    done = gridsat("fuzz", "knights-tour", board, "-p", "closed=true", "--backend", "cpsat")
    assert done.returncode == 0 and done.stdout.strip().endswith(": no difference"), done.stdout


def test_a_puzzle_object_not_registered_is_fuzzed_from_its_own_oracle():
    unregistered = dataclasses.replace(TATAMI, name="tatami-under-test")
    report = api.fuzz([unregistered], seed=4, pairs=10, budget=120)
    assert report.agree and report.pairs >= 10
    assert all(d.startswith("tatami-under-test ") for d in [*report.checked.unfinished])
