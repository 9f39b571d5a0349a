"""What core.game needs to know about Chip In (DESIGN D10); the public API is core.game.Game."""

from __future__ import annotations

from core.game import GameSpec, StateFields

from chipin_env import hidden, render, rules_data, tables
from chipin_env.actions import ACTIONS
from chipin_env.engine import api
from chipin_env.engine.checks import invariant_problems
from chipin_env.engine.contract import N_KEYS, WORK_SIZE, k_keys
from chipin_env.layout import (
    GAME_ID,
    LAYOUT,
    PHASE_NAMES,
    S_ACTOR,
    S_GAME_ID,
    S_NP,
    S_OVER,
    S_PHASE,
    S_RNG,
    S_VERSION,
)
from chipin_env.observation import OBS_SIZE

SPEC = GameSpec(
    name="chipin",
    player_counts=(2, 3, 4),
    layout=LAYOUT,
    actions=ACTIONS,
    # no safety cap: the deck running out ends every game (README: the bound on its length)
    fields=StateFields(
        num_players=S_NP,
        actor=S_ACTOR,
        version=S_VERSION,
        phase=S_PHASE,
        rng=S_RNG,
        over=S_OVER,
        over_value=1,
        game_id=S_GAME_ID,
    ),
    phase_names=PHASE_NAMES,
    obs_size=OBS_SIZE,
    work_size=WORK_SIZE,
    n_keys=N_KEYS,  # score, then chips left
    margin_scale=rules_data.MARGIN_SCALE,
    rules_data=rules_data,
    build_tables=tables.build_tables,
    tables_hash=tables.tables_hash,
    compile_entry_points=api.compile_entry_points,
    keys=k_keys,
    describe=render.describe,
    render=render.render,
    invariant_problems=invariant_problems,
    determinize=hidden.determinize,  # the deck order and the removed cards
    perturb_hidden=hidden.perturb_hidden,
    game_id=GAME_ID,
    options=("start_player",),
    tiebreak_labels=("chips",),  # the tie-break: chips left
    stats="chipin_env.stats",  # what a balance study reads beyond the scores
)
