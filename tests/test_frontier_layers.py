"""The frontier's layers past one machine's memory: spilled to disk, checkpointed, widened, on a Dask cluster.

Each count is compared with the golden counts (OEIS A165134 / A001230 via tests/golden) or with the
same engine run plainly in memory, which the golden tests in test_frontier.py check in turn.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

from gridsat.models import get_puzzle  # noqa: E402
from gridsat.models.errors import InvalidOption  # noqa: E402
from gridsat.solvers.frontier_engine import kernels as frontier_engine  # noqa: E402
from gridsat.solvers.frontier_engine import layers  # noqa: E402
from gridsat.solvers.frontier_engine.layer_checkpoint import LayerCheckpoint  # noqa: E402
from gridsat.solvers.frontier_engine.layers import run_spec  # noqa: E402
from gridsat.solvers.frontier_engine.spill import SpillFolder  # noqa: E402
from gridsat.solvers.stop import Stop  # noqa: E402

TOUR, TATAMI = get_puzzle("knights-tour"), get_puzzle("tatami")


def spec(text: str, params: dict[str, str] | None = None, puzzle=TOUR):
    return puzzle.frontier.spec(puzzle.parse(text, params or {}))


def small_partitions(monkeypatch) -> None:
    """Partitions of a few hundred rows, so that small boards have layers of many partitions."""
    monkeypatch.setattr(layers, "SMALL_LAYER", 0)
    monkeypatch.setattr(layers, "PART_ROWS", 4096)
    monkeypatch.setattr(layers, "SPILL_PART_ROWS", 4096)
    monkeypatch.setattr(layers, "CHUNK", 2048)
    monkeypatch.setattr(layers, "MIN_SLICE", 64)


def leftovers(base: Path) -> list[Path]:
    return sorted(base.glob("gridsat-frontier-*"))


@pytest.mark.parametrize("words", [1, 2])
def test_a_spilled_count_equals_the_count_in_memory(monkeypatch, tmp_path, words):
    """A memory budget below the layers' size sends them to disk; the count is the same, the files go
    (states of one word, and widened to two as an 8-row board's are)."""
    from gridsat.models.knights_tour.frontier import build

    small_partitions(monkeypatch)
    native = 9862
    board = TOUR.parse("6x6", {"closed": "true"})
    first_slot = 0 if words == 1 else 9  # its slots straddle the two words
    in_memory = run_spec(build(board, first_slot=first_slot), Stop(), threads=2)
    budget = in_memory.peak_memory * 2 // 3  # the layers do not fit: they go to disk, a partition at a time
    spilled = run_spec(build(board, first_slot=first_slot), Stop(), threads=2, memory=budget, spill=tmp_path)
    assert in_memory.count == spilled.count == native
    assert in_memory.spilled == 0 and spilled.spilled > 0 and spilled.peak_disk > 0
    assert spilled.peak_memory <= budget, (spilled.peak_memory, budget)
    assert leftovers(tmp_path) == []


def test_a_spilled_layer_keeps_in_memory_what_the_budget_holds(monkeypatch, tmp_path):
    """Memory before disk: a spilled layer's children and merged partitions stay in memory while the
    budget has room for them, so it writes less than a layer whose every partition goes to a file."""
    from dataclasses import replace

    from gridsat.models.knights_tour.frontier import build

    small_partitions(monkeypatch)
    # the mixed order, every state apart from its mirror image: layers whose sizes spill the same layers both ways
    board = build(TOUR.parse("6x6", {"closed": "true"}), rule="mixed", mirrored=False)
    budget = run_spec(board, Stop(), threads=1).peak_memory * 2 // 3  # a budget that spills the same layers both ways
    # one thread: with two, which partitions stay in memory is a race between them, and a layer kept more in
    # memory can send the next one to disk in one run and not in the other
    kept = run_spec(board, Stop(), threads=1, memory=budget, spill=tmp_path)
    plan = layers.plan_layer
    monkeypatch.setattr(layers, "plan_layer", lambda *args: (lambda p: p and replace(p, keep=0))(plan(*args)))
    filed = run_spec(board, Stop(), threads=1, memory=budget, spill=tmp_path)
    assert kept.count == filed.count == 9862 and kept.spilled == filed.spilled > 0
    assert kept.peak_memory <= budget and filed.peak_memory <= budget
    assert 0 < kept.peak_disk < filed.peak_disk, (kept.peak_disk, filed.peak_disk)
    assert leftovers(tmp_path) == []


def test_a_spill_file_is_made_for_a_partition_only_when_children_are_written_to_it(tmp_path):
    """A layer on disk makes a partition's file on its first write (not one per partition before the layer),
    and the merge that takes the partition reads back every row written to it, in order."""
    import numpy as np

    from gridsat.solvers.frontier_engine.spill import Bins, Meter, spans_of

    folder = SpillFolder(tmp_path)
    bins = Bins(8, 2, Meter(), folder, keep=0)
    ordered = np.arange(20, dtype=np.uint64).reshape(10, 2)
    starts = np.array([0, 0, 0, 4, 4, 4, 10, 10, 10], np.int64)  # partition 2: rows 0-3, partition 5: rows 4-9
    assert spans_of(starts) == [(2, 0, 4), (5, 4, 10)]
    bins.write(ordered, spans_of(starts))
    bins.write(ordered[:3] + np.uint64(100), [(2, 0, 3)])
    assert len(list(folder.path.iterdir())) == 2  # two partitions written: two files, not eight
    (two,) = bins.take(2)
    assert two.tolist() == ordered[:4].tolist() + (ordered[:3] + np.uint64(100)).tolist()
    assert bins.take(0) == [] and bins.take(5)[0].tolist() == ordered[4:].tolist()
    bins.close()
    assert list(folder.path.iterdir()) == []


def test_a_released_layer_removes_its_spill_files_unread(monkeypatch, tmp_path):
    """Letting go of a layer held on disk (the last layer, or one a checkpoint held) removes its files
    without reading them back, and the meter and the folder count nothing left."""
    import numpy as np

    from gridsat.solvers.frontier_engine.spill import Meter, Shelf

    folder, meter = SpillFolder(tmp_path), Meter()
    shelf = Shelf(3, 2, meter, folder, keep=0)  # nothing stays in memory: every partition to its file
    shelf.put(0, np.ones((5, 2), np.uint64))
    shelf.put(2, np.ones((3, 2), np.uint64))
    shelf.hold()
    assert shelf.take(2).tolist() == [[1, 1]] * 3  # held: the file read and left in place
    meter.sub(3 * 2 * 8)
    assert len(list(folder.path.iterdir())) == 2 and folder.held == 8 * 2 * 8

    def unread(*args, **kwargs):
        raise AssertionError("a released partition was read back")

    monkeypatch.setattr(np, "fromfile", unread)
    monkeypatch.setattr(Path, "open", unread)
    shelf.release()
    assert list(folder.path.iterdir()) == [] and folder.held == 0 and meter.now == 0
    assert shelf.take(0).shape == (0, 2)


def test_spill_files_go_when_a_count_is_interrupted(monkeypatch, tmp_path):
    small_partitions(monkeypatch)
    merge, calls = frontier_engine.insert_pieces, []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 200:
            raise KeyboardInterrupt
        return merge(*args)

    budget = run_spec(spec("6x6", {"closed": "true"}), Stop()).peak_memory - 1
    monkeypatch.setattr(frontier_engine, "insert_pieces", interrupted)
    stop = Stop()
    run = run_spec(spec("6x6", {"closed": "true"}), stop, threads=2, memory=budget, spill=tmp_path)
    assert run.count is None and stop.reason == "interrupted" and 0 < len(run.states) < 80
    assert len(calls) >= 200 and leftovers(tmp_path) == []


def test_a_short_disk_is_refused_before_the_layer(monkeypatch, tmp_path):
    small_partitions(monkeypatch)
    budget = run_spec(spec("6x6", {"closed": "true"}), Stop()).peak_memory - 1
    monkeypatch.setattr(SpillFolder, "free_bytes", lambda self: 1000)
    stop = Stop()
    run = run_spec(spec("6x6", {"closed": "true"}), stop, memory=budget, spill=tmp_path)
    assert run.count is None and str(stop.reason).startswith("out of disk at layer ")
    assert "GB is free under" in stop.reason and leftovers(tmp_path) == []


# A child process: the kernels loaded by a 4x4 count, then (budget MB > 0) 6x6 closed tours counted with that
# budget and partitions of PART_ROWS rows; prints the count and its own peak resident memory (ru_maxrss, kB).
RESIDENT_CHILD = """
import resource, sys
from gridsat.models.knights_tour.board import Board
from gridsat.models.knights_tour.frontier import build
from gridsat.solvers.frontier_engine import layers
from gridsat.solvers.stop import Stop
budget, part_rows, spill = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
layers.PART_ROWS = layers.SPILL_PART_ROWS = part_rows
run = layers.run_spec(build(Board(4, 4, True)), Stop(), threads=2)
if budget:
    run = layers.run_spec(build(Board(6, 6, True)), Stop(), threads=2, memory=budget << 20, spill=spill)
print(run.count, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def resident_child(budget_mb: int, part_rows: int, spill: Path) -> tuple[int, int]:
    """The child's count and peak resident memory in kB (see ``RESIDENT_CHILD``)."""
    done = subprocess.run([sys.executable, "-c", RESIDENT_CHILD, str(budget_mb), str(part_rows), str(spill)],
                          capture_output=True, text=True, timeout=600, check=True)
    count, peak = done.stdout.split()
    return int(count), int(peak)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="the engine reads VmRSS from /proc")
def test_the_memory_budget_bounds_the_resident_memory_of_a_spilled_count(tmp_path):
    """``memory`` bounds what the process holds, not only the engine's meter: a process that counts
    6x6 closed tours with 8 MB peaks within 8 MB and ``RESIDENT_SLACK`` of the same process that loaded
    the kernels and counted nothing (the allowance for the interpreter, numpy, numba and the kernels:
    174 MB measured here). Partitions of 4 rows make the many small pieces of children that 8x8 closed
    tours' widest layers make (pieces of about 120 rows in 16,384 partitions): before the meter counted
    what a piece costs beyond its rows and asked the resident memory, this peaked at 248 MB (74 MB above
    the allowance, with the engine's meter at 5 MB); now at 177 MB."""
    from gridsat.solvers.frontier_engine.spill import RESIDENT_SLACK

    _, allowance = resident_child(0, 4, tmp_path)
    count, peak = resident_child(8, 4, tmp_path)
    assert count == 9862  # 6x6 closed tours, undirected: A001230's 19,724 directed, halved
    assert peak <= allowance + (8 << 10) + (RESIDENT_SLACK >> 10), (peak, allowance)
    assert leftovers(tmp_path) == []


def test_a_partition_that_cannot_fit_ends_the_run_on_the_memory_budget(tmp_path):
    stop = Stop()
    run = run_spec(spec("6x6", {"closed": "true"}), stop, memory=10_000, spill=tmp_path)
    assert run.count is None and str(stop.reason).startswith("out of the memory budget at layer ")
    assert "one partition needs" in stop.reason


class StopAfter(Stop):
    """A stop requested after ``looks`` looks at it (the engine looks between layers and partitions)."""

    def __init__(self, looks: int, reason: str = "interrupted") -> None:
        super().__init__()
        self.left = looks
        self.why = reason

    def expired(self) -> bool:
        self.left -= 1
        if self.left < 0:
            self.request(self.why)
        return super().expired()


@pytest.mark.parametrize("spilled", [False, True])
def test_an_interrupted_count_resumes_from_its_checkpoint(monkeypatch, tmp_path, spilled):
    small_partitions(monkeypatch)
    what = {"puzzle": "knights-tour", "instance": "6x6 closed"}
    memory = run_spec(spec("6x6", {"closed": "true"}), Stop()).peak_memory - 1 if spilled else None
    path = tmp_path / "count.ckpt"
    first = run_spec(spec("6x6", {"closed": "true"}), StopAfter(80), memory=memory, spill=tmp_path / "spill",
                     checkpoint=LayerCheckpoint(path, what, every=0))
    assert first.count is None and path.exists()
    resumed = run_spec(spec("6x6", {"closed": "true"}), Stop(), memory=memory, spill=tmp_path / "spill",
                       checkpoint=LayerCheckpoint(path, what, every=0))
    layers = spec("6x6", {"closed": "true"}).elements
    assert resumed.count == 9862 and 10 < resumed.resumed < layers
    assert resumed.states[: resumed.resumed] == first.states[: resumed.resumed]
    assert leftovers(tmp_path / "spill") == []
    again = run_spec(spec("6x6", {"closed": "true"}), Stop(), checkpoint=LayerCheckpoint(path, what, every=0))
    assert again.count == 9862 and again.resumed == layers  # the finished count is kept: nothing to redo


def test_a_time_limit_keeps_the_layer_it_stopped_at(tmp_path):
    """Checkpoints are due once a minute, but a run stopped by its time limit writes the layer it stopped
    at, whatever the clock: a count of hours goes on from there in the next sitting."""
    what = {"puzzle": "knights-tour", "instance": "6x6 closed"}
    path = tmp_path / "count.ckpt"
    first = run_spec(spec("6x6", {"closed": "true"}), StopAfter(30, "time limit"),
                     checkpoint=LayerCheckpoint(path, what, every=3600))
    assert first.count is None and path.exists()
    resumed = run_spec(spec("6x6", {"closed": "true"}), Stop(), checkpoint=LayerCheckpoint(path, what))
    assert resumed.count == 9862 and resumed.resumed == len(first.states) - 1 > 10


def stop_inside(monkeypatch, layer: int, stop_it) -> None:
    """``stop_it()`` once, when layer ``layer``'s expansion has taken its first partition: a stop in mid-layer,
    after the parents the engine lets go of as it expands them began to go."""
    take, fired = layers.Expansion.take, []

    def taking(self, q):
        take(self, q)
        if self.layer == layer and not fired:
            fired.append(q)
            stop_it()

    monkeypatch.setattr(layers.Expansion, "take", taking)


@pytest.mark.parametrize("how", ["time limit", "Ctrl-C"])
@pytest.mark.parametrize("spilled", [False, True])
def test_a_stop_in_mid_layer_writes_the_last_finished_layer(monkeypatch, tmp_path, how, spilled):
    """No checkpoint is due (once an hour), and the run stops inside layer 36 (its time limit, or Ctrl-C or
    SIGTERM, which raise KeyboardInterrupt): the file gets layer 36, the last one finished, held whole while
    the next was made (in memory, or in its spill files), and the count goes on from it to the golden count."""
    import json
    import zipfile

    small_partitions(monkeypatch)
    board, what = spec("6x6", {"closed": "true"}), {"puzzle": "knights-tour", "instance": "6x6 closed"}
    memory = run_spec(board, Stop()).peak_memory * 2 // 3 if spilled else None  # layers 33 to 47 on disk
    stop, path, spill = Stop(), tmp_path / "count.ckpt", tmp_path / "spill"

    def stop_it():
        if how == "Ctrl-C":
            raise KeyboardInterrupt
        stop.request("time limit")

    stop_inside(monkeypatch, 36, stop_it)
    first = run_spec(board, stop, memory=memory, spill=spill, checkpoint=LayerCheckpoint(path, what, every=3600))
    assert first.count is None and stop.reason == ("interrupted" if how == "Ctrl-C" else "time limit")
    assert first.kept_layer == 36 == len(first.states) - 1 and (first.spilled > 0) == spilled
    with zipfile.ZipFile(path) as z:
        assert json.loads(z.read("meta.json"))["layer"] == 36
    resumed = run_spec(board, Stop(), memory=memory, spill=spill, checkpoint=LayerCheckpoint(path, what))
    assert resumed.count == 9862 and resumed.resumed == 36 and resumed.kept_layer == board.elements
    assert resumed.states[:36] == first.states[:36] and leftovers(spill) == []


@pytest.mark.parametrize("after", [0, 1])
def test_a_stop_where_the_counts_widen_keeps_a_layer_that_resumes(monkeypatch, tmp_path, after):
    """Tatami 2x200 (a 111-bit count) widens its counts into more lanes at one layer: stopped inside that
    layer, the file keeps the layer before, in one lane as it finished; stopped in the next, the widened
    one. Either resumes to the golden count (the rows read back as wide as the file's lanes)."""
    small_partitions(monkeypatch)
    board, path = spec("2x200", puzzle=TATAMI), tmp_path / "count.ckpt"
    widened, widen = [], layers.widen
    monkeypatch.setattr(layers, "widen", lambda engine, shelf: widened.append(len(engine.run.states) - 1)
                        or widen(engine, shelf))
    golden = run_spec(board, Stop())
    at = widened[0] + after
    stop = Stop()
    stop_inside(monkeypatch, at, lambda: stop.request("time limit"))
    first = run_spec(board, stop, checkpoint=LayerCheckpoint(path, {"instance": "2x200"}, every=3600))
    assert first.kept_layer == at == len(first.states) - 1 and first.count is None
    resumed = run_spec(board, Stop(), checkpoint=LayerCheckpoint(path, {"instance": "2x200"}))
    assert resumed.resumed == at and resumed.count == golden.count == 1_424_898_759_677_182_306_122_208_910_181_724


def test_a_layer_the_file_has_is_not_written_again_at_a_stop(monkeypatch, tmp_path):
    """With a checkpoint after every layer, the file has the last finished layer already: a stop in mid-layer
    leaves it as it is, and no layer but the first (the root, which no file has) is held."""
    small_partitions(monkeypatch)
    board, path = spec("6x6", {"closed": "true"}), tmp_path / "count.ckpt"
    held = []
    hold = layers.Shelf.hold
    monkeypatch.setattr(layers.Shelf, "hold", lambda shelf: held.append(shelf) or hold(shelf))
    stop = Stop()
    stop_inside(monkeypatch, 20, lambda: stop.request("time limit"))
    checkpoint = LayerCheckpoint(path, {"instance": "6x6 closed"}, every=0)
    written = []
    save = checkpoint.save
    checkpoint.save = lambda engine, layer, shelf, **how: written.append((layer, how)) or save(engine, layer, shelf,
                                                                                                 **how)
    first = run_spec(board, stop, checkpoint=checkpoint)
    assert first.kept_layer == 20 == len(first.states) - 1 and [shelf.states for shelf in held] == [1]
    assert not any(how.get("final") for _, how in written)


def test_a_checkpoint_that_cannot_be_written_keeps_the_answer(monkeypatch, tmp_path, capsys):
    """A full disk at a write: the count goes on and is printed, with one line saying the file was not kept;
    the file keeps the layer it had, and no partial file is left."""
    from gridsat.cli import main
    from gridsat.solvers.frontier_engine import layer_checkpoint

    path, writes, rename = tmp_path / "count.ckpt", [], os.replace

    def replace(source, target):  # os is one module: numba's cache writes pass through here too
        if Path(target) == path:
            writes.append(target)
            if len(writes) > 1:  # the first write lands; the disk is full from the second on
                raise OSError(errno.ENOSPC, "No space left on device")
        rename(source, target)

    monkeypatch.setattr(layer_checkpoint.os, "replace", replace)
    monkeypatch.setattr(layer_checkpoint.LayerCheckpoint.__init__, "__defaults__", (0.0,))  # a write a layer
    assert main(["count", "knights-tour", "6x6", "-p", "closed=true", "--backend", "frontier",
                 "--checkpoint", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "19724 (tours: directed)"
    assert err.count("gridsat: warning: the checkpoint was not kept: No space left on device (it holds layer") == 1
    assert len(writes) == 2 and path.exists() and list(tmp_path.iterdir()) == [path]


def test_a_checkpoint_of_another_count_is_refused(tmp_path):
    path = tmp_path / "count.ckpt"
    run_spec(spec("5x5"), Stop(), checkpoint=LayerCheckpoint(path, {"instance": "5x5"}, every=0))
    with pytest.raises(InvalidOption, match="was written for another count .*data_sha256"):
        run_spec(spec("6x6", {"closed": "true"}), Stop(), checkpoint=LayerCheckpoint(path, {"instance": "5x5"}))
    path.write_text("not a checkpoint")
    with pytest.raises(InvalidOption, match="cannot be read"):
        run_spec(spec("5x5"), Stop(), checkpoint=LayerCheckpoint(path, {"instance": "5x5"}))


def test_partitions_spliced_from_another_checkpoint_are_refused_and_the_file_kept(monkeypatch, tmp_path):
    """Two files of the same count, stopped at other layers: meta.json of one with the other's partitions."""
    import zipfile

    small_partitions(monkeypatch)
    what = {"puzzle": "knights-tour", "instance": "6x6 closed"}
    files = {}
    for stop_after in (60, 100):
        path = tmp_path / f"at{stop_after}.ckpt"
        board = spec("6x6", {"closed": "true"})
        run_spec(board, StopAfter(stop_after), checkpoint=LayerCheckpoint(path, what, every=0))
        with zipfile.ZipFile(path) as z:
            files[stop_after] = {name: z.read(name) for name in z.namelist()}
    spliced = tmp_path / "spliced.ckpt"
    with zipfile.ZipFile(spliced, "w") as z:
        z.writestr("meta.json", files[60]["meta.json"])
        for name, data in files[100].items():
            if name != "meta.json":
                z.writestr(name, data)
    before = spliced.read_bytes()
    with pytest.raises(InvalidOption, match="does not match its digest|cannot be read"):
        run_spec(spec("6x6", {"closed": "true"}), Stop(), checkpoint=LayerCheckpoint(spliced, what))
    assert spliced.read_bytes() == before


def test_one_lane_while_counts_are_small_then_all_the_bound_needs():
    """Tatami 8x100 has a bound of 401 bits but 3021 tilings: one lane suffices all along. The 2x200
    room passes 2**64 on the way: its counts are widened to the lanes the bound needs, and exact."""
    small = run_spec(spec("8x100", puzzle=TATAMI), Stop())
    assert small.count == 3021 and small.lanes == 1
    big = run_spec(spec("2x200", puzzle=TATAMI), Stop())
    assert big.count == 1_424_898_759_677_182_306_122_208_910_181_724 and big.lanes > 1


@pytest.mark.parametrize("text, params, first_slot", [
    ("3x40", {"closed": "true"}, 0),  # one word, 36 spare bits: its totals pass 2**35, so it unpacks midway
    ("6x6", {"closed": "true"}, 9),  # two words (slots straddle them), as an 8-row board's
    ("5x6", {}, 8),  # an open tour: the tour ends' nibble after the slots
])
def test_packed_rows_count_what_a_column_a_lane_counts(text, params, first_slot):
    """The count in the state's spare bits (packed rows) gives the same states, layer by layer, and the same
    count as rows with the count in a column of its own (``spare_bits=0``)."""
    from dataclasses import replace

    from gridsat.models.knights_tour.frontier import build

    board = build(TOUR.parse(text, params), first_slot=first_slot)
    packed, plain = run_spec(board, Stop()), run_spec(replace(board, spare_bits=0), Stop())
    assert packed.count == plain.count and packed.states == plain.states
    assert packed.packed > 0 and plain.packed == 0
    if text == "3x40":  # packed while its totals stay below 2**(63 - 28), then unpacked into every lane
        assert packed.packed < len(packed.states) and packed.lanes == 3


def test_packed_rows_unpack_into_lanes_exactly(monkeypatch):
    """A total that could pass the packed count's bits unpacks the rows (into the one lane 3x20 needs) before
    the layer: forced at the first layers here (a 2**36 limit leaves 3x20 closed tours' packed counts 2**8),
    the count holds."""
    plain = run_spec(spec("3x20", {"closed": "true"}), Stop())
    monkeypatch.setattr(layers, "SAFE_TOTAL", float(1 << 36))
    run = run_spec(spec("3x20", {"closed": "true"}), Stop())
    assert run.count == plain.count > 0 and 0 < run.packed < plain.packed == plain.layers


def test_a_dask_cluster_counts_what_one_process_counts():
    distributed = pytest.importorskip("distributed")
    from gridsat.solvers.frontier_engine.dask_layers import run_on_cluster

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        for text, params, puzzle in (("5x5", {}, TOUR), ("3x10", {"closed": "true"}, TOUR), ("4x7", {}, TATAMI)):
            one = run_spec(spec(text, params, puzzle), Stop())
            many = run_on_cluster(spec(text, params, puzzle), Stop(), c.scheduler_address)
            assert many.count == one.count and many.states == one.states
            assert len(many.workers) == 2 and all(w["peak_memory"] > 0 for w in many.workers)


def test_the_command_line_spills_checkpoints_and_cleans_up(tmp_path):
    """`--memory` bounds the whole process: one megabyte is refused in one line saying what the process holds;
    that and 3 MB more leave the engine below 6x6 closed tours' widest layer (about 5 MB): it goes to disk."""
    import json
    import re
    import subprocess
    import sys

    spill, checkpoint = tmp_path / "spill", tmp_path / "tours.ckpt"
    command = [sys.executable, "-m", "gridsat", "count", "knights-tour", "6x6", "-p", "closed=true", "--backend",
               "frontier", "--spill", str(spill), "--checkpoint", str(checkpoint), "--json"]
    refused = subprocess.run([*command, "--memory", "1"], capture_output=True, text=True, timeout=300)
    held = re.search(r"--memory 1: the budget bounds the whole process, which holds (\d+) MB before counting",
                     refused.stderr)
    assert refused.returncode == 2 and held and refused.stdout == "", refused.stderr
    memory = (int(held[1]) + 3) * 8 // 7 + 1
    command += ["--memory", str(memory)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["count"] == 19724 and record["spilled_layers"] > 0 and record["peak_disk"] > 0
    assert record["peak_memory"] <= record["engine_budget"] < memory << 20
    assert checkpoint.exists() and list(spill.iterdir()) == []
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    resumed = json.loads(again.stdout)
    assert resumed["count"] == 19724 and resumed["resumed_at_layer"] == record["layers"]


def test_the_command_line_says_which_layer_a_time_limit_kept(tmp_path):
    """`--time-limit 1` stops a count of 6x6 open tours (seconds long) with a checkpoint of the last finished
    layer, said on stderr; the same command without the limit goes on from that layer to the golden count."""
    import json
    import re
    import subprocess
    import sys
    import zipfile

    from gridsat.models.golden import counts

    golden = next(e["count"] for e in counts("frontier") if e["id"] == "tours-6x6-open")
    checkpoint = tmp_path / "tours.ckpt"
    command = [sys.executable, "-m", "gridsat", "count", "knights-tour", "6x6", "--backend", "frontier",
               "--checkpoint", str(checkpoint)]
    stopped = subprocess.run([*command, "--time-limit", "1"], capture_output=True, text=True, timeout=300)
    assert stopped.returncode == 4 and "incomplete: time limit" in stopped.stdout, stopped.stderr
    kept = re.search(r"gridsat: note: the checkpoint keeps layer (\d+) of 80, the last one finished: "
                     r"the same command goes on from it\n", stopped.stderr)
    assert kept, stopped.stderr
    with zipfile.ZipFile(checkpoint) as z:
        meta = json.loads(z.read("meta.json"))
    assert meta["layer"] == int(kept[1]) == len(meta["states"])
    resumed = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=300)
    record = json.loads(resumed.stdout)
    assert record["count"] == golden and record.get("resumed_at_layer", 0) == int(kept[1])
    assert record["checkpoint_layer"] == 80
