"""What ``pip install .`` puts into site-packages: one import name, ``gridsat``, and nothing generic; and
a release: an sdist and a wheel built without warnings, checked by twine, that install and run in a fresh venv."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT


@pytest.fixture(scope="module")
def wheel(release: tuple[Path, Path, str]) -> Path:
    """The release's wheel, built from its sdist as ``pip install .`` builds one from the source: one
    build serves every test here (a second, by ``pip wheel``, cost seconds and checked nothing more)."""
    return release[1]


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
    # Every module ships: a subpackage left out of pyproject.toml's packages list would be missing.
    for folder, package in (("gridsat", "gridsat"), ("models", "gridsat/models"), ("solvers", "gridsat/solvers"),
                            ("benchmarks", "gridsat/benchmarks")):
        modules = {f"{package}/{p.relative_to(ROOT / folder).as_posix()}" for p in (ROOT / folder).rglob("*.py")}
        assert modules <= set(names), sorted(modules - set(names))


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


def release_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where this run's release is built: under xdist, a folder the workers of this run share (their base
    folders are siblings in the run's own), so the second worker to need it reads the first one's build."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return tmp_path_factory.getbasetemp().parent / "release"
    return tmp_path_factory.mktemp("release")


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The sdist and the wheel built from it, as ``python -m build`` makes a release (``--no-isolation``:
    with this environment's setuptools, so no index is asked), and what the build printed."""
    pytest.importorskip("build", reason="the test extra's build is not installed")
    folder = release_folder(tmp_path_factory)
    out, printed = folder / "dist", folder / "printed.txt"
    # PYTHONDONTWRITEBYTECODE makes setuptools print that it skips byte-compiling: the environment's, not ours.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    # One build of the source tree at a time: setuptools writes gridsat.egg-info and gridsat-VERSION/ into it,
    # and two xdist workers building at once (each runs this fixture) raced there ("[Errno 2] No such file
    # or directory: 'gridsat-0.2.0/models/tatami/__init__.py'"). A worker that finds the run's build done
    # (its output written last) takes it: the same source, built the same way.
    with open(Path(tempfile.gettempdir()) / "gridsat-release-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not printed.is_file():
            done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                                  capture_output=True, text=True, env=env, timeout=600)
            assert done.returncode == 0, done.stderr[-2000:]
            printed.write_text(done.stdout + done.stderr, encoding="utf-8")
    [sdist], [wheel] = out.glob("gridsat-*.tar.gz"), out.glob("gridsat-*.whl")
    return sdist, wheel, printed.read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_release_builds_without_warnings_and_passes_twine(release: tuple[Path, Path, str]) -> None:
    sdist, wheel, printed = release
    assert [line for line in printed.splitlines() if "warn" in line.lower()] == []
    assert f"Successfully built {sdist.name} and {wheel.name}" in printed
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr
    # What a build from the sdist needs (the wheel above was built from it), and what a reader looks for.
    names = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
    assert {"pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "models/golden/shikaku/seven.txt"} <= names
    metadata = zipfile.ZipFile(wheel).read(f"{wheel.name.split('-py3')[0]}.dist-info/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata and "Author: the gridsat developers" in metadata


@pytest.mark.slow
def test_the_wheel_installed_in_a_fresh_venv_crosschecks_tatami(release: tuple[Path, Path, str],
                                                                 tmp_path: Path) -> None:
    _, wheel, _ = release
    venv = tmp_path / "venv"
    # Without a pip of its own (ensurepip costs seconds): this environment's pip installs into it.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    bin_ = venv / "bin"
    subprocess.run([sys.executable, "-m", "pip", "--python", bin_ / "python", "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True, timeout=300)
    # gridsat's dependencies (OR-Tools, PySAT, ...) come from this environment's site-packages, behind
    # the venv's own: a path in a .pth file is only a path, so this environment's editable gridsat
    # (its finder is set up by a .pth file of its own) stays out of sight.
    site = subprocess.run([bin_ / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "deps-from-the-test-env.pth").write_text(sysconfig.get_path("purelib") + "\n")
    where = subprocess.run([bin_ / "python", "-c", "import gridsat, gridsat.models.golden as g; "
                            "print(gridsat.__file__); print(g.path('shikaku', 'seven.txt').is_file())"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert where.stdout.split() == [str(Path(site, "gridsat", "__init__.py")), "True"], where.stderr
    done = subprocess.run([bin_ / "gridsat", "crosscheck", "tatami", "4x7"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tatami 4x7:" in done.stdout and "runs agree: 3 solutions" in done.stdout


def test_the_notebook_extra_installs_what_opens_and_runs_the_notebook() -> None:
    """The README says `pip install .[notebook]` then `jupyter notebook`: the extra must hold a Jupyter
    front end, not only the kernel and client the tests use."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[ ]", requirement, maxsplit=1)[0].lower() for requirement in extras["notebook"]}
    assert {"notebook", "ipykernel"} <= names
