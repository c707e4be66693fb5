"""Static symmetry breaking, and the open registry of its encodings (the ``symmetry`` axis).

``axis(groups)`` is the ``symmetry`` axis of a formulation whose puzzle declares those groups
(``Symmetry(groups)``), and ``breaking(build, groups)`` wraps a formulation's builder with the lex-leader
constraint of the group its ``symmetry`` choice names. ``encoding("name", group)`` registers another way to
write each comparison: ``leq(sink, xs, ys)``, x <=lex y in a ``Formula`` or a ``Model``, as ``lex_leq``
writes it. It is a choice of every such axis whose puzzle declares ``group``, whenever it is registered.
"""

from __future__ import annotations

from gridsat.models.breaking import BREAKINGS, NO, Breaking, axis, breaking, encoding
from gridsat.models.constraints.lex import lex_leq

__all__ = ["BREAKINGS", "NO", "Breaking", "axis", "breaking", "encoding", "lex_leq"]
