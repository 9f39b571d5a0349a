"""notebooks/balance.ipynb loads a balance report's data and draws its plots: it runs on a small
fresh report (BALANCE_REPORT) and its committed copy shows the worked study's plots."""

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "balance.ipynb"


def _outputs(nb):
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _images(nb) -> int:
    return sum("image/png" in o.get("data", {}) for o in _outputs(nb))


@pytest.mark.slow  # plays a few games and executes the notebook
def test_balance_notebook_runs_on_a_small_report(tmp_path, monkeypatch):
    pytest.importorskip("ipykernel")
    nbclient = pytest.importorskip("nbclient")
    from training.balance import study as balance

    out = tmp_path / "report"
    args = ["--game", "troyes", "--players", "2", "--agents", "random", "--games", "8"]
    args += ["--db", str(tmp_path / "s.sqlite"), "--out", str(out), "--no-progress"]
    assert balance.main(args) == 0
    monkeypatch.setenv("BALANCE_REPORT", str(out))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # as under Jupyter: the inline backend
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs = []
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    text = "".join(o.get("text", "") for o in _outputs(nb))
    assert "troyes, 2 players, 8 games, RULES_DATA_HASH" in text
    assert _images(nb) == 5


def test_committed_balance_notebook_shows_its_plots():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert all(c.outputs for c in code)
    assert not [o for o in _outputs(nb) if o.output_type == "error"]
    assert _images(nb) == 5
    assert "RULES_DATA_HASH" in "".join(o.get("text", "") for o in _outputs(nb))
    assert NOTEBOOK.stat().st_size < 400_000
