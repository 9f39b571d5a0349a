"""What core.game needs to know about Village (DESIGN D10); the public API is core.game.Game."""

from __future__ import annotations

from core.game import GameSpec
from village_env import chance, render, rules_data, tables
from village_env.actions import ACTIONS
from village_env.engine import api, contract
from village_env.engine.checks import INVARIANT_MESSAGES, check_invariants_code
from village_env.layout import LAYOUT, PHASE_NAMES


def invariant_problems(state, T) -> list[str]:
    """Broken conservation laws (the compiled check's first failure), empty when consistent."""
    code = check_invariants_code(state, T)
    return [] if code == 0 else [INVARIANT_MESSAGES[code]]


SPEC = GameSpec(
    name="village",
    player_counts=(2, 3, 4),
    layout=LAYOUT,
    actions=ACTIONS,
    # the sizes, prestige and the rules §5.3 tie-breakers (k_keys), the game id and the round
    # cap's truncation flag (S_TRUNC) come from the contract
    contract=contract,
    phase_names=PHASE_NAMES,
    margin_scale=rules_data.MARGIN_SCALE,
    rules_data=rules_data,
    build_tables=tables.build_tables,
    tables_hash=tables.tables_hash,
    compile_entry_points=api.compile_entry_points,
    describe=render.describe,
    chance=chance.chance,  # the bag's and the pile's draws, the Mass's (chance.py)
    render=render.render,
    invariant_problems=invariant_problems,
    # ED-35: only future draws are hidden (the pile's composition is public and its order is
    # drawn at draw time), so determinize and perturb_hidden are reseed (core.game's default)
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
