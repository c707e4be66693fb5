"""A fake backend for the benchmark tests, importable in the runner's child processes as ``tests.bench_fake``.

``SleeperBackend`` starts a grandchild that sleeps and then sleeps itself, ignoring every soft limit,
so only the runner's wall-clock kill of the process group can end it. (The wrong-count fake is
``tests.test_harness:WrongCount``.)
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from models.puzzle import Instance, Puzzle
from solvers.backend import Request
from solvers.reference.backend import ReferenceBackend
from solvers.stop import Stop


@dataclass
class SleepingJob:
    label: str = "sleep"
    exhaustive: bool = True

    def size(self) -> dict[str, int]:
        return {}

    def solutions(self, stop: Stop) -> Iterator[Any]:
        grandchild = subprocess.Popen(["sleep", "600"])
        with open(os.environ["GRIDSAT_TEST_PIDFILE"], "w") as handle:
            handle.write(str(grandchild.pid))
        time.sleep(600)
        yield from ()


class SleeperBackend(ReferenceBackend):
    name = "fake-sleeper"
    summary = "sleeps past every limit, with a grandchild"

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> SleepingJob:
        return SleepingJob()
