"""A real browser draws the animation page: headless Chromium, when it is installed (skipped, saying
so, when it is not). The full set of screenshots to look at is ``python -m gridsat.screenshots``."""

from __future__ import annotations

import pytest

from gridsat.animate import page, record_named
from gridsat.models import get_puzzle
from gridsat.models.tatami.pictures import FILLS
from gridsat.screenshots import browser, shoot

chromium = browser()
pytestmark = pytest.mark.skipif(chromium is None, reason="no Chromium on PATH (apt-get install chromium)")


def share_of(png, colour: str) -> float:
    """The share of the screenshot's pixels within a few levels of ``colour`` (#rrggbb)."""
    image = pytest.importorskip("matplotlib.image").imread(png)[..., :3]
    target = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    near = (abs(image - target) < 4 / 255).all(axis=-1)
    return float(near.mean())


def test_chromium_draws_the_mats_a_page_has_placed(tmp_path):
    tatami = get_puzzle("tatami")
    html = tmp_path / "tatami.html"
    html.write_text(page(record_named(tatami, tatami.parse("4x7", {}), None, 3000)))
    shots = {}
    for step in (0, 40):
        shots[step] = tmp_path / f"step{step}.png"
        shoot(chromium, f"{html.as_uri()}#step={step}", shots[step], 900, 700)
    assert share_of(shots[0], FILLS["h"]) == 0.0, "the empty room has no mats"
    # Step 40 of the row scan has mats 1 to 8 on the board, five of them horizontal.
    assert share_of(shots[40], FILLS["h"]) > 0.02 and share_of(shots[40], FILLS["v"]) > 0.01
