"""Fuzzing the doors: malformed instances, parameters, encodings, numbers, Shikaku files, Tatham game
ids and bench suites, thrown at the real command line (in this process, so a traceback fails the test).

Each input is first offered to the parsing layer; what it rejects must come back from ``gridsat`` as
exit status 2, exactly one line on stderr naming the bad value, nothing on stdout and no file left
behind. Inputs the parser accepts are discarded (they are valid, and would start a solver). The
examples are derandomized, so a run of ``make test`` is repeatable and takes seconds.
"""

from __future__ import annotations

import argparse
import os
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import gridsat, patience
from gridsat.arguments import positive_float, positive_int, whole
from gridsat.benchmarks.results import Results
from gridsat.benchmarks.suite import load, plan
from gridsat.cli import parse_params
from gridsat.models import get_puzzle
from gridsat.models.errors import GridsatError
from gridsat.models.params import excerpt
from gridsat.models.shikaku.generate import generate
from gridsat.solvers.splitting.pool import scheduler_address

# GRIDSAT_FUZZ=N multiplies the examples of every test below (the default run takes seconds; a long
# soak, e.g. GRIDSAT_FUZZ=100 for ten minutes and more, explores far more inputs), derandomized so a
# failure repeats, unless GRIDSAT_FUZZ_RANDOM=1 asks for new inputs on every run.
SCALE = max(1, int(os.environ.get("GRIDSAT_FUZZ", "1")))
RANDOM = os.environ.get("GRIDSAT_FUZZ_RANDOM") == "1"
FUZZ = settings(max_examples=120 * SCALE, deadline=None, derandomize=not RANDOM, database=None,
                suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
FEW = settings(FUZZ, max_examples=40 * SCALE)  # inputs that start a subprocess-free but slower path
GRIDS = ("tatami", "prime-grid", "knights-tour")  # puzzles whose instance is RxC
JUNK = st.text(alphabet=string.ascii_letters + string.digits + string.punctuation + " \t×é\x00²٣", max_size=4)
# Numbers no puzzle or option takes: thousands of digits (Python's int() refuses past 4,300), digits
# of other scripts, superscripts, signs and separators in odd places.
HUGE = st.integers(19, 6000).map(lambda n: "9" * n)
# A small number padded with zeros past the 18 digits any number may have (4,400 of them once went through).
PADDED = st.tuples(st.integers(18, 6000), st.integers(0, 9)).map(lambda p: "0" * p[0] + str(p[1]))
ODD_DIGITS = st.sampled_from(["²", "٣", "１２", "3²", "⁴x4", "+-1", "1_000", "0x1F", "1e3", " ", "\t", ""])
BAD_NUMBERS = HUGE | PADDED | ODD_DIGITS | JUNK


def rejected(parse: Callable[[], object]) -> None:
    """Go on only when the parsing layer rejects the input with a GridsatError (any other exception fails)."""
    try:
        parse()
    except GridsatError:
        return
    assume(False)  # valid input: not what this test is about


def refused(args: list[str], named: list[str], folder: Path | None = None) -> None:
    """``gridsat ARGS`` gave status 2, one stderr line naming the bad value, and wrote nothing."""
    done = gridsat(*args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (args, done.stderr)
    assert len(lines) == 1 and lines[0].startswith("gridsat: error: "), (args, done.stderr)
    assert any(name in lines[0] for name in named), (args, named, lines[0])
    assert done.stdout == "" and "Traceback" not in done.stderr
    if folder is not None:
        assert list(folder.iterdir()) == [], (args, list(folder.iterdir()))


def shown(text: str) -> list[str]:
    """The ways a message may quote a value: as typed, stripped, or as Python writes it."""
    return [repr(text), repr(text.strip()), repr(text)[:30], text.strip()[:30] or repr(text), excerpt(text),
            excerpt(text.strip())]


@st.composite
def sizes(draw: st.DrawFn) -> str:
    """RxC with bad numbers, bad separators and junk around them."""
    number = st.one_of(st.integers(-3, 12), st.integers(10**3, 10**12)).map(str) | JUNK | HUGE | PADDED | ODD_DIGITS
    sep = st.sampled_from(["x", "X", "×", "*", "by", "", " x ", "xx", ",", "x-"])
    return draw(JUNK) + draw(number) + draw(sep) + draw(number) + draw(st.sampled_from(["", "", "x3", " ", "\n"]))


@FUZZ
@given(puzzle=st.sampled_from(GRIDS), text=sizes())
def test_malformed_sizes(puzzle, text):
    rejected(lambda: get_puzzle(puzzle).parse(text, {}))
    with tempfile.TemporaryDirectory() as tmp:
        refused(["export", puzzle, text, "--format", "dimacs", "-o", f"{tmp}/out.cnf"], shown(text), Path(tmp))


PARAM_KEYS = ["max", "min", "closed", "start", "size", "", " ", "max ", "MAX", "k=v"]
PARAM_VALUES = st.one_of(st.integers(-5, 10**7).map(str), st.sampled_from(["", "true", "maybe", "0,0", "9,9", "1,",
                                                                               "a,b", "1e3", "0x10", "-1,0"]), JUNK,
                         HUGE, PADDED, ODD_DIGITS)


@FUZZ
@given(puzzle=st.sampled_from(GRIDS), pairs=st.lists(st.tuples(st.sampled_from(PARAM_KEYS), PARAM_VALUES),
                                                     min_size=1, max_size=3))
def test_malformed_parameters(puzzle, pairs):
    texts = [f"{k}={v}" for k, v in pairs]
    rejected(lambda: get_puzzle(puzzle).parse("3x4", parse_params(texts)))
    flags = [f for text in texts for f in ("-p", text)]
    keys = [t.partition("=")[0].strip() for t in texts]  # the key as the command line reads it
    keys = [repr(k) for k in keys] + [f"{k}=" for k in keys] + [repr(t) for t in texts]
    refused(["count", puzzle, "3x4", *flags], keys)


TOKENS = ["support", "conflict", "pairwise", "ladder", "seqcounter", "symmetry", "nosymmetry", "parity", "integer",
          "boolean", "cover", "pack", "nooverlap2d", "rank", "position", "default", "magic", "", "PAIRWISE", "+"]


@FUZZ
@given(puzzle=st.sampled_from(["tatami", "prime-grid", "shikaku", "knights-tour"]), fmt=st.sampled_from(["dimacs",
       "cpsat"]), words=st.lists(st.sampled_from(TOKENS) | JUNK, min_size=1, max_size=4))
def test_malformed_encodings(puzzle, fmt, words):
    encoding = "+".join(words)
    chosen = get_puzzle(puzzle)
    rejected(lambda: chosen.encodings("cnf" if fmt == "dimacs" else "cpsat").resolve(encoding, exact=True))
    instance = "seed" if puzzle == "shikaku" else "3x4"
    with tempfile.TemporaryDirectory() as tmp:
        refused(["export", puzzle, instance, "--format", fmt, "--encoding", encoding, "-o", f"{tmp}/out"],
                [repr(encoding)], Path(tmp))


NUMBERS = st.one_of(st.integers(-10, 3).map(str), st.sampled_from(["nan", "-inf", "1e-999", "0.0", "1.5", "", "1_0x",
                                                                   "½", "0x10", "--1", "1e999999", "1e309", "1e10",
                                                                   "inf"]), BAD_NUMBERS)
# Every numeric option of every command, with its argparse type.
NUMERIC = {"--limit": ("count", "enumerate"), "--time-limit": ("count", "enumerate", "solve", "crosscheck"),
           "--jobs": ("count", "enumerate", "crosscheck"), "--parts": ("count", "enumerate", "crosscheck"),
           "--memory": ("count",)}
CHECKS = {"--limit": positive_int, "--time-limit": positive_float, "--jobs": whole, "--parts": positive_int,
          "--memory": positive_int}


@FUZZ
@given(flag=st.sampled_from(sorted(NUMERIC)), pick=st.integers(0, 3), value=NUMBERS)
def test_malformed_numbers(flag, pick, value):
    command = NUMERIC[flag][pick % len(NUMERIC[flag])]
    try:
        CHECKS[flag](value)
    except argparse.ArgumentTypeError:
        pass
    else:
        assume(False)
    refused([command, "tatami", "3x4", f"{flag}={value}"], [excerpt(value), repr(value)])


HERE = os.getcwd()
BLANK = st.sampled_from(["", " ", "\t", "  \t "])
TEXT_OPTIONS = {"--backend": "count", "--encoding": "count", "--solver": "count", "--algorithm": "count",
                "--scheduler": "count", "--checkpoint": "count", "--backends": "crosscheck", "-o": "solve",
                "--out": "bench"}


@FUZZ
@given(flag=st.sampled_from(sorted(TEXT_OPTIONS)), value=BLANK)
def test_blank_option_values_are_refused(flag, value):
    command = TEXT_OPTIONS[flag]
    given = f"{flag}={value}"
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # a blank --out taken as "here" would write here; nothing may be written
        try:
            args = [command, "smoke", given] if command == "bench" else [command, "tatami", "3x4", given]
            refused(args, [repr(value), "is empty"], Path(tmp))
        finally:
            os.chdir(HERE)


@FUZZ
@given(address=st.one_of(st.sampled_from(["tcp://", "tcp://host", "tcp://:8786", "tcp://h:0", "tcp://h:65536",
                                          "udp://h:1", "h", ":", "tcp://h:８７", "tcp://h:1/x", "tcp:// h:1"]),
                         st.builds(lambda a, b: f"{a}://{b}", JUNK, JUNK), JUNK)
               .filter(lambda a: not a.strip().startswith("inproc://")))  # a LocalCluster in this process
def test_malformed_scheduler_addresses(address):
    rejected(lambda: scheduler_address(address))
    with tempfile.TemporaryDirectory() as tmp:
        refused(["count", "tatami", "3x4", "--jobs", "2", f"--scheduler={address}"], [excerpt(address), "is empty"])
        refused(["bench", "smoke", "--out", f"{tmp}/out", f"--scheduler={address}"], [excerpt(address), "is empty"])
        assert not Path(tmp, "out").exists()


@FUZZ
@given(size=sizes() | st.sampled_from(["20x20", "3x3"]), area=st.integers(-3, 3) | st.none(), seed=st.integers())
def test_malformed_generator_requests(size, area, seed):
    rejected(lambda: generate(size, seed=seed, max_area=area))  # a valid request makes a small puzzle: ms
    flags = ["--max-area", str(area)] if area is not None else []
    with tempfile.TemporaryDirectory() as tmp:
        refused(["generate", "shikaku", size, "--seed", str(seed), *flags, "-o", f"{tmp}/p.txt"],
                [*shown(size), "'--max-area'", f"--max-area {area}", f"'{area}'"], Path(tmp))


CELLS = st.sampled_from([".", "-", "1", "2", "3", "4", "12", "0", "-3", "x", "1.5", "99999", "#", "..", "٣"])


@FUZZ
@given(rows=st.lists(st.lists(CELLS, min_size=0, max_size=5), min_size=0, max_size=5),
       head=st.sampled_from(["", "# a comment\n", "\n\n"]))
def test_malformed_shikaku_files(rows, head):
    text = head + "\n".join(" ".join(row) for row in rows) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "puzzle.txt"
        path.write_text(text)
        rejected(lambda: get_puzzle("shikaku").parse(str(path), {}))
        refused(["count", "shikaku", str(path)], [str(path)])


@FUZZ
@given(width=st.integers(-1, 30), height=st.integers(-1, 30),
       desc=st.text(alphabet="abcyz_0123456789!A .", max_size=12), suffix=st.sampled_from(["", "e", "a", "e3.4"]))
def test_malformed_tatham_ids(width, height, desc, suffix):
    text = f"{width}x{height}{suffix}:{desc}"
    rejected(lambda: get_puzzle("shikaku").parse(text, {}))
    refused(["solve", "shikaku", text], [text[:30], text.strip()[:30], repr(text)[:30]])


def test_oversized_and_special_puzzle_inputs(tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"1 " * (3 << 20))  # 6 MB: past the cap, refused before it is parsed
    refused(["count", "shikaku", str(big)], ["big.txt"])
    refused(["count", "shikaku", "/dev/zero"], ["/dev/zero"])
    refused(["count", "shikaku", "5x5:²a"], ["'5x5:²a'"])
    refused(["count", "shikaku", "2x2:4c "], ["'2x2:4c '"])
    refused(["count", "shikaku", "2x2:" + "9" * 5000 + "c"], ["characters"])
    done = subprocess.run([sys.executable, "-m", "gridsat", "solve", "shikaku", "-"], input=b"\0" * (5 << 20),
                          capture_output=True, timeout=patience(20))
    assert (done.returncode, done.stdout) == (2, b""), done.stderr[:300]
    assert len(done.stderr.splitlines()) == 1 and len(done.stderr) < 300, done.stderr[:300]


def test_missing_and_unreadable_puzzle_files(tmp_path):
    refused(["count", "shikaku", str(tmp_path / "nope.txt")], ["nope.txt"])
    refused(["count", "shikaku", str(tmp_path)], [excerpt(str(tmp_path))])
    (tmp_path / "latin1.txt").write_bytes(b"1 \xe9\n")
    refused(["count", "shikaku", str(tmp_path / "latin1.txt")], ["latin1.txt"])


SUITE_LINES = st.sampled_from([
    'mode = "count"', 'mode = "race"', "timeout = 0", "timeout = -1", 'timeout = "fast"', "timeout = nan",
    "memory = 0", "repeat = 1.5", "repeat = 0", 'scatter = ["cpsat"]', "colour = 1", 'description = 3',
    "[[entry]]", '[[entry]]\npuzzle = "tatami"', '[[entry]]\npuzzle = "chess"', 'instances = ["4x7"]',
    'instances = ["0x4"]', 'instances = [{ name = "4x7", expected = "three" }]', 'backends = ["gurobi"]',
    'encodings = ["magic"]', 'encodings = "every"', 'solvers = ["zchaff"]', 'algorithms = ["dfs"]',
    "optional = 2", "puzzle = 7", "params = 3", 'params = { max = "x" }', "x = [", "= 1", '"unterminated',
    "puzzle = { a = 1 }", "backends = [[1]]", "backends = [{ a = 1 }]", "instances = [[1]]", "timeout = 1e309",
    "timeout = inf", "memory = 1e300", "repeat = 99999999999999999999", "encodings = { sat = [1] }",
    "solvers = [[]]", 'scatter = [1, "sat"]', "entry = 3", "params = { max = [1] }",
    'encodings = { sat = ["nope"] }', 'encodings = { cpsat = ["seqcounter"] }', 'encodings = { sta = "each" }',
    'encodings = { sat = ["ladder", "LADDER"] }', 'instances = ["3x' + "0" * 4400 + '4"]',
])


@FUZZ
@given(lines=st.lists(SUITE_LINES, min_size=1, max_size=6))
def test_malformed_bench_suites(lines):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mine.toml"
        path.write_text("\n".join(lines) + "\n")
        rejected(lambda: plan(load(str(path)), None))
        out = Path(tmp) / "out"
        refused(["bench", str(path), "--out", str(out)], ["mine.toml"])
        assert not out.exists()  # nothing written before the suite was checked


RESULT_LINES = st.sampled_from(["5", "[]", "null", '"run"', '{"kind": "run"}', '{"kind": "header"}', "{", "\xff\xfe",
                                '{"kind": "run", "id": 3}', '{"kind": "other"}', ""])


@FEW
@given(lines=st.lists(RESULT_LINES, min_size=2, max_size=4))
def test_damaged_results_files_are_refused_and_kept(lines):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        data = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape").replace(b"\\xff\\xfe", b"\xff\xfe")
        (out / "results.jsonl").write_bytes(data)
        try:
            Results(out)
        except GridsatError:
            pass
        else:
            assume(False)  # readable (blank lines, a torn last line): resumed, not refused
        # A suite of one run: the refusal comes after the plan, and the smoke suite's plan formulates
        # every configuration (0.7 s an example).
        suite = Path(tmp) / "one.toml"
        suite.write_text('[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nbackends = ["cpsat"]\n')
        refused(["bench", str(suite), "--out", str(out)], ["results.jsonl"])
        assert (out / "results.jsonl").read_bytes() == data  # never overwritten
        assert sorted(p.name for p in out.iterdir()) == ["results.jsonl"]


CHECKPOINT_TEXTS = st.sampled_from(["garbage", "{}", "[]", '{"gridsat_checkpoint": 1}', "\xff", "null",
                                    '{"gridsat_checkpoint": 1, "fingerprint": {}, "parts": 3}', "5\n6"])


@FEW
@given(text=CHECKPOINT_TEXTS)
def test_damaged_and_foreign_checkpoints_are_refused(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.json"
        data = text.encode("utf-8").replace(b"\xc3\xbf", b"\xff")
        path.write_bytes(data)
        refused(["count", "tatami", "3x4", "--checkpoint", str(path)], ["c.json"])
        assert path.read_bytes() == data


def test_special_files_as_checkpoints_and_outputs(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    dangling = tmp_path / "link"
    dangling.symlink_to(tmp_path / "nowhere" / "x")
    for path in (fifo, folder):
        refused(["count", "tatami", "3x4", "--checkpoint", str(path)], [excerpt(str(path))])
    for path in (fifo, folder, dangling):
        refused(["export", "tatami", "3x4", "--format", "dimacs", "-o", str(path)], [excerpt(str(path))])
    assert fifo.is_fifo() and folder.is_dir() and dangling.is_symlink()
    real = tmp_path / "real.cnf"
    real.write_text("old")
    (tmp_path / "to-real").symlink_to(real)
    assert gridsat("export", "tatami", "3x4", "--format", "dimacs", "-o", str(tmp_path / "to-real")).returncode == 0
    assert (tmp_path / "to-real").is_symlink() and real.read_text().startswith("c gridsat tatami 3x4")


# Output folders that cannot be made: a name too long (in bytes), or a regular file on the way.
PARTS = st.sampled_from(["f", "x", "new", "sub dir", "a" * 256, "é" * 200, "a" * 5000])


@FEW
@given(parts=st.lists(PARTS, min_size=1, max_size=4))
def test_output_folders_that_cannot_be_made_are_refused(parts):
    assume((parts[0] == "f" and len(parts) > 1) or any(len(p.encode()) > 255 for p in parts))
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "f").write_text("x")  # a regular file
        out = os.path.join(tmp, *parts)
        refused(["bench", "smoke", "--out", out], [excerpt(out)])
        assert sorted(p.name for p in Path(tmp).iterdir()) == ["f"] and Path(tmp, "f").read_text() == "x"


def test_output_folders_under_proc_and_under_a_file_are_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    for out in ("/proc/gridsat-bench-out", "/proc/gridsat-bench-out/deeper", str(tmp_path / "f"),
                str(tmp_path / "f" / "sub"), str(tmp_path / "new" / ("a" * 5000))):
        refused(["bench", "smoke", "--out", out], [excerpt(out)])
    assert not os.path.exists("/proc/gridsat-bench-out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_puzzle_file_paths_too_long_or_through_a_file(tmp_path):
    for path in ("a" * 5000, str(tmp_path / "/".join(["b" * 200] * 30)), str(tmp_path / ("c" * 300))):
        refused(["count", "shikaku", path], [excerpt(path)])
    (tmp_path / "f").write_text("2 .\n. 2\n")
    refused(["count", "shikaku", str(tmp_path / "f" / "p.txt")], [excerpt(str(tmp_path / "f" / "p.txt"))])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder whatever its mode")
def test_a_puzzle_file_in_a_folder_the_user_may_not_read(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "p.txt").write_text("2 .\n. 2\n")
    locked.chmod(0)
    try:
        refused(["count", "shikaku", str(locked / "p.txt")], [excerpt(str(locked / "p.txt"))])
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("damage", [b"\xff\xfe", b"\xff\xfe\n", b'{"kind": "run", "id": "x\xe9"}\n',
                                    b'{"kind": "run", "id": "x"}\n\xff\n'])
def test_undecodable_results_files_are_refused_and_kept(tmp_path, damage):
    out = tmp_path / "out"
    out.mkdir()
    data = b'{"kind": "header", "limits": {"timeout": 20.0, "memory": 2048}}\n' + damage
    (out / "results.jsonl").write_bytes(data)
    refused(["bench", "smoke", "--out", str(out)], ["results.jsonl"])
    assert (out / "results.jsonl").read_bytes() == data
    assert sorted(p.name for p in out.iterdir()) == ["results.jsonl"]


@pytest.mark.parametrize("table", ['{ sat = ["nope"] }', '{ cpsat = ["seqcounter"] }', '{ sta = "each" }'])
def test_unknown_names_inside_a_suites_encodings_table(tmp_path, table):
    path = tmp_path / "mine.toml"
    path.write_text(f'[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nencodings = {table}\n')
    refused(["bench", str(path), "--out", str(tmp_path / "out")], ["mine.toml"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.toml"]


def test_numbers_padded_with_zeros_are_refused_like_long_ones(tmp_path):
    zeros = "0" * 4400
    for size in (f"2x{zeros}3", f"{zeros}2x3"):
        refused(["export", "tatami", size, "--format", "dimacs", "-o", str(tmp_path / "out.cnf")], [excerpt(size)],
                tmp_path)
    refused(["count", "prime-grid", "3x3", "-p", f"max={zeros}16"], ["max="])
    refused(["count", "shikaku", f"2x2:{zeros}4c"], ["characters"])
    refused(["count", "tatami", "3x4", f"--limit={zeros}1"], [excerpt(f"{zeros}1")])


def test_an_output_path_ending_in_a_slash_is_refused(tmp_path):
    for args in (["export", "tatami", "3x4", "--format", "dimacs"], ["solve", "tatami", "3x4"]):
        for path in (f"{tmp_path}/out.txt/", f"{tmp_path}/"):
            refused([*args, "-o", path], [excerpt(path)], tmp_path)



@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("count", "tatami", "4x7"), ("list",), ("enumerate", "tatami", "4x7"),
                                  ("export", "tatami", "4x7", "--format", "dimacs")], ids=lambda a: a[0])
def test_output_to_a_full_device_is_one_line_and_status_2(args):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "gridsat", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120, cwd=Path(__file__).parent.parent)
    assert done.returncode == 2
    assert done.stderr == "gridsat: error: cannot write standard output: No space left on device\n"


def test_closed_standard_streams_are_no_traceback():
    stdin_closed = subprocess.run([sys.executable, "-m", "gridsat", "solve", "shikaku", "-"], stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=120, preexec_fn=lambda: os.close(0))
    assert stdin_closed.returncode == 2 and stdin_closed.stderr.count("\n") == 1, stdin_closed.stderr
    stderr_closed = subprocess.run([sys.executable, "-m", "gridsat", "count", "tatami", "4x7"], stdout=subprocess.PIPE,
                                   text=True, timeout=120, preexec_fn=lambda: os.close(2))
    assert (stderr_closed.returncode, stderr_closed.stdout) == (0, "3\n")


@pytest.mark.parametrize("environment", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0",
                                                                          "PYTHONCOERCECLOCALE": "0"}],
                         ids=["ascii", "C-locale"])
def test_output_holding_a_middle_dot_survives_an_ascii_stream(environment):
    done = subprocess.run([sys.executable, "-m", "gridsat", "solve", "tatami", "4x7", "--format", "svg"],
                          capture_output=True, timeout=120, env={**os.environ, **environment})
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert b"4x7 &#183; cpsat" in done.stdout or "4x7 · cpsat".encode() in done.stdout


@pytest.mark.parametrize("where", ["afile/x", "/proc", "dangling", "a" * 300, "", " "])
def test_new_puzzle_dirs_that_cannot_be_written_are_one_line(tmp_path, monkeypatch, where):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").touch()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    before = sorted(p.name for p in tmp_path.iterdir())
    done = gridsat("new-puzzle", "mine", "--dir", where)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not done.stdout, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_new_puzzle_on_a_full_disk_leaves_nothing_and_the_next_try_works(tmp_path, monkeypatch):
    real = Path.write_text
    calls = []

    def full_on_the_third(self, *args, **kwargs):
        calls.append(self)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_on_the_third)
    done = gridsat("new-puzzle", "mine", "--dir", str(tmp_path / "new" / "deep"))
    assert done.returncode == 2 and "No space left on device" in done.stderr
    assert list(tmp_path.iterdir()) == []  # the folders made for it are gone too
    monkeypatch.setattr(Path, "write_text", real)
    assert gridsat("new-puzzle", "mine", "--dir", str(tmp_path)).returncode == 0
    assert (tmp_path / "gridsat-mine" / "pyproject.toml").is_file()


# Damaged checkpoints: each edit is made as a careful vandal would, with the line's or meta.json's
# checksum computed again, so that the field checks (not only the checksum) must refuse it.
def split_checkpoint(tmp_path):
    path = tmp_path / "c.jsonl"
    assert gridsat("count", "tatami", "4x7", "--jobs", "2", "--checkpoint", str(path)).stdout == "3\n"
    return path


@pytest.mark.parametrize("edit", [{"count": -5}, {"count": True}, {"count": 10**31}, {"duplicates": "x"},
                                  {"part": 10**6}, {"seconds": -1.0}], ids=str)
def test_an_edited_part_record_is_refused_and_the_file_kept(tmp_path, edit):
    from gridsat.solvers.splitting.checkpoint import seal, unseal

    path = split_checkpoint(tmp_path)
    lines = path.read_text().splitlines()
    _, chain = unseal(lines[0])
    lines[1] = seal({**unseal(lines[1], chain)[0], **edit}, chain)
    lines[2:] = []  # the lines after it were sealed after the line as it was
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()
    done = gridsat("count", "tatami", "4x7", "--jobs", "2", "--checkpoint", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not done.stdout, done.stderr
    assert path.read_bytes() == before


def test_a_record_whose_checksum_fails_is_refused(tmp_path):
    path = split_checkpoint(tmp_path)
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"count":', '"count":1', 1)  # a digit typed in front of the count
    path.write_text("\n".join(lines) + "\n")
    done = gridsat("count", "tatami", "4x7", "--jobs", "2", "--checkpoint", str(path))
    assert done.returncode == 2 and "checksum" in done.stderr


def test_records_spliced_under_another_runs_header_are_refused_and_the_file_kept(tmp_path):
    a = split_checkpoint(tmp_path)
    b = tmp_path / "b.jsonl"
    assert gridsat("count", "tatami", "4x8", "--jobs", "2", "--checkpoint", str(b)).stdout == "5\n"
    spliced = tmp_path / "spliced.jsonl"
    spliced.write_text(b.read_text().splitlines(keepends=True)[0] + "".join(a.read_text().splitlines(True)[1:]))
    before = spliced.read_bytes()
    done = gridsat("count", "tatami", "4x8", "--jobs", "2", "--checkpoint", str(spliced))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not done.stdout, done.stderr
    assert "line 2 is damaged, or was not written after line 1 of this file" in done.stderr
    assert spliced.read_bytes() == before


def test_a_checkpoint_in_use_by_another_run_is_refused_and_a_symlink_writes_its_target(tmp_path):
    from gridsat.solvers.host.locks import WriterLock

    target = tmp_path / "real.jsonl"
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert gridsat("count", "tatami", "4x7", "--jobs", "2", "--checkpoint", str(link)).stdout == "3\n"
    assert link.is_symlink() and target.read_text().startswith('{"gridsat_checkpoint"')
    holder = WriterLock(target, "checkpoint")
    holder.acquire()
    try:
        done = gridsat("count", "tatami", "4x7", "--jobs", "2", "--checkpoint", str(link))
        assert done.returncode == 2 and "in use by another gridsat run" in done.stderr
    finally:
        holder.release()


def test_a_checkpoint_that_cannot_be_written_is_refused_before_the_count():
    done = gridsat("count", "tatami", "4x7", "--jobs", "2", "--checkpoint", "/proc/self/status")
    assert done.returncode == 2 and not done.stdout and "cannot write checkpoint" in done.stderr


def test_a_checkpoint_write_that_fails_midway_keeps_the_answer(tmp_path, monkeypatch):
    from gridsat.solvers.splitting import checkpoint

    real_fsync = os.fsync
    calls = []

    def full_after_the_header(fd):
        calls.append(fd)
        if len(calls) > 1:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(checkpoint.os, "fsync", full_after_the_header)
    done = gridsat("count", "tatami", "4x7", "--jobs", "2", "--checkpoint", str(tmp_path / "c.jsonl"))
    assert done.returncode == 0 and done.stdout == "3\n"
    assert "the checkpoint was not kept: No space left on device" in done.stderr


FRONTIER_EDITS = {
    "negative exact": lambda meta: {**meta, "exact": "-7"},
    "meta is a list": lambda meta: [1],
    "states a number": lambda meta: {**meta, "states": 5},
    "lanes a string": lambda meta: {**meta, "lanes": "x"},
    "sizes a number": lambda meta: {**meta, "sizes": 7},
    "no layer": lambda meta: {k: v for k, v in meta.items() if k != "layer"},
    "fingerprint a list": lambda meta: {**meta, "fingerprint": []},
    "fingerprint null": lambda meta: {**meta, "fingerprint": None},
}


@pytest.mark.parametrize("edit", list(FRONTIER_EDITS))
def test_an_edited_frontier_checkpoint_is_refused_and_kept(tmp_path, edit):
    import json
    import zipfile

    from gridsat.solvers.frontier_engine.layer_checkpoint import sealed

    path = tmp_path / "f.ckpt"
    assert gridsat("count", "tatami", "4x7", "--backend", "frontier", "--checkpoint", str(path)).stdout == "3\n"
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    meta = json.loads(files["meta.json"])
    meta.pop("sum")
    changed = FRONTIER_EDITS[edit](meta)
    files["meta.json"] = json.dumps(sealed(changed) if isinstance(changed, dict) else changed).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    before = path.read_bytes()
    done = gridsat("count", "tatami", "4x7", "--backend", "frontier", "--checkpoint", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not done.stdout, done.stderr
    assert path.read_bytes() == before


def test_workers_die_with_their_parent_killed_by_sigkill():
    psutil = pytest.importorskip("psutil")
    parent = subprocess.Popen([sys.executable, "-m", "gridsat", "count", "prime-grid", "5x5", "-p", "max=25",
                               "--backend", "sat", "--jobs", "2", "--quiet"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, cwd=Path(__file__).parent.parent)
    workers: list = []
    for _ in range(300):  # until both workers run (start-up takes seconds on a busy machine)
        workers = psutil.Process(parent.pid).children()
        if len(workers) >= 2:
            break
        time.sleep(0.1)
    assert len(workers) >= 2, "the workers never started"
    parent.kill()
    parent.wait()
    gone, alive = psutil.wait_procs(workers, timeout=patience(5))
    assert not alive, f"workers alive 5 s after their parent was killed: {[w.pid for w in alive]}"


def test_a_split_crosscheck_ends_without_a_worker_traceback():
    for _ in range(4):  # it printed 'Process gridsat-worker-2: Traceback ... KeyboardInterrupt' in 6 of 10 runs
        command = [sys.executable, "-m", "gridsat", "crosscheck", "tatami", "3x4", "--jobs", "2", "--quiet"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=Path(__file__).parent.parent)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("spill", ["a" * 5000, "/proc", "dangling", "/dev/null"])
def test_spill_folders_that_cannot_take_files_are_refused_before_any_work(tmp_path, monkeypatch, spill):
    pytest.importorskip("numba")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    done = gridsat("count", "tatami", "4x7", "--backend", "frontier", "--spill", spill)
    assert done.returncode == 2 and done.stderr.startswith("gridsat: error: --spill") and not done.stdout
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(("name", "value"), [("NUMBA_NUM_THREADS", "0"), ("NUMBA_NUM_THREADS", "x"),
                                             ("NUMBA_DISABLE_JIT", "1")])
def test_numba_settings_the_frontier_cannot_run_under_are_one_line(monkeypatch, name, value):
    pytest.importorskip("numba")
    monkeypatch.setenv(name, value)
    done = gridsat("count", "tatami", "4x7", "--backend", "frontier")
    assert done.returncode == 2 and name in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.parametrize("address", ["tls://127.0.0.1:1", "wss://127.0.0.1:1"])
def test_a_tls_scheduler_is_refused_in_one_line(address):
    done = gridsat("count", "prime-grid", "4x4", "--jobs", "2", "--scheduler", address)
    assert done.returncode == 2 and "needs a TLS security configuration" in done.stderr


def test_an_unreachable_scheduler_is_refused_at_once():
    pytest.importorskip("distributed")
    from gridsat.solvers.splitting.pool import connect

    started = time.monotonic()
    with pytest.raises(GridsatError, match="cannot reach the Dask scheduler"):
        connect("tcp://127.0.0.1:1")  # nothing listens on port 1: the connection is refused
    assert time.monotonic() - started < patience(10, margin=1)  # Dask's own client retried for 10 s and more


@pytest.mark.parametrize("content", [b"\x00\xff\xfe", ("a = " + "[" * 5000 + "]" * 5000 + "\n").encode()],
                         ids=["binary", "nested"])
def test_a_binary_or_deeply_nested_suite_file_is_one_line(tmp_path, content):
    path = tmp_path / "suite.toml"
    path.write_bytes(content)
    done = gridsat("bench", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not (tmp_path / "out").exists()


TINY_SUITE = '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nbackends = ["cpsat", "sat"]\n'


def test_a_bench_folder_in_use_is_refused_and_a_closed_pipe_keeps_the_bench_going(tmp_path):
    from gridsat.solvers.host.locks import WriterLock

    suite = tmp_path / "tiny.toml"
    suite.write_text(TINY_SUITE)
    out = tmp_path / "out"
    holder = WriterLock(out, "--out")
    holder.acquire()
    try:
        refused = gridsat("bench", str(suite), "--out", str(out), "--no-plots")
        assert refused.returncode == 2 and "in use by another gridsat run" in refused.stderr and not out.exists()
    finally:
        holder.release()
    # `bench ... 2>&1 | head -2` ended after two runs with no report: now the pipe's reader leaving changes nothing.
    bench = f"{sys.executable} -m gridsat bench {suite} --out {out} --no-plots"
    command = f"{bench} 2>&1 | head -1; exit ${{PIPESTATUS[0]}}"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).parent.parent)
    assert done.returncode == 0 and (out / "report.md").is_file()
    assert len((out / "results.jsonl").read_text().splitlines()) == 3  # the header and both runs


@pytest.mark.parametrize("args", [("count", "tatami", "4x7", "--jobs", "1000"),
                                  ("count", "tatami", "4x7", "--jobs", "999999999999999999"),
                                  ("count", "tatami", "4x7", "--jobs", "2", "--parts", "999999999999999999"),
                                  ("mutate", "tatami", "--jobs", "129"),
                                  ("bench", "encodings", "--out", "never-made", "--repeat", "999999999999999999")],
                         ids=lambda a: " ".join(a[-2:]))
def test_unbounded_requests_are_refused_at_their_documented_bound(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    done = gridsat(*args)
    assert done.returncode == 2 and "must be at most" in done.stderr and not list(tmp_path.iterdir())


@pytest.mark.parametrize("repeat", ["1000000000000", "1e12"])
def test_a_suite_repeat_past_its_bound_is_refused(tmp_path, repeat):
    path = tmp_path / "suite.toml"
    path.write_text(f'repeat = {repeat}\n[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nbackends = ["cpsat"]\n')
    done = gridsat("bench", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "repeat" in done.stderr and done.stderr.count("\n") == 1


def test_the_api_bounds_jobs_and_parts_as_the_command_line_does():
    from gridsat import Split, count

    for split in (Split(jobs=1000), Split(jobs=2, parts=10**18)):
        with pytest.raises(GridsatError, match="must be a whole number"):
            count("tatami", "4x7", split=split)
