"""A small declarative type check for suite files: every value's TOML type, with the key's path.

A schema is a Python type (or a tuple of types), ``[schema]`` for a list of such values,
``Table({...})`` for a table with known keys, ``MapOf(schema)`` for a table of any keys, or
``OneOf(...)``. ``check`` raises ``SuiteError``-like errors naming the path (``entry 2: backends 1``)
and an excerpt of the bad value, before any value is used (a table where a name belongs would
otherwise fail deep inside as "unhashable"). A library (jsonschema, pydantic) would do the same at
a start-up cost the ``gridsat bench`` command does not need.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gridsat.models.params import excerpt

TOML_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false", list: "an array",
              dict: "a table"}


@dataclass(frozen=True)
class Table:
    """A table whose keys are among ``fields``, each value of its schema."""

    fields: dict[str, Any]


@dataclass(frozen=True)
class MapOf:
    """A table of any keys, every value of ``value``'s schema."""

    value: Any


@dataclass(frozen=True)
class OneOf:
    """A value of any of these schemas."""

    options: tuple[Any, ...]


def describe(schema: Any) -> str:
    """A schema in words, for the message."""
    if isinstance(schema, type):
        return TOML_NAMES.get(schema, schema.__name__)
    if isinstance(schema, tuple):
        return " or ".join(describe(s) for s in schema)
    if isinstance(schema, list):
        items = describe(schema[0])
        if " or " in items:  # "an array of string or a tables" reads wrong: name the items' kinds whole
            return f"an array whose items are each {items}"
        return f"an array of {items.removeprefix('a ').removeprefix('an ')}s"
    if isinstance(schema, (Table, MapOf)):
        return "a table"
    return " or ".join(describe(s) for s in schema.options)


def is_a(value: Any, kind: type) -> bool:
    """TOML's types: a boolean is no number, an integer is a number."""
    if kind in (int, float) and isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) if kind is float else isinstance(value, kind)


class Mismatch(Exception):
    """A value that does not fit its schema (the message names its path)."""


def check(value: Any, schema: Any, path: str, fail: Callable[[str], Exception]) -> None:
    """Raise ``fail(message)`` at the first value that does not fit ``schema``; ``path`` names it."""
    try:
        fit(value, schema, path)
    except Mismatch as mismatch:
        raise fail(str(mismatch)) from None


def fit(value: Any, schema: Any, path: str) -> None:
    """Raise ``Mismatch`` at the first value that does not fit ``schema``."""
    wrong = Mismatch(f"{path} must be {describe(schema)}, not {brief(value)}")
    if isinstance(schema, type):
        if not is_a(value, schema):
            raise wrong
    elif isinstance(schema, tuple):
        if not any(is_a(value, kind) for kind in schema):
            raise wrong
    elif isinstance(schema, list):
        if not isinstance(value, list):
            raise wrong
        for i, item in enumerate(value, 1):  # counted from 1, as a reader counts a file's entries
            fit(item, schema[0], f"{path} {i}")
    elif isinstance(schema, Table):
        if not isinstance(value, dict):
            raise wrong
        for key, item in value.items():
            if key not in schema.fields:
                where = f"{path}: unknown key" if path else "unknown key"
                raise Mismatch(f"{where} {excerpt(key)}; valid: {', '.join(schema.fields)}")
            fit(item, schema.fields[key], f"{path}: {key}" if path else key)
    elif isinstance(schema, MapOf):
        if not isinstance(value, dict):
            raise wrong
        for key, item in value.items():
            fit(item, schema.value, f"{path}: {key}")
    else:
        misses = []
        for option in schema.options:
            try:
                fit(value, option, path)
                return
            except Mismatch as miss:
                misses.append((option, miss))
        # A table or array that fits an option's shape: that option's own complaint says more.
        for option, miss in misses:
            if isinstance(value, dict) and isinstance(option, (Table, MapOf)) or (
                    isinstance(value, list) and isinstance(option, list)):
                raise miss
        raise wrong


def brief(value: Any) -> str:
    """A bad value as TOML gave it, cut short when long."""
    shown = repr(value)
    return shown if len(shown) <= 60 else f"{shown[:28]}...{shown[-28:]} ({len(shown):,} characters)"
