"""What core.game needs to know about Village (DESIGN D10); the public API is core.game.Game."""

from __future__ import annotations

from core.game import GameSpec, StateFields
from village_env import chance, render, rules_data, tables
from village_env.actions import ACTIONS
from village_env.engine import api
from village_env.engine.checks import INVARIANT_MESSAGES, check_invariants_code
from village_env.engine.contract import N_KEYS, WORK_SIZE, k_keys
from village_env.layout import (
    GAME_ID,
    LAYOUT,
    PHASE_NAMES,
    S_ACTOR,
    S_GAME_ID,
    S_NP,
    S_OVER,
    S_PHASE,
    S_RNG,
    S_TRUNC,
    S_VERSION,
)
from village_env.observation import OBS_SIZE


def invariant_problems(state, T) -> list[str]:
    """Broken conservation laws (the compiled check's first failure), empty when consistent."""
    code = check_invariants_code(state, T)
    return [] if code == 0 else [INVARIANT_MESSAGES[code]]


SPEC = GameSpec(
    name="village",
    player_counts=(2, 3, 4),
    layout=LAYOUT,
    actions=ACTIONS,
    fields=StateFields(
        num_players=S_NP,
        actor=S_ACTOR,
        version=S_VERSION,
        phase=S_PHASE,
        rng=S_RNG,
        over=S_OVER,
        over_value=1,
        truncated=S_TRUNC,
        game_id=S_GAME_ID,
    ),
    phase_names=PHASE_NAMES,
    obs_size=OBS_SIZE,
    work_size=WORK_SIZE,
    n_keys=N_KEYS,  # prestige, then rules §5.3 tie-breakers (customers served, living members)
    margin_scale=rules_data.MARGIN_SCALE,
    rules_data=rules_data,
    build_tables=tables.build_tables,
    tables_hash=tables.tables_hash,
    compile_entry_points=api.compile_entry_points,
    keys=k_keys,
    describe=render.describe,
    chance=chance.chance,  # the bag's and the pile's draws, the Mass's (chance.py)
    render=render.render,
    invariant_problems=invariant_problems,
    # ED-35: only future draws are hidden (the pile's composition is public and its order is
    # drawn at draw time), so determinize and perturb_hidden are reseed (core.game's default)
    game_id=GAME_ID,
    options=("start_player",),
    provisional_rules=True,  # docs/rules: values tagged [U] / PROVISIONAL
    rules_keys="village_env.rules_keys",
    variant_space="village_env.variant_space",  # what a conditioned network reads
    # docs/training.md "The default run": about 5 minutes of training on 2 CPU cores; the mix
    # leans on `heuristic`, which taught the most per minute in the measured runs
    default_run={"timesteps": 3_500_000, "opponents": "random:0.1,heuristic:0.5,self:0.4"},
    view="village_env.view",  # the viewer's position JSON and page drawing
    tiebreak_labels=("customers", "living"),  # rules §5.3 tie-breakers, in order
    stats="village_env.stats",  # what a balance study reads beyond the scores
)
