"""The quickstart notebook runs top to bottom (small sizes: QUICKSTART_SMALL=1)."""

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # executes the quickstart notebook (a training run)

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]


def test_quickstart_notebook_runs(monkeypatch):
    monkeypatch.setenv("QUICKSTART_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    nb = nbformat.read(ROOT / "notebooks" / "quickstart.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    outputs = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert "RULES_DATA_HASH" in outputs and "win rate" in outputs
