"""`python -m benchmarks.run --quick` runs end to end (peers skipped when not installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quick_benchmark_run(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--quick", "--seconds", "0.3",
         "--out", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "results.json").read_text())
    assert (tmp_path / "results.md").read_text().startswith("# Benchmarks")
    names = {r["name"] for r in res["rows"]}
    assert "village batch B=1024" in names
    assert "village API + observe" in names and "village env()" in names
    for r in res["rows"]:
        if r["group"] != "memory":
            assert r["decisions_per_s"] > 0, r
    assert res["rules_data_hash"]["village"]
    assert res["provisional_rules_data"] is True
    assert "| compiled | village batch B=1024 | ours |" in proc.stdout
    assert any(t["target"].startswith("compiled batch random play") for t in res["targets"])
