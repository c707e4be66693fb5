"""Encodings as names: a puzzle's formulation choices, validated at the door.

A formulation has independent axes (for example the at-most-one encoding, or how an adjacency
rule is written). A user names any of the axes' choices joined by ``+`` (``support+ladder``);
every axis not named takes its default. ``EncodingSpace.resolve`` turns that into an
``Encoding``: one choice per axis, with a canonical name listing them all.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from gridsat.models.errors import GridsatError, UnknownEncoding

# Each formulation kind, as a message names it.
FORMULATIONS = {"cpsat": "the CP-SAT model", "cnf": "the CNF"}


class Axis:
    """One independent formulation choice; the first choice is the default.

    ``exact`` names the choice to take instead when the default's models are not exactly the
    solutions (e.g. it keeps one per symmetry orbit) and the model leaves gridsat, as an export.
    An axis with a ``registry`` (models/registries.py) is open: its choices are the ones given, then every
    name the registry holds when they are asked for, so an encoding registered later is offered too.
    """

    __slots__ = ("_given", "exact", "name", "registry")

    def __init__(self, name: str, choices: tuple[str, ...], exact: str | None = None,
                 registry: Mapping[str, object] | None = None) -> None:
        self.name = name
        self._given = tuple(choices)
        self.exact = exact
        self.registry = registry

    @property
    def choices(self) -> tuple[str, ...]:
        if self.registry is None:
            return self._given
        return (*self._given, *(n for n in self.registry if n not in self._given))

    @property
    def default(self) -> str:
        return self.choices[0]

    def _key(self) -> tuple[object, ...]:
        return self.name, self._given, self.exact, id(self.registry)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Axis) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Axis({self.name!r}, {self.choices!r}, exact={self.exact!r})"


@dataclass(frozen=True)
class Encoding:
    """One choice on every axis of a space; ``exact_instead``: the exact choices taken, when it was resolved
    ``exact``, in place of the default of an axis the user did not name."""

    choices: tuple[tuple[str, str], ...]
    exact_instead: tuple[str, ...] = field(default=(), compare=False)

    def __getitem__(self, axis: str) -> str:
        return dict(self.choices)[axis]

    @property
    def name(self) -> str:
        return "+".join(choice for _, choice in self.choices) or "default"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class EncodingSpace:
    """The axes a formulation offers; an empty space has one encoding, ``default``."""

    axes: tuple[Axis, ...] = ()

    def __post_init__(self) -> None:
        self.tokens()

    def tokens(self) -> list[str]:
        """Every name a user may give, in declaration order (an open axis's as registered now)."""
        tokens = [c for axis in self.axes for c in axis.choices]
        if len(tokens) != len(set(tokens)):
            raise ValueError(f"choice names must be unique across axes: {tokens}")
        return tokens

    def resolve(self, text: str | None, where: str = "", exact: bool = False) -> Encoding:
        """Parse ``a+b`` into one choice per axis; unknown or clashing names fail (``where`` says whose).

        An axis not named takes its default, or with ``exact`` its exact choice when it has one.
        """
        picked: dict[str, str] = {}
        if text and "" in text.split("+"):  # "a+", "+", "a++b": a name left out is a typo, not a default
            raise UnknownEncoding(text, self.tokens() or ["default"], where)
        words = [w for w in text.split("+") if w != "default"] if text else []
        self.tokens()  # an encoding registered since may clash with another axis's choice
        owner = {c: axis.name for axis in self.axes for c in axis.choices}
        for word in words:
            if word not in owner:
                raise UnknownEncoding(text or "", self.tokens() or ["default"], where, word=word)
            axis = owner[word]
            if axis in picked and picked[axis] != word:
                raise UnknownEncoding(text or "", self.tokens(), f"{where} ({picked[axis]} and {word} are both {axis})")
            picked[axis] = word
        swapped = tuple(a.exact for a in self.axes
                        if exact and a.exact and a.name not in picked and a.exact != a.default)
        return Encoding(tuple((a.name, picked.get(a.name, (exact and a.exact) or a.default)) for a in self.axes),
                        swapped)  # type: ignore[arg-type]

    def needs(self, encoding: Encoding) -> dict[str, tuple[str, str]]:
        """What ``encoding`` needs of a backend (models/registries.py), each need with the choice that brings
        it (``the native at-most-one encoding``) and its axis: an open axis's registry says what each of its
        encodings needs."""
        found: dict[str, tuple[str, str]] = {}
        for axis in self.axes:
            table: Mapping[str, frozenset[str]] = getattr(axis.registry, "needs", {})
            choice = dict(encoding.choices).get(axis.name)
            for need in table.get(choice, frozenset()) if choice is not None else ():
                found.setdefault(need, (f"the {choice} {getattr(axis.registry, 'what', 'encoding')}", axis.name))
        return found

    def all(self) -> Iterator[Encoding]:
        """Every combination of choices (the cross-check's product)."""
        for combo in itertools.product(*(a.choices for a in self.axes)):
            yield Encoding(tuple(zip((a.name for a in self.axes), combo, strict=True)))

    def variants(self, exact: bool = False) -> Iterator[Encoding]:
        """Each choice once, the other axes at their defaults (``exact``: at their exact choices, as a
        counter counts them): linear, not a product."""
        seen: set[Encoding] = set()
        for axis in self.axes or (Axis("", ("",)),):
            for choice in axis.choices:
                enc = self.resolve(choice, exact=exact)
                if enc not in seen:
                    seen.add(enc)
                    yield enc


class HasEncodings(Protocol):
    """What ``resolve_for`` needs of a puzzle."""

    name: str

    def encodings(self, kind: str) -> EncodingSpace: ...


def resolve_for(puzzle: HasEncodings, kind: str, text: str | None, exact: bool = False,
                searcher: Callable[[str], str] | None = None) -> Encoding:
    """``text`` in the puzzle's ``kind`` space (``cpsat`` or ``cnf``); a name that only the other
    formulation offers fails with the backend to use (``seqcounter is a sat encoding: choose backend sat``:
    words that fit the API and the command line alike),
    which ``searcher`` names for a formulation kind (the solvers ask their registry; without it the hint
    names the formulation)."""
    phrase = FORMULATIONS[kind]
    try:
        return puzzle.encodings(kind).resolve(text, f" for {phrase} of {puzzle.name}", exact=exact)
    except UnknownEncoding as error:
        other = next(k for k in FORMULATIONS if k != kind)
        if not text or not offers(puzzle.encodings(other), text):
            raise
        hint = (f"; {text!r} is an encoding of {FORMULATIONS[other]}" if searcher is None else
                f"; {text!r} is a {searcher(other)} encoding: choose backend {searcher(other)}")
        raise UnknownEncoding(text, error.valid, f" for {phrase} of {puzzle.name}", word="",  # no look-alike
                              hint=hint) from None


def offers(space: EncodingSpace, text: str) -> bool:
    """Whether ``text`` names an encoding of ``space``."""
    try:
        space.resolve(text)
    except GridsatError:
        return False
    return True
