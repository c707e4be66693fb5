"""``results.jsonl``: a header line (machine, Python, packages, suite, limits), then one record per run.

Records are appended and flushed as each run finishes, so an interrupted benchmark keeps what it
finished and the next invocation with the same ``--out`` skips those runs. When every run is in,
``judge`` compares the answers on each case and the file is rewritten (atomically) with the verdicts.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import threading
from collections import defaultdict
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from gridsat.benchmarks.worker import NOT_APPLICABLE
from gridsat.models import get_puzzle
from gridsat.models.errors import GridsatError
from gridsat.models.golden import golden_count
from gridsat.models.params import excerpt

# A run the wall-clock backstop killed before it had used its CPU limit: its time is not known (not at or
# above the limit, as a timeout's is), so no figure counts it, and the same command makes it again.
LOST = "lost"
# Every status a run can end with, in the order summaries count them.
STATUSES = ("ok", "timeout", "memout", LOST, NOT_APPLICABLE, "error", "wrong")
PACKAGES = ("gridsat", "ortools", "python-sat", "matplotlib", "dask", "distributed")
ANSWERED = ("ok", "wrong")  # statuses whose answers the judge compares (wrong is re-judged on resume)


def header(suite: str, limits: dict[str, Any], description: str = "") -> dict[str, Any]:
    """Where and with what the runs were made, once per file."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "kind": "header",
        "suite": suite,
        "description": description,
        "limits": limits,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "node": platform.node(),
            "system": f"{platform.system()} {platform.release()}",
            "processor": platform.machine(),
            "cpus": os.cpu_count(),
        },
        "python": sys.version.split()[0],
        "packages": versions,
    }


MAX_BYTES = 256 << 20  # a results file of a large suite is a few megabytes


class Results:
    """The records of one output directory, appended to as runs finish."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "results.jsonl"
        self.header: dict[str, Any] | None = None
        self.records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        try:
            present = self.path.exists()
        except OSError as error:  # a name too long
            raise GridsatError(f"cannot use the folder {excerpt(str(directory))}: {error.strerror}") from None
        if present:
            self._read()

    def _read(self) -> None:
        """Read a results file to resume it; a damaged one is refused (file and line), never rewritten."""
        if not self.path.is_file():
            raise GridsatError(f"{self.path} is not a regular file: choose another --out")
        if self.path.stat().st_size > MAX_BYTES:
            raise GridsatError(f"{self.path} is larger than {MAX_BYTES >> 20} MB: not a results file")
        lines = self.path.read_bytes().splitlines()
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            where = f"{self.path}:{number}"
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:  # records are ASCII JSON: even a torn one decodes
                raise GridsatError(f"{where}: not UTF-8 text (byte {error.start + 1}): not a results file") from None
            try:
                item = json.loads(text)
            except json.JSONDecodeError:
                if number == len(lines):
                    continue  # the last line of an interrupted write; the run is made again
                raise GridsatError(f"{where}: not a JSON record") from None
            kind = item.get("kind") if isinstance(item, dict) else None
            if kind == "header" and number == 1:
                self.header = item
            elif kind == "run" and isinstance(item.get("id"), str) and self.header is not None:
                self.records.append(item)
            else:
                raise GridsatError(f"{where}: not a gridsat bench record (a header first, then runs): {excerpt(text)}")

    def start(self, head: dict[str, Any], fresh: bool = False) -> None:
        """Resume when the limits match the file's; start the file when there is none, or anew (``fresh``:
        every run is made again, under the limits given now)."""
        if self.header is not None:
            if self.header.get("suite") != head["suite"]:
                raise GridsatError(f"{self.path.parent} holds the results of suite {self.header.get('suite')!r}, not "
                                   f"{head['suite']!r}: a results folder belongs to one suite; choose another --out")
            if fresh:
                self.header, self.records = head, []
            elif self.header.get("limits") != head["limits"]:
                raise GridsatError(
                    f"{self.path} was made with limits {self.header.get('limits')}, not {head['limits']}: "
                    "use the same limits to resume, or another --out"
                )
            self.rewrite()  # drops the half-written last line of an interrupted run
            return
        self.header = head
        made = make_folder(self.path.parent)
        try:
            self.rewrite()
        except OSError as error:
            remove(made)
            raise GridsatError(f"cannot write {excerpt(str(self.path))}: {error.strerror}") from None

    def done(self) -> set[str]:
        """The ids of runs already recorded."""
        return {r["id"] for r in self.records}

    def forget_lost(self) -> int:
        """Drop the records of runs whose time was lost (``LOST``), so that those runs are made again; how many."""
        lost = [r for r in self.records if r["status"] == LOST]
        if lost:
            self.records = [r for r in self.records if r["status"] != LOST]
            self.rewrite()
        return len(lost)

    def forget_stale(self, current: dict[str, Any]) -> list[dict[str, Any]]:
        """Drop the records whose fingerprint differs from ``current[id]`` (the code they ran has changed:
        benchmarks/fingerprint.py), so that those runs are made again; the records dropped."""
        stale = [r for r in self.records if r["id"] in current and r.get("fingerprint") != current[r["id"]]]
        if stale:
            gone = {id(r) for r in stale}
            self.records = [r for r in self.records if id(r) not in gone]
            self.rewrite()
        return stale

    def append(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.records.append(record)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def rewrite(self) -> None:
        """Write the header and every record again, replacing the file in one step."""
        partial = self.path.with_suffix(".jsonl.part")
        try:
            with partial.open("w", encoding="utf-8") as handle:
                for item in [self.header, *self.records]:
                    handle.write(json.dumps(item) + "\n")
            os.replace(partial, self.path)
        finally:
            partial.unlink(missing_ok=True)


def make_folder(path: Path) -> list[Path]:
    """Make the output folder ``path`` and its missing parents; the folders made, outermost first.
    When one cannot be made (under /proc, under a file, a name too long), those made are removed
    again and the error names ``path``: a refused --out leaves nothing behind."""
    missing = []
    for folder in (path, *path.parents):
        try:
            folder.stat()
        except FileNotFoundError:
            missing.append(folder)
            continue
        except OSError as error:  # a name too long, a file on the way (f/sub)
            raise GridsatError(f"cannot make the --out folder {excerpt(str(path))}: {error.strerror}") from None
        break  # the deepest one that exists (if it is no folder, mkdir says so)
    made: list[Path] = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            made.append(folder)
    except OSError as error:
        remove(made)
        raise GridsatError(f"cannot make the --out folder {excerpt(str(path))}: {error.strerror}") from None
    return made


def remove(folders: list[Path]) -> None:
    """Remove the (empty) folders ``make_folder`` made, innermost first."""
    for folder in reversed(folders):
        folder.rmdir()


def answer(record: dict[str, Any]) -> Any:
    """What a run claims: its count (count mode) or whether a solution exists (solve mode)."""
    if record["mode"] == "solve":
        return "solution" if record["count"] else "none"
    return record["count"]


def judge(records: list[dict[str, Any]]) -> list[str]:
    """Mark ``wrong`` the runs that break rules, return a solution twice, or differ from their case's
    known count; give every answered run its case's ``verdict``; the problems found.

    The truth on a case is its ``expected`` count when the suite gives one, else its golden count
    (models/golden); every run is checked against it (``checked``), a mismatch naming the source.
    With no count known, no majority is the truth: runs that differ make the case ``disputed``,
    runs that all agree ``agreed``, and a case where only one run answered is ``unchecked``.
    """
    cases: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        record["verdict"] = None  # an unanswered run's case may have none
        if record["status"] in ANSWERED:
            record["status"], record["message"] = "ok", None
            cases[(record["puzzle"], record["instance"], json.dumps(record["params"]), record["mode"])].append(record)
    problems = []
    for (puzzle, _, _, mode), group in cases.items():
        truth, source = truth_of(group)
        answers = {answer(r) for r in group if not faults(r)}
        verdict = (CHECKED if truth is not None else DISPUTED if len(answers) > 1
                   else AGREED if len(group) > 1 else UNCHECKED)
        for record in group:
            record["verdict"] = verdict
            fault = faults(record) or (f"answered {answer(record)}, {source} says {truth}"
                                       if truth is not None and answer(record) != truth else None)
            if fault:
                record["status"], record["message"] = "wrong", fault
                problems.append(f"WRONG {puzzle} {record_case(record)} {record['config']} ({mode}): {fault}")
        if verdict == DISPUTED:
            said = ", ".join(f"{r['config']} {answer(r)}" for r in group)
            problems.append(f"DISPUTED {puzzle} {record_case(group[0])} ({mode}): no count is known and the runs "
                            f"differ: {said}")
    return problems


# The statuses of a run that make gridsat bench (and bench compare) exit 1; a limit (timeout, memout) is a result.
FAILED = ("wrong", "error")

# A case's verdict (see ``judge``), kept in each of its runs' records.
CHECKED, AGREED, DISPUTED, UNCHECKED = "checked", "agreed", "disputed", "unchecked"
VERDICTS = (CHECKED, AGREED, DISPUTED, UNCHECKED)


def faults(record: dict[str, Any]) -> str | None:
    """What a run gets wrong on its own: solutions that break the rules, solutions returned twice."""
    if record.get("invalid"):
        return f"{record['invalid']} solutions break the puzzle's rules"
    if record.get("duplicates"):
        return f"returned {record['duplicates']} solutions more than once"
    return None


def truth_of(group: list[dict[str, Any]]) -> tuple[Any, str]:
    """The answer a case should have and where it comes from: the suite's ``expected``, else the golden
    count; (None, "") when neither is known."""
    first = group[0]
    expected = first.get("expected")
    source = "the suite"
    if expected is None:
        known = golden_of(first["puzzle"], first["instance"], first["params"])
        if known is None:
            return None, ""
        expected, source = known.count, f"the golden count ({known.source})"
    return ("solution" if expected else "none") if first["mode"] == "solve" else expected, source


def golden_of(puzzle: str, instance: str, params: dict[str, Any]) -> Any:
    """The golden count of an instance as a suite names it, or None (also when it cannot be read)."""
    try:
        chosen = get_puzzle(puzzle)
        return golden_count(chosen, chosen.parse(instance, {k: str(v) for k, v in params.items()}))
    except GridsatError:
        return None


def verdicts(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many cases were checked against a known count, agreed, disputed and unchecked."""
    seen: dict[tuple, str] = {}
    for r in records:
        if r.get("verdict"):
            seen[(r["puzzle"], r["instance"], json.dumps(r["params"]), r["mode"])] = r["verdict"]
    return {v: sum(x == v for x in seen.values()) for v in VERDICTS}


def record_case(record: dict[str, Any]) -> str:
    return " ".join([record["instance"], *(f"{k}={v}" for k, v in sorted(record["params"].items()))])
