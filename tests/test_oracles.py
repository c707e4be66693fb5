"""The brute-force oracles (models/*/oracle.py) against the golden counts, and their random instances.

An oracle is written plainly from a puzzle's rules and shares no code with its reference search or
its formulations, so agreeing with the golden counts here is what lets ``gridsat fuzz`` trust it on
instances no one has counted.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gridsat.models import PUZZLES, get_puzzle
from gridsat.models.errors import InvalidInstance
from gridsat.models.puzzle import Case
from gridsat.models.solution import freeze
from gridsat.models.tatami.mutation import oeis_rooms

ORACLES = [name for name in PUZZLES if get_puzzle(name).oracle is not None]
# The golden counts each oracle must reach at least (the others are too large for a brute force).
LEAST_GOLDEN = {"tatami": 20, "prime-grid": 6, "shikaku": 10, "knights-tour": 8}


def test_every_builtin_puzzle_has_an_oracle():
    assert set(LEAST_GOLDEN) <= set(ORACLES)


def slow(name: str, case: Case) -> bool:
    """The open 5x5 knight's tours from every square: seconds of plain DFS (the rest take under one)."""
    return name == "knights-tour" and case.text == "5x5" and not case.params


@pytest.mark.parametrize("name", sorted(LEAST_GOLDEN))
def test_oracles_count_the_golden_counts(name):
    puzzle = get_puzzle(name)
    checked = []
    for case in puzzle.mutation.corpus():
        if slow(name, case):
            continue
        instance = puzzle.parse(case.text, case.params)
        try:
            found = list(puzzle.oracle.solutions(instance))
        except InvalidInstance as refused:
            assert "too large for the brute-force oracle" in str(refused)
            continue
        assert len(found) == case.count, f"{case.text} {dict(case.params)}: {len(found)}, {case.source}"
        assert len({freeze(s) for s in found}) == len(found), "the oracle repeats a solution"
        assert all(not puzzle.verify(instance, s) for s in found), "the oracle lists a solution the rules refuse"
        checked.append(case.text)
    assert len(checked) >= LEAST_GOLDEN[name], checked


@pytest.mark.slow
def test_knights_tour_oracle_counts_the_open_5x5_tours():
    puzzle = get_puzzle("knights-tour")
    assert sum(1 for _ in puzzle.oracle.solutions(puzzle.parse("5x5", {}))) == 1728  # OEIS A165134


def test_tatami_oracle_matches_every_oeis_room_it_can_list():
    puzzle = get_puzzle("tatami")
    rooms = {rc: n for rc, n in oeis_rooms().items() if rc[0] * rc[1] <= 36}
    assert len(rooms) >= 60
    for (r, c), n in rooms.items():
        assert sum(1 for _ in puzzle.oracle.solutions(puzzle.parse(f"{r}x{c}", {}))) == n, (r, c)


@pytest.mark.parametrize("name", sorted(LEAST_GOLDEN))
def test_oracles_refuse_instances_too_large(name):
    puzzle = get_puzzle(name)
    text = "seed" if name == "shikaku" else "9x9"
    with pytest.raises(InvalidInstance, match="too large for the brute-force oracle"):
        next(iter(puzzle.oracle.solutions(puzzle.parse(text, {}))))


def draws(name: str, n: int = 150, seed: int = 7) -> list[tuple[str, dict[str, str]]]:
    rng = random.Random(seed)
    return [(text, dict(params)) for text, params in (get_puzzle(name).oracle.draw(rng) for _ in range(n))]


@pytest.mark.parametrize("name", sorted(LEAST_GOLDEN))
def test_draws_repeat_with_the_seed_and_parse(name):
    assert draws(name, 30) == draws(name, 30)
    assert draws(name, 30) != draws(name, 30, seed=8)
    puzzle = get_puzzle(name)
    for text, params in draws(name, 30):
        puzzle.parse(text, params)


def counts(name: str, n: int = 150) -> Counter[int]:
    """How many draws have 0, 1, 2... solutions (capped at 2)."""
    puzzle = get_puzzle(name)
    return Counter(min(2, sum(1 for _ in puzzle.oracle.solutions(puzzle.parse(text, params))))
                   for text, params in draws(name, n))


def test_shikaku_draws_include_unsolvable_unique_and_ambiguous_grids():
    found = counts("shikaku")
    assert found[0] >= 10 and found[1] >= 10 and found[2] >= 10, found


def test_knights_tour_draws_are_open_and_closed_with_and_without_start_and_some_have_tours():
    found = draws("knights-tour")
    assert {("closed" in p, "start" in p) for _, p in found} == {(a, b) for a in (False, True) for b in (False, True)}
    assert all(int(t.split("x")[0]) <= 5 and int(t.split("x")[1]) <= 5 for t, _ in found)
    assert counts("knights-tour", 30)[2] >= 3


def test_prime_grid_draws_take_random_ranges_and_some_have_fillings():
    found = draws("prime-grid")
    assert len({(p["min"], p["max"]) for _, p in found}) >= 30
    assert counts("prime-grid")[0] >= 5 and counts("prime-grid")[2] >= 30


def test_tatami_draws_take_many_room_sizes():
    assert len({text for text, _ in draws("tatami")}) >= 15
