"""The progress line: what it says, that a resumed run's rate is its own, and who gets to see it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from typing import BinaryIO

import pytest

from conftest import ROOT, patience
from gridsat.progress import describe
from gridsat.solvers.run import Progress


def test_the_line_says_solutions_rate_parts_elapsed_and_time_left() -> None:
    line = describe(Progress(1000, 2, 8, 10.0))
    assert line == "1,000 solutions  100/s  parts 2 of 8  0:10 elapsed  ~0:30 left"


def test_the_line_says_how_many_parts_were_split_again() -> None:
    line = describe(Progress(1000, 57, 80, 10.0, split_again=3))
    assert line.startswith("1,000 solutions  100/s  parts 57 of 80, 3 split again  0:10 elapsed")


def test_a_resumed_run_counts_only_its_own_work_in_the_rate_and_time_left() -> None:
    # Five parts and 10,000 solutions came from the checkpoint: they took no time in this run.
    line = describe(Progress(10_500, 6, 8, 10.0, resumed=10_000, parts_resumed=5))
    assert line == "10,500 solutions  50/s  parts 6 of 8 (5 resumed)  0:10 elapsed  ~0:20 left"
    assert "left" not in describe(Progress(10_000, 5, 8, 3.0, resumed=10_000, parts_resumed=5))


def test_only_a_split_run_says_splitting() -> None:
    # A plain run has no parts ever: "splitting" past a second would be untrue.
    assert "splitting" not in describe(Progress(5000, 0, None, 3.0))
    assert describe(Progress(5000, 0, None, 3.0, splitting=True)) == "5,000 solutions  1,667/s  splitting  0:03 elapsed"
    assert "splitting" not in describe(Progress(50, 0, None, 0.5, splitting=True))  # not worth saying yet


# A partial count: every run below stops at its time limit.
COUNTED = re.compile(r"at least \d+ \(incomplete: time limit.*\)\n")


def read_all(screen: BinaryIO, into: bytearray) -> None:
    """Everything written to a terminal, until its other end is closed."""
    try:
        while chunk := screen.read(65536):
            into += chunk
    except OSError:  # the terminal's other end is closed: all of it was read
        pass


@pytest.mark.slow  # counts prime-grid 4x5/1..21 (about 6 s of search on two workers), then 5x5/1..25 twice for 3 s
def test_a_terminal_sees_the_line_and_a_pipe_or_quiet_does_not() -> None:
    # The terminal run: a count long enough to split after its probe, so that the line shows its parts.
    # Eight parts named: its probe runs alone about 1 + 40 x a part's start-up seconds (1.1 to 2.6 s) of
    # the count's 6 s; by default at least 3.2 s, which needed the 5x5/1..25 count (28 s) to be sure of a split.
    split = [sys.executable, "-m", "gridsat", "count", "prime-grid", "4x5", "-p", "max=21", "--backend", "sat",
             "--jobs", "2", "--parts", "8"]
    command = [sys.executable, "-m", "gridsat", "count", "prime-grid", "5x5", "-p", "max=25", "--backend", "sat",
               "--jobs", "2"]
    # The runs that must draw nothing stop after 3 s, in a count that takes longer: the line, redrawn a
    # few times a second, would be there by then. The terminal run counts to its end, so that it has
    # split and its line shown parts however long its probe takes on a busy machine (a time limit, even
    # one scaled by the load, ended some runs before their workers started).
    briefly = ["--time-limit", "3"]
    seen = {}
    for quiet in ([], ["--quiet", *briefly]):
        main, terminal = os.openpty()
        with open(main, "rb", buffering=0) as screen:
            # Read the terminal while the count runs: a terminal holds a few kilobytes, and a line
            # redrawn for a minute fills it, which would block the count's writes and hang it.
            drawn = bytearray()
            reader = threading.Thread(target=read_all, args=(screen, drawn), daemon=True)
            reader.start()
            done = subprocess.run(command + quiet if quiet else split, stdout=subprocess.PIPE, stderr=terminal,
                                  text=True, timeout=patience(300), cwd=ROOT)
            os.close(terminal)
            reader.join(timeout=patience(30))
        assert COUNTED.fullmatch(done.stdout) if quiet else done.stdout == "50784\n", done.stdout
        seen["--quiet" in quiet] = bytes(drawn).decode()
    assert "solutions" in seen[False] and "parts " in seen[False] and "elapsed" in seen[False]
    assert "\r\x1b[K# prime-grid 4x5/1..21 on sat" in seen[False], "the line is cleared before the timing"
    assert "solutions" not in seen[True]
    piped = subprocess.run(command + briefly, capture_output=True, text=True, timeout=patience(120), cwd=ROOT)
    assert COUNTED.fullmatch(piped.stdout), piped.stdout
    assert "solutions" not in piped.stderr


class Terminal:
    """stderr as a terminal sees it: what was written, and isatty()."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_check_proof_shows_the_stage_a_split_runs_check_is_at_on_a_terminal_only(tmp_path, monkeypatch,
                                                                                 capsys) -> None:
    # A split run's check takes seconds to minutes (prime-grid 4x5's 80 parts, 11 s) and printed nothing until
    # its verdict. Its stages, in order: each part, the parts' solutions counted once, the cubes' cover.
    from gridsat import Split, api, cli, progress
    from gridsat.certification import build
    from gridsat.solvers.proof.whole import check_parts

    folder = tmp_path / "parts"
    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend="sat", proof=folder,
                        split=Split(jobs=2, probe=0, parts=8))
    parts = len(list(folder.glob("part-*")))
    assert outcome.details["certified"] and parts > 1
    stages: list[str] = []
    assert check_parts(folder, build, on_stage=stages.append)[0].judgement().certified
    wanted = [*(f"checking part {i} of {parts} (part-" for i in range(1, parts + 1)),
              f"checking that the {parts} parts count no solution twice",
              f"checking that the {parts} parts' cubes cover every solution"]
    assert len(stages) == len(wanted) and all(map(str.startswith, stages, wanted)), stages
    # The line: drawn from the start here (a real one waits half a second), cleared before the verdict.
    monkeypatch.setattr(progress.StageLine, "AFTER", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.001)
    for quiet in (False, True):
        screen = Terminal()
        monkeypatch.setattr(sys, "stderr", screen)
        assert cli.main(["check-proof", str(folder), *(["--quiet"] if quiet else [])]) == 0
        assert capsys.readouterr().out.startswith("certified: knights-tour 5x5")
        if quiet:
            assert screen.text == ""
        else:
            # which stages are drawn is the ticker's clock's (part 1 is often over before its first draw on a busy
            # machine): the ones drawn are stages told, in their order, each with its elapsed time
            drawn = [line for line in screen.text.split("\r") if line and line != "\x1b[K"]
            assert drawn and all(line.endswith(" elapsed\x1b[K") for line in drawn), screen.text[:300]
            places = [next((i for i, w in enumerate(wanted) if line.startswith(w)), -1) for line in drawn]
            assert -1 not in places and places == sorted(places), screen.text[:300]
            assert screen.text.endswith("\r\x1b[K"), "the line is cleared before the verdict"


@pytest.mark.parametrize("command", ["count", "enumerate"])
def test_a_certified_split_run_gives_its_line_to_the_check_of_the_whole_on_the_runs_clock(command: str, monkeypatch,
                                                                                         capsys) -> None:
    # Once its parts were counted, a certified split run checks them again as a whole (prime-grid 4x5: 12 s)
    # while the count's line stood still at "parts 86 of 87 ... ~0:00 left". The command's own options are
    # kept; the run is made a certified split one that splits at once (a short count would run alone).
    from gridsat import Split, api, cli, progress

    real = getattr(api, command)
    seen: dict[str, object] = {}

    def split_certified(*args, on_progress=None, on_stage=None, **kwargs):
        seen["on_stage"] = on_stage
        return real("knights-tour", "5x5", params={"start": "0,0"}, backend="sat", certify=True,
                    split=Split(jobs=2, probe=0, parts=8), on_progress=on_progress, on_stage=on_stage)

    monkeypatch.setattr(api, command, split_certified)
    monkeypatch.setattr(progress, "EVERY", 0.001)
    # The line is drawn from the stage line's own thread, AFTER seconds into the run: a quick run (under
    # 0.5 s when the machine is quiet) had its parts checked before the first draw, so which stages are
    # drawn is left to the clock; the stages told are not.
    monkeypatch.setattr(progress.StageLine, "AFTER", 0.0)
    told: list[str] = []
    tell = progress.StageLine.__call__
    monkeypatch.setattr(progress.StageLine, "__call__", lambda line, text: (told.append(text), tell(line, text))[1])
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    args = [command, "knights-tour", "5x5", "-p", "start=0,0", "--backend", "sat"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "certified" in out and ("304 (tours: directed" in out if command == "count" else "# 304 solutions" in out)
    assert seen["on_stage"] is not None
    assert told[0].startswith("certifying the parts as a whole: checking part 1 of "), told[:3]
    assert any("cubes cover every solution" in t for t in told), told
    text = screen.text
    stage = text.index("\rcertifying the parts as a whole: ")
    assert "solutions  " in text[:stage] and " elapsed\x1b[K" in text[stage:], text[stage:stage + 300]
    assert text.endswith("\r\x1b[K") or "\r\x1b[K# knights-tour" in text, "the line is cleared before the timing"
    # --quiet: no line, and no stage asked for
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert cli.main([*args, "--quiet"]) == 0
    assert seen["on_stage"] is None and "certifying" not in sys.stderr.text, sys.stderr.text[:200]
