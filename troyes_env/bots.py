"""Troyes' own `heuristic` bot (GameSpec.bots; core.bots has the generic ones): a greedy
lookahead over the acting player's own decisions.

The evaluation (troyes_env/engine/evaluate.py, compiled, with its hand-tuned EVAL_WEIGHTS; the
search kernels' k_evaluate) projects each player's final score from the rules (docs/rules/troyes.md
§7: VP tokens + 1 per unresolved event holding an own cube + printed VP of own supervisor slots - 2
per Cathedral level without an own cube + Character cards) and adds values for resources that turn
into points later (deniers, influence, Activity cubes, standing citizens, citizens in supply, own
dice not yet used), scaled down as the game nears its end. Character cards count only as far as
the bot knows them: its own cards fully, every card it cannot see with the probability that some
other player holds it (rules §6.3: every revealed card scores for every player).

One decision of the rules (§10.7) is often only part of an action (target, then cube, then dice,
then citizen source...), so the bot searches the chain of its own consecutive decisions up to the
next turn boundary (depth-first, max over its choices, with a node budget; a chain that ends the
game is valued by its result: 100 x win_loss + own VP - the best other's) and plays the first
decision of the best chain. It searches on a `determinize`d copy of the state (other players'
characters, deck orders, face-down cards and the RNG resampled), so it never peeks at hidden
information; its randomness (tie breaks, the determinization seed) comes from its own BotRng.

It decides in compiled code only (core.bots.CompiledBot: the game's bot_loops.bot_choice with
code HEURISTIC, i.e. engine/kernels.k_own_bot_values over engine/evaluate.chain_values), so the
batch engine plays it for every slot of a batch in one call.
"""

from __future__ import annotations

from core.bots import CompiledBot
from troyes_env.engine.kernels import HEURISTIC, MAX_DEPTH, NODE_BUDGET

__all__ = ["TroyesHeuristic", "NODE_BUDGET", "MAX_DEPTH"]


class TroyesHeuristic(CompiledBot):
    """Greedy search over the bot's own decision chain on a projected-score evaluation (module
    docstring)."""

    name = "heuristic"
    batch_code = HEURISTIC
