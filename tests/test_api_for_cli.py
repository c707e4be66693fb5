"""What ``gridsat.api`` offers the command line, which imports nothing from ``gridsat.solvers``."""

from __future__ import annotations

import io

import pytest

from gridsat import api
from gridsat.models.errors import InvalidOption, UnknownName


def test_the_listing_names_every_backend_and_what_each_puzzle_runs_on() -> None:
    found = api.listing()
    assert [b["name"] for b in found["backends"]] == api.backend_names()
    tatami = next(p for p in found["puzzles"] if p["name"] == "tatami")
    assert set(tatami["backends"]) <= set(api.backend_names()) and tatami["algorithms"]
    assert found["amo_encodings"]


def test_an_export_is_written_on_demand_and_says_when_a_model_is_an_orbit() -> None:
    exported = api.export("prime-grid", "3x3", encoding="symmetry")
    out = io.StringIO()
    exported.write(out)
    assert out.getvalue().startswith("c gridsat prime-grid") and "p cnf " in out.getvalue()
    assert ["stands for 8 solutions" in note for note in exported.notes()] == [True]
    assert api.export("tatami", "4x7", format="cpsat").notes() == []


def test_an_unknown_export_format_is_refused_in_one_line() -> None:
    with pytest.raises(UnknownName, match="'pdf'"):
        api.export("tatami", "4x7", format="pdf")


def test_generate_writes_the_same_instance_for_the_same_seed_and_refuses_puzzles_without_a_generator() -> None:
    assert api.generate("shikaku", "6x6", seed=3) == api.generate("shikaku", "6x6", seed=3)
    with pytest.raises(InvalidOption, match="'tatami' has no generator; puzzles with one: shikaku"):
        api.generate("tatami", "4x7")


def test_an_instance_note_says_what_the_puzzle_knows_or_is_none() -> None:
    assert api.instance_note(*api.load("shikaku", "2x2:3c")) == (
        "the clues sum to 3 but the grid has 4 cells, so there is no solution")
    assert api.instance_note(*api.load("shikaku", "2x2:4c")) is None
    assert api.instance_note(*api.load("tatami", "4x7")) is None  # a puzzle with nothing to say
