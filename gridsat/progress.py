"""A progress line on a terminal: solutions so far, rate, parts done, elapsed time and time left.

Drawn on stderr and redrawn in place, at most five times a second; nothing at all when stderr is
not a terminal, so logs and pipes see only the answer.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Self

from gridsat.solvers.run import Progress

EVERY = 0.2  # seconds between redraws


def clock(seconds: float) -> str:
    """``1:05`` or ``2:03:04``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def describe(p: Progress) -> str:
    """The line's text."""
    if p.note is not None:  # a counting backend: no solutions to count, its own words instead
        return f"{p.note}  {clock(p.elapsed)} elapsed"
    # The rate and the time left are this run's own: what a checkpoint brought took no time here.
    rate = (p.solutions - p.resumed) / p.elapsed if p.elapsed > 0 else 0.0
    text = f"{p.solutions:,} solutions  {rate:,.0f}/s"
    if p.parts is None:
        text += "  splitting" if p.splitting and p.elapsed >= 1 else ""
    else:
        text += f"  parts {p.parts_done} of {p.parts}"
        text += f" ({p.parts_resumed} resumed)" if p.parts_resumed else ""
        text += f", {p.split_again} split again" if p.split_again else ""
    text += f"  {clock(p.elapsed)} elapsed"
    left = time_left(p)
    return text if left is None else f"{text}  ~{clock(left)} left"


def time_left(p: Progress) -> float | None:
    """Seconds left, at this run's pace so far (parts finished here, not those a checkpoint held);
    None before any part finished here, or when the run is not split (nothing says how far it is)."""
    finished = p.parts_done - p.parts_resumed
    if not p.parts or finished <= 0 or p.parts_done >= p.parts:
        return None
    return p.elapsed * (p.parts - p.parts_done) / finished


class ProgressLine:
    """A callable that redraws the progress line; ``close`` clears it."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.last = 0.0
        self.drawn = False

    @classmethod
    def on_terminal(cls, quiet: bool) -> Self | None:
        """A progress line when stderr is a terminal and the user did not ask for quiet."""
        return None if quiet or not sys.stderr.isatty() else cls()

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        if now - self.last < EVERY:
            return
        self.last = now
        self.stream.write(f"\r{describe(progress)}\033[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False


class StageLine(ProgressLine):
    """A line on a terminal naming the stage a long check is at (``check-proof``'s parts, then their cover),
    with its elapsed time, redrawn five times a second by a thread of its own: the clock moves while a stage
    runs in a kernel that released the GIL, and stops (it never guesses) while one holds it. Nothing is drawn
    until a stage has run ``AFTER`` seconds, so a quick check leaves no trace; ``close`` clears the line."""

    AFTER = 0.5

    def __init__(self, stream: IO[str] | None = None, started: float | None = None) -> None:
        super().__init__(stream)
        self.started = time.monotonic() if started is None else started  # the clock's origin (time.monotonic)
        self.text = ""
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.ticker: threading.Thread | None = None

    def __call__(self, text: str) -> None:  # type: ignore[override]  # a stage's text, not a count's Progress
        with self.lock:
            self.text = text
        if self.ticker is None:
            self.ticker = threading.Thread(target=self._tick, name="gridsat-stage-line", daemon=True)
            self.ticker.start()

    def _tick(self) -> None:
        while not self.stopped.wait(EVERY):
            elapsed = time.monotonic() - self.started
            if elapsed >= self.AFTER:
                with self.lock:
                    self.stream.write(f"\r{self.text}  {clock(elapsed)} elapsed\033[K")
                    self.stream.flush()
                    self.drawn = True

    def close(self) -> None:
        self.stopped.set()
        if self.ticker is not None:
            self.ticker.join()
        super().close()
