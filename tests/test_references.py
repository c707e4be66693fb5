"""The repository stands alone: its texts cite seeds by what they are, never by a path outside it,
and every file of the repository they name exists."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

FOLDERS = ("gridsat", "models", "solvers", "benchmarks", "tests", "examples", "docs")
TOP = ("README.md", "pyproject.toml", "Makefile")
SUFFIXES = {".py", ".toml", ".md", ".txt", ".gameid", ""}
SHARED = "shared"  # spelled apart, so that this file does not match itself
OUTSIDE = re.compile(rf"\.\./{SHARED}|{SHARED}/seeds|\b\d{{3}}_[0-9a-f]{{16}}\.txt")  # the seed folder, its files
ISSUE = re.compile(r"\bissue" + r" \d", re.IGNORECASE)  # ticket numbers mean nothing to a reader of the repository
CITED = re.compile(r"(?<![\w./-])((?:gridsat|models|solvers|benchmarks|tests)/[\w./-]*\w\.(?:py|toml|txt|md|gameid))")


def built(relative: Path) -> bool:
    """Build output, no text of ours: caches, the site, and what installing a plugin from its folder leaves."""
    return bool({"__pycache__", "_build", "build"} & set(relative.parts)) or any(
        part.endswith(".egg-info") for part in relative.parts)


def texts() -> dict[str, str]:
    found = {name: (ROOT / name).read_text() for name in TOP}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and not built(path.relative_to(ROOT)):
                found[str(path.relative_to(ROOT))] = path.read_text(errors="replace")
    return found


def test_no_text_points_outside_the_repository():
    bad = [f"{name}: {m[0]}" for name, text in texts().items() for m in OUTSIDE.finditer(text)]
    assert bad == []


def test_no_text_cites_an_issue_number():
    bad = [f"{name}: {m[0]}" for name, text in texts().items() for m in ISSUE.finditer(text)]
    assert bad == []


def exists(cited: str) -> bool:
    """A repository file, or its installed name (gridsat/models/... is the folder models/)."""
    installed = re.fullmatch(r"gridsat/((?:models|solvers|benchmarks)/.*)", cited)
    return (ROOT / cited).exists() or bool(installed and (ROOT / installed[1]).exists())


def test_every_file_cited_exists():
    missing = [f"{name}: {m[1]}" for name, text in texts().items() for m in CITED.finditer(text) if not exists(m[1])]
    assert missing == []
