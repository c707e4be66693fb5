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
from collections import Counter, defaultdict
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from gridsat.benchmarks.worker import NOT_APPLICABLE
from gridsat.models.errors import GridsatError
from gridsat.models.params import excerpt
from gridsat.solvers.backend import reference_backend

# Every status a run can end with, in the order summaries count them.
STATUSES = ("ok", "timeout", "memout", NOT_APPLICABLE, "error", "wrong")
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

    def start(self, head: dict[str, Any]) -> None:
        """Resume when the limits match the file's; start the file when there is none."""
        if self.header is not None:
            if self.header.get("suite") != head["suite"]:
                raise GridsatError(f"{self.path.parent} holds the results of suite {self.header.get('suite')!r}, not "
                                   f"{head['suite']!r}: a results folder belongs to one suite; choose another --out")
            if self.header.get("limits") != head["limits"]:
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
    """Mark ``wrong`` the runs that break rules or disagree on their case; the problems found.

    The truth on a case is its ``expected`` count when the suite gives one; else the answer most
    configurations agree on; on a tie, the reference backend's answer; on a tie without it, no one
    can say, so every run of the tie is marked wrong.
    """
    cases: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        if record["status"] in ANSWERED:
            record["status"], record["message"] = "ok", None
            cases[(record["puzzle"], record["instance"], json.dumps(record["params"]), record["mode"])].append(record)
    problems = []
    for (puzzle, _, _, mode), group in cases.items():
        truth, source = truth_of(group)
        for record in group:
            where = f"{puzzle} {record_case(record)} {record['config']}"
            if record.get("invalid"):
                record["status"] = "wrong"
                record["message"] = f"{record['invalid']} solutions break the puzzle's rules"
            elif truth is not None and answer(record) != truth:
                record["status"] = "wrong"
                record["message"] = f"answered {answer(record)}, {source} says {truth}"
            elif truth is None:
                record["status"] = "wrong"
                record["message"] = f"answers disagree and nothing breaks the tie: {source}"
            if record["status"] == "wrong":
                problems.append(f"WRONG {where} ({mode}): {record['message']}")
    return problems


def truth_of(group: list[dict[str, Any]]) -> tuple[Any, str]:
    """The answer a case should have, and where it comes from."""
    expected = group[0].get("expected")
    if expected is not None:
        return ("solution" if expected else "none") if group[0]["mode"] == "solve" else expected, "the suite"
    votes = Counter(answer(r) for r in group if not r.get("invalid"))
    if not votes:
        return None, "no valid answers"
    ranked = votes.most_common()
    best = [a for a, n in ranked if n == ranked[0][1]]
    if len(best) == 1:
        return best[0], f"the majority ({ranked[0][1]} of {sum(votes.values())} runs)"
    reference = reference_backend()  # the registry's, never a name written here
    references = {answer(r) for r in group if r["backend"] == reference and answer(r) in best}
    if len(references) == 1:
        return references.pop(), "the reference backend"
    return None, " vs ".join(str(a) for a in best)


def record_case(record: dict[str, Any]) -> str:
    return " ".join([record["instance"], *(f"{k}={v}" for k, v in sorted(record["params"].items()))])
