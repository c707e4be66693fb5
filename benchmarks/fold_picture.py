"""The picture of docs/explanation/frontier.md's Burnside section: the half turn's fold of the 4x5 board.

Left, the fold itself, drawn from ``models/knights_tour/folded.Fold``: the moves the frontier walks (one of
each orbit under the half turn), their images, the moves between a square and its image (short orbits,
chosen at the cut) and the squares on the frontier at the cut. Right, an open 4x5 tour that the half turn
reverses (the first such tour sat lists), split the same way: the fold's moves of the tour, their images and
its middle move. Run ``python -m gridsat.benchmarks.fold_picture PNG`` (matplotlib, the ``plot`` extra).
"""

from __future__ import annotations

import sys
from pathlib import Path

import gridsat
from gridsat.models.knights_tour.board import Board, Square

ROWS, COLS = 4, 5
FOLD, IMAGE, SHORT, CUT = "#1f77b4", "#9a9a9a", "#ff7f0e", "#d62728"


def half_turn(square: Square) -> Square:
    return ROWS - 1 - square[0], COLS - 1 - square[1]


def reversed_tour() -> list[Square]:
    """An open 4x5 tour whose half turn is the same tour walked backwards (the first that sat lists)."""
    for tour in gridsat.enumerate("knights-tour", f"{ROWS}x{COLS}", backend="sat"):
        squares = [tuple(s) for s in tour]
        if [half_turn(s) for s in squares] == squares[::-1]:
            return squares
    raise SystemExit("no 4x5 tour is reversed by the half turn")


def draw(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from gridsat.models.knights_tour.folded import Fold, sweeps
    from gridsat.models.symmetry import motions

    board = Board(ROWS, COLS)
    motion = next(m for m in motions(ROWS, COLS) if m.name == "rot180")
    fold = min((Fold(board, motion, index) for index in sweeps(board)), key=lambda f: f.slots)
    square = {i: s for s, i in fold.index.items()}
    kind = {e: FOLD for e in fold.fold} | {e: SHORT for orbit in fold.short for e in orbit}
    moves = {frozenset((square[a], square[b])): kind.get((a, b), IMAGE) for a, b in fold.edges}
    tour = reversed_tour()
    figure, axes = plt.subplots(1, 2, figsize=(10, 5))
    for ax in axes:
        for r, c in board.squares():
            ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, color="#f0d9b5" if (r + c) % 2 else "#ffffff"))
        ax.add_patch(plt.Rectangle((-0.5, -0.5), COLS, ROWS, fill=False, color="#444444", lw=1.5))
        ax.set_xlim(-0.6, COLS - 0.4)
        ax.set_ylim(ROWS - 0.4, -0.6)
        ax.set_aspect("equal")
        ax.axis("off")
    for move, colour in moves.items():
        (r1, c1), (r2, c2) = sorted(move)
        axes[0].plot([c1, c2], [r1, r2], color=colour, lw=2.2 if colour != IMAGE else 1.0,
                     ls="-" if colour != IMAGE else ":")
    for v in fold.frontier().values():
        r, c = square[v]
        axes[0].add_patch(plt.Circle((c, r), 0.22, fill=False, color=CUT, lw=2))
    axes[0].set_title("the fold: moves walked (blue), images (dotted),\n"
                      "short orbits (orange), frontier at the cut (red)", fontsize=10)
    for a, b in zip(tour, tour[1:], strict=False):
        colour = moves[frozenset((a, b))]
        axes[1].plot([a[1], b[1]], [a[0], b[0]], color=colour, lw=3, ls="--" if colour == IMAGE else "-")
    for number, (r, c) in enumerate(tour, 1):
        axes[1].text(c, r, str(number), ha="center", va="center", fontsize=9,
                     bbox={"boxstyle": "circle", "fc": "white", "ec": "#444444"})
    axes[1].set_title("a tour the half turn reverses: its fold moves (blue),\n"
                      "their images (dashed) and its middle move (orange)", fontsize=10)
    figure.tight_layout(rect=(0, 0, 1, 0.95))
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    draw(Path(sys.argv[1] if len(sys.argv) > 1 else "fold-4x5.png"))
