"""A plugin's at-most-one encoding used by a built-in puzzle: once registered, it is a choice of every
formulation whose ``amo`` axis offers the registered encodings (tatami's CNF among them), whenever it is
registered, and ``gridsat strength`` checks it like gridsat's own.

    python examples/mypairs.py
"""

from __future__ import annotations

import gridsat
from gridsat.cli import main
from gridsat.plugin import Formula, amo


@amo.encoding("mypairs")
def mypairs(formula: Formula, lits: list[int]) -> None:
    """The pairwise at-most-one: a binary clause for every pair of inputs. Size: 0 auxiliary variables,
    n(n-1)/2 clauses."""
    for i, a in enumerate(lits):
        for b in lits[i + 1:]:
            formula.add([-a, -b])


if __name__ == "__main__":
    outcome = gridsat.count("tatami", "4x7", backend="sat", encoding="mypairs")
    print(f"{outcome.encoding}: {outcome.count} tilings, complete: {outcome.complete}")
    main(["strength", "at-most-one mypairs", "exactly-one mypairs"])
