"""A cross-check's lines on screen: the progress line while a run goes (which run, how long it has run
of its budget), and the result line when it ends.

A run may find nothing for minutes (a solver proving its last answer, a counter compiling), so the
line is redrawn once a second by a thread of its own rather than by the run. It is a ``ProgressLine``
(stderr, only on a terminal); ``end`` clears it before a run's result line is printed.
"""

from __future__ import annotations

import shutil
import threading
import time
from types import TracebackType
from typing import IO

from gridsat.api import Outcome, Turn
from gridsat.progress import ProgressLine, clock

TICK = 1.0  # seconds between redraws: the line shows whole seconds
LABEL_WIDTH = 40  # the label column of the result lines; a longer label goes on a line of its own


def result_row(o: Outcome, width: int = LABEL_WIDTH) -> str:
    """``sat:pairwise/cadical195   3   0.001 s  (complete)``. The lines come as the runs end, before the
    longest label is known, so a label longer than ``width`` is put on its own line: every run's count
    stays in one column however long the labels are."""
    state = "complete" if o.complete else f"incomplete: {o.reason}"
    extra = f", {o.duplicates} duplicates dropped" if o.duplicates else ""
    bad = f", {len(o.invalid)} INVALID" if o.invalid else ""
    count = o.count if o.known else "-"  # a counter stopped before it knew a count has none, not 0
    numbers = f"{count:>10}  {o.seconds:9.3f} s  ({state}{extra}{bad})"
    return f"{o.label:<{width}} {numbers}" if len(o.label) <= width else f"{o.label}\n{'':<{width}} {numbers}"


def describe_turn(turn: Turn, elapsed: float) -> str:
    """``crosscheck: run 3 of 7: sat:default  0:12 elapsed (budget 1:00)``."""
    text = f"crosscheck: run {turn.number} of {turn.of}: {turn.config.label}  {clock(elapsed)} elapsed"
    return text + (f" (budget {clock(turn.time_limit)})" if turn.time_limit is not None else " (no time limit)")


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters (ending in ``…``): a line that wraps cannot be redrawn in place."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


class RunLine(ProgressLine):
    """The line for one cross-check: ``start`` a run, ``end`` it (clears the line), ``stop`` when all ran."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        super().__init__(stream)
        self.turn: Turn | None = None
        self.started = 0.0
        self.lock = threading.Lock()  # the ticker and the caller both draw and clear
        self.done = threading.Event()
        self.ticker = threading.Thread(target=self.tick, name="crosscheck progress", daemon=True)
        self.ticker.start()

    @classmethod
    def on_terminal(cls, quiet: bool) -> RunLine | None:
        line = super().on_terminal(quiet)
        assert line is None or isinstance(line, RunLine)
        return line

    def start(self, turn: Turn) -> None:
        with self.lock:
            self.turn, self.started = turn, time.monotonic()
            self.draw()

    def end(self) -> None:
        """Clear the line (a run ended: its result line comes next)."""
        with self.lock:
            self.turn = None
            self.close()

    def stop(self) -> None:
        self.done.set()
        self.ticker.join()
        self.end()

    def tick(self) -> None:
        while not self.done.wait(TICK):
            with self.lock:
                if self.turn is not None:
                    self.draw()

    def draw(self) -> None:
        assert self.turn is not None
        width = shutil.get_terminal_size().columns - 1
        self.stream.write(f"\r{fit(describe_turn(self.turn, time.monotonic() - self.started), width)}\033[K")
        self.stream.flush()
        self.drawn = True

    def __enter__(self) -> RunLine:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
