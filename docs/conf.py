"""Sphinx configuration of the gridsat documentation site (``make docs``).

MyST Markdown pages (through myst-nb, which also renders the notebook), the command-line reference
generated from ``gridsat.cli:build_parser`` by sphinx-argparse, the Python API by autodoc, the furo
theme. The search animation is made by ``gridsat animate`` during the build, so it always shows the
reference search of the gridsat that builds the site; the encodings atlas (sizes and propagation
strengths) is computed from the code by ``gridsat.solvers.strength.atlas`` during the build too.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from pygments.lexers.shell import BashSessionLexer

import gridsat

HERE = Path(__file__).parent
EXTRA = HERE / "_build" / "extra"  # copied to the site's root: the generated animation pages
GENERATED = HERE / "_build" / "generated"  # pages computed from the code, included by the pages that show them

project = "gridsat"
author = "the gridsat authors"
copyright = "the gridsat authors"
release = version = gridsat.__version__

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinxarg.ext"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
# A recorded benchmark's report is included into its page (howto/paper-benchmark), not a page of its own.
exclude_patterns = ["_build", "**.ipynb_checkpoints", "howto/recorded/**"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# Option names stay as typed: no "--help" turned into an en dash in the generated CLI reference.
smartquotes = False
# The notebook is executed on every build (so it never shows a stale output), with the
# python3 kernel of the environment that builds the site (ipykernel: the notebook extra), so the page
# shows the outputs of this gridsat; the test suite runs it as well (tests/test_notebook.py).
nb_execution_mode = "force"
nb_execution_timeout = 120  # seconds per cell
nb_execution_raise_on_error = True  # a failing cell fails the build
nb_kernel_rgx_aliases = {".*": "python3"}

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}

html_theme = "furo"
html_title = f"gridsat {release}"
html_extra_path = [str(EXTRA)]

# Pages of the search animations: (file, the gridsat animate arguments).
ANIMATIONS = {
    "knights-tour-5x5.html": ["knights-tour", "5x5", "--algorithm", "backtrack", "--max-steps", "3000"],
    "tatami-3x4.html": ["tatami", "3x4"],
}


def make_animations() -> None:
    """Write each animation page with the ``gridsat animate`` of this environment."""
    folder = EXTRA / "animations"
    folder.mkdir(parents=True, exist_ok=True)
    for name, args in ANIMATIONS.items():
        command = [sys.executable, "-m", "gridsat", "animate", *args, "-o", str(folder / name)]
        subprocess.run(command, check=True, capture_output=True, timeout=120)


make_animations()


def make_atlas() -> None:
    """Write the encodings atlas (sizes and strengths computed from the code) that encodings.md includes."""
    from gridsat.solvers.strength import atlas

    atlas.write(GENERATED)


make_atlas()


class ConsoleLexer(BashSessionLexer):
    """A shell session whose only prompt is ``$``: gridsat's output has lines starting with ``#``."""

    name = "gridsat console"
    aliases = ["console"]
    _ps1rgx = re.compile(r"^(\$ )(.*\n?)")


def setup(app) -> None:
    app.add_lexer("console", ConsoleLexer)
