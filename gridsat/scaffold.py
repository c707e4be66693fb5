"""``gridsat new-puzzle NAME``: write a working plugin skeleton to start a puzzle from.

The skeleton (gridsat/skeleton.py holds its texts) is a project folder ``gridsat-NAME/`` with a
package ``gridsat_NAME/`` (a tiny real puzzle in CP-SAT and CNF through ``gridsat.plugin``, and a
reference search), a pyproject.toml that registers it under the ``gridsat.puzzles`` entry point
group, and ``tests/`` that cross-check it. ``pip install -e gridsat-NAME`` makes gridsat list it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from gridsat import skeleton
from gridsat.models import PUZZLES
from gridsat.models.errors import InvalidOption
from gridsat.models.params import excerpt

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
    files written. A bad name, a folder that cannot be written or an existing project folder is
    refused in one line; the files are written into a temporary folder beside the project folder and
    renamed into place, so a failure (a full disk) leaves nothing behind, and a missing ``directory``
    made for it is removed again."""
    check_name(name)
    directory = Path(directory)
    if not str(directory).strip():
        raise InvalidOption(f"--dir {str(directory)!r} is blank: name a folder (. for this one)")
    root = directory / f"gridsat-{name}"
    if os.path.lexists(root):
        raise InvalidOption(f"{str(root)!r} already exists: choose another --dir or name, or remove it")
    made = missing_folders(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".gridsat-{name}-", dir=directory))
    except OSError as error:
        remove_made(made)
        raise InvalidOption(f"cannot write into --dir {excerpt(str(directory))}: {error.strerror or error}") from None
    try:
        for relative, text in files(name).items():
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            (staging / relative).write_text(text, encoding="utf-8")
        staging.chmod(0o777 & ~current_umask())  # mkdtemp makes 0700; the project gets a folder's usual mode
        os.rename(staging, root)  # not replace: a folder made meanwhile at root is kept, and the rename fails
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        remove_made(made)
        raise InvalidOption(f"cannot write {excerpt(str(root))}: {error.strerror or error}") from None
    return [root / relative for relative in files(name)]


def missing_folders(directory: Path) -> list[Path]:
    """The folders of ``directory`` that do not exist yet, deepest first (to remove after a failure)."""
    missing = []
    for folder in [directory, *directory.parents]:
        if os.path.lexists(folder):
            break
        missing.append(folder)
    return missing


def remove_made(folders: list[Path]) -> None:
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
