"""The solver thread's hand-over (solvers/threaded.py): items come in batches, all of them and in order, a lone
item is not held back by a quiet search, and a reader that stops reading stops the producer."""

from __future__ import annotations

import threading

from gridsat.solvers.stop import Stop
from gridsat.solvers.threaded import BATCH, generate


def test_every_item_comes_once_and_in_order_across_batches() -> None:
    def produce(emit) -> None:
        for i in range(10 * BATCH + 7):
            assert emit(i)

    assert list(generate(produce, lambda: None, Stop())) == list(range(10 * BATCH + 7))


def test_an_item_before_a_quiet_search_reaches_the_reader_while_the_search_goes_on() -> None:
    # The producer waits (a long search finding nothing) until the reader has its first item; an item held until
    # the next batch was due would reach it only after the wait timed out.
    seen = threading.Event()
    waited_out: list[bool] = []

    def produce(emit) -> None:
        emit("first")
        waited_out.append(not seen.wait(timeout=30))
        emit("second")

    read = []
    for item in generate(produce, lambda: None, Stop()):
        read.append(item)
        seen.set()
    assert read == ["first", "second"] and waited_out == [False]


def test_a_reader_that_stops_reading_stops_the_producer() -> None:
    refused = threading.Event()

    def produce(emit) -> None:
        for i in range(10**7):
            if not emit(i):
                refused.set()
                return

    items = generate(produce, lambda: None, Stop())
    assert [next(items) for _ in range(3)] == [0, 1, 2]
    items.close()  # joins the producer thread, which must see emit refuse
    assert refused.is_set()
