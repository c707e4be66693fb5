"""The examples of README.md and docs/**/*.md: found, run, and their output compared with the page.

The rules a page follows (docs/reference/examples.md says them to a writer):

- A ```console block holds commands, each a line starting with ``$ ``, and after each the output it
  prints on stdout (stderr is not shown: write ``2>&1`` to show it). A command runs in ``bash`` from
  a folder of its own for each page (``examples/`` and ``docs/`` are linked into it, and ``pip install`` writes to
  a folder of that page that is on ``PYTHONPATH``), so a command may use the files that earlier
  commands of the same page wrote. It must exit 0: to show another status, end it with
  ``; echo "exit status $?"``.
- A ```pycon block is a doctest; the pycon blocks of one page share their names, in page order.
- A note for the runner stands in an HTML comment on the line above the block, so readers never see
  it: ``<!-- example: not run, REASON -->`` leaves the block out (the set-up commands);
  ``<!-- example: slow N s -->`` says the block takes about N seconds: it gets a budget of twice that
  and the ``slow`` mark. Every other example should take at most ``BUDGET`` seconds on an idle machine.
  A budget only guards against a hang: a console command is stopped after ``conftest.patience`` of it
  (three times, more on a busy machine); no example fails for being slow.
- Compared output: trailing spaces and blank lines at the end are ignored; a time, a number followed
  by `` s`` (``0.12 s``, ``3 s``), matches any time; ``...`` matches any text within a line, and a
  line of only ``...`` any number of lines.
- No ```sh, ```bash, ```shell or ```python fences: every example is one of the two kinds above, so
  none escapes the runner.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET = 30.0
FENCE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^```\s*$", re.DOTALL | re.MULTILINE)
UNRUN = ("sh", "bash", "shell", "python", "py", "zsh", "shell-session")
TIME = re.compile(r"\b\d+(?:\.\d+)? s\b")
NOTE = re.compile(r"<!--\s*example:\s*(?P<note>.*?)\s*-->\s*\Z", re.DOTALL)
SLOW = re.compile(r"^slow\s+(\d+(?:\.\d+)?)\s*s$")
NOT_RUN = re.compile(r"^not run\b")


@dataclass(frozen=True)
class Command:
    """One ``$`` command of a console block and the output the page shows for it."""

    line: int
    text: str
    expected: str


@dataclass(frozen=True)
class Example:
    """One console or pycon block of a page."""

    page: str
    line: int
    kind: str  # "console" or "pycon"
    body: str
    note: str = ""  # the runner's note above the block: "not run, REASON" or "slow N s"

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def seconds(self) -> float | None:
        """The time the page gives for a slow example, or None."""
        found = SLOW.match(self.note)
        return float(found[1]) if found else None

    @property
    def skipped(self) -> bool:
        """Whether the runner leaves the block out (set-up commands)."""
        return bool(NOT_RUN.match(self.note))

    @property
    def budget(self) -> float:
        return BUDGET if self.seconds is None else max(BUDGET, 2 * self.seconds)


def pages() -> list[Path]:
    """The README and every Markdown page of the documentation site."""
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)
    return [ROOT / "README.md", *docs]


def page_name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def fences(path: Path) -> list[tuple[str, int, str, str]]:
    """Every fenced block of a page: its language, the line of its fence, its text, the runner's note."""
    text = path.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        note = NOTE.search(text[max(0, m.start() - 200):m.start()])
        found.append((m["lang"], text.count("\n", 0, m.start()) + 1, m["body"], note["note"] if note else ""))
    return found


def examples() -> list[Example]:
    """Every console and pycon block of every page, in page order."""
    found = []
    for path in pages():
        for lang, line, body, note in fences(path):
            if lang in ("console", "pycon"):
                found.append(Example(page_name(path), line, lang, body, note))
    return found


def unrun_fences() -> list[str]:
    """Fences that look like examples but are of no kind the runner runs."""
    return [f"{page_name(p)}:{line} ```{lang}" for p in pages() for lang, line, _, _ in fences(p) if lang in UNRUN]


def commands(example: Example) -> list[Command]:
    """The commands of a console block, each with the output shown after it."""
    out: list[Command] = []
    lines = example.body.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise ValueError(f"{example.id}: line {i + 1} of the block is neither a command nor its output")
        start, text = i, lines[i][2:]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        i += 1
        shown = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        out.append(Command(example.line + 1 + start, text, "\n".join(shown)))
    return out


def normal(text: str) -> list[str]:
    """Lines with times replaced and trailing spaces and blank lines dropped."""
    lines = [TIME.sub("<time> s", line).rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def pattern(expected: str) -> re.Pattern[str]:
    """The shown output as a regular expression: ``...`` within a line, or a whole line of it."""
    parts = []
    for line in normal(expected):
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts), re.DOTALL)


def matches(expected: str, actual: str) -> bool:
    """Whether the output printed is the output shown, under the rules above."""
    text = "".join(line + "\n" for line in normal(actual))
    return pattern(expected).fullmatch(text) is not None


class Checker(doctest.OutputChecker):
    """doctest's comparison, with times normalised like a console block's."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        return super().check_output(TIME.sub("<time> s", want), TIME.sub("<time> s", got), optionflags)
