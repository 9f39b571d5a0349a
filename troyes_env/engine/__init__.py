"""Compiled Troyes engine (numba), split by area: board helpers, dice groups, rounds, events,
turns, and the step/mask entry points in flow.

Numba's on-disk cache checks only the source of each function's own file: a cached caller keeps
the old code of a callee in another file, and every constant it read from layout/tables. So at
import a hash of every source the compiled code depends on is compared with the one stored in
the cache directory; on a change every engine cache index is flushed (numba then recompiles).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from troyes_env.engine import (
    batch_loops,
    board,
    checks,
    events,
    flow,
    groups,
    kernels,
    observe,
    rounds,
    turns,
)
from troyes_env.engine.flow import (  # noqa: F401
    WORK_SIZE,
    init_state,
    legal_mask_into,
    step_inplace,
)
from troyes_env.engine.kernels import play_random_games  # noqa: F401
from troyes_env.engine.observe import observe_into  # noqa: F401

_MODULES = (board, groups, rounds, events, turns, flow, observe, checks, kernels, batch_loops)


def _refresh_stale_cache() -> None:
    pkg = Path(__file__).resolve().parent
    root = pkg.parent
    deps = sorted(p for p in pkg.glob("*.py") if p.name != "__init__.py") + [
        root / "layout.py",
        root / "actions.py",
        root / "tables.py",
        root / "observation.py",
        root.parent / "core" / "rng.py",
        root.parent / "core" / "agents.py",
        root.parent / "core" / "batch.py",
    ]
    h = hashlib.sha256()
    for p in deps:
        try:
            h.update(p.name.encode() + p.read_bytes())
        except OSError:
            pass
    digest = h.hexdigest()
    caches = [
        d._cache
        for m in _MODULES
        for d in vars(m).values()
        if getattr(d, "__module__", None) == m.__name__ and hasattr(d, "_cache")
    ]
    caches = [c for c in caches if hasattr(c, "flush") and hasattr(c, "_cache_path")]
    if not caches:
        return
    stamp = Path(caches[0]._cache_path) / "troyes-engine-sources.sha256"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        for c in caches:
            c.flush()
        stamp.write_text(digest)
    except OSError:  # a read-only cache location: nothing can be stale there
        pass


_refresh_stale_cache()
