"""Shikaku: the input formats and their errors, the verifier, the seed's solution, golden counts,
the generator, and cross-checks of generated puzzles on every backend and encoding."""

from __future__ import annotations

import contextlib
import io

import pytest

from conftest import LISTING, execute, golden
from gridsat.models import get_puzzle
from gridsat.models.errors import InvalidInstance
from gridsat.models.golden import path
from gridsat.models.shikaku import describe, note
from gridsat.models.shikaku.formats import Board, parse_game_id, parse_text, read, to_game_id, to_text
from gridsat.models.shikaku.formulations import candidates
from gridsat.models.shikaku.solution import render, verify
from gridsat.solvers.backend import Request
from gridsat.solvers.checks.crosscheck import configurations, crosscheck

SHIKAKU = get_puzzle("shikaku")
DATA = path("shikaku")  # the puzzle files that the golden counts name
GOLDEN = golden("shikaku/golden")["count"]


def instance(text: str) -> Board:
    """An instance as typed, with file names taken from models/golden/shikaku."""
    return SHIKAKU.parse(str(DATA / text) if (DATA / text).is_file() else text, {})


def seed_partition() -> tuple[list[str], set[frozenset[tuple[int, int]]]]:
    """The seed's printed letter grid, and the regions it draws as sets of cells."""
    rows = [line for line in (DATA / "seed_solution.txt").read_text().splitlines() if not line.startswith("#")]
    regions: dict[str, set[tuple[int, int]]] = {}
    for r, line in enumerate(rows):
        for c, letter in enumerate(line):
            regions.setdefault(letter, set()).add((r, c))
    return rows, {frozenset(cells) for cells in regions.values()}


def partition(solution: list[list[int]]) -> set[frozenset[tuple[int, int]]]:
    return {frozenset((r, c) for r in range(t, t + h) for c in range(x, x + w)) for t, x, h, w in solution}


# --- formats -------------------------------------------------------------------------------------


def test_every_format_reads_the_seed_puzzle_identically(tmp_path):
    builtin = read("seed")
    assert (builtin.rows, builtin.cols, len(builtin.clues)) == (12, 12, 22)
    assert (8, 0, 10) in builtin.clues and (4, 8, 9) in builtin.clues  # the seed's (0, 8, 10) and (8, 4, 9)
    game_id = (DATA / "seed.gameid").read_text().strip()
    text = (DATA / "seed.txt").read_text()
    dashes = "\n\n# the same grid, blanks written '-'\n" + text.replace(" .", " -").replace(".", "-")
    (tmp_path / "dashes.txt").write_text(dashes)
    readings = [instance("seed.txt"), instance(game_id), read(text), read(str(tmp_path / "dashes.txt"))]
    assert all(reading == builtin for reading in readings)
    assert to_game_id(builtin) == game_id and parse_text(to_text(builtin), "x") == builtin


def test_game_id_runs_numbers_and_separators_round_trip():
    board = parse_game_id("30x2:a12_3zzd4")  # columns x rows: 30 columns, 2 rows; 1+1+1+26+26+4+1 cells
    assert (board.rows, board.cols, board.clues) == (2, 30, ((0, 1, 12), (0, 2, 3), (1, 29, 4)))
    assert to_game_id(board) == "30x2:a12_3zzd4"
    assert read("30x2e2.5a:a12_3zzd4") == board  # Tatham's full parameters (expansion, "a") are accepted


def test_text_format_ignores_comments_blank_lines_and_spacing():
    board = read("# a comment\n\n  2   .\n\t.  2 \n# trailing\n")
    assert board == Board(2, 2, ((0, 0, 2), (1, 1, 2)))
    assert to_text(board) == "2 .\n. 2\n"


MALFORMED = [
    ("2 .\n. . .\n", r"line 2: 3 cells, but line 1 has 2"),
    ("# c\n2 .\n\n.\n", r"line 4: 1 cells, but line 2 has 2"),
    ("0 .\n. .\n", r"line 1, column 1: clue 0 must be a positive integer"),
    (". -3\n. .\n", r"line 1, column 2: clue -3 must be a positive integer"),
    (". .\nx .\n", r"line 2, column 1: 'x' is neither a clue"),
    ("2.5 .\n. .\n", r"'2.5' is neither a clue"),
    (". .\n. 5\n", r"line 2, column 2: clue 5 is larger than the 2x2 grid \(4 cells\)"),
    ("# only a comment\n\n", r"no grid rows"),
    ("no-such-file.txt", r"puzzle file 'no-such-file.txt' does not exist"),
    ("5x5", r"'5x5' does not exist \(INSTANCE is a puzzle file, a game id WxH:desc"),
    ("3x3:a3", r"game id '3x3:a3': the description covers 2 cells, but 3x3 has 9"),
    ("5x3:12", r"covers 1 cells, but 5x3 has 15"),  # two numbers need a "_" between them
    ("2x2:d1", r"covers 5 cells, but 2x2 has 4"),
    ("2x2:a5b", r"character 2: clue 5 is larger than the 2x2 grid"),
    ("2x2:a0b", r"character 2: clue 0 must be a positive integer"),
    ("2x2:a-b", r"character 2 is '-'"),
    ("0x2:", r"bad size 0x2"),
    ("300x300:", r"bad size 300x300"),
]


@pytest.mark.parametrize("text, message", MALFORMED, ids=[m for _, m in MALFORMED])
def test_malformed_input_is_one_line_naming_the_problem(text, message):
    with pytest.raises(InvalidInstance, match=message) as error:
        SHIKAKU.parse(text, {})
    assert "\n" not in str(error.value)


def test_a_directory_and_parameters_are_rejected(tmp_path):
    with pytest.raises(InvalidInstance, match="is a directory"):
        SHIKAKU.parse(str(tmp_path), {})
    with pytest.raises(InvalidInstance, match="unknown parameter 'k'"):
        SHIKAKU.parse("seed", {"k": "1"})


def test_a_file_name_with_a_trailing_slash_names_a_folder_and_is_refused(tmp_path):
    (tmp_path / "p.txt").write_text("2 .\n. 2\n")
    assert SHIKAKU.parse(str(tmp_path / "p.txt"), {})  # the file itself reads
    with pytest.raises(InvalidInstance, match=r"ends in '/' \(a folder's name\)") as error:
        SHIKAKU.parse(str(tmp_path / "p.txt") + "/", {})
    assert "\n" not in str(error.value)


# --- the model -----------------------------------------------------------------------------------


def test_candidates_contain_their_clue_and_no_other():
    board = read("2x2:2_2b")
    assert candidates(board) == [[(0, 0, 2, 1)], [(0, 1, 2, 1)]]
    seed = read("seed")
    assert sum(map(len, candidates(seed))) == 218


def test_a_clue_sum_other_than_the_area_is_valid_and_says_so():
    board = read("2x2:3c")
    assert note(board) == "the clues sum to 3 but the grid has 4 cells, so there is no solution"
    assert describe(board) == "2x2, 1 clue"
    assert note(read("seed")) is None and describe(read("seed")) == "12x12, 22 clues"


def test_verify_accepts_the_seed_solution_and_names_broken_rules():
    board = read("2x2:2b2")
    good = [[0, 0, 2, 1], [0, 1, 2, 1]]
    assert verify(board, good) == []
    assert any("two rectangles" in p for p in verify(board, [[0, 0, 2, 1], [0, 0, 2, 1]]))
    assert any("area 1" in p for p in verify(board, [[0, 0, 1, 1], [0, 1, 2, 1]]))
    assert any("does not contain its clue" in p for p in verify(board, [[0, 1, 2, 1], [0, 0, 2, 1]]))
    assert any("another clue" in p for p in verify(board, [[0, 0, 2, 2], [1, 1, 1, 1]]))
    assert any("in no rectangle" in p for p in verify(read("2x2:1_1_1a"), [[0, 0, 1, 1], [0, 1, 1, 1], [1, 0, 1, 1]]))
    assert any("leaves the grid" in p for p in verify(board, [[0, 0, 2, 1], [0, 1, 3, 1]]))
    assert verify(board, [[0, 0, 2, 1]])[0].startswith("expected one rectangle per clue (2)")
    assert verify(board, [[0, 0, 2], [0, 1, 2, 1]]) == ["rectangle 0 is not [row, col, height, width]: [0, 0, 2]"]


def test_render_draws_letters_and_boxes_when_letters_run_out():
    board = read("2x2:2b2")
    assert render(board, [[0, 0, 1, 2], [1, 0, 1, 2]]) == "aa\nbb"
    many = read("60x1:" + "1" + "_1" * 59)
    picture = render(many, [[0, c, 1, 1] for c in range(60)])
    assert len(set(picture)) > 26 and picture[0] != picture[1]


# --- the seed ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "backend, request_",
    [
        ("cpsat", Request()),
        ("sat", Request()),
        ("reference", Request()),
        ("reference", Request(algorithm="cells")),
    ],
    ids=["cpsat", "sat", "reference-propagate", "reference-cells"],
)
def test_the_seed_has_one_solution_the_one_it_prints(backend, request_):
    board = read("seed")
    outcome = execute(SHIKAKU, board, backend, request_, keep=True)
    assert (outcome.count, outcome.complete, outcome.invalid) == (1, True, [])
    letters, regions = seed_partition()
    assert partition(outcome.solutions[0]) == regions
    assert render(board, outcome.solutions[0]) == "\n".join(letters)  # the seed's own letters


def test_the_seed_cross_checks_on_every_backend_encoding_and_algorithm():
    report = crosscheck(SHIKAKU, read("seed"), configurations(SHIKAKU, LISTING, scope="all"))
    assert report.agree, report.problems
    assert {o.count for o in report.outcomes} == {1} and all(o.complete for o in report.outcomes)


# --- golden counts -------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", [
    pytest.param(e, id=e["instance"], marks=[pytest.mark.skip(
        reason="thousands of solutions on every backend and encoding take long; "
               "test_slow_golden_counts_on_the_sat_backend counts it on sat")] if e.get("slow") else [])
    for e in GOLDEN])
def test_golden_counts_agree_on_every_backend_and_encoding(entry):
    board = instance(entry["instance"])
    report = crosscheck(SHIKAKU, board, configurations(SHIKAKU, LISTING, scope="each"))
    assert report.agree, report.problems
    for outcome in report.outcomes:
        assert (outcome.count, outcome.complete) == (entry["count"], True), (entry["instance"], outcome.label)


@pytest.mark.slow
@pytest.mark.parametrize("entry", [e for e in GOLDEN if e.get("slow")], ids=lambda e: e["instance"])
def test_slow_golden_counts_on_the_sat_backend(entry):
    outcome = execute(SHIKAKU, instance(entry["instance"]), "sat")
    assert (outcome.count, outcome.complete, outcome.invalid) == (entry["count"], True, [])


def test_count_with_limit_two_tells_unique_several_or_none():
    answers = {}
    for text in ("seed", "2x2:2b2", "2x2:3c"):
        outcome = execute(SHIKAKU, read(text), "cpsat", limit=2)
        answers[text] = (outcome.count, outcome.complete)
    assert answers == {"seed": (1, True), "2x2:2b2": (2, False), "2x2:3c": (0, True)}


@pytest.mark.parametrize("algorithm", ["propagate", "cells"])
def test_the_reference_stops_at_a_time_limit_with_a_partial_count(algorithm):
    board = instance("6x6:2a2a2b2a2a2_2a2a2b2a2a2_2a2a2b2a2a2")  # 6728 solutions
    outcome = execute(SHIKAKU, board, "reference", Request(algorithm=algorithm), time_limit=0.2)
    assert (outcome.complete, outcome.reason, outcome.invalid) == (False, "time limit", [])
    assert 0 < outcome.count < 6728


# --- the generator -------------------------------------------------------------------------------


def test_generator_repeats_for_a_seed_and_respects_max_area():
    text = SHIKAKU.generate("7x9", seed=3, max_area=6, unique=False)
    assert text == SHIKAKU.generate("7x9", seed=3, max_area=6, unique=False)
    assert text.startswith("# gridsat generate shikaku 7x9 --seed 3 --max-area 6\n")
    board = read(text)
    assert (board.rows, board.cols, board.total()) == (7, 9, 63)
    assert max(n for _, _, n in board.clues) <= 6
    assert execute(SHIKAKU, board, "cpsat", limit=1).count == 1  # the partition it drew is a solution


def test_generator_rejects_bad_sizes_and_areas():
    with pytest.raises(InvalidInstance, match="bad grid size"):
        SHIKAKU.generate("7by9", seed=1, max_area=None, unique=False)
    with pytest.raises(InvalidInstance, match="max_area=0 must be at least 1"):
        SHIKAKU.generate("5x5", seed=1, max_area=0, unique=False)


@pytest.mark.parametrize("size, seed", [("6x6", 1), ("8x5", 2), ("10x10", 3), ("15x15", 4)])
def test_unique_generated_puzzles_have_one_solution(size, seed):
    board = read(SHIKAKU.generate(size, seed=seed, max_area=None, unique=True))
    outcome = execute(SHIKAKU, board, "reference", Request(algorithm="cells"))
    assert (outcome.count, outcome.complete, outcome.invalid) == (1, True, [])


# Counts as drawn by the generator for these seeds (non-unique puzzles, so enumeration is exercised).
@pytest.mark.parametrize(
    "size, seed, max_area, count",
    [("5x5", 4, 6, 5), ("6x6", 3, 4, 6), ("8x8", 3, 6, 6), ("8x8", 6, 12, 3), ("8x8", 4, 4, 22), ("10x10", 4, 4, 32)],
)
def test_generated_puzzles_cross_check_on_every_backend_and_encoding(size, seed, max_area, count):
    board = read(SHIKAKU.generate(size, seed=seed, max_area=max_area, unique=False))
    report = crosscheck(SHIKAKU, board, configurations(SHIKAKU, LISTING, scope="each"), time_limit=30)
    assert report.agree, (size, seed, report.problems)
    assert all(o.complete for o in report.outcomes)
    assert {o.count for o in report.outcomes} == {count}


# --- the command line ----------------------------------------------------------------------------


def gridsat(*args: str) -> tuple[int, str, str]:
    """Run ``gridsat ARGS`` in this process: exit status, stdout, stderr."""
    cli = pytest.importorskip("gridsat.cli")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(list(args))
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
    return status, out.getvalue(), err.getvalue()


def test_cli_solves_the_seed_and_answers_unique_several_or_none():
    letters, _ = seed_partition()
    assert gridsat("solve", "shikaku", "seed")[:2] == (0, "\n".join(letters) + "\n")
    verdicts = {text: gridsat("count", "shikaku", text, "--limit", "2")[1].strip() for text in ("seed", "2x2:2b2")}
    assert verdicts["seed"].startswith("1 (unique") and verdicts["2x2:2b2"].startswith("at least 2 (several")
    status, out, err = gridsat("count", "shikaku", "2x2:3c", "--limit", "2")
    assert (status, out.split()[:2]) == (0, ["0", "(none)"]) and "so there is no solution" in err


def test_cli_malformed_input_is_one_line_and_status_2(tmp_path):
    (tmp_path / "ragged.txt").write_text("2 .\n. . .\n")
    status, out, err = gridsat("count", "shikaku", str(tmp_path / "ragged.txt"))
    assert (status, out) == (2, "") and err.count("\n") == 1 and "line 2: 3 cells, but line 1 has 2" in err


def test_cli_generate_writes_a_unique_puzzle_that_reads_back_from_stdin(monkeypatch):
    status, out, _ = gridsat("generate", "shikaku", "9x7", "--seed", "5", "--max-area", "8", "--unique")
    assert status == 0 and out == SHIKAKU.generate("9x7", seed=5, max_area=8, unique=True)
    monkeypatch.setattr("sys.stdin", io.StringIO(out))
    assert gridsat("count", "shikaku", "-", "--limit", "2")[:2] == (0, "1 (unique)\n")
