"""Turn a solver that reports solutions through callbacks on a worker thread into a generator.

The native solvers release the GIL while they search, so the main thread stays free to notice a
deadline or Ctrl-C and to ask the solver to halt; without the thread a Ctrl-C would wait until the
search ended.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from gridsat.solvers.stop import Reason, Stop

T = TypeVar("T")
Emit = Callable[[Any], bool]  # returns False when the consumer wants no more
_DONE = object()
POLL = 0.05  # seconds between looks at the clock while the solver is quiet


def generate(produce: Callable[[Emit], None], halt: Callable[[], None], stop: Stop) -> Iterator[Any]:
    """Run ``produce(emit)`` on a thread and yield what it emits, halting it on stop."""
    items: queue.Queue[Any] = queue.Queue(maxsize=4096)  # bounded: a fast solver waits for its reader
    closing = threading.Event()
    failure: list[BaseException] = []

    def emit(item: Any) -> bool:
        while not closing.is_set():
            try:
                items.put(item, timeout=POLL)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            produce(emit)
        except BaseException as error:  # re-raised on the reader's side
            failure.append(error)
        finally:
            emit(_DONE)

    worker = threading.Thread(target=work, name="gridsat-solver", daemon=True)
    worker.start()
    try:
        while True:
            try:
                item = items.get(timeout=POLL)
            except queue.Empty:
                if stop.expired():
                    halt()  # repeated until the solver notices: it may not have started yet
                continue
            if item is _DONE:
                break
            yield item
        if failure:
            raise failure[0]
    except KeyboardInterrupt:
        stop.request(Reason.INTERRUPTED)  # before the solver thread, halted, reports a stop of its own
        raise
    finally:
        closing.set()
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
