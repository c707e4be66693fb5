"""Why and when a run stops early: time limits, solution limits and Ctrl-C share one flag."""

from __future__ import annotations

import enum
import time
from collections.abc import Callable


class Reason(enum.StrEnum):
    """The reasons a run ends early that callers act on (the exit status, the cross-check loop).

    Their values are the strings reports and JSON have always shown. Other reasons are one-off
    sentences (a worker that died, a method that never sees every solution) and stay plain text.
    """

    SOLUTION_LIMIT = "solution limit"
    TIME_LIMIT = "time limit"
    INTERRUPTED = "interrupted"  # Ctrl-C or SIGTERM
    CLOSED = "closed by the caller"  # an iterator of solutions closed before its end

    def __repr__(self) -> str:
        return repr(self.value)  # shown as the string it equals, as outcomes showed it before the enum


SOLUTION_LIMIT, TIME_LIMIT = Reason.SOLUTION_LIMIT, Reason.TIME_LIMIT
INTERRUPTED, CLOSED = Reason.INTERRUPTED, Reason.CLOSED


class Stop:
    """A deadline plus the first reason a run ended before it had seen every solution."""

    def __init__(self, time_limit: float | None = None) -> None:
        self.started = time.monotonic()
        self.deadline = None if time_limit is None else self.started + time_limit
        self.reason: Reason | str | None = None
        # Another time limit, looked at with the deadline: True once it has come (a split run's probe
        # ends when its workers are ready, solvers.splitting.parallel)
        self.early: Callable[[], bool] | None = None

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None when there is none)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def request(self, reason: Reason | str) -> None:
        """End the run; the first reason given is the one reported."""
        if self.reason is None:
            self.reason = reason

    def expired(self) -> bool:
        """True once a stop was requested or the deadline passed (or ``early()`` said its time came)."""
        if self.reason is None and ((self.deadline is not None and time.monotonic() >= self.deadline)
                                    or (self.early is not None and self.early())):
            self.reason = TIME_LIMIT
        return self.reason is not None
