"""The benchmark runner end to end: isolated runs, verdicts, limits, resume, report, and Dask."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import patience
from gridsat.benchmarks.command import ProgressBar, add_arguments, main
from gridsat.benchmarks.runner import Limits
from gridsat.solvers.backend import BACKENDS

ROOT = Path(__file__).resolve().parent.parent
TATAMI = '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\n'
LISTING_BACKENDS = 'backends = ["cpsat", "sat", "reference"]\n'  # without the counting backends of the extras


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the fake backends; the child processes find them through the runner's spec."""
    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.setitem(BACKENDS, "fake-wrong", "tests.bench_fake:WrongBackend")
    monkeypatch.setitem(BACKENDS, "fake-sleeper", "tests.bench_fake:SleeperBackend")
    monkeypatch.setitem(BACKENDS, "fake-burner", "tests.bench_fake:BurnerBackend")
    monkeypatch.setitem(BACKENDS, "fake-reserver", "tests.bench_fake:ReserverBackend")
    monkeypatch.setitem(BACKENDS, "fake-refuser", "tests.bench_fake:RefuserBackend")


def suite(tmp_path: Path, text: str) -> str:
    path = tmp_path / "suite.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def records(out: Path) -> list[dict]:
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert lines[0]["kind"] == "header" and {"machine", "python", "packages"} <= set(lines[0])
    return lines[1:]


def bench(*argv: str) -> int:
    return main([*argv, "--no-plots"]) if "--plots" not in argv else main([a for a in argv if a != "--plots"])


def test_a_wrong_backend_is_caught(tmp_path: Path, fakes: None, capsys: pytest.CaptureFixture[str]) -> None:
    path = suite(tmp_path, TATAMI + 'backends = ["sat", "reference", "fake-wrong"]\n')
    assert bench(path, "--out", str(tmp_path / "out"), "--jobs", "2") == 1
    by_backend = {r["backend"]: r for r in records(tmp_path / "out")}
    assert by_backend["fake-wrong"]["status"] == "wrong" and by_backend["fake-wrong"]["count"] == 3
    assert by_backend["sat"]["status"] == by_backend["reference"]["status"] == "ok"
    err = capsys.readouterr().err
    assert "WRONG tatami 3x4 fake-wrong:rowscan (count): answered 3, the golden count (the tatami seed" in err
    assert "## Wrong answers" in (tmp_path / "out" / "report.md").read_text()


def test_expected_count_in_the_suite_decides(tmp_path: Path) -> None:
    path = suite(tmp_path, TATAMI.replace('"3x4"', '{ name = "3x4", expected = 5 }') + 'backends = ["reference"]\n')
    assert bench(path, "--out", str(tmp_path / "out")) == 1
    [record] = records(tmp_path / "out")
    assert record["status"] == "wrong" and "the suite says 5" in record["message"]


def test_tiny_time_limit_gives_timeouts_and_a_report_without_dask(tmp_path: Path) -> None:
    """In a fresh interpreter, so that it can also show that Dask and matplotlib stay unimported."""
    out = tmp_path / "out"
    script = (
        "import sys; from gridsat.benchmarks.command import main; "
        f"status = main([{suite(tmp_path, TATAMI + LISTING_BACKENDS)!r}, '--out', {str(out)!r}, "
        "'--time-limit', '0.001', '--jobs', '2', '--no-plots']); "
        "print(sorted(m for m in ('dask', 'distributed', 'matplotlib') if m in sys.modules)); sys.exit(status)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          timeout=patience(20))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
    runs = records(out)
    assert len(runs) == 3 and {r["status"] for r in runs} == {"timeout"}
    assert all(r["cpu_seconds"] > 0 and r["max_rss_bytes"] > 0 for r in runs)
    assert "3 timeout" in (out / "report.md").read_text()
    assert (out / "summary.csv").read_text().count("\n") == 4


def test_the_wall_clock_kills_the_whole_process_group(tmp_path: Path, fakes: None, monkeypatch) -> None:
    import time

    from gridsat.benchmarks import runner

    pidfile = tmp_path / "pid"
    monkeypatch.setenv("GRIDSAT_TEST_PIDFILE", str(pidfile))
    watch = runner.watch

    def watch_once_the_grandchild_runs(pid: int, deadline: float, memory_bytes: int | None) -> tuple:
        # The kill is due 3.4 s after the start, which a busy machine's start-up can overrun before the
        # grandchild exists: the watch starts once the sleeper has written its grandchild's pid (or gone).
        waited = time.monotonic() + patience(20)
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < waited:
            time.sleep(0.02)
        return watch(pid, deadline, memory_bytes)

    monkeypatch.setattr(runner, "watch", watch_once_the_grandchild_runs)
    path = suite(tmp_path, TATAMI + 'backends = ["fake-sleeper"]\n')
    # a CPU limit of 2 s (its wall-clock kill at 3.4 s) is far above the sleeper's start-up, even on a busy
    # machine: under it, killed at the wall clock, the run is lost, not a timeout
    assert bench(path, "--out", str(tmp_path / "out"), "--time-limit", "2") == 0
    [record] = records(tmp_path / "out")
    # killed with hardly any CPU used: its time is not known, so it is lost, not a timeout at the limit
    assert record["status"] == "lost" and "wall-clock" in record["message"], record
    state = Path(f"/proc/{pidfile.read_text()}/status")
    waited = time.monotonic() + patience(2)  # SIGKILL sent: the grandchild ends once it is scheduled
    while state.exists() and "zombie" not in state.read_text() and time.monotonic() < waited:
        time.sleep(0.02)
    assert not state.exists() or "zombie" in state.read_text()
    report = (tmp_path / "out" / "report.md").read_text()
    assert "1 lost" in report and "## Lost to the wall clock" in report


def test_a_lost_run_is_run_again_by_the_same_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    out = tmp_path / "out"
    path = suite(tmp_path, TATAMI + 'backends = ["reference"]\n')
    assert bench(path, "--out", str(out)) == 0
    lines = (out / "results.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    record.update(status="lost", message="killed at the wall-clock limit (planted)")
    (out / "results.jsonl").write_text("\n".join([lines[0], json.dumps(record)]) + "\n")
    capsys.readouterr()
    assert bench(path, "--out", str(out)) == 0
    assert "1 recorded runs were killed at the wall clock" in capsys.readouterr().err
    assert [r["status"] for r in records(out)] == ["ok"]  # made again, and the lost record gone


def test_the_cpu_limit_stops_a_run_that_ignores_its_deadline(tmp_path: Path, fakes: None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # The wall-clock kill (1.2 times the CPU limit and a second) wins on a loaded machine, where the
    # burner gets a share of a core: moved far off here, so that only the CPU limit can stop it.
    monkeypatch.setattr(Limits, "wall_limit", property(lambda limits: limits.cpu_limit * 30.0))
    path = suite(tmp_path, TATAMI + 'backends = ["fake-burner"]\n')
    assert bench(path, "--out", str(tmp_path / "out"), "--time-limit", "0.5") == 0
    [record] = records(tmp_path / "out")
    assert record["status"] == "timeout" and "CPU limit" in record["message"] and record["cpu_seconds"] > 0.5


def test_resume_skips_finished_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    path = suite(tmp_path, TATAMI + 'backends = ["sat", "reference"]\nencodings = ["pairwise", "ladder"]\n')
    assert bench(path, "--out", str(out), "--jobs", "2") == 0
    first = records(out)
    assert len(first) == 3
    assert bench(path, "--out", str(out)) == 0
    assert "3 runs (3 already recorded)" in capsys.readouterr().err
    assert records(out) == first
    # An interrupted benchmark: the last record was half written; only that run is made again.
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])
    assert bench(path, "--out", str(out)) == 0
    assert "3 runs (2 already recorded)" in capsys.readouterr().err
    assert sorted(r["id"] for r in records(out)) == sorted(r["id"] for r in first)
    assert main([path, "--out", str(out), "--time-limit", "7"]) == 2
    assert "use the same limits to resume" in capsys.readouterr().err


def test_report_has_tables_and_plots(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    text = '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4", "4x7"]\nbackends = ["cpsat", "sat"]\n'
    assert bench(suite(tmp_path, text), "--out", str(out), "--jobs", "2", "--plots") == 0
    report = (out / "report.md").read_text()
    assert "| `sat:mats+pairwise+nosymmetry/cadical195` | 2/2 | 2/2 | 0 |" in report
    assert "| *count* | 4 | 3 |" in report
    # The limit is CPU time: its column first; the solve's own CPU time beside the wall time
    assert "| median CPU s | median wall s | solve CPU s | build s |" in report
    runs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()[1:]]
    assert all(isinstance(r["run_cpu_seconds"], float) and r["run_cpu_seconds"] >= 0 for r in runs)
    # The solve's own CPU time, measured around the search inside the build-and-solve span: never more than it
    assert all(isinstance(r["solve_cpu_seconds"], float) and 0 <= r["solve_cpu_seconds"] <= r["run_cpu_seconds"]
               for r in runs)
    assert "**Too short to time:**" in report and "Use a larger instance" in report  # tatami 3x4 takes ~1 ms
    for name in ("tatami-cactus.png", "tatami-scatter.png"):
        assert f"(plots/{name})" in report and (out / "plots" / name).stat().st_size > 1000


def test_a_one_instance_suite_gets_a_bar_per_configuration(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    text = '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nbackends = ["cpsat", "sat"]\n'
    assert bench(suite(tmp_path, text), "--out", str(out), "--plots") == 0
    report = (out / "report.md").read_text()
    assert "(plots/tatami-times.png)" in report and (out / "plots" / "tatami-times.png").stat().st_size > 1000
    assert "cactus" not in report and "scatter" not in report  # a column of dots and a single point say nothing


def test_plot_styles_stay_distinct_past_ten_and_twenty_configurations() -> None:
    pytest.importorskip("matplotlib")
    from gridsat.benchmarks.plots import styles

    for count in (3, 10, 17, 25, 40):
        found = styles(count)
        assert len({(tuple(s["color"]), s["marker"]) for s in found}) == count
        assert len({tuple(s["color"]) for s in found}) == count  # colours alone already differ


def test_runs_on_a_dask_cluster(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "out"
    path = suite(tmp_path, TATAMI + 'backends = ["sat", "reference"]\n')
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None)
    with cluster:
        assert bench(path, "--out", str(out), "--scheduler", cluster.scheduler_address) == 0
    runs = records(out)
    assert {r["status"] for r in runs} == {"ok"} and {r["count"] for r in runs} == {4}
    assert os.path.exists(out / "report.md")


def test_a_tiny_memory_limit_gives_memout(tmp_path: Path) -> None:
    # A 200x200 room's CNF needs far more than 100 MB of resident memory (a 3x4 room's run fits in it),
    # which the runner watches with psutil.
    pytest.importorskip("psutil")
    room = '[[entry]]\npuzzle = "tatami"\ninstances = ["200x200"]\nmode = "solve"\n'
    path = suite(tmp_path, room + 'backends = ["sat"]\n')
    assert bench(path, "--out", str(tmp_path / "out"), "--memory", "100") == 0
    [record] = records(tmp_path / "out")
    assert record["status"] == "memout", record["message"]
    assert record["message"] == "resident memory over the limit (100 MB)"


def test_memory_reserved_but_never_used_is_no_memout(tmp_path: Path, fakes: None) -> None:
    """The limit is on resident memory: a run that maps 4 GB it never touches (d4's first page) runs
    under a 300 MB limit, which an address-space limit would have refused at once."""
    pytest.importorskip("psutil")
    path = suite(tmp_path, TATAMI + 'backends = ["fake-reserver", "reference"]\n')
    assert bench(path, "--out", str(tmp_path / "out"), "--memory", "300") == 0
    assert [(r["status"], r["count"]) for r in records(tmp_path / "out")] == [("ok", 4), ("ok", 4)]


def test_a_configuration_refused_when_it_runs_is_not_applicable(tmp_path: Path, fakes: None,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = suite(tmp_path, TATAMI + 'backends = ["fake-refuser", "reference"]\n')
    assert bench(path, "--out", str(tmp_path / "out")) == 0  # a refusal is no error
    by_backend = {r["backend"]: r for r in records(tmp_path / "out")}
    assert by_backend["fake-refuser"]["status"] == "not applicable"
    assert by_backend["fake-refuser"]["message"] == "the fake-refuser backend cannot run tatami"
    assert by_backend["reference"]["status"] == "ok"
    assert capsys.readouterr().out.startswith("1 ok, 1 not applicable; report: ")
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Left out" in report and "`fake-refuser:rowscan`: not applicable: the fake-refuser" in report
    assert "| `fake-refuser:rowscan` |" not in report  # no time to show, no PAR-2 penalty


def test_timeout_is_a_deprecated_spelling_of_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["smoke", "--out", "x", "--timeout", "3", "--timeout=4"])
    assert args.time_limit == 4
    assert capsys.readouterr().err == "gridsat: warning: --timeout is deprecated: use --time-limit SEC\n"  # once
    assert parser.parse_args(["smoke", "--out", "x", "--time-limit", "5"]).time_limit == 5
    assert capsys.readouterr().err == ""
    text = parser.format_help()
    assert "--time-limit SEC" in text and "--timeout" not in text
    assert all(f"{option} {metavar}" in text for option, metavar in (("--out", "DIR"), ("--jobs", "N"),
                                                                       ("--memory", "MB"), ("--repeat", "K")))


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_redraws_one_line_on_a_terminal() -> None:
    screen, log = Terminal(), io.StringIO()
    for stream in (screen, log):
        progress = ProgressBar(2, stream)
        for status in ("ok", "timeout"):
            progress.update({"status": status, "seconds": 0.5, "puzzle": "tatami", "instance": "3x4", "config": "x"})
        progress.close()
    assert screen.getvalue().count("\r") == 2 and "2/2 runs, 1 failed, 0:00 left" in screen.getvalue()
    assert log.getvalue().splitlines()[1] == "[2/2 runs, 1 failed, 0:00 left] tatami 3x4 x: timeout 0.500 s"
