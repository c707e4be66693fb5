"""How results show themselves: a ``repr`` of at most ``REPR_LIMIT`` characters, and in a notebook
(``_repr_html_``) a table of the runs with an SVG picture of the solutions.

The SVG drawing lives above this layer (``gridsat.pictures``): ``gridsat.display`` hands it to
``use_painter`` as gridsat is imported, which always comes first, since this module is part of the
``gridsat`` package. Results are read by their fields alone, so this module imports none of them.
"""

from __future__ import annotations

import html
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gridsat.models.puzzle import Instance, Puzzle

REPR_LIMIT = 500  # characters: a notebook cell or a log line, never the megabyte of every solution kept
DRAWN = 12  # solutions drawn at most on one sheet

# (puzzle, instance, solutions, label, state) -> SVG text, or None when the puzzle cannot draw
Painter = Callable[[Puzzle, Instance, Sequence[Any], str, str], str | None]
_painters: list[Painter] = []


def use_painter(painter: Painter) -> None:
    """Draw results' solutions with ``painter`` from now on."""
    _painters[:] = [painter]


def _no_board() -> None:
    return None


@dataclass(frozen=True)
class Scene:
    """What a picture of a run's solutions needs: the puzzle and its parsed instance.

    It pickles as None: an outcome a worker process sends back arrives without it, as a plugin's
    puzzle need not pickle (the parent's outcome keeps its own)."""

    puzzle: Puzzle
    instance: Instance

    def __reduce__(self) -> tuple[Callable[[], None], tuple[()]]:
        return _no_board, ()


_short = reprlib.Repr()  # keyword arguments only from Python 3.12
_short.maxlevel, _short.maxstring, _short.maxother = 2, 60, 60
_short.maxlist = _short.maxtuple = _short.maxdict = 4


def brief(kind: str, fields: Mapping[str, Any]) -> str:
    """``Kind(key=value, ...)`` with each value's repr cut short, and never over ``REPR_LIMIT`` characters."""
    text = f"{kind}({', '.join(f'{key}={_short.repr(value)}' for key, value in fields.items())})"
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 4] + "...)"


def glance(outcome: Any, ended: bool = True) -> dict[str, Any]:
    """What a ``repr`` of an outcome says: which run, its count and whether it is complete (``ended``
    False: a run still open, whose count is so far)."""
    record = outcome.summary()
    keys = ("puzzle", "instance", "backend", "encoding", "up_to", "method", "count", "complete", "reason")
    fields = {key: record[key] for key in keys if key in record and (key != "reason" or record[key])}
    if not ended:
        fields["complete"] = "not yet: the run is open"
    fields["seconds"] = round(outcome.seconds, 3)
    if outcome.solutions is not None:
        fields["solutions_kept"] = len(outcome.solutions)
    return fields


def run_row(outcome: Any) -> list[Any]:
    """One run in a table: backend, encoding, count, complete, seconds."""
    record = outcome.summary()
    complete = "yes" if outcome.complete else f"no ({outcome.reason})"
    return [outcome.backend, outcome.label.partition(":")[2], record["count"], complete, f"{outcome.seconds:.3f}"]


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A small HTML table (every cell escaped)."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


RUN_HEADER = ("backend", "encoding", "count", "complete", "seconds")


def picture(outcome: Any, solutions: Sequence[Any] | None = None, ended: bool = True) -> str:
    """An SVG of the first ``DRAWN`` solutions (default: those the outcome kept), or "" when none or no drawing."""
    board, solutions = getattr(outcome, "board", None), outcome.solutions if solutions is None else solutions
    if board is None or not solutions or not _painters:
        return ""
    shown = list(solutions[:DRAWN])
    state = "so far" if not ended else "complete" if outcome.complete else "incomplete"
    if outcome.count > len(shown):
        state = f"the first {len(shown)} of {outcome.count}{'' if ended else ' so far'}"
    return _painters[0](board.puzzle, board.instance, shown, outcome.label, state) or ""


def headline(text: str, lines: Sequence[str] = ()) -> str:
    """A bold title line with a list of notes under it (each escaped)."""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return f"<p><b>{html.escape(text)}</b></p>" + (f"<ul>{items}</ul>" if items else "")


def outcome_html(outcome: Any, ended: bool = True, drawn: Sequence[Any] | None = None) -> str:
    """An outcome in a notebook: a title line, its run as a table, and its solutions drawn."""
    state = "so far: the run is open" if not ended else "complete" if outcome.complete else "incomplete"
    title = f"{outcome.puzzle} {outcome.instance} · {outcome.label}: {outcome.summary()['count']} ({state})"
    drawing = picture(outcome, drawn or None, ended)
    return f"<div>{headline(title)}{table(RUN_HEADER, [run_row(outcome)])}{drawing}</div>"


def report_html(report: Any) -> str:
    """A cross-check in a notebook: the verdict with its problems and notes, a table of the runs, and
    the solutions of the first complete run that kept them."""
    verdict = "agree" if report.agree else "DISAGREE"
    title = f"{report.puzzle} {report.instance}: {len(report.outcomes)} runs {verdict}"
    drawn = next((o for o in report.outcomes if o.complete and o.solutions), None)
    rows = [run_row(o) for o in report.outcomes]
    return (f"<div>{headline(title, [*report.problems, *report.notes])}{table(RUN_HEADER, rows)}"
            f"{picture(drawn) if drawn else ''}</div>")


def mutation_html(report: Any) -> str:
    """A mutation run in a notebook: its score and a table per encoding."""
    total = report.total.summary()
    title = f"{report.puzzle} on {report.backend}: score {total['score']}% of {total['mutants']} mutants"
    header = ("encoding", "mutants", "killed", "survived", "redundant", "score %")
    rows = [[name, s.mutants, s.killed, s.survived, s.redundant, s.summary()["score"]]
            for name, s in report.tally(lambda v: v.encoding).items()]
    return f"<div>{headline(title)}{table(header, rows)}</div>"
