"""Each numba kernel compiles once per argument type, never once per constant.

A jitted call with a constant argument (``advance(..., 0, ...)``) is typed ``Literal[int](0)``, and numba
compiles the callee again for it, with everything it calls. The knights' tour frontier's step took 21 s to
compile with four such copies of ``advance`` and 10 s without them, on every fresh clone (CI compiles each
kernel once). Literal booleans are kept where a kernel is meant to fold a flag (``pair``, ``closed``)."""

from __future__ import annotations

import sys

import pytest

numba = pytest.importorskip("numba")
from numba import njit, types  # noqa: E402
from numba.core.dispatcher import Dispatcher  # noqa: E402

import gridsat  # noqa: E402


def literal_ints(modules: list[str]) -> list[str]:
    """The compiled signatures of the kernels in ``modules`` that take an integer literal."""
    found = []
    for name in modules:
        for attribute, kernel in vars(sys.modules[name]).items():
            if not isinstance(kernel, Dispatcher):
                continue
            for signature in kernel.signatures:
                if any(isinstance(arg, types.IntegerLiteral) for arg in signature):
                    found.append(f"{name}.{attribute}{signature}")
    return found


def gridsat_kernel_modules() -> list[str]:
    return sorted(name for name, module in list(sys.modules.items())
                  if name.startswith("gridsat.") and module is not None
                  and any(isinstance(value, Dispatcher) for value in vars(module).values()))


def test_the_frontier_and_the_proof_checkers_compile_no_integer_literal() -> None:
    assert gridsat.count("knights-tour", "5x5", backend="frontier").count == 1728
    assert gridsat.count("knights-tour", "6x6", params={"closed": "true"}, backend="frontier").count == 19724
    certified = gridsat.count("prime-grid", "3x3", params={"max": "10"}, backend="sat", certify=True)
    assert certified.details.get("certified") is True
    modules = gridsat_kernel_modules()
    assert "gridsat.models.knights_tour.frontier" in modules and "gridsat.solvers.proof.drat" in modules
    assert literal_ints(modules) == []


@njit
def _callee(x, k):
    return x + k


@njit
def _caller(x):
    return _callee(x, 0)  # the planted constant


def test_a_kernel_called_with_a_constant_is_caught() -> None:
    assert _caller(1) == 1
    assert any("_callee" in found and "Literal[int](0)" in found for found in literal_ints([__name__]))
