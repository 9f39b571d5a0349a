"""Chip In batches: B games as one (B, STATE_SIZE) array stepped in one compiled call (D8).
A minimal copy of village_env/batch.py, until core writes it once."""

from __future__ import annotations

from core.batch import batch_factory, batch_spec

from chipin_env import GAME
from chipin_env.engine import batch_loops

SPEC = batch_spec(GAME, batch_loops)
make_batch = batch_factory(SPEC)
