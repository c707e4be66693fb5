"""The example notebook (docs/notebooks/quickstart.ipynb) runs from top to bottom, and its results draw
themselves: executed as the documentation site renders it, on this environment's own kernel."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import ROOT

NOTEBOOK = ROOT / "docs" / "notebooks" / "quickstart.ipynb"


@pytest.fixture
def notebook_modules(monkeypatch: pytest.MonkeyPatch) -> tuple[object, object, object, object]:
    """nbformat, nbclient and jupyter_client: the ``notebook`` extra, skipped without it."""
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core otherwise warns that its paths will move
    found = []
    for name in ("nbformat", "nbclient", "ipykernel", "jupyter_client.kernelspec"):
        found.append(pytest.importorskip(name, reason="the notebook extra is not installed"))
    return found[0], found[1], found[3], pytest.importorskip("jupyter_client.manager")


def test_the_notebook_is_stored_without_outputs() -> None:
    import json

    stored = json.loads(NOTEBOOK.read_text())
    code = [cell for cell in stored["cells"] if cell["cell_type"] == "code"]
    assert len(code) >= 4 and stored["metadata"]["kernelspec"]["name"] == "python3"
    assert [(cell["outputs"], cell["execution_count"]) for cell in code] == [([], None)] * len(code)


@pytest.mark.slow
def test_the_notebook_runs_and_draws_its_results(notebook_modules: tuple, tmp_path: Path) -> None:
    nbformat, nbclient, kernelspec, manager = notebook_modules
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # No kernel directory: "python3" is then ipykernel's own spec, this interpreter, never a kernel
    # some other Python registered for the user.
    km = manager.KernelManager(kernel_name="python3", kernel_spec_manager=kernelspec.KernelSpecManager(kernel_dirs=[]))
    assert km.kernel_spec.argv[0] == sys.executable
    client = nbclient.NotebookClient(notebook, km=km, timeout=120, resources={"metadata": {"path": str(tmp_path)}})
    client.execute(cleanup_kc=True)  # the kernel manager is ours: stop the kernel and close its sockets too
    assert not km.has_kernel
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1))
    assert [o for cell in code for o in cell.outputs if o.output_type == "error"] == []
    pages = [o.data["text/html"] for cell in code for o in cell.outputs if "text/html" in o.get("data", {})]
    assert len(pages) == 4 and sum("<svg" in page for page in pages) == 3  # the count has no picture
    assert code[-1].outputs[0].data["text/plain"] == "(True, [3, 3, 3])"
