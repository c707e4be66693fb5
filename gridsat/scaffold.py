"""``gridsat new-puzzle NAME``: write a working plugin skeleton to start a puzzle from.

The skeleton (gridsat/skeleton.py holds its texts) is a project folder ``gridsat-NAME/`` with a
package ``gridsat_NAME/`` (a tiny real puzzle in CP-SAT and CNF through ``gridsat.plugin``, and a
reference search), a pyproject.toml that registers it under the ``gridsat.puzzles`` entry point
group, and ``tests/`` that cross-check it. ``pip install -e gridsat-NAME`` makes gridsat list it.
"""

from __future__ import annotations

import re
from pathlib import Path

from gridsat import skeleton
from gridsat.models import PUZZLES
from gridsat.models.errors import InvalidOption

# A puzzle's command-line name: lowercase words of letters and digits joined by single - or _.
NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*", re.ASCII)
MAX_NAME = 40


def check_name(name: str) -> None:
    """Refuse, in one line, a name that cannot be a puzzle's command-line name and a package's."""
    if not isinstance(name, str) or len(name) > MAX_NAME or not NAME.fullmatch(name):
        raise InvalidOption(f"bad puzzle name {name!r}: use lowercase letters, digits and single - or _ "
                            f"between them, starting with a letter (at most {MAX_NAME} characters), e.g. nurikabe")
    if name in PUZZLES:
        raise InvalidOption(f"bad puzzle name {name!r}: a built-in puzzle has that name, which a plugin cannot take")


def files(name: str) -> dict[Path, str]:
    """The skeleton's files by their path inside the project folder."""
    package = "gridsat_" + name.replace("-", "_")
    words = {"name": name, "package": package, "title": name.replace("-", " ").replace("_", " ").capitalize()}
    return {
        Path("pyproject.toml"): skeleton.PYPROJECT.substitute(words),
        Path("README.md"): skeleton.README.substitute(words),
        Path(package, "__init__.py"): skeleton.PUZZLE.substitute(words),
        Path(package, "reference.py"): skeleton.REFERENCE.substitute(words),
        Path("tests", f"test_{package}.py"): skeleton.TESTS.substitute(words),
    }


def write_plugin(name: str, directory: Path) -> list[Path]:
    """Write the plugin skeleton of puzzle ``name`` into ``directory/gridsat-<name>/`` and return the
    files written. A bad name or an existing project folder is refused before anything is written."""
    check_name(name)
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InvalidOption(f"--dir {str(directory)!r} is not a folder")
    root = directory / f"gridsat-{name}"
    if root.exists():
        raise InvalidOption(f"{str(root)!r} already exists: choose another --dir or name, or remove it")
    written = []
    for relative, text in files(name).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
