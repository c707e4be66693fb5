"""Turn a solver that reports solutions through callbacks on a worker thread into a generator.

The native solvers release the GIL while they search, so the main thread stays free to notice a
deadline or Ctrl-C and to ask the solver to halt; without the thread a Ctrl-C would wait until the
search ended.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from gridsat.solvers.stop import Reason, Stop

T = TypeVar("T")
Emit = Callable[[Any], bool]  # returns False when the consumer wants no more
_DONE = object()
POLL = 0.05  # seconds between looks at the clock while the solver is quiet
# The solver thread hands its items over in batches of at most this many, at most this old: one hand-over an item
# woke the reader for each, and the two threads' exchange of the GIL cost the reader about 9 us an item (CP-SAT's
# prime-grid 4x5, 50,784 solutions), as much as verifying the solution; batched, 2 us. The reader takes a batch
# that is not due yet itself when it has nothing else to read (``POLL``): a solution found before a long quiet
# search is not held back until the next one.
BATCH, BATCH_SECONDS = 256, 0.02


class Handoff:
    """The queue from the solver thread to its reader, filled in batches (``BATCH``). Only the solver thread puts on
    it, and it swaps and puts the batch under ``lock``, which the reader takes too when it takes a batch not yet due
    while the queue is empty (``take``): no batch is yielded before an earlier one."""

    def __init__(self) -> None:
        self.items: queue.Queue[Any] = queue.Queue(maxsize=4096)  # bounded: a fast solver waits for its reader
        self.closing = threading.Event()  # the reader wants no more
        self.lock = threading.Lock()
        self.batch: list[Any] = []
        self.due = time.monotonic() + BATCH_SECONDS

    def emit(self, item: Any) -> bool:
        """Add an item (the solver thread); False once the reader wants no more."""
        if self.closing.is_set():
            return False
        with self.lock:
            self.batch.append(item)
            full = len(self.batch) >= BATCH
        return self.hand_over() if full or time.monotonic() >= self.due else True

    def hand_over(self) -> bool:
        """Put the batch on the queue (the solver thread); False once the reader wants no more."""
        self.due = time.monotonic() + BATCH_SECONDS
        while not self.closing.is_set():
            with self.lock:
                if not self.batch:
                    return True
                if not self.items.full():
                    self.items.put_nowait(self.batch)
                    self.batch = []
                    return True
            time.sleep(POLL / 50)  # the reader is far behind: wait for room
        return False

    def take(self) -> list[Any]:
        """The batch being filled, taken by the reader while nothing waits on the queue."""
        with self.lock:
            if not self.items.empty():
                return []
            taken, self.batch = self.batch, []
        return taken

    def end(self) -> None:
        """The last batch, then the end (the solver thread); a reader that stopped reading takes nothing more, so
        no put waits for it."""
        self.hand_over()
        while not self.closing.is_set():
            try:
                self.items.put(_DONE, timeout=POLL)
                return
            except queue.Full:
                continue


def generate(produce: Callable[[Emit], None], halt: Callable[[], None], stop: Stop) -> Iterator[Any]:
    """Run ``produce(emit)`` on a thread and yield what it emits, in order, halting it on stop."""
    handoff = Handoff()
    failure: list[BaseException] = []

    def work() -> None:
        try:
            produce(handoff.emit)
        except BaseException as error:  # re-raised on the reader's side
            failure.append(error)
        finally:
            handoff.end()

    worker = threading.Thread(target=work, name="gridsat-solver", daemon=True)
    worker.start()
    try:
        while True:
            try:
                got = handoff.items.get(timeout=POLL)
            except queue.Empty:
                if stop.expired():
                    halt()  # repeated until the solver notices: it may not have started yet
                yield from handoff.take()
                continue
            if got is _DONE:
                break
            yield from got
        if failure:
            raise failure[0]
    except KeyboardInterrupt:
        stop.request(Reason.INTERRUPTED)  # before the solver thread, halted, reports a stop of its own
        raise
    finally:
        handoff.closing.set()
        while worker.is_alive():
            halt()
            worker.join(POLL)


class Closing(Generic[T]):
    """An iterator over the generator ``_items`` that stops it when closed (``close()``, a ``with``
    block, or dropping it), so that the solver behind the generator halts."""

    _items: Iterator[T]

    def __iter__(self) -> Closing[T]:
        return self

    def __next__(self) -> T:
        return next(self._items)

    def close(self) -> None:
        """Stop the solver; what was seen so far stays in the outcome, marked incomplete."""
        self._items.close()

    def on_end(self, end: Callable[[bool], None]) -> Closing[T]:
        """Call ``end`` once, when the items end: with True when they were read to their end, with False
        when they were closed (or raised) first."""
        inner = self._items

        def items() -> Iterator[T]:
            finished = False
            try:
                yield from inner
                finished = True
            finally:
                end(finished)

        self._items = items()
        return self

    def __enter__(self) -> Closing[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
