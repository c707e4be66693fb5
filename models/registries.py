"""Open registries of named encodings: what a plugin adds reaches every axis that offers that kind.

A ``Registry`` maps names to what writes them, in registration order, and records what each one
needs of the backend that runs it (``needs``: ``CNF_PLUS`` for a native cardinality constraint). An axis
drawn from one (``Registry.axis``) reads the registry each time it is asked for its choices, so an
encoding registered after a puzzle was built, or after it was first counted, is one of its choices all
the same: import order does not matter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from gridsat.models.encoding import Axis

T = TypeVar("T")

# What an encoding can need of the backend that runs it: CNF+ (native at-most-k constraints, which only
# some SAT solvers take, and which no DIMACS file can hold).
CNF_PLUS = "cnf+"
NEEDS = (CNF_PLUS,)


class Registry(dict[str, T]):
    """Named encodings of one kind (``what``, as a message says it) for the axis ``axis_name``, in
    registration order, each with what it needs (``needs``)."""

    def __init__(self, what: str, axis_name: str) -> None:
        super().__init__()
        self.what = what
        self.axis_name = axis_name
        self.needs: dict[str, frozenset[str]] = {}

    def entry(self, name: str, needs: Iterable[str] = ()) -> Callable[[T], T]:
        """A decorator registering what it decorates as ``name`` (which must be new), needing ``needs``."""
        wanted = frozenset(needs)
        unknown = wanted - set(NEEDS)
        if unknown:
            raise ValueError(f"{self.what} {name!r} needs {sorted(unknown)}: gridsat knows only {list(NEEDS)}")

        def register(value: T) -> T:
            if name in self:
                raise ValueError(f"{self.what} {name!r} registered twice")
            self[name] = value
            self.needs[name] = wanted
            return value

        return register

    def __delitem__(self, name: str) -> None:  # a test's encoding taken back, with what it needed
        super().__delitem__(name)
        self.needs.pop(name, None)

    def axis(self, default: str, names: Iterable[str] | None = None, exact: str | None = None) -> Axis:
        """The axis of this kind, ``default`` first: ``names`` only, or (without ``names``) every name
        registered now or later."""
        if names is not None:
            rest = [n for n in names if n != default]
            return Axis(self.axis_name, (default, *rest), exact=exact)
        return Axis(self.axis_name, (default,), exact=exact, registry=self)
