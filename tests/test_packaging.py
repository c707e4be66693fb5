"""What ``pip install .`` puts into site-packages: one import name, ``gridsat``, and nothing generic."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(out), str(ROOT)], check=True, capture_output=True, timeout=300)
    [built] = out.glob("gridsat-*.whl")
    return built


def test_the_wheel_holds_one_top_level_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"gridsat"}
    for expected in ("gridsat/py.typed", "gridsat/api.py", "gridsat/models/tatami/__init__.py",
                     "gridsat/models/tatami/reference.py", "gridsat/benchmarks/suites/smoke.toml"):
        assert expected in names
    # Every golden file of the repository ships, so that an installed benchmark checks its counts.
    golden = ROOT / "models" / "golden"
    shipped = {f"gridsat/models/golden/{p.relative_to(golden).as_posix()}" for p in golden.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert {"gridsat/models/golden/prime_grid.toml", "gridsat/models/golden/shikaku/seven.txt"} <= shipped
    assert shipped <= set(names), sorted(shipped - set(names))


def test_installed_gridsat_counts_and_models_is_not_importable(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    code = (f"import gridsat, importlib.util; print(gridsat.__file__.startswith({str(site)!r})); "
            "print(gridsat.count('tatami', '4x7').count); "
            "print([importlib.util.find_spec(n) is None for n in ('models', 'solvers', 'benchmarks')]); "
            # The benchmarks read their golden counts from the installed package, not from the repository.
            "from gridsat.benchmarks.compare.prime_grid import golden_counts; print(golden_counts()['5x5/1..25']); "
            "from gridsat.models.golden import path; "
            f"print(path('shikaku', 'seven.txt').is_file(), str(path()).startswith({str(site)!r}))")
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:5] == ["True", "3", "[True, True, True]", "917848", "True True"]
