"""Fake backends for the benchmark tests, importable in the runner's child processes as ``tests.bench_fake``.

``WrongBackend`` is the reference with its first solution dropped, so its count is one short.
``BurnerBackend`` spins without polling its deadline, so only RLIMIT_CPU ends it.
``SleeperBackend`` starts a grandchild that sleeps and then sleeps itself, ignoring every soft limit,
so only the runner's wall-clock kill of the process group can end it.
``ReserverBackend`` is the reference after mapping 4 GB it never touches, as d4 does for its first page.
``RefuserBackend`` refuses every configuration when it runs, as a counter refuses a lazy encoding.
"""

from __future__ import annotations

import mmap
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gridsat.models.errors import InvalidOption
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import Request
from gridsat.solvers.backends.reference import ReferenceBackend
from gridsat.solvers.stop import Stop


def drop_first(stream: Iterator[Any]) -> Iterator[Any]:
    next(stream, None)
    yield from stream


class WrongBackend(ReferenceBackend):
    name = "fake-wrong"

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> Any:
        job = super().prepare(puzzle, instance, request)
        solutions = job.solutions
        job.solutions = lambda stop: drop_first(solutions(stop))
        return job


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


class BurningJob(SleepingJob):
    label: str = "burn"

    def solutions(self, stop: Stop) -> Iterator[Any]:
        while True:  # CPU only, never polls stop: only RLIMIT_CPU ends it
            pass
        yield


class BurnerBackend(ReferenceBackend):
    name = "fake-burner"

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> BurningJob:
        return BurningJob()


class ReserverBackend(ReferenceBackend):
    name = "fake-reserver"

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> Any:
        self.reserved = mmap.mmap(-1, 4 << 30)  # address space only: no page of it is ever resident
        return super().prepare(puzzle, instance, request)


class RefuserBackend(ReferenceBackend):
    name = "fake-refuser"

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> Any:
        raise InvalidOption(f"the {self.name} backend cannot run {puzzle.name}")
