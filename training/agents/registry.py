"""The one agent registry of training/: every place that names an agent (evaluate, the self-play
opponent pool, tournaments) builds it with `make_agent(spec, game, ...)` from a spec string:

- a baseline bot by name: `random`, `heuristic` (core.bots);
- a parametrised agent kind `name[:key=value,...]`: `mcts` (core.search, docs/agents.md), e.g.
  `mcts:iters=1000,c=0.7,rollout=greedy,cutoff=20` (more kinds: `register_agent_kind`);
- a trained policy: a checkpoint path (PATH.zip / PATH.json or a training output folder);
  `PATH,rules=any` plays it under rules data other than the one it was trained under;
- a policy trained on RLlib: `rllib:PATH` (training.agents.rllib_agent; played in numpy, no Ray);
- a policy-value network inside the guided search: `az:PATH,sims=N` (training.agents.az_agent,
  core.guided; `sims=0` is the network alone);
- a user's own agent: `py:package.module:factory` (the protocol: `UserAgent`, docs/tournaments.md);
- any of these forbidden some of its actions (restricted play):
  `restrict:forbid=NAME[+NAME...],agent=SPEC` (training.agents.restricted_agent: NAME an action
  segment or an item of the game).

`agent_fingerprint(spec, game)` says which contents a spec names (a checkpoint's SHA-256, a
digest of a bot's or the search agent's code, a user agent's own fingerprint): tournaments key
their stored games on it, so a retrained checkpoint under the same path is another entrant.
`machine_dependent(spec, game)` says whether its games depend on the machine (a time budget), not
only on the seeds: tournaments, balance studies and evaluate say so in their output.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from core.bots import Agent, bot_names, bot_source_modules, is_bot, make_bot
from core.registry import GameNotAvailableError, game_names, get_game
from core.search import MCTSAgent, SearchConfig
from training.agents.az_agent import USAGE as USAGE_AZ
from training.agents.az_agent import (
    az_files,
    az_fingerprint,
    az_relocated,
    make_az_agent,
    read_az_sidecar,
)
from training.agents.checkpoint import (
    ANY_RULES,
    CheckpointError,
    base_path,
    checkpoint_spec,
    library_version,
    load_actor,
    looks_like_checkpoint,
    read_sidecar,
    sidecar_hashes,
)
from training.agents.policy import PolicyAgent
from training.agents.restricted_agent import USAGE as USAGE_RESTRICT
from training.agents.restricted_agent import RestrictKind
from training.agents.rllib_agent import (
    make_rllib_agent,
    read_rllib_sidecar,
    rllib_files,
    rllib_fingerprint,
    rllib_relocated,
)

_ACTOR_CACHE: dict[tuple, dict[str, np.ndarray]] = {}


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _cached_actor(
    path: str, game: ModuleType, players: int | None, any_rules: bool = False
) -> dict[str, np.ndarray]:
    """load_actor's arrays, loaded (and checked) again for another game, rules data or player
    count and whenever a file of the checkpoint changes (a .zip corrupted after a clean load is
    refused)."""
    base = base_path(path)
    stamps = tuple(_file_stamp(Path(f"{base}{suf}")) for suf in (".json", ".zip", ".policy.npz"))
    # the checks depend on all of these
    key = (str(base.resolve()), stamps, game.NAME, game.RULES_DATA_HASH, players, any_rules)
    if key not in _ACTOR_CACHE:
        arrays, _meta = load_actor(path, game, players, any_rules)
        _ACTOR_CACHE[key] = arrays
    return _ACTOR_CACHE[key]


# kind name -> factory(game_name, params after "name:", seed) -> Agent
AgentKind = Callable[[str, str, int], Agent]
_KINDS: dict[str, tuple[AgentKind, str]] = {}
# kinds that name a checkpoint: kind -> (fingerprint(params, game_name, players) -> str,
# sidecar(params) -> dict); their factories also take players= and deterministic=
_CHECKPOINT_KINDS: dict[str, tuple[Callable[..., str], Callable[[str], dict[str, Any]]]] = {}
# kinds whose params name files: kind -> (files(params) -> {suffix: bytes} | None,
# relocated(params, base) -> params), see spec_files
_FILE_KINDS: dict[str, tuple[Callable[[str], Any], Callable[[str, Any], str]]] = {}
# kinds whose play may depend on the machine: kind -> machine_dependent(game_name, params) -> bool
_MACHINE_KINDS: dict[str, Callable[[str, str], bool]] = {}


def register_agent_kind(
    name: str,
    factory: AgentKind,
    usage: str,
    fingerprint: Callable[..., str] | None = None,
    sidecar: Callable[[str], dict[str, Any]] | None = None,
    machine_dependent: Callable[[str, str], bool] | None = None,
    files: Callable[[str], dict[str, bytes] | None] | None = None,
    relocated: Callable[[str, Any], str] | None = None,
) -> None:
    """Register a parametrised agent kind: specs `name` and `name:params` build
    factory(game_name, params, seed); `usage` is shown in error messages;
    `machine_dependent(game_name, params)` (optional) says whether those parameters make the
    agent's play depend on the machine (a clock), see `machine_dependent`.

    A kind whose params name a checkpoint (`rllib:PATH`) passes `fingerprint(params,
    game_name, players)` (which contents it names) and `sidecar(params)` (its checked sidecar:
    game, players, RULES_DATA_HASH); its factory is called with `players=` and
    `deterministic=` too. Such a kind also passes `files(params)` (what playing it reads from
    disk, {suffix: bytes} of one base path, None if nothing) and `relocated(params, base)` (its
    params playing a copy of those files at `base`), so that it can be played on another machine
    (spec_files)."""
    _KINDS[name] = (factory, usage)
    _CHECKPOINT_KINDS.pop(name, None)
    _FILE_KINDS.pop(name, None)
    if files is not None and relocated is not None:
        _FILE_KINDS[name] = (files, relocated)
    _MACHINE_KINDS.pop(name, None)
    if machine_dependent is not None:
        _MACHINE_KINDS[name] = machine_dependent
    if fingerprint is not None and sidecar is not None:
        _CHECKPOINT_KINDS[name] = (fingerprint, sidecar)


def _mcts(game_name: str, params: str, seed: int) -> Agent:
    return MCTSAgent(game_name, SearchConfig.for_game(game_name, params), seed)


register_agent_kind(
    "mcts",
    _mcts,
    "mcts[:iters=N,time=S,c=X,rollout=random|greedy,cutoff=K,...]",
    machine_dependent=lambda game_name, params: (
        SearchConfig.for_game(game_name, params).machine_dependent
    ),
)


register_agent_kind(
    "rllib",
    make_rllib_agent,  # played in numpy: no Ray needed
    "rllib:PATH (a checkpoint or run folder of training.learn.rllib_train)",
    fingerprint=rllib_fingerprint,
    sidecar=read_rllib_sidecar,
    files=rllib_files,
    relocated=rllib_relocated,
)


register_agent_kind(
    "az",
    make_az_agent,  # the network inside the compiled search: no torch needed
    USAGE_AZ,
    fingerprint=az_fingerprint,
    sidecar=read_az_sidecar,
    files=az_files,
    relocated=az_relocated,
)


def _openspiel(game_name: str, params: str, seed: int) -> Agent:
    """OpenSpiel's bots (interop.openspiel_agents), where the extra [openspiel] is installed."""
    try:
        from interop.openspiel_agents import make_openspiel_agent
    except ImportError as e:
        raise ValueError(
            f'OpenSpiel\'s bots need the extra [openspiel] (pip install -e ".[openspiel]"): {e}'
        ) from None
    return make_openspiel_agent(game_name, params, seed)


register_agent_kind(
    "openspiel",
    _openspiel,
    "openspiel:ismcts|mcts|random[,sims=N,c=X,rollouts=K,samples=W] (the extra [openspiel])",
)


class AgentSpecError(CheckpointError):
    """An agent spec names nothing usable (unknown name, broken `py:` factory, bad parameters)."""


class UserAgent:
    """Adapter for a user's own agent named `py:package.module:factory`.

    The protocol (docs/tournaments.md): `factory(game_name, players, seed)` returns an object with
    `act(state, legal_mask, seat) -> int` (state: the engine's int64 array, which holds hidden
    information: an honest agent looks only at `game.observe(state, seat)`; legal_mask: bool per
    action id; seat: the player to act), and optionally `name` (str), `fingerprint` (str: which
    version of the agent this is; default: a digest of its module's source), `reset(seed)`
    (called before each game), `notify(action)` (told every action played) and
    `machine_dependent` (bool: True if its play depends on the machine, e.g. it thinks until a
    deadline; default False).
    """

    def __init__(self, spec: str, game: ModuleType, inner: Any):
        self.spec = spec
        self.game = game
        self.inner = inner
        self.name = str(getattr(inner, "name", spec))
        if hasattr(inner, "notify"):
            self.notify = inner.notify

    def reset(self, seed: int) -> None:
        if hasattr(self.inner, "reset"):
            self.inner.reset(int(seed))

    def act(self, state: np.ndarray) -> int:
        g = self.game
        mask = g.legal_mask(state)
        a = self.inner.act(state, mask.copy(), int(g.current_player(state)))
        try:
            a = int(a)
        except (TypeError, ValueError):
            raise AgentSpecError(f"{self.spec}: act returned {a!r}, not an action id") from None
        if not (0 <= a < len(mask) and mask[a]):
            raise AgentSpecError(f"{self.spec}: act returned {a}, not a legal action here")
        return a


_PY_USAGE = "py:package.module:factory"


def _load_factory(spec: str, game_name: str) -> Callable:
    target = spec[3:]
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise AgentSpecError(f"{spec!r}: a user agent is named {_PY_USAGE}")
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001 - any import failure is the spec's fault
        raise AgentSpecError(f"{spec!r}: cannot import {module_name} ({e})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise AgentSpecError(f"{spec!r}: {module_name} has no callable {attr!r}")
    return factory


def _make_user_agent(spec: str, game_name: str, players: int | None, seed: int) -> Agent:
    factory = _load_factory(spec, game_name)
    try:
        inner = factory(game_name, players, int(seed))
    except Exception as e:  # noqa: BLE001
        raise AgentSpecError(f"{spec!r}: the factory failed ({type(e).__name__}: {e})") from None
    if not callable(getattr(inner, "act", None)):
        raise AgentSpecError(f"{spec!r}: the factory returned {inner!r}, which has no act()")
    return UserAgent(spec, get_game(game_name), inner)


def agent_usage(game_name: str) -> str:
    """Every way to name an agent of `game_name`, for help and error messages."""
    kinds = [usage for _f, usage in _KINDS.values()]
    return ", ".join(bot_names(game_name) + kinds + ["a checkpoint PATH", _PY_USAGE])


def _digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
    return h.hexdigest()[:16]


def _source_digest(*modules: str) -> str:
    srcs = []
    for name in modules:
        try:
            srcs.append(inspect.getsource(importlib.import_module(name)))
        except (ImportError, OSError, TypeError):
            srcs.append(name)
    return _digest(*srcs)


def agent_fingerprint(spec: str, game_name: str, players: int | None = None) -> str:
    """Which contents `spec` names, as a short string (module docstring): equal fingerprints mean
    the same agent plays the same way on the same seeds."""
    spec = str(spec)
    version = library_version()
    if is_bot(game_name, spec):
        src = _source_digest(*bot_source_modules(game_name, spec))
        return f"bot {spec} {version} src:{src}"
    kind, _sep, params = spec.partition(":")
    if kind == "mcts":
        canon = SearchConfig.for_game(game_name, params).spec()
        src = _source_digest("core.search", "core.search_tree", "core.search_template")
        return f"{canon} {version} src:{src}"
    if kind == "py":
        inner = _make_user_agent(spec, game_name, players, 0).inner
        own = getattr(inner, "fingerprint", None)
        if own is not None:
            return f"py {own}"
        return f"py src:{_source_digest(spec[3:].partition(':')[0])}"
    if kind in _CHECKPOINT_KINDS:
        return _CHECKPOINT_KINDS[kind][0](params, game_name, players)
    if kind in _KINDS:
        return f"{kind} {params} {version}"
    path, _any = checkpoint_spec(spec)
    if looks_like_checkpoint(path):
        meta = read_sidecar(path)
        npz = Path(f"{base_path(path)}.policy.npz")
        content = npz.read_bytes() if npz.exists() else b""
        return f"checkpoint sha256:{_digest(content)} rules:{meta.get('rules_data_hash')}"
    make_agent(spec, game_name, players)  # raises the one-line error naming what is accepted
    raise AssertionError("unreachable")


def machine_dependent(spec: str, game_name: str, players: int | None = None) -> bool:
    """Whether the games `spec` plays depend on the machine it runs on (its speed and load, and so
    how many workers share it), not only on the seeds: an agent kind whose parameters say so (the
    search agent with a time budget, `mcts:time=S`), or a `py:` agent whose object has
    `machine_dependent = True`. Bots and checkpoints play the same everywhere. A bad spec raises
    as make_agent does."""
    spec = str(spec)
    kind, _sep, params = spec.partition(":")
    if kind != "py" and kind not in _MACHINE_KINDS:
        return False  # bots, checkpoints, kinds that never play on a clock
    if is_bot(game_name, spec):  # make_agent's order: a bot's name comes first
        return False
    if kind == "py":
        inner = _make_user_agent(spec, game_name, players, 0).inner
        return bool(getattr(inner, "machine_dependent", False))
    try:
        return bool(_MACHINE_KINDS[kind](game_name, params))
    except ValueError as e:
        raise AgentSpecError(f"{spec!r}: {e}; usage: {_KINDS[kind][1]}") from None


def checkpoint_sidecar(spec: str) -> dict[str, Any] | None:
    """The sidecar of the checkpoint `spec` names, or None if `spec` is a bot name (of any
    game), an agent kind, a `py:` agent or no existing path; a clear error for a path that is
    not a checkpoint of ours (read_sidecar). A kind that names a checkpoint (`rllib:PATH`):
    that checkpoint's sidecar (CheckpointError if it has none)."""
    spec = str(spec)
    kind, _sep, params = spec.partition(":")
    if kind in _CHECKPOINT_KINDS:
        return _CHECKPOINT_KINDS[kind][1](params)
    path, _any = checkpoint_spec(spec)
    if kind == "py" or kind in _KINDS or not looks_like_checkpoint(path) or _bot_name(spec):
        return None
    return read_sidecar(path)


def _bot_name(spec: str) -> bool:
    """Whether `spec` is a bot name of any installed game."""
    for name in game_names():
        try:
            if is_bot(name, spec):
                return True
        except (GameNotAvailableError, ImportError):  # a game whose package is not installed
            continue
    return False


def spec_files(spec: str) -> dict[str, bytes] | None:
    """What playing `spec` reads from disk, for a copy on another machine: {suffix: bytes}, the
    suffixes of one base path (a checkpoint `PATH`: its sidecar and every part it lists but the
    SB3 .zip, which playing never reads; a kind naming files: what its `files` hook says), or
    None if `spec` reads nothing of the user's (a bot, an agent kind, a `py:` agent, a shipped
    network). `relocated(spec, base)` is the spec that plays such a copy written at `base`."""
    spec = str(spec)
    kind, _sep, params = spec.partition(":")
    if kind in _FILE_KINDS:
        return _FILE_KINDS[kind][0](params)
    if kind in _KINDS or kind == "py":
        return None
    meta = checkpoint_sidecar(spec)
    if meta is None:
        return None
    path, _any = checkpoint_spec(spec)
    base = base_path(path)
    files = {".json": Path(f"{base}.json").read_bytes()}
    for part in sidecar_hashes(path, meta):
        f = Path(f"{base}{part}")
        if part != ".zip" and f.exists():
            files[part] = f.read_bytes()
    return files


def relocated(spec: str, base: str | Path) -> str:
    """The spec that plays the copy of spec_files(spec) written at `base` (`base` + suffix)."""
    spec = str(spec)
    kind, _sep, params = spec.partition(":")
    if kind in _FILE_KINDS:
        return f"{kind}:{_FILE_KINDS[kind][1](params, base)}"
    if kind in _KINDS or kind == "py" or _bot_name(spec):
        return spec
    return str(base) + (f",{ANY_RULES}" if checkpoint_spec(spec)[1] else "")


def make_agent(
    spec: str, game_name: str, players: int | None = None, seed: int = 0, deterministic: bool = True
) -> Agent:
    """An agent from its spec (module docstring): a bot name, an agent kind with parameters, or a
    checkpoint path; clear errors naming the alternatives."""
    game = get_game(game_name)
    spec = str(spec)
    if is_bot(game_name, spec):
        return make_bot(game_name, spec, seed)
    kind, _sep, params = spec.partition(":")
    if kind == "py":
        return _make_user_agent(spec, game_name, players, seed)
    if kind in _KINDS:
        try:
            if kind in _CHECKPOINT_KINDS:
                return _KINDS[kind][0](
                    game_name, params, int(seed), players=players, deterministic=deterministic
                )
            return _KINDS[kind][0](game_name, params, int(seed))
        except (AgentSpecError, CheckpointError):
            raise
        except ValueError as e:
            raise AgentSpecError(f"{spec!r}: {e}; usage: {_KINDS[kind][1]}") from None
    path, any_rules = checkpoint_spec(spec)
    if looks_like_checkpoint(path):
        arrays = _cached_actor(path, game, players, any_rules)
        return PolicyAgent(game, arrays, seed, deterministic, name=str(spec))
    names = [*bot_names(game_name), *_KINDS]
    close = difflib.get_close_matches(kind, [*names, "py"], n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise AgentSpecError(  # the short list; `--help` and docs/agents.md have every parameter
        f"{spec!r} is neither a bot, an agent kind nor an existing checkpoint of {game_name}; "
        f"{hint}agents: {', '.join(names)}, py:MODULE:FACTORY or a checkpoint PATH "
        "(docs/agents.md)"
    )


# restricted play (training.agents.restricted_agent): any agent above, forbidden action segments or
# items; the kind builds, fingerprints and reads its inner agent through this registry
_RESTRICT = RestrictKind(
    make_agent, agent_fingerprint, machine_dependent, checkpoint_sidecar, UserAgent,
    spec_files=spec_files, relocated=relocated,
)  # fmt: skip
register_agent_kind(
    "restrict",
    _RESTRICT.make,
    USAGE_RESTRICT,
    fingerprint=_RESTRICT.fingerprint,
    sidecar=_RESTRICT.sidecar,
    machine_dependent=_RESTRICT.machine_dependent,
    files=_RESTRICT.files,
    relocated=_RESTRICT.relocated,
)
