"""The command line as a user meets it: outputs, JSON fields, exit statuses and one-line errors."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

from conftest import ROOT, finish, gridsat, gridsat_process, patience, spawn
from gridsat import signals
from gridsat.cli import build_parser
from gridsat.models.constraints.amo import ENCODINGS as TATAMI_AMO
from gridsat.models.tatami.formulations import corners
from gridsat.signals import sigterm_as_interrupt
from gridsat.solvers.backend import BACKENDS
from gridsat.solvers.backend import backend_class as get_backend_class
from gridsat.solvers.backends.sat import SatBackend

BAD_INPUT = [
    (["count", "tatami", "0x4"], "'0x4'"),
    (["count", "tatami", "4by7"], "'4by7'"),
    (["count", "tatami", "99999x99999"], "too large"),
    (["count", "chess", "4x4"], "unknown puzzle 'chess'"),
    (["count", "tatami", "4x7", "--backend", "gurobi"], "unknown backend 'gurobi'"),
    (["count", "tatami", "4x7", "--backend", "sat", "--encoding", "magic"], "unknown encoding 'magic'"),
    (["count", "tatami", "4x7", "--backend", "sat", "--solver", "zchaff"], "unknown solver 'zchaff'"),
    (["count", "tatami", "4x7", "-p", "size=3"], "unknown parameter 'size'"),
    (["count", "tatami", "4x7", "-p", "size"], "bad parameter 'size'"),
    (["count", "tatami", "4x7", "--limit", "0"], "'0'"),
    (["count", "tatami", "4x7", "--time-limit", "soon"], "'soon'"),
    (["count", "tatami", "4x7", "--solver", "glucose4"], "does not apply to backend 'cpsat'"),
    (["enumerate", "tatami", "4x7", "--format", "xml"], "'xml'"),
    (["crosscheck", "tatami", "4x7", "--backends", "cpsat,nope"], "'nope'"),
    (["crosscheck", "tatami", "4x7", "--solver", "zchaff"], "unknown solver 'zchaff'"),
    (["crosscheck", "tatami", "4x7", "--solver", "kissat404"], "solver 'kissat404' cannot solve incrementally"),
    (["crosscheck", "tatami", "4x7", "--solver", "glucose4", "--backends", "cpsat"], "--solver 'glucose4'"),
    (["generate", "tatami", "4x7"], "has no generator"),
    (["frobnicate"], "frobnicate"),
    (["generate", "shikaku", "-1x0"], "'-1x0' is read as an option"),
    (["count", "tatami", "3x4", "--encoding", "-x"], "'-x' is read as an option"),
]


@pytest.mark.parametrize("args, named", BAD_INPUT, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_bad_input_is_one_line_and_status_2(args, named):
    done = gridsat(*args)
    assert done.returncode == 2, done.stderr
    assert named in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_count_prints_the_number_and_json_has_the_fields():
    assert gridsat("count", "tatami", "4x7").stdout == "3\n"
    record = json.loads(gridsat("count", "tatami", "4x7", "--backend", "sat", "--json").stdout)
    assert {k: record[k] for k in ("puzzle", "instance", "backend", "count", "complete")} == {
        "puzzle": "tatami", "instance": "4x7", "backend": "sat", "count": 3, "complete": True}
    assert record["encoding"] == "mats+pairwise+nosymmetry/cadical195" and isinstance(record["seconds"], float)
    assert record["seconds"] > 0 and record["build_seconds"] > 0  # measured, not left at zero


def test_count_with_a_limit_says_unique_several_or_none():
    several = gridsat("count", "tatami", "3x4", "--limit", "2").stdout
    assert several == "at least 2 (several; incomplete: solution limit)\n"
    assert gridsat("count", "tatami", "3x3", "--limit", "2").stdout == "0 (none)\n"
    assert gridsat("count", "tatami", "1x2", "--limit", "2").stdout == "1 (unique)\n"


class CornerlessSat(SatBackend):
    """A deliberately broken encoding: the tatami CNF without its no-four-corners clauses, so it also
    finds the domino tilings where four mats meet (3x4 has 11 tilings, 4 of them valid)."""

    name = "cornerless"

    def prepare(self, puzzle, instance, request):
        job = super().prepare(puzzle, instance, request)
        pool, clauses = job.formulation.pool, job.formulation.cnf.clauses
        rules = [sorted(pool.id(k) for k in corner) for corner in corners(instance)]
        clauses[:] = [c for c in clauses if sorted(c) not in rules]
        return job


def test_count_counts_valid_solutions_only(monkeypatch):
    monkeypatch.setitem(BACKENDS, "cornerless", f"{__name__}:CornerlessSat")
    done = gridsat("count", "tatami", "3x4", "--backend", "cornerless", "--json")
    record = json.loads(done.stdout)
    assert (record["count"], record["invalid"], done.returncode) == (4, 7, 1)
    assert done.stderr.count("INVALID solution from cornerless") == 3  # the first few, then a count
    assert done.stderr.count("\n") == 4 and done.stderr.splitlines()[-1].endswith(": 4 more, 7 in all")
    text = gridsat("count", "tatami", "3x4", "--backend", "cornerless")
    assert (text.stdout, text.returncode) == ("4 (7 INVALID solutions not counted)\n", 1)


def test_a_puzzle_note_reaches_stderr_and_json():
    done = gridsat("solve", "shikaku", "2x2:3c")
    assert (done.returncode, done.stdout) == (1, "no solution exists\n")
    assert done.stderr == "gridsat: note: the clues sum to 3 but the grid has 4 cells, so there is no solution\n"
    record = json.loads(gridsat("count", "shikaku", "2x2:3c", "--json").stdout)
    assert record["count"] == 0 and "sum to 3" in record["note"]


def test_solve_prints_a_verified_tiling():
    started = time.perf_counter()
    done = gridsat("solve", "tatami", "4x7", "--json", "--backend", "reference")
    elapsed = time.perf_counter() - started
    record = json.loads(done.stdout)
    assert len(record["solution"]) == 14 and done.returncode == 0
    # The times are measured, not placeholders: positive, and together within the command's own run.
    assert record["seconds"] > 0 and record["build_seconds"] > 0
    assert record["build_seconds"] + record["seconds"] <= elapsed
    text = gridsat("solve", "tatami", "3x3")
    assert (text.returncode, text.stdout) == (1, "no solution exists\n")


def test_enumerate_streams_jsonl_and_marks_a_limit_incomplete():
    lines = gridsat("enumerate", "tatami", "3x4", "--limit", "2", "--format", "jsonl").stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert [("solution" in r) for r in records] == [True, True, False]
    assert records[-1]["summary"]["complete"] is False and records[-1]["summary"]["count"] == 2
    text = gridsat("enumerate", "tatami", "3x4", "--backend", "sat").stdout
    assert text.count("# solution") == 4 and "# 4 solutions (complete)" in text


def test_crosscheck_agrees_on_the_seed_room():
    done = gridsat("crosscheck", "tatami", "4x7", "--json", "--encodings", "each", "--backends", "cpsat,sat,reference")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["agree"] is True
    assert {r["count"] for r in report["results"]} == {3}
    # cpsat (mats, directions, symmetry), both models, every at-most-one and symmetry on sat, the reference
    assert len(report["results"]) == 6 + len(TATAMI_AMO)
    encodings = {r["encoding"] for r in report["results"]}
    assert {"directions+nosymmetry", "directions+pairwise+nosymmetry/cadical195"} <= encodings
    assert "mats+native+nosymmetry/minicard" in encodings  # CNF+ on a solver that takes it


def test_crosscheck_compares_the_counting_backends_by_their_counts():
    report = json.loads(gridsat("crosscheck", "tatami", "4x7", "--json", "--backends", "sat,frontier,d4").stdout)
    assert report["agree"] and [r["backend"] for r in report["results"]] == ["sat", "frontier", "d4"]
    assert [r["count"] for r in report["results"]] == [3, 3, 3]


def test_crosscheck_runs_the_sat_backend_with_the_solver_named():
    report = json.loads(gridsat("crosscheck", "tatami", "3x4", "--solver", "minisat22", "--json",
                                "--backends", "cpsat,sat,reference").stdout)
    assert [r["encoding"] for r in report["results"]] == [
        "mats+nosymmetry", "mats+pairwise+nosymmetry/minisat22", "rowscan"]
    assert report["agree"] and {r["count"] for r in report["results"]} == {4}


def test_solve_on_the_reference_prefers_a_one_solution_method():
    record = json.loads(gridsat("solve", "knights-tour", "9x10", "--backend", "reference", "--json").stdout)
    assert record["encoding"] == "warnsdorff" and len(record["solution"]) == 90
    counted = json.loads(gridsat("count", "knights-tour", "3x4", "--backend", "reference", "--json").stdout)
    assert (counted["encoding"], counted["count"], counted["complete"]) == ("backtrack", 16, True)


def test_export_dimacs_carries_projection_and_legend(tmp_path):
    target = tmp_path / "room.cnf"
    done = gridsat("export", "tatami", "3x4", "--format", "dimacs", "--encoding", "ladder", "-o", str(target))
    assert done.returncode == 0
    text = target.read_text().splitlines()
    show = next(line for line in text if line.startswith("c p show"))
    assert show.split()[3:] == [str(v) for v in range(1, 18)] + ["0"]
    assert any(line.startswith("c ind ") for line in text)
    assert "c v 1 ('h', 0, 0)" in text
    header = next(line for line in text if line.startswith("p cnf"))
    assert int(header.split()[3]) == sum(1 for line in text if line.endswith(" 0") and not line.startswith("c"))


def test_export_cpsat_is_protobuf_text(tmp_path):
    done = gridsat("export", "tatami", "3x4", "--format", "cpsat")
    assert done.returncode == 0 and done.stdout.count("variables {") == 17


def test_a_failed_export_leaves_no_file(tmp_path):
    target = tmp_path / "room.cnf"
    done = gridsat("export", "tatami", "3x4", "--format", "dimacs", "--encoding", "magic", "-o", str(target))
    assert done.returncode == 2 and list(tmp_path.iterdir()) == []


def test_output_files_follow_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        target = tmp_path / "room.cnf"
        assert gridsat("export", "tatami", "3x4", "--format", "dimacs", "-o", str(target)).returncode == 0
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        target.chmod(0o604)  # a file that exists keeps its mode, as with open(path, "w")
        assert gridsat("generate", "shikaku", "5x5", "--seed", "1", "-o", str(target)).returncode == 0
        assert stat.S_IMODE(target.stat().st_mode) == 0o604 and target.read_text().startswith("# gridsat generate")
    finally:
        os.umask(old)
    assert [p.name for p in tmp_path.iterdir()] == ["room.cnf"]  # no temporary file left


def test_the_installed_script_runs(tmp_path):
    done = gridsat_process("count", "tatami", "4x7", "--backend", "reference")
    assert (done.returncode, done.stdout) == (0, "3\n")
    bad = gridsat_process("count", "tatami", "4x0")
    assert bad.returncode == 2
    assert bad.stderr == "gridsat: error: bad room size '4x0': rows and columns must be positive\n"


def test_list_names_puzzles_backends_and_encodings():
    listing = json.loads(gridsat("list", "--json").stdout)
    assert [p["name"] for p in listing["puzzles"]][0] == "tatami"
    assert [b["name"] for b in listing["backends"]] == ["cpsat", "sat", "reference", "frontier", "d4", "ganak"]
    counting = [b["name"] for b in listing["backends"] if "enumerate" not in b["can"]]
    assert counting == ["frontier", "d4", "ganak"]
    tours = next(p for p in listing["puzzles"] if p["name"] == "knights-tour")
    grid = next(p for p in listing["puzzles"] if p["name"] == "prime-grid")
    assert "frontier" in tours["backends"] and "frontier" not in grid["backends"]
    assert "seqcounter" in listing["amo_encodings"]


# Instances that take each backend far longer than the tests wait.
LONG = {"reference": ("tatami", "30x30"), "cpsat": ("prime-grid", "5x5"), "sat": ("prime-grid", "5x5")}


@pytest.mark.parametrize("backend", list(LONG))
def test_a_time_limit_gives_a_partial_count(backend):
    started = time.monotonic()
    done = gridsat("count", *LONG[backend], "--backend", backend, "--time-limit", "1")
    assert done.returncode == 4 and time.monotonic() - started < patience(5)  # gave up: not 0, not 1
    assert done.stdout.startswith("at least ") and done.stdout.endswith("(incomplete: time limit)\n")


@pytest.mark.slow  # waits 5 s per case for start-up
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("backend", list(LONG))
def test_ctrl_c_and_sigterm_give_a_partial_answer(backend, sig):
    child = spawn([sys.executable, "-m", "gridsat", "count", *LONG[backend], "--backend", backend])
    time.sleep(patience(5, margin=1))  # past start-up (importing OR-Tools), into the search: longer when loaded
    child.send_signal(sig)
    out, err = finish(child, timeout=patience(10))
    assert child.returncode == 130, err
    assert out.startswith("at least ") and out.endswith("(incomplete: interrupted)\n")
    assert "Traceback" not in err


@pytest.mark.slow  # waits 5 s per case for start-up
@pytest.mark.parametrize("gap", [0.05, 0.1, 0.2])
def test_a_second_sigterm_soon_after_the_first_is_ignored_to_the_end(gap):
    # Python's exit (library teardown) outlasts the handler's block: a repeat then must not turn 130 into 143.
    child = spawn([sys.executable, "-m", "gridsat", "count", *LONG["cpsat"], "--backend", "cpsat"])
    time.sleep(patience(5, margin=1))  # as above
    child.send_signal(signal.SIGTERM)
    time.sleep(gap)
    child.send_signal(signal.SIGTERM)
    out, err = finish(child, timeout=patience(10))
    assert child.returncode == 130, err
    assert out.endswith("(incomplete: interrupted)\n") and "Traceback" not in err


@pytest.mark.slow  # waits 6 s for the timeout
@pytest.mark.skipif(shutil.which("timeout") is None, reason="needs coreutils timeout")
def test_timeout_sends_sigterm_twice_and_the_partial_crosscheck_still_prints():
    # timeout signals the command, then its whole process group: the repeat must not cut the report short.
    done = subprocess.run(["timeout", "--preserve-status", "-s", "TERM", "6", sys.executable, "-m", "gridsat",
                           "crosscheck", "prime-grid", "5x5", "--backends", "sat,cpsat", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=patience(20))
    assert done.returncode == 130, done.stderr
    report = json.loads(done.stdout)
    assert report["interrupted"] is True and report["complete"] is False
    assert [r["reason"] for r in report["results"]] == ["interrupted"]  # the cpsat run never started


def test_exit_statuses_tell_no_solution_from_giving_up():
    assert gridsat("solve", "tatami", "3x5").returncode == 1  # proved: no tiling
    # No closed tour exists on an odd board, but backtracking cannot prove it in the time allowed.
    gave_up = gridsat("solve", "knights-tour", "7x7", "-p", "closed=true", "--backend", "reference",
                      "--algorithm", "backtrack", "--time-limit", "0.3")
    assert (gave_up.returncode, gave_up.stdout) == (4, "no solution found (time limit)\n")
    assert gridsat("count", "tatami", "3x4", "--limit", "2").returncode == 0  # the answer asked for
    not_all = gridsat("count", "knights-tour", "5x5", "--backend", "reference", "--algorithm", "warnsdorff")
    assert not_all.returncode == 4 and "does not search for every solution" in not_all.stdout
    enum = gridsat("enumerate", "tatami", "30x30", "--backend", "reference", "--time-limit", "0.5")
    assert enum.returncode == 4 and "incomplete: time limit" in enum.stdout


def test_solve_that_found_a_solution_is_complete():
    record = json.loads(gridsat("solve", "tatami", "4x7", "--json").stdout)
    assert (record["complete"], record["reason"], record["count"]) == (True, None, 1)
    tour = gridsat("solve", "knights-tour", "9x10", "--backend", "reference", "--json")
    assert tour.returncode == 0 and json.loads(tour.stdout)["complete"] is True
    assert len(tour.stdout.splitlines()) < 40  # squares wrapped several to a line, not a number per line


def test_json_keeps_rows_and_mats_on_one_line():
    text = gridsat("solve", "tatami", "4x7", "--json").stdout
    mats = [line.strip().rstrip(",") for line in text.splitlines() if line.strip().startswith("[[")]
    assert len(mats) == 14 and all(json.loads(m)[0] for m in mats)
    grid = gridsat("solve", "prime-grid", "6x6", "--json").stdout
    record = json.loads(grid)
    for row in record["solution"]:
        assert json.dumps(row) in grid  # one row per line, as json.dumps writes it


def test_crosscheck_says_when_nothing_finished():
    done = gridsat("crosscheck", "tatami", "30x30", "--backends", "reference", "--time-limit", "0.3")
    assert done.returncode == 3
    assert done.stdout.splitlines()[-1] == ("tatami 30x30: no run finished (time limit), so nothing was compared; "
                                            "1 unchecked")
    assert "agree:" not in done.stdout.splitlines()[-1]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {"": parser, **sub.choices}


def test_every_option_has_help_text():
    for name, parser in subcommands().items():
        for action in parser._actions:
            assert action.help, f"gridsat {name}: {action.option_strings or action.dest} has no help"


def test_sigterm_raises_keyboard_interrupt_once_and_the_old_handler_comes_back():
    before = signal.getsignal(signal.SIGTERM)
    with sigterm_as_interrupt():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs here, in the main thread
        os.kill(os.getpid(), signal.SIGTERM)  # the repeat that timeout sends to the process group
        time.sleep(0.1)  # ignored: no KeyboardInterrupt while the partial answer is printed
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.parametrize("stopped", [True, False])
def test_a_process_that_took_a_stop_request_goes_straight_to_ignoring_sigterm(stopped: bool, monkeypatch) -> None:
    # At the end of ``python -m gridsat`` after a stop request, SIGTERM must never meet the default handler: a
    # repeat 50 ms after the first killed the process (status -15 for 130) when the handler was put back first and
    # only then set to ignore. The handlers set are recorded, not installed.
    set_to = []
    monkeypatch.setattr(signal, "signal", lambda signum, handler: set_to.append(handler) or signal.SIG_DFL)
    monkeypatch.setattr(signals, "_last_stop", [time.monotonic()] if stopped else [])
    with sigterm_as_interrupt(exiting=True):
        pass
    assert set_to == [signals.interrupt, signal.SIG_IGN if stopped else signal.SIG_DFL]


def test_every_command_says_what_it_does_and_shows_examples():
    for name, parser in subcommands().items():
        if not name:
            continue
        text = parser.format_help()
        assert parser.description and parser.description.split()[0] in text, f"gridsat {name}: no description"
        examples = text.partition("\nexamples:\n")[2].splitlines()
        assert len(examples) >= 2, f"gridsat {name}: fewer than two examples"
        assert all(line.startswith(f"  gridsat {name}") for line in examples), examples


def test_solve_offers_only_the_backends_that_solve():
    helps = {name: " ".join(subcommands()[name].format_help().split()) for name in ("solve", "count")}
    offered = helps["solve"].partition("--backend NAME one of: ")[2].partition(" (default")[0].split(", ")
    assert offered == [n for n in BACKENDS if "solve" in get_backend_class(n).can]
    assert not {"d4", "ganak", "frontier"} & set(offered) and "cpsat" in offered
    assert "ganak" in helps["count"].partition("--backend NAME one of: ")[2].partition(" (default")[0]
    # the API checks the name, so a near miss still gets its suggestion
    done = gridsat("solve", "tatami", "3x4", "--backend", "SAT")
    assert done.returncode == 2 and "did you mean 'sat'" in done.stderr


def test_generate_states_the_default_largest_region():
    from gridsat.models.shikaku.generate import DEFAULT_MAX_AREA

    text = " ".join(subcommands()["generate"].format_help().split())
    assert f"--max-area A the largest region, in cells (default {DEFAULT_MAX_AREA})" in text


def test_completion_scripts_name_every_command():
    pytest.importorskip("shtab", reason="the completion extra is not installed")
    commands = [name for name in subcommands() if name]
    for shell in ("bash", "zsh"):
        done = gridsat("completion", shell)
        assert done.returncode == 0 and done.stderr == ""
        assert all(name in done.stdout for name in commands), shell
        assert "--time-limit" in done.stdout and "--jobs" in done.stdout
    assert gridsat("completion", "fish").returncode == 2


def test_completion_without_shtab_says_which_extra_in_one_line(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(sys.modules, "shtab", None)  # import shtab raises ImportError
    done = gridsat("completion", "bash")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "gridsat: error: shell completion needs shtab: pip install 'gridsat[completion]'\n"


def test_install_hints_quote_the_extra_one_way():
    # ``pip install 'gridsat[x]'``: single quotes, which every shell takes as they are (zsh globs [x] unquoted)
    texts = [p for folder in ("gridsat", "models", "solvers", "benchmarks", "docs", "tests")
             for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md", ".txt", ".toml")]
    hints = [(p.name, hint) for p in [*texts, ROOT / "README.md"]
             for hint in re.findall(r"pip install \S*gridsat\[\S*", p.read_text())]
    assert len(hints) > 5
    one_way = re.compile(r"pip install 'gridsat\[[a-z,]+\]'\S*")
    assert [(name, hint) for name, hint in hints if not one_way.fullmatch(hint)] == []


def test_the_command_line_starts_without_loading_the_api_so_a_ctrl_c_while_it_loads_is_caught() -> None:
    """``gridsat`` (``gridsat.__main__``) imports the package lazily (PEP 562): nothing of the API, the
    puzzles or the solvers is loaded before ``main`` runs, inside the block that turns a Ctrl-C while
    ``gridsat.cli`` loads into "gridsat: interrupted" and status 130 (it was a traceback, status -2)."""
    probe = ("import sys, gridsat.__main__; "
             "print(sorted(m for m in sys.modules if m.startswith(('gridsat.', 'ortools', 'pysat', 'numpy'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['gridsat.__main__', 'gridsat.signals']", done.stdout


def test_the_parser_and_a_plain_sat_count_load_no_numpy_and_no_or_tools() -> None:
    """Every command builds the whole parser: ``gridsat strength``'s options loaded its checks, numpy among them,
    80 ms of every command's start (a plain sat count of prime-grid 3x3: 0.26 s against 0.20 s, whole
    processes). The modules a command needs load when it runs."""
    probe = ("import sys, gridsat.cli; gridsat.cli.build_parser(); a = {'numpy', 'ortools'} & set(sys.modules); "
             "gridsat.cli.main(['count', 'prime-grid', '3x3', '--backend', 'sat']); "
             "print(sorted(a), sorted({'numpy', 'ortools', 'numba'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          timeout=patience(60))
    assert done.stdout.splitlines()[-1] == "[] []", (done.stdout, done.stderr)


def test_a_ctrl_c_while_the_parser_is_built_is_caught_too() -> None:
    """Building the parser loads the benchmark commands' modules (a few tenths of a second): a Ctrl-C then
    printed a traceback and died by SIGINT (seen with a Ctrl-C 0.4 to 0.7 s after start)."""
    planted = ("import sys, gridsat.cli, gridsat.__main__\n"
               "def interrupted():\n    raise KeyboardInterrupt\n"
               "gridsat.cli.build_parser = interrupted\n"
               "sys.exit(gridsat.__main__.main())\n")
    done = subprocess.run([sys.executable, "-c", planted, "count", "tatami", "3x4"], capture_output=True,
                          text=True, cwd=ROOT, timeout=patience(20))
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "gridsat: interrupted\n")


def test_a_ctrl_c_while_or_tools_loads_gives_the_partial_answer() -> None:
    """OR-Tools loads when a cpsat run is built; pybind11 turns a KeyboardInterrupt in a module's start-up
    into "ImportError: initialization failed" (seen with a SIGTERM on a loaded machine): a traceback."""
    planted = ("import builtins, sys, gridsat.__main__\n"
               "real = builtins.__import__\n"
               "def loading(name, *args, **kwargs):\n"
               "    if name == 'ortools.sat.python' or name.startswith('ortools.sat.python.cp_model'):\n"
               "        raise ImportError('initialization failed') from KeyboardInterrupt()\n"
               "    return real(name, *args, **kwargs)\n"
               "builtins.__import__ = loading\n"
               "sys.exit(gridsat.__main__.main())\n")
    done = subprocess.run([sys.executable, "-c", planted, "count", "prime-grid", "3x3", "--backend", "cpsat"],
                          capture_output=True, text=True, cwd=ROOT, timeout=patience(30))
    assert (done.returncode, done.stdout) == (130, "at least 0 (incomplete: interrupted)\n"), done.stderr
    assert "Traceback" not in done.stderr
