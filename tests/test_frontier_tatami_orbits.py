"""Tatami tilings up to symmetry on the frontier (models/tatami/frontier.py's folds, Burnside's lemma): every
fix(g) against the sat backend's, the orbit counts against sat's enumeration, and the bugs they would catch."""

from __future__ import annotations

import functools
import json
from dataclasses import replace

import pytest

pytest.importorskip("numba")

from conftest import bound, burnside, count_canonical  # noqa: E402
from conftest import gridsat as run_cli  # noqa: E402
from gridsat.models import get_puzzle  # noqa: E402
from gridsat.models.frontier import Fixed  # noqa: E402
from gridsat.models.tatami import frontier  # noqa: E402
from gridsat.models.tatami.room import Room  # noqa: E402
from gridsat.solvers.orbits.counting import tally_orbits  # noqa: E402

TATAMI = get_puzzle("tatami")

# Every kind of fold: mirrors across an even side (2x10, 4x10's), across an odd side with a middle line of mats
# (2x9, 4x7, 5x4's), cut on the half's right or below it; the half turn across an even long side (3x4, 2x10) or
# an odd one, with its middle row (4x7, 4x9, 6x7, 5x8, 4x31); squares (D4: the quarter turns and diagonal mirrors
# proved to fix none), odd areas, single rows and columns.
ROOMS = ["1x2", "2x1", "1x6", "2x2", "2x3", "3x2", "2x5", "2x6", "2x9", "2x10", "3x4", "4x3", "3x5", "3x6",
         "3x10", "4x4", "4x5", "5x4", "4x7", "4x9", "4x10", "5x6", "6x5", "5x8", "6x6", "6x7", "5x10", "8x8",
         "4x31"]


def frontier_orbits(text: str, puzzle=TATAMI):
    room = puzzle.parse(text, {})
    return tally_orbits(puzzle, room, bound(puzzle, "frontier", up_to="symmetry"))


@functools.cache
def sat_fixed(text: str) -> dict[str, int]:
    """fix(g) for every element, by sat on the CNF with x = g(x) added."""
    return burnside(TATAMI, TATAMI.parse(text, {}), "sat", up_to="symmetry").fixed


@pytest.mark.parametrize("text", ROOMS)
def test_every_fixed_point_and_orbit_count_agrees_with_the_sat_backend(text):
    room = TATAMI.parse(text, {})
    mine = frontier_orbits(text)
    listed = count_canonical(TATAMI, room, "sat", up_to="symmetry")
    assert (mine.method, mine.complete, mine.problems) == ("burnside", True, [])
    assert mine.fixed == sat_fixed(text)
    assert mine.count == listed.count and mine.group == listed.group


def test_each_kind_of_fold_counts_tilings_and_says_how():
    """4x7: both mirrors fix a tiling (mirror-lr across the 7-wide side, on the middle line of mats), and so does
    the half turn; 6x6's quarter turns and diagonal mirrors are proved to fix none."""
    mine = frontier_orbits("4x7")
    how = mine.details["fixed_by"]
    assert mine.fixed == {"identity": 3, "mirror-lr": 1, "mirror-ud": 3, "rot180": 1} and mine.count == 2
    assert how["mirror-lr"].startswith("counted: fold of mirror-lr: 4x3 half")
    assert how["rot180"].startswith("counted: fold of rot180: 3x4 half, row-major, then the glue")
    square = frontier_orbits("6x6").details["fixed_by"]
    assert all(square[name].startswith("none: ") for name in ("rot90", "rot270", "transpose", "antitranspose"))


def planted(fixed_by):
    """The tatami puzzle with each element's fixed tilings found by ``fixed_by(rows, cols, name)`` instead."""
    def fixed(room: Room, up_to: str) -> list[Fixed]:
        found = frontier.fixed_points(room, up_to)
        return [f if f.element == "identity" else fixed_by(room.rows, room.cols, f.element) for f in found]

    return replace(TATAMI, frontier=replace(TATAMI.frontier, fixed=fixed))


def turn_as_mirror(rows: int, cols: int, name: str) -> Fixed:
    """The half turn's glue without its map of columns (j to C-1-j): the up-down mirror's fold."""
    if name == "rot180":
        return Fixed(name, frontier.build_fold(cols, rows, frontier.MIRROR, name))
    return frontier.fixed_by(rows, cols, name)


def middle_as_cut(rows: int, cols: int, name: str) -> Fixed:
    """A mirror across an odd side counted as if mats could cross its middle line."""
    if name == "mirror-lr" and cols % 2:
        return Fixed(name, frontier.build_fold(rows, cols, frontier.MIRROR, name))
    return frontier.fixed_by(rows, cols, name)


def none_for_mirrors(rows: int, cols: int, name: str) -> Fixed:
    """The quarter turn's argument wrongly applied to the mirrors: "fixes none"."""
    if name.startswith("mirror"):
        return Fixed(name, known=0, why="planted")
    return frontier.fixed_by(rows, cols, name)


@pytest.mark.parametrize("fixed_by", [turn_as_mirror, middle_as_cut, none_for_mirrors])
def test_a_planted_fold_bug_disagrees_with_sat(fixed_by):
    """Each planted bug changes some fix(g) on the rooms below, so the comparison above would fail."""
    caught = [text for text in ("2x9", "2x10", "4x7", "3x10", "4x31")
              if frontier_orbits(text, planted(fixed_by)).fixed != sat_fixed(text)]
    assert caught


def test_count_json_lists_each_elements_fixed_tilings():
    done = run_cli("count", "tatami", "2x10", "--backend", "frontier", "--up-to", "symmetry", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and (report["count"], report["method"]) == (24, "burnside")
    assert report["fixed"] == {"identity": 41, "mirror-lr": 7, "mirror-ud": 41, "rot180": 7}


def test_a_wide_room_past_enumeration_has_a_whole_number_of_orbits():
    """2x60 (the mirror-ud fold walks 60 rows two cells wide) and 3x40: the sum of fix(g) is a multiple of the
    group's order (else the count lists a problem), and the identity's count is the plain frontier count."""
    for text in ("2x60", "3x40"):
        mine = frontier_orbits(text)
        assert (mine.complete, mine.problems) == (True, [])
        assert mine.fixed["identity"] == run_plain(text)


def run_plain(text: str) -> int:
    done = run_cli("count", "tatami", text, "--backend", "frontier", "--json")
    return json.loads(done.stdout)["count"]
