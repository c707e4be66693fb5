"""The reference search replayed: record its events, then play them in a page or a terminal.

Like the seed's knight's-tour animation, the search and the drawing are kept apart: the algorithm
only reports events (``gridsat.models.search``), ``record`` turns each into what it adds to the
picture (the puzzle's ``pictures.sketch``), and ``page`` or ``play`` replay them. A "place" at depth d
stacks its pieces; a "remove" at depth d takes off everything stacked at depth d or deeper, so the
path grows and shrinks as the search does.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html import escape
from typing import Any, TextIO
from xml.etree import ElementTree as ET

from gridsat.models import svg
from gridsat.models.errors import InvalidOption
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.search import Algorithm
from gridsat.solvers.backends.algorithms import algorithm
from gridsat.solvers.stop import Stop

Cell = tuple[int, int]


class Enough(Exception):
    """Raised by the recorder's listener to end the search at the step cap."""


@dataclass
class Frame:
    """One event as it is replayed: what it adds (piece numbers, console labels) and a caption."""

    kind: str
    depth: int
    pieces: list[int]
    under: list[int]  # pieces below every other step's (lines under discs)
    labels: dict[Cell, str]
    caption: str


@dataclass
class Replay:
    """A search recorded for replay."""

    title: str
    figure: svg.Figure
    rows: int
    cols: int
    pieces: list[str] = field(default_factory=list)  # distinct SVG snippets, by number
    frames: list[Frame] = field(default_factory=list)
    capped: bool = False  # the step cap ended the recording, not the search
    max_steps: int = 0
    solutions: int = 0
    reason: str | None = None  # why a search that ended early stopped (e.g. divide on a board it cannot cut)


def caption(kind: str, depth: int, what: Any, solutions: int) -> str:
    """A step in words: ``place [2, 1] (depth 3)``; a solution by its number."""
    if kind == "solution":
        return f"solution {solutions} found (depth {depth})"
    return f"{kind} {json.dumps(what, separators=(', ', ': '))} (depth {depth})"


def record(puzzle: Puzzle, instance: Instance, method: Algorithm, max_steps: int) -> Replay:
    """Run ``method`` on ``instance`` and keep its first ``max_steps`` events as frames."""
    if puzzle.pictures is None or puzzle.pictures.sketch is None:
        raise InvalidOption(f"puzzle {puzzle.name!r} has no drawing to animate")
    base = puzzle.pictures.draw(instance, None, None)
    lay = base.layout
    if lay is None:
        raise InvalidOption(f"puzzle {puzzle.name!r} draws no cell grid to animate")
    title = f"{puzzle.name} {puzzle.describe(instance)} · reference:{method.name}"
    recording = Replay(title, base, lay.rows, lay.cols, max_steps=max_steps)
    numbers: dict[str, int] = {}
    path: list[Any] = []  # the ``what`` of every decision on the current path

    def listen(kind: str, depth: int, what: Any) -> None:
        if len(recording.frames) >= max_steps:
            recording.capped = True
            raise Enough
        if kind == "solution":
            recording.solutions += 1
        sketch = puzzle.pictures.sketch(instance, lay, kind, depth, what, path)
        if kind == "place":
            path.append(what)
        elif kind == "remove":
            del path[depth - 1 :]
        over, under = store(sketch.pieces), store(sketch.under)
        recording.frames.append(Frame(kind, depth, over, under, sketch.labels,
                                      caption(kind, depth, what, recording.solutions)))

    def store(pieces: list[svg.Element]) -> list[int]:
        """Each piece's number in the recording: the same drawing is stored once."""
        return [numbers.setdefault(ET.tostring(piece, encoding="unicode"), len(numbers)) for piece in pieces]

    stop = Stop()
    try:
        for _ in method.run(instance, stop, listen):
            pass
    except Enough:
        pass
    recording.reason = stop.reason
    recording.pieces = list(numbers)
    return recording


def record_named(puzzle: Puzzle, instance: Instance, name: str | None, max_steps: int) -> Replay:
    """``record`` with the reference algorithm called ``name`` (the puzzle's default when None)."""
    return record(puzzle, instance, algorithm(puzzle, name), max_steps)


def ending(recording: Replay) -> str:
    """How the recording ended, in a sentence."""
    steps = f"{len(recording.frames)} steps"
    found = f"{recording.solutions} solution{'' if recording.solutions == 1 else 's'} found"
    if recording.capped:
        return f"Recording stopped at --max-steps {recording.max_steps}: the search had not finished ({found})."
    if recording.reason:
        return f"The search stopped after {steps}: {recording.reason} ({found})."
    return f"The search ran to its end in {steps} ({found})."


PAGE_SCRIPT = """
const PIECES = %(pieces)s;
const STEPS = %(steps)s;
const layers = [document.getElementById("under"), document.getElementById("pieces")];
const $ = (id) => document.getElementById(id);
let stack = [], at = 0, found = 0, playing = false, budget = 0, last = 0;

function apply(step) {
  const [kind, depth, over, under] = step;
  if (kind === "remove") {
    while (stack.length && stack[stack.length - 1][0] >= depth) stack.pop()[1].forEach((g) => g.remove());
    return;
  }
  if (kind === "solution") found += 1;
  const groups = [];
  [under, over].forEach((ids, i) => {
    if (!ids.length) return;
    // Parsed in the SVG layer's context, so the pieces become SVG elements.
    layers[i].insertAdjacentHTML("beforeend", "<g>" + ids.map((n) => PIECES[n]).join("") + "</g>");
    groups.push(layers[i].lastElementChild);
  });
  if (groups.length) stack.push([depth, groups]);
}
function show() {
  $("counter").textContent = "step " + at + " / " + STEPS.length;
  $("found").textContent = "solutions: " + found;
  $("caption").textContent = at ? STEPS[at - 1][4] : "the empty board";
  $("seek").value = at;
  $("play").textContent = playing ? "Pause" : (at >= STEPS.length ? "Replay" : "Play");
}
function seek(n) {
  n = Math.max(0, Math.min(STEPS.length, n));
  if (n < at) { stack.forEach(([, groups]) => groups.forEach((g) => g.remove())); stack = []; at = 0; found = 0; }
  while (at < n) apply(STEPS[at++]);
  show();
}
function rate() { return Math.round(Math.pow(10, Number($("speed").value) / 40)); }  // 1 to 316 steps/s
function tick() {
  const now = performance.now();
  budget += (now - last) / 1000 * rate();
  last = now;
  const n = Math.floor(budget);
  if (n > 0) { budget -= n; seek(at + n); }
  if (at >= STEPS.length) { clearInterval(playing); playing = false; show(); }
}
function toggle() {
  if (playing) { clearInterval(playing); playing = false; show(); return; }
  if (at >= STEPS.length) seek(0);
  last = performance.now(); budget = 0;
  playing = setInterval(tick, 25);  // timers, not animation frames: they also run in a headless browser
  show();
}
$("play").onclick = toggle;
function pause() { if (playing) toggle(); }
function solution(direction) {  // the step just after the next (or previous) solution
  pause();
  for (let n = at + direction; n > 0 && n <= STEPS.length; n += direction) {
    if (STEPS[n - 1][0] === "solution") { seek(n); return; }
  }
}
$("prev-solution").onclick = () => solution(-1);
$("next-solution").onclick = () => solution(1);
$("back").onclick = () => { pause(); seek(at - 1); };
$("next").onclick = () => { pause(); seek(at + 1); };
$("seek").oninput = (e) => seek(Number(e.target.value));
$("speed").oninput = () => { $("rate").textContent = rate() + " steps/s"; };
document.addEventListener("keydown", (e) => {
  if (e.key === " ") { e.preventDefault(); toggle(); }
  if (e.key === "ArrowRight") { pause(); seek(at + 1); }
  if (e.key === "ArrowLeft") { pause(); seek(at - 1); }
});
// #step=N opens at step N (paused); #play, or no fragment at all, plays.
const hash = new URLSearchParams(location.hash.slice(1));
$("speed").oninput();
seek(Number(hash.get("step") || 0));
if (hash.has("play") || !hash.has("step")) toggle();
"""

PAGE_STYLE = """
body { font-family: DejaVu Sans, Verdana, Arial, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 6px; }
p { margin: 4px 0; font-size: 13px; color: #555; }
p.capped { color: #a32020; font-weight: bold; }
.controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 10px 0; font-size: 13px; }
button { min-width: 64px; }
#seek { width: 360px; vertical-align: middle; }
#counter, #found { font-variant-numeric: tabular-nums; }
#caption { font-family: DejaVu Sans Mono, monospace; font-size: 13px; min-height: 1.3em; margin-bottom: 6px; }
"""


def page(recording: Replay, fps: float = 20.0) -> str:
    """A self-contained HTML page (inline SVG and script, nothing fetched) that replays the recording."""
    layers = svg.group([svg.element("g", id="under"), svg.element("g", id="pieces")])
    board = svg.picture(recording.figure, recording.title, between=layers)
    board.attrib.pop("xmlns", None)  # inline SVG in HTML takes its namespace from the parser
    steps = [[f.kind, f.depth, f.pieces, f.under, f.caption] for f in recording.frames]
    script = PAGE_SCRIPT % {
        "pieces": json.dumps(recording.pieces).replace("</", "<\\/"),
        "steps": json.dumps(steps, separators=(",", ":")).replace("</", "<\\/"),
    }
    speed = max(0, min(100, round(40 * math.log10(fps))))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>gridsat animate: {escape(recording.title)}</title>",
        f"<style>{PAGE_STYLE}</style></head><body>",
        f"<h1>gridsat animate: {escape(recording.title)}</h1>",
        "<p>The reference search step by step: a decision placed, a decision taken back, a solution found. "
        "Space plays or pauses, the arrow keys step, the Solution buttons jump to the solutions found; "
        "open the page with #step=N to start at step N.</p>",
        f'<p class="{"capped" if recording.capped else "ended"}">{escape(ending(recording))}</p>',
        '<div class="controls"><button id="play">Play</button><button id="back">&#9664; Step</button>'
        '<button id="next">Step &#9654;</button>'
        '<button id="prev-solution">&#9664; Solution</button><button id="next-solution">Solution &#9654;</button>'
        f'<label>Speed <input id="speed" type="range" min="0" max="100" value="{speed}"></label>'
        '<span id="rate"></span></div>'
        f'<div class="controls"><label>Step <input id="seek" type="range" min="0" max="{len(steps)}" value="0">'
        '</label><span id="counter"></span><span id="found"></span></div>',
        '<div id="caption"></div>',
        ET.tostring(board, encoding="unicode"),
        f"<script>{script}</script>",
        "</body></html>",
        "",
    ]
    return "\n".join(parts)


def console(recording: Replay, labels: dict[Cell, str], width: int) -> list[str]:
    """The board as the seed's console program prints it: each cell's label, '.' where none."""
    return [" ".join(labels.get((r, c), ".").rjust(width) for c in range(recording.cols))
            for r in range(recording.rows)]


def frames(recording: Replay) -> Iterator[tuple[int, str, list[str]]]:
    """Each step's number, caption and console board, replaying the labels as the page replays pieces."""
    width = max([1, *(len(text) for frame in recording.frames for text in frame.labels.values())])
    cells: dict[Cell, list[tuple[int, str]]] = {}  # per cell, the labels stacked on it (depth, text)
    stacked: list[tuple[int, list[Cell]]] = []
    for number, frame in enumerate(recording.frames, 1):
        if frame.kind == "remove":
            while stacked and stacked[-1][0] >= frame.depth:
                for cell in stacked.pop()[1]:
                    cells[cell].pop()
        elif frame.labels:
            for cell, text in frame.labels.items():
                cells.setdefault(cell, []).append((frame.depth, text))
            stacked.append((frame.depth, list(frame.labels)))
        shown = {cell: stack[-1][1] for cell, stack in cells.items() if stack}
        yield number, frame.caption, console(recording, shown, width)


def play(recording: Replay, out: TextIO = sys.stdout, fps: float = 20.0, redraw: bool | None = None,
         sleep: Callable[[float], None] = time.sleep) -> None:
    """Play the recording as text: redrawn in place on a terminal (ANSI), else frame after frame."""
    redraw = out.isatty() if redraw is None else redraw
    total = len(recording.frames)
    if redraw:
        out.write("\x1b[2J")
    for number, text, board in frames(recording):
        head = f"{recording.title}  step {number}/{total}: {text}"
        if redraw:
            out.write("\x1b[H" + "\n".join(line + "\x1b[K" for line in [head, "", *board]) + "\n")
            out.flush()
            sleep(1.0 / fps)
        else:
            out.write("\n".join([f"# {head}", *board, ""]) + "\n")
    out.write(ending(recording) + "\n")
