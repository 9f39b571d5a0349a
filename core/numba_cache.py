"""Keep numba's on-disk cache honest across files.

Numba checks only the source file of each cached function: a cached caller keeps the old code
of a callee defined in another file, and every module constant (layout offsets, table offsets)
it read. `refresh_stale_cache` hashes every source the compiled code depends on, compares it
with a stamp stored in the cache directory and, on a change, flushes the cache indexes of every
compiled function of the given modules so numba recompiles them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def refresh_stale_cache(modules, deps, stamp_name: str) -> bool:
    """Flush the numba caches of `modules` if any file in `deps` changed; True if flushed."""
    h = hashlib.sha256()
    for p in sorted(Path(d) for d in deps):
        try:
            h.update(p.name.encode() + p.read_bytes())
        except OSError:
            pass
    digest = h.hexdigest()
    caches = [
        d._cache
        for m in modules
        for d in vars(m).values()
        if getattr(d, "__module__", None) == m.__name__ and hasattr(d, "_cache")
    ]
    caches = [c for c in caches if hasattr(c, "flush") and hasattr(c, "_cache_path")]
    if not caches:
        return False
    stamp = Path(caches[0]._cache_path) / stamp_name
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    try:
        for c in caches:
            c.flush()
        stamp.write_text(digest)
    except OSError:  # a read-only cache location: nothing can be stale there
        return False
    return True


def refresh_core_cache() -> bool:
    """The same check for core's own compiled helpers (rng, maskbits, agents, batch), which
    inline one another (pick_legal inlines core.maskbits and core.rng). Called at the end of
    core.agents and core.batch, before anything there runs."""
    import importlib

    mods = [importlib.import_module(f"core.{n}") for n in ("rng", "maskbits", "agents", "batch")]
    return refresh_stale_cache(mods, sorted(Path(__file__).parent.glob("*.py")),
                               "core-sources.sha256")
