"""Screenshots of every picture kind and of the animation pages, taken by headless Chromium, to look at.

    python -m gridsat.screenshots --out shots      # writes shots/*.svg, *.html and *.png

Needs the Debian package ``chromium`` (or a ``chromium-browser``/``google-chrome`` on PATH); without
one it says so and exits 0, so it never fails a machine that cannot take screenshots. It is not a
test: open the PNGs and look (tests/test_screenshots.py checks one page renders, when Chromium is there).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.etree import ElementTree as ET

from gridsat.animate import page, record_named
from gridsat.models import get_puzzle
from gridsat.pictures import sheet, still
from gridsat.solvers.backend import ENUMERATE, SOLVE, Request, reference_backend
from gridsat.solvers.gate import Job, bind
from gridsat.solvers.run import execute

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

# Stills: (file stem, puzzle, instance, params, backend, algorithm)
STILLS = [
    ("tatami-4x7", "tatami", "4x7", {}, "cpsat", None),
    ("tatami-40x40", "tatami", "40x40", {}, "cpsat", None),
    ("prime-grid-3x3", "prime-grid", "3x3", {}, "cpsat", None),
    ("prime-grid-6x6", "prime-grid", "6x6", {}, "cpsat", None),
    ("shikaku-seed", "shikaku", "seed", {}, "cpsat", None),
    ("knights-tour-9x10", "knights-tour", "9x10", {}, "reference", "divide"),
    ("knights-tour-6x6-closed", "knights-tour", "6x6", {"closed": "true"}, "cpsat", None),
    ("knights-tour-40x40", "knights-tour", "40x40", {}, "reference", "warnsdorff"),
]
# Sheets: (file stem, puzzle, instance, limit)
SHEETS = [("tatami-3x4-sheet", "tatami", "3x4", None), ("prime-grid-3x3-sheet", "prime-grid", "3x3", 24)]
# Pages: (file stem, puzzle, instance, algorithm, max steps, [what to open: "#step=N" or "play:MS"])
PAGES = [
    ("animate-knights-backtrack", "knights-tour", "5x5", "backtrack", 3000, ["#step=0", "#step=1500", "play:5000"]),
    ("animate-knights-warnsdorff", "knights-tour", "9x10", "warnsdorff", 3000, ["#step=60", "#step=91"]),
    ("animate-knights-divide", "knights-tour", "9x10", "divide", 3000, ["#step=1500", "#step=2518"]),
    ("animate-tatami", "tatami", "4x7", None, 3000, ["#step=40"]),
    ("animate-prime-grid", "prime-grid", "3x3", None, 3000, ["#step=120"]),
    ("animate-shikaku", "shikaku", "seed", None, 3000, ["#step=60", "#step=179"]),  # 179: its solution
]


def browser() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def shoot(chromium: str, url: str, png: Path, width: int, height: int, budget_ms: int | None = None) -> None:
    """One screenshot of ``url`` in a fresh profile; ``budget_ms`` lets the page's timers run first."""
    with tempfile.TemporaryDirectory() as profile:
        extra = [f"--virtual-time-budget={budget_ms}"] if budget_ms else []
        subprocess.run([chromium, *FLAGS, *extra, f"--user-data-dir={profile}", f"--screenshot={png}",
                        f"--window-size={width},{height}", url], check=True, capture_output=True, timeout=120)


def size_of(svg_text: str) -> tuple[int, int]:
    root = ET.fromstring(svg_text)
    return int(root.get("width")), int(root.get("height"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="screenshots", help="folder for the SVG, HTML and PNG files")
    args = parser.parse_args()
    chromium = browser()
    if chromium is None:
        print("screenshots skipped: no Chromium on PATH (apt-get install chromium)")
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for stem, name, text, params, backend, algorithm in STILLS:
        puzzle = get_puzzle(name)
        instance = puzzle.parse(text, params)
        job = Job(SOLVE, Request(algorithm=algorithm), limit=1, time_limit=120, keep=True)
        outcome = execute(puzzle, instance, bind(backend, puzzle, job))
        picture = still(puzzle, instance, outcome.solutions[0], outcome.label)
        (out / f"{stem}.svg").write_text(picture)
        width, height = size_of(picture)
        shoot(chromium, (out / f"{stem}.svg").resolve().as_uri(), out / f"{stem}.png", width, height)
        print(f"{out / stem}.png  {width}x{height}", flush=True)
    for stem, name, text, limit in SHEETS:
        puzzle = get_puzzle(name)
        instance = puzzle.parse(text, {})
        outcome = execute(puzzle, instance, bind(reference_backend(), puzzle, Job(ENUMERATE, limit=limit, keep=True)))
        state = "complete" if outcome.complete else f"incomplete: {outcome.reason}"
        picture = sheet(puzzle, instance, outcome.solutions, outcome.label, state)
        (out / f"{stem}.svg").write_text(picture)
        width, height = size_of(picture)
        shoot(chromium, (out / f"{stem}.svg").resolve().as_uri(), out / f"{stem}.png", width, height)
        print(f"{out / stem}.png  {width}x{height}", flush=True)
    for stem, name, text, algorithm, steps, views in PAGES:
        puzzle = get_puzzle(name)
        (out / f"{stem}.html").write_text(page(record_named(puzzle, puzzle.parse(text, {}), algorithm, steps)))
        url = (out / f"{stem}.html").resolve().as_uri()
        for view in views:
            if view.startswith("play:"):
                png, budget = out / f"{stem}-played.png", int(view[5:])
                shoot(chromium, url, png, 900, 760, budget)
            else:
                png = out / f"{stem}-{view.split('=')[1]}.png"
                shoot(chromium, url + view, png, 900, 760)
            print(f"{png}  900x760 {view}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
