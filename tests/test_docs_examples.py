"""The Python blocks of README.md and docs/ run as written: each block runs on its own in a fresh
interpreter from the repository root and must exit cleanly. A block that quotes a file says so
on the line before its fence, `<!-- excerpt: PATH -->`, and is checked to be in that file (its
code lines in order, comments and blank lines aside); one that cannot run says why,
`<!-- not run: REASON -->`, and is skipped with that reason. A block for an optional extra names
the module it needs, `<!-- needs: MODULE -->`, and is skipped where that module is not installed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(?:<!-- (excerpt|not run|needs): ([^>]*?) -->\n)?```python\n(.*?)```", re.S)
TIMEOUT_S = 300


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks() -> list[tuple[str, str, str, str]]:
    """(id, marker kind or '', marker text, code) of every Python block."""
    out = []
    for page in pages():
        for i, m in enumerate(BLOCK.finditer(page.read_text())):
            out.append((f"{page.relative_to(ROOT)}#{i}", m.group(1) or "", m.group(2), m.group(3)))
    return out


def code_lines(text: str) -> list[str]:
    """The code of `text`: each line without its comment and trailing space, blank lines out."""
    lines = (re.sub(r"\s+#.*$|^\s*#.*$", "", line).rstrip() for line in text.splitlines())
    return [line for line in lines if line.strip()]


def test_the_pages_have_python_blocks():
    assert len(blocks()) >= 10  # the pattern finds them (a broken pattern would skip them all)


@pytest.mark.slow  # each block in its own interpreter (about a minute in all)
@pytest.mark.parametrize("name, kind, what, code", blocks(), ids=[b[0] for b in blocks()])
def test_a_docs_block_runs_as_written(name, kind, what, code):
    if kind == "not run":
        pytest.skip(f"{name}: {what}")
    if kind == "needs":
        pytest.importorskip(what.strip(), reason=f"{name} needs {what.strip()} (an optional extra)")
    if kind == "excerpt":
        want, have = code_lines(code), code_lines((ROOT / what).read_text())
        found = any(have[i : i + len(want)] == want for i in range(len(have) - len(want) + 1))
        assert found, f"{name} is no longer an excerpt of {what}"
        return
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S
    )
    assert out.returncode == 0, f"{name} failed:\n{out.stderr[-3000:]}"


def test_the_readme_stays_short():
    """The README is the front page: two commands, the usage, the headline figures; at most 150
    lines (the details live in docs/ and the results area)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines"
