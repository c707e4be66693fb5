"""The frontier's orbit counts by Burnside's lemma (models/knights_tour/folded.py): every fix(g) against the
sat backend's, the orbit counts against sat's enumeration and OEIS, and the bugs they would catch."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

pytest.importorskip("numba")

from conftest import bound, burnside, count_canonical  # noqa: E402
from conftest import gridsat as run_cli  # noqa: E402
from gridsat.models import get_puzzle  # noqa: E402
from gridsat.models.errors import InvalidOption  # noqa: E402
from gridsat.models.frontier import Fixed  # noqa: E402
from gridsat.models.golden import golden  # noqa: E402
from gridsat.models.knights_tour.board import Board  # noqa: E402
from gridsat.models.knights_tour.folded import GLUE, NONE_TAKEN, PIECES, fixed_points, fold_spec  # noqa: E402
from gridsat.models.symmetry import motions  # noqa: E402
from gridsat.solvers.frontier_engine.layers import run_spec  # noqa: E402
from gridsat.solvers.orbits.counting import OrbitVariant, run_count, tally_orbits  # noqa: E402
from gridsat.solvers.stop import Stop  # noqa: E402

TOUR = get_puzzle("knights-tour")


def frontier_orbits(text: str, params: dict[str, str] | None = None, up_to: str = "symmetry", puzzle=TOUR):
    board = puzzle.parse(text, params or {})
    return tally_orbits(puzzle, board, bound(puzzle, "frontier", up_to=up_to))


# Open and closed, square and not, tall and wide, odd by odd (a centre square), one side odd (moves between a
# square and its half-turn image), start squares: each board's sat enumeration takes at most seconds.
BOARDS = [
    ("1x1", {}), ("2x3", {}), ("3x3", {}), ("3x4", {}), ("4x3", {}), ("3x5", {}), ("3x7", {}), ("7x3", {}),
    ("3x8", {}), ("3x9", {}), ("4x4", {}), ("4x5", {}), ("5x4", {}), ("4x6", {}), ("5x5", {}),
    ("3x4", {"start": "1,1"}), ("5x5", {"start": "2,2"}),
    ("1x1", {"closed": "true"}), ("3x10", {"closed": "true"}), ("10x3", {"closed": "true"}),
    ("3x12", {"closed": "true"}), ("3x14", {"closed": "true"}), ("4x5", {"closed": "true"}),
    ("5x5", {"closed": "true"}), ("5x6", {"closed": "true"}), ("6x5", {"closed": "true"}),
    ("3x10", {"closed": "true", "start": "1,4"}),
]


@pytest.mark.parametrize("text, params", BOARDS, ids=[f"{t}{''.join(f'-{k}={v}' for k, v in p.items())}"
                                                     for t, p in BOARDS])
def test_every_fixed_point_and_orbit_count_agrees_with_the_sat_backend(text, params):
    """fix(g) of every element equals sat's (a count of the model with x = g(x) added), the proofs of none
    included; the orbit count equals the canonical representatives sat enumerates."""
    board = TOUR.parse(text, params)
    mine = frontier_orbits(text, params)
    theirs = burnside(TOUR, board, "sat", up_to="symmetry")
    listed = count_canonical(TOUR, board, "sat", up_to="symmetry")
    assert (mine.method, mine.complete, mine.problems) == ("burnside", True, [])
    assert mine.fixed == theirs.fixed
    assert mine.count == theirs.count == listed.count
    assert mine.group == listed.group


def test_six_by_six_closed_tours_and_each_kind_of_fixed_tour():
    """1245 closed 6x6 tours up to symmetry (sat's count): the half and quarter turns fix tours turned along
    themselves, counted on their folds; the other elements are proved to fix none."""
    mine = frontier_orbits("6x6", {"closed": "true"})
    theirs = burnside(TOUR, TOUR.parse("6x6", {"closed": "true"}), "sat", up_to="symmetry")
    assert mine.count == theirs.count == 1245 and mine.fixed == theirs.fixed
    assert (mine.fixed["rot180"], mine.fixed["rot90"], mine.fixed["rot270"]) == (156, 20, 20)
    how = mine.details["fixed_by"]
    assert how["rot90"].startswith("counted: fold of rot90") and how["transpose"].startswith("none: ")


@pytest.mark.parametrize("text, params, element", [
    ("3x10", {"closed": "true"}, "rot180+reverse"),  # a closed tour reversed about two moves the half turn fixes
    ("5x5", {}, "rot180+reverse"),  # an open tour reversed about the centre square
    ("4x5", {}, "rot180+reverse"),  # an open tour reversed about a move between a square and its image
    ("5x6", {"closed": "true"}, "mirror-lr"),  # a mirror whose tours would turn along themselves: counted, none
])
def test_each_kind_of_fold_is_counted_not_proved(text, params, element):
    mine = frontier_orbits(text, params)
    assert mine.details["fixed_by"][element].startswith(f"counted: fold of {element}")
    assert mine.fixed[element] == burnside(TOUR, TOUR.parse(text, params), "sat", up_to="symmetry").fixed[element]


@pytest.mark.parametrize("text, params", [("6x7", {"closed": "true"}), ("3x18", {"closed": "true"}), ("5x7", {})])
def test_fixed_points_past_enumeration_agree_with_sat_element_by_element(text, params):
    """Boards with too many tours to enumerate in a test (267,183 closed 6x7 orbits): each element but the
    identity counted by sat on its model with x = g(x) added, among them mirrors that turn closed tours along
    themselves (6x7's mirror-ud, 3x18's mirror-lr), counted on a fold swept along the rows or the columns."""
    board = TOUR.parse(text, params)
    mine = frontier_orbits(text, params)
    for name in mine.group[1:]:
        theirs = run_count(TOUR, board, bound(TOUR, "sat", up_to="symmetry"), OrbitVariant("symmetry", name))
        assert (name, theirs.complete, theirs.count) == (name, True, mine.fixed[name])
    assert any(v for k, v in mine.fixed.items() if k.startswith("mirror")) or text == "5x7"


SEQUENCES = golden("frontier")["oeis"]


@pytest.mark.parametrize("name", ["A328341", "A169777"])
def test_published_orbit_counts(name):
    """Every term of the OEIS rows of geometrically distinct open tours (4 X n to n = 26, 3 X n to n = 30)."""
    sequence = SEQUENCES[name]
    for n, term in enumerate(sequence["terms"], sequence["first"]):
        outcome = frontier_orbits(sequence["instance"].format(n=n), up_to=sequence["up_to"])
        assert (n, outcome.count, outcome.problems) == (n, term, [])


def test_published_symmetric_tours():
    """OEIS A328340: the 4 X (2n-1) tours the half turn reverses, four directed tours to each of its orbits."""
    sequence = SEQUENCES["A328340"]
    for n, term in enumerate(sequence["terms"], sequence["first"]):
        outcome = frontier_orbits(sequence["instance"].format(n=2 * n - 1))
        assert (n, outcome.fixed[sequence["element"]]) == (n, sequence["per_term"] * term)


def planted(fixed):
    """The knight's-tour puzzle with its fixed points listed by ``fixed(board, up_to)`` instead."""
    return replace(TOUR, frontier=replace(TOUR.frontier, fixed=fixed))


def test_a_wrong_proof_of_none_is_caught_by_the_sum():
    """4x5 open: a proof that wrongly says the half turn reverses no tour leaves 164 directed tours, which
    the group of 8 does not divide: the count says so, and sat's fix(g) disagrees."""
    def wrong(board: Board, up_to: str) -> list[Fixed]:
        return [Fixed(f.element, known=0, why="planted") if f.element == "rot180+reverse" else f
                for f in fixed_points(board, up_to)]

    outcome = frontier_orbits("4x5", puzzle=planted(wrong))
    assert outcome.problems == ["the fixed points sum to 164, which 8 does not divide"]
    assert outcome.fixed["rot180+reverse"] != burnside(TOUR, TOUR.parse("4x5", {}), "sat",
                                                       up_to="symmetry").fixed["rot180+reverse"]


def test_fixed_points_of_another_group_are_caught():
    def shifted(board: Board, up_to: str) -> list[Fixed]:
        found = fixed_points(board, up_to)
        return [found[0], *reversed(found[1:])]

    outcome = frontier_orbits("3x4", puzzle=planted(shifted))
    assert outcome.problems and outcome.problems[0].startswith("the fixed points are of ['identity', 'rot180+reverse'")


def motion(board: Board, name: str):
    return next(m for m in motions(board.rows, board.cols) if m.name == name)


def test_a_glue_that_left_out_the_images_would_disagree_with_sat():
    """6x6 closed tours the half turn fixes: 78 undirected on the fold (sat: 156 directed). The same fold
    glued as if the tour were its own moves alone (one piece, no images) counts something else."""
    board = Board(6, 6, closed=True)
    spec = fold_spec(board, motion(board, "rot180"), NONE_TAKEN, "rot180")
    assert run_spec(spec, Stop(), threads=1).count == 78
    data = spec.data.copy()
    data[data[GLUE] + PIECES] = 1
    assert run_spec(replace(spec, data=data), Stop(), threads=1).count != 78


def test_a_fold_too_wide_for_the_state_is_refused_in_one_line():
    board = Board(12, 12, closed=True)
    with pytest.raises(InvalidOption, match=r"^the fold of rot90 on the 12x12 board is \d+ squares wide"):
        fold_spec(board, motion(board, "rot90"), NONE_TAKEN, "rot90")


def test_the_command_line_prints_each_fixed_point_and_says_what_it_counts():
    done = run_cli("count", "knights-tour", "6x6", "-p", "closed=true", "--up-to", "symmetry", "--backend", "frontier")
    assert (done.returncode, done.stdout) == (0, "1245 (tours: up to symmetry; group of 16)\n")
    done = run_cli("count", "knights-tour", "5x6", "--up-to", "symmetry", "--backend", "frontier", "--json")
    record = json.loads(done.stdout)
    assert (record["count"], record["method"], record["group"]) == (4696, "burnside", 8)
    assert record["fixed"]["identity"] == 37568 and sum(record["fixed"].values()) == 8 * 4696
    assert record["fixed_counts"] == {"tours": "directed"}
    assert record["fixed_by"]["reverse"] == "none: a tour of 30 squares is not its own reverse"


def test_a_checkpoint_is_refused_for_a_count_of_many_runs(tmp_path):
    done = run_cli("count", "knights-tour", "4x5", "--up-to", "symmetry", "--backend", "frontier",
                   "--checkpoint", str(tmp_path / "c"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--checkpoint keeps the layers of one count" in done.stderr and not (tmp_path / "c").exists()


def test_the_fold_picture_is_drawn_from_a_tour_the_half_turn_reverses(tmp_path):
    pytest.importorskip("matplotlib")
    from gridsat.benchmarks.fold_picture import draw, half_turn, reversed_tour

    tour = reversed_tour()
    assert len(set(tour)) == 20 and [half_turn(s) for s in tour] == tour[::-1]
    draw(tmp_path / "fold.png")
    assert (tmp_path / "fold.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_up_to_reversal_lists_its_fixed_points_and_keeps_its_checkpoint(tmp_path):
    """The reversal alone: one count (the identity's) and a proof, so a checkpoint is kept and resumed."""
    args = ("count", "knights-tour", "6x6", "-p", "closed=true", "--up-to", "reversal", "--backend", "frontier",
            "--checkpoint", str(tmp_path / "c"), "--json")
    first, again = (json.loads(run_cli(*args).stdout) for _ in range(2))
    assert first["count"] == again["count"] == 9862 and first["fixed"] == {"identity": 19724, "reverse": 0}
    assert again["method"] == "burnside" and (tmp_path / "c").exists()


def test_a_cross_check_up_to_symmetry_runs_the_frontier_beside_sat():
    done = run_cli("crosscheck", "knights-tour", "5x5", "--up-to", "symmetry", "--backends", "sat,frontier", "--json")
    report = json.loads(done.stdout)
    frontier = [r for r in report["results"] if r["backend"] == "frontier"]
    assert done.returncode == 0 and report["agree"] and len(frontier) == 1
    mine = frontier[0]
    assert (mine["count"], mine["method"], mine["fixed"]["rot180+reverse"]) == (112, "burnside", 64)


def test_a_stopped_orbit_count_says_how_long_it_ran() -> None:
    """A count up to symmetry stopped by its time limit is incomplete and reports the seconds it counted
    (the stopped element's included: it said 0.0)."""
    import gridsat

    outcome = gridsat.count("knights-tour", "7x7", backend="frontier", up_to="symmetry", time_limit=1.0)
    assert not outcome.complete and outcome.reason == "time limit"
    assert outcome.seconds > 0
