"""Python's cyclic garbage collector kept off a certified run's own objects.

A certified run keeps every solution, blocking clause and decoding until its certificate is judged:
hundreds of thousands of lists (knights-tour 6x6 closed: 19,724 tours of 36 squares each). None of them
is in a reference cycle, so reference counting frees them, but the cyclic collector traverses them all
at each full collection, and a growing heap triggers one again and again. Measured (knights-tour 6x6
closed, ``--certify``, one process each, loaded machine): 8.1 to 9.2 user seconds with the collector as it
is, 6.6 to 7.0 with it off, against 3.3 to 3.5 for the plain count, which keeps nothing. With it off for
the whole run, one collection at exit found 1,121 objects in cycles on those tours and 1,139 on the 5x6
open tours (37,568 solutions): a certified run leaves no cycles per solution, so pausing the collector
holds back no memory that grows with the count.

Two tools, for the two kinds of stretch in a run:

- ``uncollected``: no automatic collection inside a stretch that runs none of the caller's code (a
  solver call whose callbacks block models, the judge), restored after it;
- ``settle``: the objects alive now, which the run keeps, moved to the oldest generation at once
  (``gc.freeze`` then ``gc.unfreeze``: two list splices, no traversal), so the young collections that
  follow do not traverse them one generation at a time; CPython counts a full collection's due only by
  what its own collections promoted, so they bring none forward either. Nothing is held back from the
  collector: a cycle among them is still found by the next full collection.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def uncollected(settled: bool = False) -> Iterator[None]:
    """No automatic cyclic collection inside the block (reference counting still frees what it can); the
    collector as it was after it, so a caller that turned it off keeps it off. ``settled``: what the block
    left alive is kept by the run (``settle``d before collection resumes)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if settled:
            settle()
        if was:
            gc.enable()


def settle() -> None:
    """The objects alive now, which a certified run keeps to its end, moved to the oldest generation
    without a traversal (see the module docstring)."""
    gc.freeze()
    gc.unfreeze()
