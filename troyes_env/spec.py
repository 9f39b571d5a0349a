"""What core.game needs to know about Troyes (DESIGN D10); the public API is core.game.Game."""

from __future__ import annotations

from core.game import GameSpec
from troyes_env import chance, hidden, render, rules_data, tables
from troyes_env.actions import ACTIONS
from troyes_env.bots import TroyesHeuristic
from troyes_env.engine import api, contract
from troyes_env.engine.checks import HI, INVARIANT_MESSAGES, LO, check_invariants_code
from troyes_env.layout import LAYOUT, PH_OVER, PHASE_NAMES


def invariant_problems(state, T) -> list[str]:
    """Broken invariants, bounds included (the compiled check's first failure), empty when the
    state is consistent; T: the rules tables of the game in use."""
    code = check_invariants_code(state, T, LO, HI)
    return [] if code == 0 else [INVARIANT_MESSAGES[code]]


SPEC = GameSpec(
    name="troyes",
    player_counts=(2, 3, 4),
    layout=LAYOUT,
    actions=ACTIONS,
    # the sizes, VP and one constant column (k_keys: no tie-breaker, ED-34) come from the
    # contract; Troyes has no safety cap (it always ends after its last round) and no game-id
    # field; the seat to act is `cur`, and the phase says when the game is over
    contract=contract,
    field_segments={"actor": "cur", "over": "phase"},
    over_value=PH_OVER,
    phase_names=PHASE_NAMES,
    margin_scale=rules_data.MARGIN_SCALE,
    rules_data=rules_data,
    build_tables=tables.build_tables,
    tables_hash=tables.tables_hash,
    compile_entry_points=api.compile_entry_points,
    describe=render.describe,
    chance=chance.chance,  # a round's cards and dice, the black dice, a reroll (chance.py)
    render=render.render,
    invariant_problems=invariant_problems,
    determinize=hidden.determinize,  # other players' characters, deck orders, face-down cards
    perturb_hidden=hidden.perturb_hidden,
    options=("start_player",),  # ED-1: seat 0 holds the start player card unless chosen
    view="troyes_env.view",  # the viewer's position JSON and page drawing
    # docs/agents.md "What was tried for Troyes": the bot's chain search in short rollouts
    search_defaults="c=0.3,rollout=bot,cutoff=8,quiet=0",
    bots={"heuristic": TroyesHeuristic},  # a chain search over its own decisions (bots.py)
    provisional_rules=True,  # docs/rules: values tagged [U] / PROVISIONAL
    rules_keys="troyes_env.rules_keys",
    variant_space="troyes_env.variant_space",  # what a conditioned network reads
    # docs/training.md "The default run": about 5 minutes of training on 2 CPU cores; the mix
    # leans on `heuristic`, which taught the most per minute in the measured runs
    default_run={"timesteps": 3_000_000, "opponents": "random:0.1,heuristic:0.5,self:0.4"},
    stats="troyes_env.stats",  # what a balance study reads beyond the scores
)
