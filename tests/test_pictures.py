"""SVG pictures, read back as XML: the elements each puzzle promises, legible text, sheets, and the CLI."""

from __future__ import annotations

import os
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from conftest import execute, gridsat
from gridsat.models import get_puzzle, svg
from gridsat.models.shikaku.solution import regions, touching
from gridsat.pictures import sheet, still
from gridsat.solvers.backend import Request

NS = {"s": svg.SVG_NS}


def solved(puzzle: str, text: str, params: dict[str, str] | None = None, backend: str = "cpsat", **request):
    p = get_puzzle(puzzle)
    instance = p.parse(text, params or {})
    outcome = execute(p, instance, backend, Request(**request), limit=1, keep=True)
    return p, instance, outcome.solutions[0], outcome.label


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{{{svg.SVG_NS}}}svg" and float(root.get("width")) > 0 and root.get("viewBox")
    return root


def by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{{{svg.SVG_NS}}}{tag}") if cls in (e.get("class") or "").split()]


def title(root: ET.Element) -> str:
    return by_class(root, "text", "title")[0].text


def fonts(root: ET.Element) -> list[float]:
    return [float(e.get("font-size")) for e in root.iter(f"{{{svg.SVG_NS}}}text")]


def test_tatami_draws_one_rectangle_per_mat_and_marks_where_three_meet():
    p, room, tiling, label = solved("tatami", "4x7")
    root = parse(still(p, room, tiling, label))
    assert title(root) == f"tatami 4x7 · {label}"
    mats = by_class(root, "rect", "mat")
    assert len(mats) == 14
    # Each rectangle covers exactly its mat's two cells, and together they cover the room once.
    cell = float(by_class(root, "rect", "room")[0].get("width")) / 7
    boxes = {(round(float(m.get("y")) / cell), round(float(m.get("x")) / cell),
              round(float(m.get("height")) / cell), round(float(m.get("width")) / cell)) for m in mats}
    assert boxes == {(a[0], a[1], b[0] - a[0] + 1, b[1] - a[1] + 1) for a, b in tiling}
    assert by_class(root, "circle", "junction") and not by_class(root, "circle", "four")


def test_tatami_shows_a_broken_rule_where_four_mats_meet():
    p, room = get_puzzle("tatami"), get_puzzle("tatami").parse("3x4", {})
    stacked = [[[r, c], [r, c + 1]] for r in range(3) for c in (0, 2)]
    root = parse(svg.to_text(svg.picture(p.pictures.draw(room, stacked, None), "broken")))
    assert len(by_class(root, "circle", "four")) == 2


def test_prime_grid_tells_parities_apart_and_writes_every_neighbour_sum():
    p, grid, filling, label = solved("prime-grid", "3x3")
    root = parse(still(p, grid, filling, label))
    values = [int(e.text) for e in by_class(root, "text", "value")]
    assert sorted(values) == sorted(v for row in filling for v in row)
    odd, even = by_class(root, "rect", "odd"), by_class(root, "rect", "even")
    assert (len(odd), len(even)) == (sum(v % 2 for v in values), sum(1 - v % 2 for v in values))
    assert {e.get("fill") for e in odd}.isdisjoint({e.get("fill") for e in even})
    sums = [int(e.text) for e in by_class(root, "text", "sum")]
    assert len(sums) == 12 and all(s in {3, 5, 7, 11, 13, 17, 19} for s in sums)


def test_shikaku_fills_each_rectangle_apart_from_its_neighbours_and_writes_every_clue():
    p, board, solution, label = solved("shikaku", "seed")
    root = parse(still(p, board, solution, label))
    regions_ = by_class(root, "rect", "region")
    assert len(regions_) == len(board.clues) == 22
    clues = by_class(root, "text", "clue")
    assert sorted(int(e.text) for e in clues) == sorted(n for _, _, n in board.clues)
    fills = [e.get("fill") for e in regions_]
    near = touching(board, regions(board, solution))
    assert all(fills[i] != fills[j] for i, others in enumerate(near) for j in others)


@pytest.mark.parametrize("text, params, moves, closing", [("9x10", {}, 89, 0), ("6x6", {"closed": "true"}, 35, 1)])
def test_knights_tour_draws_one_segment_per_move_step_numbers_start_and_end(text, params, moves, closing):
    p, board, tour, label = solved("knights-tour", text, params)
    root = parse(still(p, board, tour, label))
    lines = by_class(root, "line", "move")
    assert len(lines) == moves + closing and len(by_class(root, "line", "closing")) == closing
    steps = [int(e.text) for e in by_class(root, "text", "step")]
    assert sorted(steps) == list(range(1, board.area + 1))
    assert len(by_class(root, "circle", "start")) == 1 and len(by_class(root, "circle", "end")) == 1 - closing
    # Every segment joins two squares a knight's move apart.
    cell = float(by_class(root, "rect", "square")[0].get("width"))
    for e in lines:
        dx, dy = (abs(float(e.get(a)) - float(e.get(b))) / cell for a, b in (("x1", "x2"), ("y1", "y2")))
        assert sorted((round(dx), round(dy))) == [1, 2]


def test_big_boards_scale_and_drop_illegible_text_with_a_note():
    p, board, tour, label = solved("knights-tour", "40x40", backend="reference", algorithm="warnsdorff")
    root = parse(still(p, board, tour, label))
    assert float(root.get("width")) < 1000 and len(by_class(root, "line", "move")) == 1599
    assert not by_class(root, "text", "step") and "left out" in by_class(root, "text", "note")[0].text
    assert min(fonts(root)) >= svg.MIN_FONT
    p, board, tour, label = solved("knights-tour", "9x10")
    assert min(fonts(parse(still(p, board, tour, label)))) >= svg.MIN_FONT


def test_a_sheet_draws_every_solution_numbered():
    p = get_puzzle("tatami")
    room = p.parse("3x4", {})
    tilings = execute(p, room, "reference", keep=True).solutions
    root = parse(sheet(p, room, tilings, "reference:rowscan", "complete"))
    tiles = by_class(root, "g", "tile")
    assert [by_class(t, "text", "caption")[0].text for t in tiles] == ["#1", "#2", "#3", "#4"]
    assert [len(by_class(t, "rect", "mat")) for t in tiles] == [6, 6, 6, 6]
    assert title(root) == "tatami 3x4 · reference:rowscan · 4 solutions (complete)"


def test_cli_writes_pictures_and_sheets(tmp_path):
    done = gridsat("solve", "knights-tour", "9x10", "--format", "svg", "-o", str(tmp_path / "tour.svg"))
    assert done.returncode == 0 and done.stdout == ""
    assert len(by_class(parse((tmp_path / "tour.svg").read_text()), "line", "move")) == 89
    done = gridsat("enumerate", "tatami", "3x4", "--format", "svg", "-o", str(tmp_path / "all.svg"))
    assert done.returncode == 0 and "# 4 solutions (complete)" in done.stderr
    assert len(by_class(parse((tmp_path / "all.svg").read_text()), "g", "tile")) == 4
    shown = gridsat("solve", "tatami", "4x7", "--format", "svg")
    assert len(by_class(parse(shown.stdout), "rect", "mat")) == 14
    limited = gridsat("enumerate", "prime-grid", "3x3", "--limit", "5", "--format", "svg")
    assert len(by_class(parse(limited.stdout), "g", "tile")) == 5 and "incomplete: solution limit" in limited.stdout
    none = gridsat("solve", "tatami", "3x3", "--format", "svg", "-o", str(tmp_path / "none.svg"))
    assert (none.returncode, none.stdout) == (1, "no solution exists\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.svg", "tour.svg"]


@pytest.mark.parametrize("args, named", [
    (["solve", "tatami", "0x4", "--format", "svg", "-o", "{dir}/x.svg"], "'0x4'"),
    (["solve", "tatami", "4x7", "--format", "svg", "-o", "{dir}/missing/x.svg"], "does not exist"),
    (["solve", "tatami", "4x7", "--format", "svg", "-o", "{dir}"], "is a folder"),
    (["solve", "tatami", "4x7", "--format", "svg", "--json"], "exclude each other"),
    (["enumerate", "tatami", "3x4", "--format", "svg", "-o", "{dir}/missing/all.svg"], "does not exist"),
    (["enumerate", "tatami", "3x4", "-o", "{dir}/all.txt"], "-o needs --format svg"),
    (["enumerate", "tatami", "3x4", "--format", "png"], "'png'"),
])
def test_bad_picture_requests_are_one_line_and_leave_no_file(tmp_path, args, named):
    done = gridsat(*(a.format(dir=tmp_path) for a in args))
    assert done.returncode == 2 and named in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def refuses(folder: Path) -> bool:
    """Whether creating a file in ``folder`` fails."""
    try:
        (folder / ".probe").touch()
    except OSError:
        return True
    (folder / ".probe").unlink()
    return False


def test_a_folder_that_refuses_writes_is_a_one_line_error(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if not refuses(folder):  # root writes anyway; sysfs refuses new files to everyone
            folder = Path("/sys")
        if not refuses(folder):
            pytest.skip("no folder here refuses writes")
        before = sorted(os.listdir(folder))
        done = gridsat("solve", "tatami", "4x7", "--format", "svg", "-o", str(folder / "x.svg"))
        assert done.returncode == 2 and "cannot write" in done.stderr and len(done.stderr.splitlines()) == 1
        assert sorted(os.listdir(folder)) == before
    finally:
        (tmp_path / "locked").chmod(0o700)
