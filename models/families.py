"""Where each clause and constraint of a formulation comes from: its family, and the variables it is about.

``recording()`` is a context manager. While it is open, every ``pysat.formula.CNF`` built gets a
clause list that notes, for each clause appended, its *family* and its *scope*; every CP-SAT
``CpModel`` built notes the same for each constraint its ``add_*``/``new_*`` methods add.

- The family is where the call comes from: the formulation's module and function (the first frame
  outside this module, the cardinality helpers, PySAT and OR-Tools) with the label of the innermost
  ``family("...")`` block around the call (``tatami.formulations:cnf:corner``), or else the call's
  line number (``tatami.formulations:cnf:88``), which moves whenever the code above it changes: the
  built-in formulations label every family. Clauses a ``pysat.card`` encoding writes (auxiliaries
  included) belong to the family of the cardinality call that asked for them, suffixed with the
  helper (``at_most``, ``at_least``), since at-least and at-most halves are separate bugs.
- The scope is the variables a clause is about: the input literals of its cardinality constraint,
  else the clause's own variables. Mutation selectors (``solvers/mutation/mutate.py``) read their keys.

Outside ``recording()`` nothing is patched and nothing is noted, so ordinary runs pay nothing but
one context-variable read per cardinality call.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

# Frames in these files are plumbing, not a call site: a family names the formulation code above them.
_PLUMBING = ("families.py", "cardinality.py", "/pysat/", "/ortools/", "contextlib.py")

_active: ContextVar[Recording | None] = ContextVar("gridsat_recording", default=None)
_label: ContextVar[str | None] = ContextVar("gridsat_family", default=None)
_scope: ContextVar[tuple[tuple[int, ...], str] | None] = ContextVar("gridsat_scope", default=None)


@dataclass(frozen=True)
class Origin:
    """One clause's or constraint's family and scope (variable ids; None: its own variables)."""

    family: str
    scope: tuple[int, ...] | None = None


@dataclass
class Recording:
    """What one ``recording()`` block noted for the CP-SAT models built in it (by ``id`` of the model)."""

    models: dict[int, list[tuple[int, int, Origin]]] = field(default_factory=dict)  # (first, end, origin)

    def constraints(self, model: Any) -> list[Origin]:
        """One origin per constraint of ``model``; one added outside any recorded call is ``unrecorded``."""
        total = len(model.Proto().constraints)
        out = [Origin("unrecorded")] * total
        for first, end, origin in self.models.get(id(model), []):
            out[first:end] = [origin] * (end - first)
        return out


def is_recording() -> bool:
    return _active.get() is not None


class family:  # noqa: N801 - used as a function: ``with family("corner"):``
    """Label the family of every clause or constraint added inside (instead of its line number): a few
    words saying what the constraint is for, stable while the code around it changes. Not recording,
    it does nothing (formulations label clauses in their inner loops, so it must cost next to nothing)."""

    __slots__ = ("label", "token")

    def __init__(self, label: str) -> None:
        self.label = label
        self.token: Any = None

    def __enter__(self) -> None:
        if _active.get() is not None:
            self.token = _label.set(self.label)

    def __exit__(self, *_: object) -> None:
        if self.token is not None:
            _label.reset(self.token)
            self.token = None


F = TypeVar("F", bound=Callable[..., None])


def scoped(helper: F) -> F:
    """Mark a cardinality helper ``helper(cnf, lits, ...)``: while recording, the clauses it adds encode
    one constraint on ``lits``; the outermost helper names it. Not recording, it is called as is."""

    @functools.wraps(helper)
    def wrapper(cnf: Any, lits: Sequence[int], *args: Any, **kwargs: Any) -> None:
        if _active.get() is None or _scope.get() is not None:
            return helper(cnf, lits, *args, **kwargs)
        token = _scope.set((tuple(abs(lit) for lit in lits), helper.__name__))
        try:
            return helper(cnf, lits, *args, **kwargs)
        finally:
            _scope.reset(token)

    return wrapper  # type: ignore[return-value]


def call_site(label: str | None = None) -> str:
    """``module:function:label`` of the first frame outside the plumbing (its line without a label)."""
    frame = sys._getframe(1)
    while frame is not None and any(p in frame.f_code.co_filename for p in _PLUMBING):
        frame = frame.f_back
    if frame is None:
        return "unknown"
    path = frame.f_code.co_filename.replace("\\", "/")
    parts = path.removesuffix(".py").split("/")
    # The package for its __init__, package.module inside a puzzle package: "tatami", "knights_tour.cnf".
    module = parts[-2] if parts[-1] == "__init__" else parts[-1] if parts[-2] == "models" else ".".join(parts[-2:])
    return f"{module}:{frame.f_code.co_name}:{label or frame.f_lineno}"


def origin_here(count: int = 1) -> Origin:
    """The origin of clauses added now: the label or call site, and the cardinality scope if any."""
    held = _scope.get()
    name = call_site(_label.get())
    if held is None:
        return Origin(name)
    return Origin(f"{name} {held[1]}", held[0])


class ClauseList(list):  # type: ignore[type-arg]
    """A CNF's clause list that notes the origin of each clause appended (one ``Origin`` per clause)."""

    origins: list[Origin]

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        self.origins = [Origin("initial")] * len(self)

    def append(self, clause: Any) -> None:
        super().append(clause)
        self.origins.append(origin_here())

    def extend(self, clauses: Iterable[Any]) -> None:
        before = len(self)
        super().extend(clauses)
        self.origins.extend([origin_here()] * (len(self) - before))

    def __iadd__(self, clauses: Iterable[Any]) -> ClauseList:  # type: ignore[override, misc]
        self.extend(clauses)
        return self


def clause_origins(cnf: Any) -> list[Origin]:
    """The origin of each clause of a CNF built while recording (``initial`` for any it cannot tell)."""
    clauses = cnf.clauses
    if isinstance(clauses, ClauseList) and len(clauses.origins) == len(clauses):
        return list(clauses.origins)
    return [Origin("unrecorded")] * len(clauses)


def _wrap_cnf_init(original: Callable[..., None]) -> Callable[..., None]:
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.clauses = ClauseList(self.clauses)

    return init


def _wrap_model_method(original: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        recording = _active.get()
        if recording is None or getattr(self, "_gridsat_depth", 0):
            return original(self, *args, **kwargs)
        constraints = self.Proto().constraints
        before = len(constraints)
        self._gridsat_depth = 1  # only the outermost add_* call names the constraints it adds
        try:
            result = original(self, *args, **kwargs)
        finally:
            self._gridsat_depth = 0
        after = len(constraints)
        if after > before:
            recording.models.setdefault(id(self), []).append((before, after, origin_here()))
        return result

    return method


@contextlib.contextmanager
def recording() -> Iterator[Recording]:
    """Note the origin of every clause and constraint of the formulations built inside (see the module)."""
    from ortools.sat.python import cp_model
    from pysat.formula import CNF

    found = Recording()
    token = _active.set(found)
    saved_init = CNF.__init__
    methods = {name: value for name, value in vars(cp_model.CpModel).items()
               if callable(value) and (name.startswith("add") or name.startswith("new_"))}
    CNF.__init__ = _wrap_cnf_init(saved_init)  # type: ignore[method-assign]
    for name, value in methods.items():
        setattr(cp_model.CpModel, name, _wrap_model_method(value))
    try:
        yield found
    finally:
        CNF.__init__ = saved_init  # type: ignore[method-assign]
        for name, value in methods.items():
            setattr(cp_model.CpModel, name, value)
        _active.reset(token)
