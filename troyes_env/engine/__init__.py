"""Compiled Troyes engine (numba), split by area: board helpers, dice groups, rounds, events,
turns, and the step/mask entry points in flow.

The rules code (board, groups, feasible, rounds, events, turns, flow, and the batch kernels) is
compiled with `_nrt=False`: it never allocates, and without numba's runtime no reference counts
are taken for the arrays passed from call to call (they were ~15 % of all instructions of a
random game). A function that must allocate keeps the default (kernels.play_random_games).

Numba's on-disk cache checks only the source of each function's own file: a cached caller keeps
the old code of a callee in another file, and every constant it read from layout/tables. So at
import a hash of every source the compiled code depends on is compared with the one stored in
the cache directory; on a change every engine cache index is flushed (numba then recompiles).
"""

from __future__ import annotations

from pathlib import Path

from core.numba_cache import refresh_stale_cache
from troyes_env.engine import (
    batch_loops,
    board,
    checks,
    events,
    feasible,
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

_MODULES = (
    board, groups, feasible, rounds, events, turns, flow, observe, checks, kernels, batch_loops,
)


def _modules():
    from troyes_env.engine import api  # imports flow: loaded after the names above

    return (*_MODULES, api)


def _refresh_stale_cache() -> None:
    pkg = Path(__file__).resolve().parent
    root = pkg.parent
    deps = sorted(pkg.glob("*.py")) + [
        root / "layout.py",
        root / "actions.py",
        root / "tables.py",
        root / "observation.py",
        *sorted((root.parent / "core").glob("*.py")),
    ]
    refresh_stale_cache(_modules(), deps, "troyes-engine-sources.sha256")


_refresh_stale_cache()
