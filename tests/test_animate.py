"""gridsat animate: the recorded frames are the search's events, the page is self-contained, the
terminal player prints the seed's console board, and bad requests leave nothing behind."""

from __future__ import annotations

import io
import json
import re
from xml.etree import ElementTree as ET

import pytest

from conftest import gridsat
from gridsat.animate import frames, page, play, record, record_named
from gridsat.models import get_puzzle
from gridsat.models.knights_tour.board import render
from gridsat.solvers.backends.algorithms import algorithms
from gridsat.solvers.stop import Stop


class Enough(Exception):
    pass


def events(puzzle: str, text: str, name: str, cap: int = 100_000) -> list[tuple[str, int]]:
    """The (kind, depth) of the first ``cap`` events of a reference run."""
    out: list[tuple[str, int]] = []

    def listen(kind: str, depth: int, what: object) -> None:
        if len(out) == cap:
            raise Enough
        out.append((kind, depth))

    try:
        for _ in algorithms(puzzle)[name].run(get_puzzle(puzzle).parse(text, {}), Stop(), listen):
            pass
    except Enough:
        pass
    return out


def steps_of(html: str) -> tuple[list, list]:
    """The PIECES and STEPS arrays the page's script replays."""
    pieces = json.loads(re.search(r"const PIECES = (.*);\n", html).group(1).replace("<\\/", "</"))
    steps = json.loads(re.search(r"const STEPS = (.*);\n", html).group(1).replace("<\\/", "</"))
    return pieces, steps


@pytest.mark.parametrize("puzzle, text, name", [
    ("tatami", "3x4", "rowscan"), ("prime-grid", "2x3", "dfs"), ("shikaku", "seed", "cells"),
    ("shikaku", "seed", "propagate"),
    ("knights-tour", "9x10", "divide"), ("knights-tour", "5x5", "warnsdorff"),
])
def test_the_page_replays_every_event_of_a_finished_search(puzzle, text, name):
    p = get_puzzle(puzzle)
    recording = record_named(p, p.parse(text, {}), name, 100_000)
    html = page(recording)
    pieces, steps = steps_of(html)
    assert [(s[0], s[1]) for s in steps] == events(puzzle, text, name)
    assert all(0 <= i < len(pieces) for s in steps for i in s[2] + s[3])
    assert "ran to its end" in html and not recording.capped
    for piece in pieces:  # each piece is one well-formed SVG element
        ET.fromstring(piece)
    # When a solution is found, the console board shows every cell filled.
    solved = [board for number, _, board in frames(recording) if recording.frames[number - 1].kind == "solution"]
    assert len(solved) == recording.solutions > 0
    assert all("." not in line.split() for board in solved for line in board)


def test_the_page_is_self_contained_and_says_when_the_step_cap_cut_the_search(tmp_path):
    target = tmp_path / "search.html"
    done = gridsat("animate", "knights-tour", "5x5", "--algorithm", "backtrack", "--max-steps", "300",
                   "-o", str(target))
    assert done.returncode == 0 and done.stdout == ""
    html = target.read_text()
    assert not re.search(r"https?:|src=|href=|@import|url\(", html), "the page must fetch nothing"
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") == 1 and "<script>" in html
    for control in ('id="play"', 'id="speed"', 'id="seek"', 'id="counter"', 'id="back"', 'id="next"'):
        assert control in html
    _, steps = steps_of(html)
    assert [(s[0], s[1]) for s in steps] == events("knights-tour", "5x5", "backtrack", 300)
    assert "Recording stopped at --max-steps 300" in html and "--max-steps 300" in done.stderr
    # The board, with the layers the pieces go into, is one SVG: read it back as XML.
    board = ET.fromstring(re.search(r"<svg.*?</svg>", html, re.S).group(0))
    assert {e.get("id") for e in board.iter() if e.get("id")} >= {"under", "pieces"}


@pytest.mark.parametrize("text, params", [("6x6", {"closed": "true"}), ("5x5", {}), ("8x8", {"closed": "true"})])
def test_the_last_frame_of_a_tour_shows_the_tour_found(text, params):
    p = get_puzzle("knights-tour")
    board = p.parse(text, params)
    recording = record_named(p, board, "warnsdorff", 100_000)
    (tour,) = algorithms("knights-tour")["warnsdorff"].run(board, Stop())
    *_, (number, _, last) = frames(recording)
    assert recording.frames[number - 1].kind == "solution" and last == render(board, tour).splitlines()


def test_divide_records_its_blocks_then_its_joins():
    p = get_puzzle("knights-tour")
    recording = record(p, p.parse("9x10", {}), algorithms("knights-tour")["divide"], 100_000)
    kinds = [f.kind for f in recording.frames]
    assert kinds[0] == "block" and kinds.count("join") >= 2 and kinds[-1] == "solution"
    assert recording.solutions == 1


def test_a_search_that_stops_early_says_why():
    p = get_puzzle("knights-tour")
    recording = record_named(p, p.parse("8x8", {}), "divide", 100)
    assert recording.frames == [] and "divide does not cover" in page(recording)


def test_the_terminal_plays_the_seeds_console_board():
    p = get_puzzle("tatami")
    recording = record_named(p, p.parse("3x4", {}), None, 1000)
    out = io.StringIO()
    play(recording, out)  # not a terminal: frame after frame, no escape codes
    text = out.getvalue()
    assert "\x1b" not in text and text.count("# tatami 3x4") == len(recording.frames) == 70
    first = text.split("\n\n")[0].splitlines()
    assert first == ["# tatami 3x4 · reference:rowscan  step 1/70: place [[0, 0], [0, 1]] (depth 1)",
                     "1 1 . .", ". . . .", ". . . ."]
    assert text.rstrip().endswith("The search ran to its end in 70 steps (4 solutions found).")
    screen, pauses = io.StringIO(), []
    play(recording, screen, fps=50, redraw=True, sleep=pauses.append)
    assert screen.getvalue().count("\x1b[H") == 70 and pauses == [0.02] * 70


def test_animate_on_the_command_line_to_stdout_and_the_terminal():
    html = gridsat("animate", "prime-grid", "2x2", "--max-steps", "50")
    assert html.returncode == 0 and html.stdout.startswith("<!DOCTYPE html>")
    assert len(steps_of(html.stdout)[1]) == 50
    frames = gridsat("animate", "knights-tour", "3x4", "--terminal", "--max-steps", "5")
    assert frames.returncode == 0 and frames.stdout.count("# knights-tour 3x4") == 5
    assert frames.stdout.splitlines()[1:4] == ["1 . . .", ". . . .", ". . . ."]


@pytest.mark.parametrize("args, named", [
    (["animate", "knights-tour", "5x5", "--algorithm", "dance", "-o", "{dir}/a.html"], "unknown algorithm 'dance'"),
    (["animate", "knights-tour", "0x5", "-o", "{dir}/a.html"], "'0x5'"),
    (["animate", "knights-tour", "5x5", "-o", "{dir}/missing/a.html"], "does not exist"),
    (["animate", "knights-tour", "5x5", "--terminal", "-o", "{dir}/a.html"], "choose one"),
    (["animate", "knights-tour", "5x5", "--max-steps", "0"], "'0'"),
])
def test_bad_animate_requests_are_one_line_and_leave_no_file(tmp_path, args, named):
    done = gridsat(*(a.format(dir=tmp_path) for a in args))
    assert done.returncode == 2 and named in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""
    assert list(tmp_path.iterdir()) == []
