"""All-different over integer variables in the order or log encoding (models/constraints/domains.py).

- ``per_value``: for every value, at most one variable takes it: an at-most-one over the terms
  x_i = v. Under ``pairwise`` each pair of terms is one conflict clause on the encoding's own literals,
  "not (x_i = v and x_j = v)" (Walsh, "SAT v CSP", CP 2000, writes a binary constraint in any encoding
  as such conflict clauses): four literals in the order encoding, 2b in the log encoding, d n(n-1)/2
  clauses at most. Under any other at-most-one encoding each term gets a literal defined as the
  conjunction (x_i = v), len + 1 clauses, and the named at-most-one is written over those.
- ``hall``: the Hall-interval decomposition of Bessiere, Katsirelos, Narodytska, Quimper and Walsh,
  "Decompositions of All Different, Global Cardinality and Related Constraints", IJCAI 2009, on the
  order encoding: for every interval [l, u] of values, A_ilu <-> (l <= x_i <= u) and
  sum_i A_ilu <= u - l + 1. Unit propagation on it enforces bound consistency of the all-different
  when the sums propagate fully (their Theorem 1), as the sequential counter does. Size: at most
  n d(d+1)/2 variables A_ilu with 3 clauses each (A_ilu is an order literal itself when l or u is an
  end of the domain), plus one sum per interval: a sum bounded by one is an at-most-one in the named
  encoding, a larger one the sequential counter (Sinz, CP 2005) at k = u - l + 1, O(n k) variables
  and clauses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gridsat.models.constraints import amo, cardinality
from gridsat.models.constraints.domains import LogInt, OrderInt, defined, forbid

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula


def per_value(out: Formula, xs: Sequence[OrderInt | LogInt], allowed: Sequence[set[int]], name: str) -> None:
    """At most one of the x_i takes each value (among those allowed to take it), in at-most-one encoding
    ``name`` (``pairwise``: conflict clauses on the terms themselves)."""
    for v in sorted(set().union(*allowed)) if allowed else []:
        terms = [(x, x.equals(v)) for x, ok in zip(xs, allowed, strict=True) if v in ok]
        if len(terms) < 2:
            continue
        if name == "pairwise":
            for i, (_, first) in enumerate(terms):
                for _, second in terms[i + 1:]:
                    forbid(out, first, second)
        else:
            amo.at_most_one(out, [defined(out, conj, ("eq", *x.key, v)) for x, conj in terms], name)  # type: ignore[arg-type]


def hall(out: Formula, xs: Sequence[OrderInt], allowed: Sequence[set[int]], name: str) -> None:
    """At most u-l+1 of the x_i in [l, u], for every interval whose ends some x_i may take (an interval
    with an end no variable takes holds the same variables as a shorter one, with a larger bound)."""
    values = sorted(set().union(*allowed)) if allowed else []
    for a, first in enumerate(values):
        for last in values[a:]:
            inside = set(range(first, last + 1))
            lits, forced = [], 0
            for x, ok in zip(xs, allowed, strict=True):
                if ok <= inside:
                    forced += 1  # x_i is always in the interval
                elif ok & inside:
                    with out.family("interval membership"):
                        lits.append(defined(out, x.between(first, last), ("in", *x.key, first, last)))
            bound = last - first + 1 - forced
            with out.family("hall interval"):
                if bound < 0:
                    out.add([])
                elif bound == 0:
                    for lit in lits:
                        out.add([-lit])
                elif bound < len(lits):
                    # Bessiere et al.'s bound consistency needs sums that propagate fully: the sequential counter
                    cardinality.at_most(out, lits, bound, name if bound == 1 else "seqcounter")
