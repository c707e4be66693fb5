"""A plugin's tour encoding and symmetry-breaking encoding used by built-in puzzles: once registered, each
is a choice of every formulation whose axis offers that kind (the knight's tour's ``tour`` axes; the
``symmetry`` axis of every puzzle that declares the ``symmetry`` group), whenever it is registered.

    python examples/mytours.py
"""

from __future__ import annotations

import gridsat
from gridsat.plugin import Formula, symmetry_breaking, tours


@tours.cnf_tour("myresidues")
def myresidues(circuit: tours.Circuit, formula: Formula, root: int, amo: str) -> None:
    """Heule's Chinese-remainder residues (SAT 2021), as ``Circuit.residues`` writes them: every node's
    distance from ``root`` modulo a few small primes, stepped forward along every arc."""
    circuit.forbid_two_cycles(formula)
    circuit.residues(formula, root, amo)


# The lex-leader of Crawford et al. (KR 1996), each comparison written as gridsat's own chain.
symmetry_breaking.encoding("mylex", group="symmetry")(symmetry_breaking.lex_leq)


if __name__ == "__main__":
    for puzzle, text, backend, encoding in (("knights-tour", "3x4", "sat", "myresidues"),
                                            ("tatami", "3x4", "cpsat", "mylex")):
        outcome = gridsat.count(puzzle, text, backend=backend, encoding=encoding)
        print(f"{puzzle} {text} {outcome.encoding}: {outcome.count}, complete: {outcome.complete}")
