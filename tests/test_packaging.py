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


def test_installed_gridsat_counts_and_models_is_not_importable(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    code = (f"import gridsat, importlib.util; print(gridsat.__file__.startswith({str(site)!r})); "
            "print(gridsat.count('tatami', '4x7').count); "
            "print([importlib.util.find_spec(n) is None for n in ('models', 'solvers', 'benchmarks')])")
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["True", "3", "[True, True, True]"]
