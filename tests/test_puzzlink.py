"""puzz.link URLs of Shikaku: public puzzles decode, are written back byte for byte, solve uniquely and,
where the source gives its answer, to that answer; bad URLs are refused in one line."""

from __future__ import annotations

import pytest

import gridsat
from conftest import golden
from conftest import gridsat as run_gridsat
from gridsat import api
from gridsat.models.errors import InvalidInstance
from gridsat.models.shikaku.formats import read, to_puzzlink
from gridsat.models.shikaku.puzzlink import clue_code, read_clue

PUBLISHED = golden("shikaku/puzzlink")["puzzle"]


def regions(answer: str, rows: int, cols: int) -> set[frozenset[tuple[int, int]]]:
    """The rooms that a pzprv3 answer's walls cut the grid into (flood fill across missing walls)."""
    lines = [[int(v) for v in line.split()] for line in answer.strip().splitlines()]
    side, below = lines[:rows], lines[rows:]
    assert len(side) == rows and len(below) == rows - 1, "an answer has ROWS + ROWS-1 lines of walls"
    seen: dict[tuple[int, int], int] = {}
    for start in ((r, c) for r in range(rows) for c in range(cols)):
        if start in seen:
            continue
        stack, seen[start] = [start], len(seen)
        while stack:
            r, c = stack.pop()
            steps = [((r, c + 1), c + 1 < cols and side[r][c] != 1), ((r, c - 1), c > 0 and side[r][c - 1] != 1),
                     ((r + 1, c), r + 1 < rows and below[r][c] != 1), ((r - 1, c), r > 0 and below[r - 1][c] != 1)]
            for cell, open_ in steps:
                if open_ and cell not in seen:
                    seen[cell] = seen[start]
                    stack.append(cell)
    rooms: dict[int, set[tuple[int, int]]] = {}
    for cell, room in seen.items():
        rooms.setdefault(room, set()).add(cell)
    return {frozenset(room) for room in rooms.values()}


def cells(rect: list[int]) -> frozenset[tuple[int, int]]:
    top, left, height, width = rect
    return frozenset((top + dr, left + dc) for dr in range(height) for dc in range(width))


@pytest.mark.parametrize("entry", PUBLISHED, ids=lambda entry: entry["url"].rsplit("/", 3)[-3])
def test_a_published_puzzle_reads_writes_back_and_solves_uniquely(entry: dict[str, str]) -> None:
    board = read(entry["url"])
    assert to_puzzlink(board).split("?", 1)[1] == entry["url"].split("?", 1)[1], "written as pzprjs writes it"
    assert board.total() == board.area
    outcome = gridsat.count("shikaku", entry["url"], limit=2)
    assert (outcome.count, outcome.complete) == (1, True), entry["source"]
    if "answer" in entry:
        with gridsat.enumerate("shikaku", entry["url"]) as found:
            (solution,) = list(found)
        assert {cells(rect) for rect in solution} == regions(entry["answer"], board.rows, board.cols)


def test_the_command_line_counts_a_url_as_unique() -> None:
    url = "https://puzz.link/p?shikaku/8/8/j3j9j4l4h6h5n9h5h4l6j4j5j"
    result = run_gridsat("count", "shikaku", url, "--limit", "2")
    assert (result.returncode, result.stdout.strip()) == (0, "1 (unique)")


def test_every_clue_width_round_trips() -> None:
    # Read one clue at a time: a grid large enough to hold the widest clues is over the cell limit.
    for value in (1, 15, 16, 255, 256, 4095, 4096, 8191, 8192, 12239, 12240, 77775, 77776, 100_000):
        code = clue_code(value)
        assert len(code) == 1 if value < 16 else code[0] in "-+=%*$"
        assert read_clue(code + "g", 0, "t") == (value, len(code))


def test_a_long_blank_run_is_written_in_letters_of_at_most_twenty() -> None:
    board = read("\n".join(" ".join("." for _ in range(9)) for _ in range(4)).replace(".", "36", 1))
    assert to_puzzlink(board) == "https://puzz.link/p?shikaku/9/4/-24zu"
    assert read(to_puzzlink(board)) == board


@pytest.mark.parametrize(("url", "says"), [
    ("https://puzz.link/p?shikaku/6/6/s66j4.g8n4h4g", "is '?'"),
    ("https://puzz.link/p?lits/6/6/abc", "not a Shikaku"),
    ("https://puzz.link/p?shikaku/6/6/j3", "cover 5 cells"),
    ("https://puzz.link/p?shikaku/2/2/4j", "the clues and blanks run to 5 cells, but 2 columns x 2 rows have 4"),
    ("https://puzz.link/p?shikaku/2/2/4\u0130", "character 2 is '\u0130'"),  # lowers to two characters
    ("https://puzz.link/p?shikaku/6/6/j3g56h6t6h23g5jzzz", "after the last cell"),
    ("https://puzz.link/p?shikaku/6/6/j3g56h6t6h23g5!", "'!'"),
    ("https://puzz.link/p?shikaku/6/6/-4", "2 hexadecimal digits"),
    ("https://puzz.link/p?shikaku/0/6/", "bad size"),
    ("https://puzz.link/p?shikaku/999999/6/", "bad size"),
    ("https://puzz.link/p?shikaku/2/1/-ffg", "larger than"),
    ("https://puzz.link/shikaku/6/6/j3", "expected https://puzz.link/p?shikaku"),
])
def test_a_bad_url_is_refused_in_one_line(url: str, says: str) -> None:
    with pytest.raises(InvalidInstance, match="puzz.link URL") as caught:
        read(url)
    assert says in str(caught.value) and "\n" not in str(caught.value)
    result = run_gridsat("count", "shikaku", url)
    assert result.returncode == 2 and says in result.stderr and result.stderr.count("\n") == 1


def test_one_row_of_text_is_read_as_text() -> None:
    assert gridsat.count("shikaku", "2 . . 2").count == 1


def test_generate_writes_a_url_that_reads_back_as_the_same_puzzle() -> None:
    text = api.generate("shikaku", "5x7", seed=4)
    url = api.generate("shikaku", "5x7", seed=4, format="puzzlink")
    assert url.startswith("https://puzz.link/p?shikaku/7/5/") and read(url.strip()) == read(text)
    result = run_gridsat("generate", "shikaku", "5x7", "--format", "svg")
    assert result.returncode == 2 and "text, gameid, puzzlink" in result.stderr
