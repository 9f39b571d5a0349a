"""Restricted play (Jaffe et al. 2012): any agent, forbidden some of its actions.

The win rate of an agent that may not use a strategy, against the same agent unrestricted,
measures how much the game leans on that strategy (a dominant action, a keystone card);
training.balance.restricted runs that study. The agent spec (training.agents.registry registers
the kind):

    restrict:forbid=NAME[+NAME...],agent=SPEC

NAME is one of the game's action segments (`get_game(g).ACTIONS.segments`: every action of the
segment is forbidden) or one of its items (the `ITEMS` of the stats module the game's spec names,
GameSpec.stats: a Village customer tile, a Troyes Activity or event card, a Chip In card; an
item is also named by its short key, the part of its name before the first space, e.g.
`customer:T8`). `agent=` comes last: everything after it is the inner agent's own spec, any spec
make_agent accepts (`heuristic`, `mcts:iters=100,c=0.7`, `az:PATH,sims=50`, a checkpoint,
`py:module:factory`, another `restrict:`), so no quoting is needed on a command line. Example:
`restrict:forbid=pay+bury,agent=heuristic`.

Which actions take an item comes from the game package: its stats module's
`item_actions(state, item) -> action ids` (evaluated at each decision, on public state entries
only) and `ACTION_ITEMS` (the indices of the items some action can take; default: every item).
A game without `item_actions` has no forbiddable items, and naming one is refused with a
ValueError naming the segments.

How the inner agent avoids the forbidden actions (the agent's `rule` and `description`):

- `mask`: the agent chooses among the allowed actions itself. Every agent of the library reads
  the legal mask of the state it decides through its game (`self.game.legal_mask`): the bots
  (random: uniform over the allowed actions; heuristic and a game's own compiled bots: the best
  valued allowed action), the search agents (`mcts`, `az`: the root of the search holds only the
  allowed actions; deeper in the tree the searcher models its own later decisions without the
  restriction, an approximation), trained policies (the masked argmax or sample over the allowed
  actions) and `py:` user agents (handed the allowed actions as their legal mask; one that answers
  outside it is refused, as any illegal answer is). The wrapper gives such an agent a view of the
  game whose `legal_mask` of the state being decided is the allowed actions, and nothing else
  changes.
- `ask`: any other agent (a kind registered elsewhere): its own choice when it is allowed; else
  the allowed action it scores highest when it exposes `logits(state)` (ties: the lowest id),
  else one drawn uniformly among the allowed actions from the wrapper's own seeded stream.

A `mask` agent that still answers a forbidden action (it does not read the mask as documented)
is overruled as an `ask` agent is (its best-scored allowed action, else a seeded draw);
`overruled` counts those decisions. When the restriction
does not bind (no legal action is forbidden) the inner agent decides as it would unrestricted.
When every legal action is forbidden the agent still plays: the inner agent's own choice among
all legal actions (so a game never stalls); `forced` counts those decisions, `binding` the
decisions where the restriction removed at least one legal action.

Determinism and hidden information: the inner agent gets the wrapper's seed, so a restriction
that never binds plays exactly as the inner agent with that seed; the wrapper's own draws come
from a stream split off that seed. The wrapper reads the state only through the game's legal
mask and the game's `item_actions` (public entries).

This module builds nothing from a spec on its own: `RestrictKind` is handed the registry's
make_agent, agent_fingerprint, machine_dependent and checkpoint_sidecar (the registry imports
this module, never the other way round).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from core.bots import BotRng, CompiledBot, RandomBot
from core.guided import GuidedAgent
from core.registry import get_game
from core.search import MCTSAgent
from training.agents.policy import PolicyAgent

PREFIX = "restrict"
USAGE = (
    "restrict:forbid=NAME[+NAME...],agent=SPEC (NAME: an action segment or an item of the game; "
    "agent= comes last, the rest is the agent's own spec)"
)
RULE_MASK = "mask"
RULE_ASK = "ask"
RULES = {
    RULE_MASK: "the agent chooses among the allowed actions itself (they are its legal mask)",
    RULE_ASK: (
        "the agent's own choice when allowed, else the allowed action it scores highest "
        "(logits), else a seeded uniform draw among the allowed actions"
    ),
}
FORCED = (
    "when every legal action is forbidden, the agent's own choice among all legal actions "
    "(the game never stalls)"
)
# agent classes that read the legal mask of the state they decide through `self.game`
MASK_AGENTS: tuple[type, ...] = (CompiledBot, RandomBot, MCTSAgent, GuidedAgent, PolicyAgent)
_STREAM = 0x52535452  # splits the wrapper's own stream off the seed it shares with the inner agent


# --- what may be forbidden ---------------------------------------------------------------------
def stats_module(game_name: str) -> ModuleType | None:
    """The stats module the game's spec names (GameSpec.stats), or None."""
    name = get_game(game_name).GAME.spec.stats
    return None if name is None else importlib.import_module(name)


@dataclass(frozen=True)
class ItemHook:
    """A game's items and which actions take them: `names` (its stats module's ITEMS),
    `forbiddable` (ACTION_ITEMS: the indices some action can take), `actions(state, item)`
    (item_actions); `actions` None: the game names no actions that take its items."""

    names: tuple[str, ...]
    forbiddable: tuple[int, ...]
    actions: Callable[[np.ndarray, int], np.ndarray] | None
    module: str | None


def item_hook(game_name: str) -> ItemHook:
    """The game's item hook (module docstring); the default for a game whose stats module lacks
    it (or that names no stats module): no item can be forbidden."""
    mod = stats_module(game_name)
    names = tuple(str(x) for x in getattr(mod, "ITEMS", ()))
    actions = getattr(mod, "item_actions", None)
    if not callable(actions):
        return ItemHook(names, (), None, None if mod is None else mod.__name__)
    forbiddable = tuple(int(i) for i in getattr(mod, "ACTION_ITEMS", range(len(names))))
    return ItemHook(names, forbiddable, actions, mod.__name__)


def short_key(name: str) -> str:
    """An item's short key: its name up to the first space (`customer:T8` of Village's
    `customer:T8 ox+plow=6`)."""
    return name.split(" ", 1)[0]


def item_index(hook: ItemHook) -> dict[str, int]:
    """Forbiddable item by full name, and by short key where that key is unique."""
    out = {hook.names[i]: i for i in hook.forbiddable}
    keys = [short_key(hook.names[i]) for i in hook.forbiddable]
    for i, k in zip(hook.forbiddable, keys, strict=True):
        if keys.count(k) == 1:
            out.setdefault(k, i)
    return out


def item_key(hook: ItemHook, i: int) -> str:
    """How item i is named in labels and messages: its short key where that is unique, else its
    full name."""
    k = short_key(hook.names[i])
    return k if item_index(hook).get(k) == i else hook.names[i]


def allowed_names(game_name: str) -> str:
    """What `forbid=` accepts for `game_name`, for help and error messages."""
    g = get_game(game_name)
    hook = item_hook(game_name)
    text = f"action segments: {', '.join(g.ACTIONS.segments)}"
    if hook.actions is None:
        return text + f"; {game_name} names no actions that take its items"
    keys = [item_key(hook, i) for i in hook.forbiddable]
    return text + f"; items: {', '.join(keys) or 'none'}"


class Restriction:
    """A set of forbidden actions of one game: whole action segments and items (module
    docstring). `forbidden(state)` is a bool mask over the action ids; `label` the canonical
    text (segments in action-space order, then items in ITEMS order, joined by +)."""

    def __init__(self, game_name: str, segments: tuple[str, ...], items: tuple[int, ...]):
        g = get_game(game_name)
        self.game = game_name
        self.segments = segments
        self.items = items
        self.hook = item_hook(game_name)
        self.item_names = tuple(self.hook.names[i] for i in items)
        keys = tuple(item_key(self.hook, i) for i in items)
        static = np.zeros(g.NUM_ACTIONS, dtype=np.bool_)
        for name in segments:
            seg = g.ACTIONS.segments[name]
            static[seg.offset : seg.offset + seg.size] = True
        static.setflags(write=False)
        self.static = static
        self.label = "+".join((*segments, *keys))

    def forbidden(self, state: np.ndarray) -> np.ndarray:
        """Bool (NUM_ACTIONS,): the actions forbidden in `state` (read-only when no item is
        forbidden: the segments' fixed mask)."""
        if not self.items:
            return self.static
        out = self.static.copy()
        for i in self.items:
            out[np.asarray(self.hook.actions(state, i), dtype=np.int64)] = True
        return out


def parse_forbid(game_name: str, text: str) -> Restriction:
    """The restriction `forbid=` names (NAME[+NAME...]); a ValueError naming what is allowed."""
    g = get_game(game_name)
    parts = [n.strip() for n in str(text).split("+")]
    if not text or any(not n for n in parts):
        raise ValueError(
            f"{PREFIX}: forbid= needs one or more names joined by +; {allowed_names(game_name)}"
        )
    hook = item_hook(game_name)
    by_name = item_index(hook)
    known = set(g.ACTIONS.segments) | set(by_name) | set(hook.names)
    names: list[str] = []
    i = 0
    while i < len(parts):  # the longest known name first: an item's full name may hold a +
        j = next((j for j in range(len(parts), i, -1) if "+".join(parts[i:j]) in known), i + 1)
        names.append("+".join(parts[i:j]))
        i = j
    segments: list[str] = []
    items: list[int] = []
    for name in names:
        if name in g.ACTIONS.segments:
            if name not in segments:
                segments.append(name)
            continue
        if name in by_name:
            if by_name[name] not in items:
                items.append(by_name[name])
            continue
        if name in hook.names:  # an item no action takes (a Troyes character: dealt)
            raise ValueError(
                f"{PREFIX}: no action of {game_name} takes {name!r}, so it cannot be forbidden; "
                f"{allowed_names(game_name)}"
            )
        raise ValueError(
            f"{PREFIX}: {name!r} is neither an action segment nor a forbiddable item of "
            f"{game_name}; {allowed_names(game_name)}"
        )
    order = list(g.ACTIONS.segments)
    return Restriction(game_name, tuple(sorted(segments, key=order.index)), tuple(sorted(items)))


def split_params(params: str) -> tuple[str, str]:
    """(forbid text, inner spec) of the part of a spec after `restrict:`; a ValueError naming
    the form."""
    text = str(params)
    head, sep, inner = text.partition(",agent=")
    if not head.startswith("forbid=") or not sep or not inner.strip():
        raise ValueError(f"{PREFIX}: {text!r} is not forbid=NAME[+NAME...],agent=SPEC")
    return head[len("forbid=") :].strip(), inner.strip()


# --- the agent ---------------------------------------------------------------------------------
def _split(seed: int) -> int:
    """A 63-bit seed of the wrapper's own stream, split off the seed it shares with the inner
    agent (numpy's SeedSequence: platform-independent)."""
    words = [int(seed) & 0xFFFFFFFF, (int(seed) >> 32) & 0xFFFFFFFF, _STREAM]
    return int(np.random.SeedSequence(words).generate_state(1, dtype=np.uint64)[0]) >> 1


class _AllowedView:
    """The game as an inner agent sees it: every attribute the game's own, except that
    `legal_mask` of the state being decided (set by RestrictedAgent.act) is the allowed
    actions."""

    def __init__(self, game: Any):
        self._game = game
        self._state: np.ndarray | None = None
        self._allowed: np.ndarray | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def legal_mask(self, state: np.ndarray) -> np.ndarray:
        active = self._state
        if active is not None and (state is active or np.array_equal(state, active)):
            return self._allowed.copy()  # the caller owns the array, as with the game's own
        return self._game.legal_mask(state)


class RestrictedAgent:
    """An agent that never takes a forbidden action while a legal one is allowed (module
    docstring). `inner`: the agent restricted; `rule`: RULE_MASK or RULE_ASK (chosen from the
    inner agent's class unless given); counters `decisions`, `binding`, `forced`,
    `overruled`."""

    def __init__(
        self,
        game: ModuleType,
        inner: Any,
        restriction: Restriction,
        seed: int = 0,
        name: str | None = None,
        rule: str | None = None,
        mask_classes: tuple[type, ...] = (),
    ):
        self.game = game
        self.inner = inner
        self.restriction = restriction
        inner_name = str(getattr(inner, "name", type(inner).__name__))
        self.name = name or f"{PREFIX}:forbid={restriction.label},agent={inner_name}"
        if rule is None:
            known = MASK_AGENTS + tuple(mask_classes)
            rule = RULE_MASK if isinstance(inner, known) and hasattr(inner, "game") else RULE_ASK
        if rule not in RULES:
            raise ValueError(f"{PREFIX}: rule {rule!r} is not one of {', '.join(RULES)}")
        self.rule = rule
        self.description = (
            f"{inner_name} never taking {restriction.label} ({restriction.game}); rule {rule}: "
            f"{RULES[rule]}; {FORCED}"
        )
        self._rng = BotRng(_split(seed))  # the fallback's draws, apart from the inner agent's
        self._view: _AllowedView | None = None
        if rule == RULE_MASK:
            self._view = _AllowedView(inner.game)
            inner.game = self._view
        if hasattr(inner, "notify"):  # the search agents keep their tree with it
            self.notify = inner.notify
        if hasattr(inner, "reset"):  # a new game: the inner agent's own reset, as it takes it
            self.reset = inner.reset
        self.decisions = self.binding = self.forced = self.overruled = 0

    def allowed(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(legal mask, allowed mask) of `state` for the player to act."""
        legal = np.asarray(self.game.legal_mask(state), dtype=np.bool_)
        return legal, legal & ~self.restriction.forbidden(state)

    def act(self, state: np.ndarray) -> int:
        """A legal action for the player to act, never a forbidden one while one is allowed."""
        legal, allowed = self.allowed(state)
        self.decisions += 1
        if not (legal & ~allowed).any():  # nothing legal is forbidden: the agent as it is
            return int(self.inner.act(state))
        self.binding += 1
        if not allowed.any():  # every legal action forbidden: play on, unrestricted
            self.forced += 1
            return int(self.inner.act(state))
        if self._view is not None:
            self._view._state, self._view._allowed = state, allowed
            try:
                a = int(self.inner.act(state))
            finally:
                self._view._state = self._view._allowed = None
            if 0 <= a < allowed.shape[0] and allowed[a]:
                return a
            self.overruled += 1  # the agent ignored its mask: the documented fallback
            return self._fallback(state, allowed)
        a = int(self.inner.act(state))
        if 0 <= a < allowed.shape[0] and allowed[a]:
            return a
        self.overruled += 1
        return self._fallback(state, allowed)

    def _fallback(self, state: np.ndarray, allowed: np.ndarray) -> int:
        """The highest-scored allowed action when the inner agent exposes logits(state) (ties:
        the lowest id), else a uniform draw among the allowed ones from the wrapper's stream."""
        scorer = getattr(self.inner, "logits", None)
        ids = np.flatnonzero(allowed)
        if callable(scorer):
            scores = np.asarray(scorer(state), dtype=np.float64)
            if scores.shape == allowed.shape:
                return int(ids[np.argmax(scores[ids])])
        return int(ids[self._rng.below(len(ids))])


# --- the registry's kind -------------------------------------------------------------------------
def _source_digest(*modules: str | None) -> str:
    h = hashlib.sha256()
    for name in modules:
        if name is None:
            continue
        try:
            h.update(inspect.getsource(importlib.import_module(name)).encode())
        except (ImportError, OSError, TypeError):
            h.update(name.encode())
    return h.hexdigest()[:16]


class RestrictKind:
    """The `restrict` agent kind, built on the registry's own functions (handed in, so this
    module never imports the registry): `make` (the factory), `fingerprint`, `sidecar` and
    `machine_dependent` of register_agent_kind, and `spec_files` / `relocated` for its `files`
    and `relocated` hooks. `user_agent`: the registry's adapter of `py:`
    agents, which reads the legal mask through its game too and is reset with its seed before a
    game (as the tournaments do for a bare `py:` agent)."""

    def __init__(
        self,
        make_agent: Callable[..., Any],
        agent_fingerprint: Callable[..., str],
        machine_dependent: Callable[..., bool],
        checkpoint_sidecar: Callable[[str], dict[str, Any] | None],
        user_agent: type | None = None,
        spec_files: Callable[[str], dict[str, bytes] | None] | None = None,
        relocated: Callable[[str, Any], str] | None = None,
    ):
        self._make_agent = make_agent
        self._fingerprint = agent_fingerprint
        self._machine_dependent = machine_dependent
        self._sidecar = checkpoint_sidecar
        self._user_agent = user_agent
        self._spec_files = spec_files
        self._relocated = relocated

    def make(
        self,
        game_name: str,
        params: str,
        seed: int,
        players: int | None = None,
        deterministic: bool = True,
    ) -> RestrictedAgent:
        """The agent `restrict:PARAMS` names, its inner agent seeded with `seed`."""
        text, inner_spec = split_params(params)
        restriction = parse_forbid(game_name, text)
        inner = self._make_agent(inner_spec, game_name, players, seed, deterministic)
        mask_classes: tuple[type, ...] = ()
        if self._user_agent is not None:
            mask_classes = (self._user_agent,)
            if isinstance(inner, self._user_agent):
                inner.reset(seed)
        return RestrictedAgent(
            get_game(game_name),
            inner,
            restriction,
            seed,
            name=f"{PREFIX}:forbid={restriction.label},agent={inner_spec}",
            mask_classes=mask_classes,
        )

    def fingerprint(self, params: str, game_name: str, players: int | None = None) -> str:
        """The inner agent's fingerprint under the canonical restriction and a digest of the
        code that decides what is forbidden (this module, the game's item hook)."""
        text, inner_spec = split_params(params)
        restriction = parse_forbid(game_name, text)
        inner = self._fingerprint(inner_spec, game_name, players)
        src = _source_digest(__name__, restriction.hook.module)
        return f"{PREFIX} forbid={restriction.label} src:{src} | {inner}"

    def sidecar(self, params: str) -> dict[str, Any] | None:
        """The inner agent's checkpoint sidecar (None for a bot or an agent kind)."""
        return self._sidecar(split_params(params)[1])

    def files(self, params: str) -> dict[str, bytes] | None:
        """What playing the inner agent reads from disk (the registry's spec_files)."""
        if self._spec_files is None:
            return None
        return self._spec_files(split_params(params)[1])

    def relocated(self, params: str, base: Any) -> str:
        """These params with the inner agent playing the copy of its files at `base`."""
        text, inner = split_params(params)
        if self._relocated is not None:
            inner = self._relocated(inner, base)
        return f"forbid={text},agent={inner}"

    def machine_dependent(self, game_name: str, params: str) -> bool:
        """Whether the inner agent's play depends on the machine."""
        return bool(self._machine_dependent(split_params(params)[1], game_name))


def restricted_spec(agent: str, forbid: str) -> str:
    """The spec of `agent` forbidden `forbid` (NAME[+NAME...])."""
    return f"{PREFIX}:forbid={forbid},agent={agent}"
