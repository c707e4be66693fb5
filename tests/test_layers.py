"""The import graph of gridsat has no cycles and never imports upward: models -> solvers -> API -> benchmarks -> CLI.

Read from the source with ``ast`` (every import statement, also those inside functions and under
``TYPE_CHECKING``), so a lazy import cannot hide a cycle. Importing ``a.b`` also runs ``a``'s
``__init__``; that implicit edge is left out, as every package's modules would otherwise form a
cycle with it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The design card's folders and the import names setuptools gives them (pyproject.toml).
FOLDERS = {"gridsat": "gridsat", "models": "gridsat.models", "solvers": "gridsat.solvers",
           "benchmarks": "gridsat.benchmarks"}
LAYERS = ("models", "solvers", "api", "benchmarks", "cli")
TOP = {"gridsat.cli": "cli", "gridsat.__main__": "cli"}  # the rest of gridsat/ is the API layer


def modules() -> dict[str, Path]:
    """Every module of gridsat by its import name."""
    found = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The gridsat modules that module ``name`` imports (a name imported from a package counts as
    its submodule when there is one)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base]) if base else ".".join(parent)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    out.add(sub)
                elif base in known:
                    out.add(base)
    out.discard(name)
    return out


def layer(name: str) -> int:
    if name in TOP:
        return LAYERS.index(TOP[name])
    for folder in ("models", "solvers", "benchmarks"):
        if name == FOLDERS[folder] or name.startswith(FOLDERS[folder] + "."):
            return LAYERS.index(folder)
    return LAYERS.index("api")


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports(name, path, set(found)) for name, path in found.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_import_graph_has_no_cycles() -> None:
    assert cycles(graph()) == []


def test_no_module_imports_from_a_higher_layer() -> None:
    upward = [f"{name} ({LAYERS[layer(name)]}) imports {target} ({LAYERS[layer(target)]})"
              for name, targets in graph().items() for target in sorted(targets) if layer(target) > layer(name)]
    assert upward == []


@pytest.mark.parametrize("edges, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_cycle_finder_finds_cycles(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected


def test_the_graph_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    module = tmp_path / "__init__.py"
    module.write_text("def f():\n    from .inner import g\n    import gridsat.models\n")
    found = imports("gridsat.pkg", module, {"gridsat.pkg.inner", "gridsat.models"})
    assert found == {"gridsat.pkg.inner", "gridsat.models"}


def string_literals(path: Path) -> set[str]:
    """Every string constant in a module's source (docstrings and the fixed parts of f-strings too)."""
    return {node.value for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def test_the_api_names_no_backend() -> None:
    """The API asks the registry and the backends what they can do; it never names one (a default, a
    formulation, the reference search all come from gridsat.solvers)."""
    from gridsat.solvers.backend import BACKENDS

    assert string_literals(ROOT / "gridsat" / "api.py") & set(BACKENDS) == set()


def test_the_literal_finder_sees_plain_and_formatted_strings(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('x = "sat"\ny = f"{x}:cpsat"\n')
    assert {"sat", ":cpsat"} <= string_literals(module)


def solver_imports(name: str, path: Path) -> list[str]:
    """The modules of ``gridsat.solvers`` that module ``name`` imports, anywhere in it."""
    solvers = FOLDERS["solvers"]
    found = imports(name, path, set(modules()))
    return sorted(target for target in found if target == solvers or target.startswith(solvers + "."))


def test_the_command_line_imports_nothing_from_the_solvers() -> None:
    # The CLI is a layer over gridsat.api: what it needs from below, the API offers.
    assert solver_imports("gridsat.cli", ROOT / "gridsat" / "cli.py") == []


def test_the_solver_import_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    module = tmp_path / "cli.py"
    module.write_text("from gridsat import api\n\ndef f():\n    from gridsat.solvers.run import consume\n"
                      "    from gridsat import solvers\n")
    assert solver_imports("gridsat.cli", module) == ["gridsat.solvers", "gridsat.solvers.run"]


def gridsat_imports(paths: list[Path]) -> set[str]:
    """The gridsat modules that the files import (absolute imports only)."""
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                found.add(node.module or "")
    return {name for name in found if name == "gridsat" or name.startswith("gridsat.")}


def test_the_example_plugin_imports_only_the_public_plugin_module() -> None:
    """``examples/nqueens`` is what plugin authors copy: its package uses ``gridsat.plugin`` and nothing else
    of gridsat; its tests add only the public API, ``gridsat``."""
    example = ROOT / "examples" / "nqueens"
    assert gridsat_imports(sorted((example / "gridsat_nqueens").rglob("*.py"))) == {"gridsat.plugin"}
    assert gridsat_imports(sorted((example / "tests").rglob("*.py"))) == {"gridsat", "gridsat.plugin"}


# Per puzzle, the same file names mean the same part of each puzzle; benchmarks/compare/ holds stand-alone scripts.
PUZZLE_PACKAGES = {path.parent for path in (ROOT / "models").glob("*/__init__.py")} - {ROOT / "models" / "golden"}
COMPARE = ROOT / "benchmarks" / "compare"


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def repeated_file_names(paths: list[Path]) -> dict[str, list[str]]:
    """The module file names (``__init__.py`` aside) that more than one module outside the puzzle packages
    and the compare scripts has."""
    seen: dict[str, list[str]] = {}
    for path in paths:
        if path.name != "__init__.py" and path.parent not in PUZZLE_PACKAGES | {COMPARE}:
            seen.setdefault(path.name, []).append(shown(path))
    return {name: where for name, where in seen.items() if len(where) > 1}


def repeated_class_names(paths: list[Path]) -> dict[str, list[str]]:
    """The class names defined twice outside the compare scripts, where at least one definition is outside
    the puzzle packages (classes of one role may share a name across puzzles: each puzzle's ``Board``)."""
    seen: dict[str, list[Path]] = {}
    for path in paths:
        if path.parent == COMPARE:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                seen.setdefault(node.name, []).append(path)
    return {name: [shown(path) for path in where] for name, where in seen.items()
            if len(where) > 1 and not all(path.parent in PUZZLE_PACKAGES for path in where)}


def test_one_meaning_per_module_and_class_name() -> None:
    paths = sorted(modules().values())
    assert repeated_file_names(paths) == {}
    assert repeated_class_names(paths) == {}


def test_the_name_checks_see_repeats_and_spare_the_puzzles(tmp_path: Path) -> None:
    puzzle = sorted(PUZZLE_PACKAGES)[:2]
    paths = [tmp_path / "solvers" / "run.py", tmp_path / "api" / "run.py", puzzle[0] / "reference.py",
             puzzle[1] / "reference.py", COMPARE / "jobs.py", tmp_path / "jobs.py"]
    assert list(repeated_file_names(paths)) == ["run.py"]
    places = [tmp_path / "a.py", tmp_path / "b.py"]
    places[0].write_text("class Board:\n    pass\n")
    places[1].write_text("def f():\n    class Board:\n        pass\n")
    assert list(repeated_class_names(places)) == ["Board"]


LONGEST = 60  # lines a function may have (its docstring included)
KERNEL_DECORATORS = {"njit", "jit"}


def decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function is decorated with (``numba.njit(cache=True)`` gives ``njit``)."""
    names = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def long_functions(paths: list[Path]) -> list[str]:
    """The functions over ``LONGEST`` lines, but for numba kernels whose docstring says why they stay whole."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = node.end_lineno - node.lineno + 1
            kernel = decorator_names(node) & KERNEL_DECORATORS and "whole" in (ast.get_docstring(node) or "")
            if length > LONGEST and not kernel:
                found.append(f"{shown(path)}:{node.name} ({length} lines)")
    return found


def test_no_function_is_over_60_lines() -> None:
    assert long_functions(sorted(modules().values())) == []


def test_the_length_check_spares_only_kernels_that_say_why(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(LONGEST))
    module = tmp_path / "m.py"
    module.write_text(f"def long():\n{body}\n\n@njit(cache=True)\ndef kernel():\n    \"\"\"Stays whole.\"\"\"\n{body}"
                      f"\n\n@njit\ndef silent():\n{body}")
    assert [entry.split(":")[1] for entry in long_functions([module])] == ["long (61 lines)", "silent (61 lines)"]


BIGGEST = 250  # lines a class may have
ROOT_MODULES = 9  # what every room of solvers/ uses stays at its root: backend, gate, route, run, stop, ...
# Where the ``native`` at-most-one encoding may be named: its own package, the gate, and at most two more.
# A reference is the quoted name or a helper named after it; "native" in other senses (a counter's native
# count, native code) is prose, not the encoding, and is not counted.
NATIVE = re.compile(r"""["']native["']|native_in|refuse_native|NATIVE_SOLVERS""")
NATIVE_HOME = ("models/constraints/amo/", "solvers/gate.py")


def big_classes(paths: list[Path]) -> list[str]:
    """The classes over ``BIGGEST`` lines."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > BIGGEST:
                found.append(f"{shown(path)}:{node.name} ({node.end_lineno - node.lineno + 1} lines)")
    return found


def naming_native(paths: list[Path]) -> list[str]:
    """The modules outside ``NATIVE_HOME`` that name the ``native`` encoding."""
    return [shown(p) for p in paths if NATIVE.search(p.read_text()) and not shown(p).startswith(NATIVE_HOME)]


def test_no_class_is_over_250_lines() -> None:
    assert big_classes(sorted(modules().values())) == []


def test_the_root_of_solvers_holds_only_what_every_room_uses() -> None:
    assert len([p for p in (ROOT / "solvers").glob("*.py") if p.name != "__init__.py"]) <= ROOT_MODULES


def test_the_native_encoding_is_named_in_its_package_the_gate_and_at_most_two_more_modules() -> None:
    named = naming_native(sorted(modules().values()))
    assert len(named) <= 2, named


def test_the_size_and_name_checks_see_what_they_look_for(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(BIGGEST))
    module = tmp_path / "m.py"
    module.write_text(f"class Big:\n{body}\n\nclass Small:\n    pass\n\nCHOICE = 'native'\n")
    assert [entry.split(":")[1] for entry in big_classes([module])] == [f"Big ({BIGGEST + 1} lines)"]
    prose = tmp_path / "prose.py"
    prose.write_text('"""The native count of a counter."""\n')
    assert naming_native([module, prose]) == [shown(module)]
