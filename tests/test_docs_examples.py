"""Every example of the README and the documentation site runs and prints what the page shows; the
command-line and API references cover everything ``--help`` and ``gridsat.__all__`` offer; the site
builds with warnings as errors. The rules of an example are in tests/docs_examples.py."""

from __future__ import annotations

import argparse
import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gridsat
import gridsat.plugin
from conftest import ROOT, patience
from docs_examples import Checker, Example, commands, examples, matches, unrun_fences
from gridsat.cli import build_parser

EXAMPLES = examples()
GLOBS: dict[str, dict] = {}  # a page's pycon names, shared by its blocks in page order


def marks(example: Example) -> list[pytest.MarkDecorator]:
    return [pytest.mark.slow] if example.seconds is not None else []


CASES = [pytest.param(e, id=e.id, marks=marks(e)) for e in EXAMPLES]


@pytest.fixture(scope="session")
def folders() -> dict[str, Path]:
    """The working folder of each page, made when its first console block runs."""
    return {}


def folder_of(page: str, folders: dict[str, Path], factory: pytest.TempPathFactory) -> Path:
    """A page's working folder: examples/ linked in, a site-packages folder for pip install."""
    if page not in folders:
        where = factory.mktemp(re.sub(r"\W", "-", page))
        (where / "examples").symlink_to(ROOT / "examples")
        (where / "docs").symlink_to(ROOT / "docs")
        (where / "site").mkdir()
        folders[page] = where
    return folders[page]


def environment(where: Path) -> dict[str, str]:
    site = str(where / "site")
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path, "PIP_TARGET": site, "PYTHONPATH": site, "COLUMNS": "100",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def run_console(example: Example, where: Path) -> None:
    if example.skipped:
        pytest.skip(f"{example.id}: {example.note}")
    for command in commands(example):
        # The budget guards against a hang (a timeout scaled with the load), never judges speed.
        done = subprocess.run(["bash", "-c", command.text], cwd=where, env=environment(where), capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=patience(example.budget))
        where_ = f"{example.page}:{command.line}: $ {command.text}"
        assert done.returncode == 0, f"{where_}\nexit status {done.returncode}\n{done.stdout}{done.stderr}"
        assert matches(command.expected, done.stdout), f"{where_}\nshown:\n{command.expected}\nprinted:\n{done.stdout}"


def run_pycon(example: Example) -> None:
    globs = GLOBS.setdefault(example.page, {})
    test = doctest.DocTestParser().get_doctest(example.body, globs, example.id, example.page, example.line)
    runner = doctest.DocTestRunner(checker=Checker(), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda text: print(text, end=""))
    failed, tried = runner.summarize(verbose=False)
    assert tried > 0 and failed == 0, f"{example.id}: {failed} of {tried} examples failed (printed above)"


# How many of each page's examples of a kind (in page order) ran in this process: pytest-xdist may hand a page's
# examples to different workers, and a later block may use what an earlier one made in the page's folder or named in
# its session (seen: the tutorial's plugin, installed on one worker and asked for on another).
RAN: dict[str, int] = {}
FAILED: dict[str, str] = {}  # the blocks that failed in this process, and why


@pytest.mark.parametrize("example", CASES)
def test_the_example_runs_and_prints_what_the_page_shows(example: Example, folders: dict[str, Path],
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    # the blocks of its kind before it that this process has not run, first (a console block shares the page's
    # folder with the page's console blocks, a pycon block its names with its pycon blocks), each checked as its own
    # test checks it
    if example.skipped:  # before the blocks ahead of it, which a later test of this process then runs
        pytest.skip(f"{example.id}: {example.note}")
    key = f"{example.page} {example.kind}"
    page = [e for e in EXAMPLES if e.page == example.page and e.kind == example.kind]
    place = page.index(example)
    for at in range(RAN.get(key, 0), place + 1):
        before = page[at]
        RAN[key] = at + 1  # never run twice in one folder (a second `--proof mats` finds it not empty)
        if before.skipped:
            continue
        try:
            if before.kind == "pycon":
                run_pycon(before)
            else:
                run_console(before, folder_of(before.page, folders, tmp_path_factory))
        except Exception as failure:
            FAILED[before.id] = str(failure)
            raise
    # run and checked by an earlier test of this process (one of a later block): its own test says how that went
    if example.id in FAILED:
        pytest.fail(f"{example.id} failed when an earlier test of this process ran it:\n{FAILED[example.id]}")


def test_the_pages_have_examples_of_both_kinds_and_none_the_runner_skips() -> None:
    assert unrun_fences() == []
    readme = [e for e in EXAMPLES if e.page == "README.md"]
    assert {e.kind for e in readme} == {"console", "pycon"}
    consoles = [e for e in EXAMPLES if e.kind == "console"]
    assert len({e.page for e in EXAMPLES}) >= 10 and sum(len(commands(e)) for e in consoles) >= 40
    run = [c for e in EXAMPLES if e.kind == "console" and not e.skipped for c in commands(e)]
    assert all(c.text.strip() for c in run)
    assert not [c.text for e in consoles for c in commands(e) if re.search(r"#\s*(not run|slow):", c.text)], \
        "a runner's note goes in an HTML comment above the block, not in the commands readers see"
    odd = [e.id for e in EXAMPLES if e.note and not (e.skipped or e.seconds)]
    assert not odd, "a runner's note is 'not run, REASON' or 'slow N s'"


@pytest.mark.parametrize(("shown", "printed", "same"), [
    ("3 solutions in 0.010 s", "3 solutions in 12 s\n", True),
    ("3 solutions in 0.010 s", "4 solutions in 0.010 s\n", False),
    ("a ... c\n...\nz", "a b c\nx\ny\nz\n", True),
    ("a\n...\nz", "a\nz\n", True),
    ("a ... c", "a b d\n", False),
    ("one", "one\ntwo\n", False),
])
def test_shown_output_is_compared_by_the_documented_rules(shown: str, printed: str, same: bool) -> None:
    assert matches(shown, printed) is same


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {"": parser, **sub.choices}


def options() -> dict[str, set[str]]:
    """Every subcommand with the option strings its ``--help`` shows."""
    return {name: {flag for a in p._actions if a.help != argparse.SUPPRESS for flag in a.option_strings}
            for name, p in subcommands().items()}


CLI_PAGE = ROOT / "docs" / "reference" / "cli.md"
API_PAGE = ROOT / "docs" / "reference" / "api.md"
PLUGIN_PAGE = ROOT / "docs" / "reference" / "plugin.md"


def test_the_cli_reference_is_generated_from_the_parser_and_covers_every_option() -> None:
    page = CLI_PAGE.read_text(encoding="utf-8")
    assert re.search(r"```\{argparse\}\n:module: gridsat\.cli\n:func: build_parser\n:prog: gridsat\n", page)
    assert not re.search(r":(nosubcommands|nodefault|noepilog):", page)
    pytest.importorskip("sphinxarg")
    from sphinxarg.parser import parse_parser

    generated = parse_parser(build_parser())
    documented = {"": {n for g in generated["action_groups"] for o in g["options"] for n in o["name"]}}
    for child in generated["children"]:
        documented[child["name"]] = {n for g in child.get("action_groups", []) for o in g["options"]
                                     for n in o["name"]}
    for name, flags in options().items():
        assert name in documented, f"gridsat {name} is missing from the CLI reference"
        assert flags - {"-h", "--help"} <= documented[name], f"gridsat {name}: {flags - documented[name]}"


def api_names(page: str) -> set[str]:
    return set(re.findall(r"^\.\. auto(?:function|class|exception):: gridsat\.(\w+)$", page, flags=re.MULTILINE))


def test_the_api_reference_covers_every_public_name_and_no_other() -> None:
    assert api_names(API_PAGE.read_text(encoding="utf-8")) == set(gridsat.__all__)


def test_the_plugin_reference_covers_every_name_of_gridsat_plugin_and_no_other() -> None:
    page = PLUGIN_PAGE.read_text(encoding="utf-8")
    found = re.findall(r"^\.\. auto(?:function|class|exception|data|module):: gridsat\.plugin\.(\w+)$", page,
                       flags=re.MULTILINE)
    assert sorted(found) == sorted(gridsat.plugin.__all__)


@pytest.mark.slow
def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    pytest.importorskip("sphinx")
    pytest.importorskip("sphinxarg")
    pytest.importorskip("myst_nb")
    out = tmp_path / "html"
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(ROOT / "docs"), str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    cli = (out / "reference" / "cli.html").read_text(encoding="utf-8")
    for name, flags in options().items():
        assert all(flag in cli for flag in flags), f"gridsat {name}: an option is missing from cli.html"
    api = (out / "reference" / "api.html").read_text(encoding="utf-8")
    assert all(f'id="gridsat.{name}"' in api for name in gridsat.__all__)
    plugin = (out / "reference" / "plugin.html").read_text(encoding="utf-8")
    own = set(gridsat.plugin.__all__) - set(gridsat.__all__)  # the shared names are indexed on the API page
    ids = set(re.findall(r'id="(?:module-)?gridsat\.plugin\.(\w+)"', plugin))
    assert own <= ids, own - ids
    notebook = (out / "notebooks" / "quickstart.html").read_text(encoding="utf-8")
    assert "cell_output" in notebook and "<svg" in notebook  # executed during the build: real outputs
    assert (out / "animations" / "knights-tour-5x5.html").stat().st_size > 10_000


def test_every_file_the_readme_links_to_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [link for link in re.findall(r"\]\(([^)#]+)\)", readme) if "://" not in link]
    assert len(links) >= 20 and [link for link in links if not (ROOT / link).exists()] == []
