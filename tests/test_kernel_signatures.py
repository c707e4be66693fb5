"""Each numba kernel compiles once per argument type, never once per constant.

A jitted call with a constant argument (``advance(..., 0, ...)``) is typed ``Literal[int](0)``, and numba
compiles the callee again for it, with everything it calls. The knights' tour frontier's step took 21 s to
compile with four such copies of ``advance`` and 10 s without them, on every fresh clone (CI compiles each
kernel once). Literal booleans are kept where a kernel is meant to fold a flag (``pair``, ``closed``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, patience

numba = pytest.importorskip("numba")
from numba import njit, types  # noqa: E402
from numba.core.dispatcher import Dispatcher  # noqa: E402


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


def kernel_modules(prefix: str = "gridsat.") -> list[str]:
    """The loaded modules under ``prefix`` that hold a numba kernel."""
    return sorted(name for name, module in list(sys.modules.items())
                  if name.startswith(prefix) and module is not None
                  and any(isinstance(value, Dispatcher) for value in vars(module).values()))


# Every kernel family, each exercised once, in a process of its own: a test process has run other tests' kernels too,
# whatever xdist gave it, and what it found would depend on that.
EXERCISE = """
import conftest  # the test processes' lock per kernel: on a fresh clone, a kernel they compile is not compiled here too
import json, gridsat
from test_kernel_signatures import kernel_modules, literal_ints
counts = [gridsat.count("knights-tour", "5x5", backend="frontier").count,
          gridsat.count("knights-tour", "6x6", params={"closed": "true"}, backend="frontier").count,
          gridsat.count("knights-tour", "6x6", params={"closed": "true"}, backend="frontier", up_to="symmetry").count,
          gridsat.count("tatami", "4x7", backend="frontier").count,
          gridsat.count("prime-grid", "3x3", params={"max": "10"}, backend="sat", certify=True).count]
from numba.core.dispatcher import Dispatcher
print(json.dumps({"counts": counts, "modules": kernel_modules(), "literal": literal_ints(kernel_modules()),
                  "locked": Dispatcher.compile.__name__ == "compile_"}))
"""


def test_the_frontiers_and_the_proof_checkers_compile_no_integer_literal() -> None:
    done = subprocess.run([sys.executable, "-c", EXERCISE], capture_output=True, text=True, cwd=ROOT / "tests",
                          timeout=patience(300))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    # directed tours; 6x6 closed up to symmetry from the golden orbit data; tatami 4x7 from the seed's count
    assert found["counts"] == [1728, 19724, 1245, 3, 128]
    for module in ("knights_tour.frontier", "knights_tour.folded", "tatami.frontier", "frontier_engine.kernels",
                   "proof.drat", "proof.lrat"):
        assert any(name.endswith(module) for name in found["modules"]), module
    assert found["literal"] == []
    assert found["locked"]  # it compiled under conftest's locks


@njit
def _callee(x, k):
    return x + k


@njit
def _caller(x):
    return _callee(x, 0)  # the planted constant


def test_a_kernel_called_with_a_constant_is_caught() -> None:
    assert _caller(1) == 1
    assert any("_callee" in found and "Literal[int](0)" in found for found in literal_ints([__name__]))
