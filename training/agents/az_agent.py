"""Policy-value networks on disk, and the `az` agent spec that plays them (training.agents.registry
registers the kind; training.alphazero writes them).

A network checkpoint is a folder:

- `network.npz`: the network as plain arrays (W0, b0, ..., `activations`: the trained-actor format,
  training.alphazero.net.PolicyValueNet.arrays), read without unpickling anything;
- `network.pt` (optional): the torch state of the network and its optimiser, to resume training;
- `checkpoint.json`: the sidecar, read and checked first: format, game, NUM_ACTIONS, OBS_SIZE,
  layout versions, RULES_DATA_HASH, library version (refused on any mismatch, as every checkpoint
  of training/ is), the network's shape and return kind, the player count it was trained at, and
  the SHA-256 of every file it lists (a changed, truncated or replaced file is refused).

The agent spec: `az:PATH` (a checkpoint folder, or a run folder of `python -m training.alphazero`:
its `final/`, else its newest `checkpoints/iter_*`) followed by the guided search's parameters,
e.g. `az:runs/az-troyes,sims=100`; `sims=0` is the network alone (core.guided). Parameters the
spec leaves out come from the sidecar's `search` (those the network was trained with: root, m,
c, mix), then core.guided's defaults; the return kind is the network's. `rules=any` lets a
network trained under other rules data play under the ones loaded (a rules variant); without it
such a network is refused, and the refusal names the option.

A conditioned network (its sidecar records the `variant_space` it was trained over,
training.alphazero with `--conditioned`) reads the rules data it plays under: it plays at every
player count it was trained at and under any rules data inside its game's variant space
(core.variant_space) without `rules=any`, its rules features folded into its first layer's bias
once (core.mlp.fold_features), so a decision costs what an ordinary network's does. Rules data
outside the space is refused in one line naming the key and the trained range; a network trained
over another space (another game, version, ranges or default rules data) is refused. With
`rules=any` a conditioned network plays blind to the rules: as under the game's own rules data
(zero features), the unadapted baseline of a balance study. Its search parameters may differ per
player count (the sidecar's `search_by_players`, over `search`).

Without a path (`az`, `az:sims=50`) the agent plays the network shipped inside the game's package
for the player count of the game: the conditioned network `<game package>/networks/az/` where it was
trained at that count, else `<game package>/networks/az-<N>p/` (network folders as above, without
the torch state). A shipped network also plays by its folder's name, e.g. `az:az-3p` (the network
trained at 3 players; a folder of that name on disk comes first). Nothing else is guessed: a count
with no shipped network is refused, naming the counts that have one (a network trained at another
count plays by its path). A shipped network is part of the installed library, so its sidecar's
library version is not held against it; its game fingerprint (RULES_DATA_HASH included) and file
digests are checked as for any other network.
"""

from __future__ import annotations

import datetime as _dt
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from core.guided import GuidedAgent, GuidedConfig
from core.mlp import fold_features
from core.registry import game_packages, get_game
from core.search import config_pairs
from core.variant_space import OutsideSpaceError, space_of
from training.agents.checkpoint import (
    ANY_RULES,
    CheckpointError,
    check_sidecar,
    file_sha256,
    folder_files,
    game_fingerprint,
    library_version,
    parse_sidecar,
    split_any_rules,
)

AZ_FORMAT = "village-troyes-rl/policy-value-network"
AZ_FORMAT_VERSION = 1
SIDECAR = "checkpoint.json"
NETWORK = "network.npz"
TORCH_STATE = "network.pt"
PREFIX = "az:"
USAGE = (
    "az[:PATH][,sims=N,root=puct|gumbel,c=X,mix=M,opp=tree|net|netmax|prior|priormax,rules=any] "
    "(a network folder or run folder of training.alphazero; no PATH: the network shipped for "
    "the game and player count; rules=any: play under rules data other than the network's own)"
)
SHIPPED = "networks"  # a game package's folder of shipped networks: az/, az-<N>p/
CONDITIONED = "az"  # the shipped conditioned network's folder, the default where it plays


def shipped_folder(game: ModuleType) -> Path | None:
    """`<game package>/networks/`, where `game`'s shipped networks live (None: no package)."""
    pkg = game_packages().get(game.NAME)
    found = importlib.util.find_spec(pkg) if pkg else None
    if found is None or not found.submodule_search_locations:
        return None
    return Path(list(found.submodule_search_locations)[0]) / SHIPPED


def shipped_folders(game: ModuleType) -> dict[str, Path]:
    """{name: network folder} of every network shipped inside `game`'s package (`az`, the
    conditioned network; `az-<N>p`, the network trained at N players)."""
    root = shipped_folder(game)
    if root is None or not root.is_dir():
        return {}
    return {f.name: f for f in sorted(root.iterdir()) if (f / SIDECAR).is_file()}


def per_count_name(players: int) -> str:
    """The name of the network shipped for one player count (`az:az-3p` plays it)."""
    return f"az-{int(players)}p"


def shipped_networks(game: ModuleType) -> dict[int, Path]:
    """{player count: the network `az` plays there}: the shipped conditioned network (`az/`) at
    the counts it was trained at, else the one shipped for the count (`az-<N>p/`)."""
    folders = shipped_folders(game)
    conditioned: list[int] = []
    if CONDITIONED in folders:
        meta = parse_sidecar(
            folders[CONDITIONED] / SIDECAR, AZ_FORMAT, AZ_FORMAT_VERSION, "network"
        )
        conditioned = [int(n) for n in meta.get("players") or []]
    out = {}
    for n in game.PLAYER_COUNTS:
        name = CONDITIONED if int(n) in conditioned else per_count_name(n)
        if name in folders:
            out[int(n)] = folders[name]
    return out


def network_folder(path: str, game: ModuleType) -> Path:
    """The network folder an `az:` spec's PATH names: a folder on disk, else a network shipped
    with the game by name (`az-3p`); CheckpointError if neither."""
    if not Path(path).exists():
        named = shipped_folders(game).get(str(path))
        if named is not None:
            return named
    return checkpoint_dir(path)


def shipped_network(game: ModuleType, players: int | None) -> Path:
    """The network shipped for `game` at `players` (module docstring); CheckpointError naming
    the counts that have one if there is none."""
    have = shipped_networks(game)
    if players is not None and int(players) in have:
        return have[int(players)]
    counts = ", ".join(f"{n} players" for n in sorted(have)) or "none"
    at = "no player count given" if players is None else f"{players} players"
    raise CheckpointError(
        f"{PREFIX.rstrip(':')}: {game.NAME} ships no network for {at} (shipped: {counts}); "
        f"name one by its path: {USAGE}"
    )


def read_shipped_search(game: ModuleType, players: int) -> str:
    """The search parameters the network shipped for `game` at `players` plays with by default
    (its sidecar's `search`); '' if none is shipped there."""
    folder = shipped_networks(game).get(int(players))
    if folder is None:
        return ""
    meta = parse_sidecar(folder / SIDECAR, AZ_FORMAT, AZ_FORMAT_VERSION, "network")
    return recorded_search(meta, players)


def checkpoint_dir(path: str | Path) -> Path:
    """The network folder `path` names: a network folder, its sidecar, or a run folder (its
    `final/`, else the newest `checkpoints/iter_*`); CheckpointError if none."""
    p = Path(path)
    if p.is_file() and p.name == SIDECAR:
        return p.parent
    if (p / SIDECAR).is_file():
        return p
    if (p / "final" / SIDECAR).is_file():
        return p / "final"
    ckpts = sorted((p / "checkpoints").glob(f"iter_*/{SIDECAR}")) if p.is_dir() else []
    if ckpts:
        return ckpts[-1].parent
    if not p.exists():
        raise CheckpointError(f"{PREFIX}{path}: no such network")
    raise CheckpointError(
        f"{PREFIX}{path}: not a network written by training.alphazero (no {SIDECAR}, no "
        f"final/{SIDECAR}, no checkpoints/iter_*/{SIDECAR})"
    )


def write_network(
    folder: str | Path,
    arrays: dict[str, np.ndarray],
    game: ModuleType,
    players: int,
    settings: dict[str, Any],
    returns: str,
    torch_state: Any = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write `network.npz` (and `network.pt` when `torch_state` is given) and the sidecar into
    `folder`; the sidecar last, so a folder with a sidecar is complete. Returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / NETWORK, **arrays)
    files = {NETWORK: file_sha256(folder / NETWORK)}
    if torch_state is not None:
        import torch

        torch.save(torch_state, folder / TORCH_STATE)
        files[TORCH_STATE] = file_sha256(folder / TORCH_STATE)
    meta = {
        "format": AZ_FORMAT,
        "format_version": AZ_FORMAT_VERSION,
        **game_fingerprint(game),
        "players": int(players),
        "library_version": library_version(),
        "network": dict(settings),
        "returns": returns,
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "files": files,
        **(extra or {}),
    }
    tmp = folder / f"{SIDECAR}.tmp"
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True))
    tmp.replace(folder / SIDECAR)
    return folder


def check_network(
    path: str | Path,
    game: ModuleType | None = None,
    players: int | None = None,
    any_rules: bool = False,
) -> dict[str, Any]:
    """Read and check the network folder `path` names against `game` (default: the one it
    names) and the player count it is to play at; check every listed file's SHA-256. A shipped
    network (module docstring) is not refused for its sidecar's library version; with
    `any_rules` (the spec's `rules=any`) no network is refused for the rules data it was
    trained under (the sidecar keeps that hash)."""
    folder = checkpoint_dir(path)
    meta = parse_sidecar(folder / SIDECAR, AZ_FORMAT, AZ_FORMAT_VERSION, "network")
    where = f"{PREFIX}{path}"
    try:
        game = game if game is not None else get_game(str(meta.get("game")))
    except (ValueError, ImportError) as e:
        raise CheckpointError(f"{where}: {e}") from None
    shipped = folder.resolve() in {f.resolve() for f in shipped_folders(game).values()}
    if shipped:
        meta = {**meta, "library_version": library_version()}
    conditioned = is_conditioned(meta)
    check_sidecar(meta, game, players, where=where, any_rules=any_rules or conditioned)
    if conditioned:
        check_conditioned(meta, game, where, any_rules)
    files = meta.get("files")
    if not isinstance(files, dict) or NETWORK not in files:
        raise CheckpointError(f"{folder / SIDECAR}: 'files' lists no SHA-256 for {NETWORK}")
    unknown = sorted(set(files) - {NETWORK, TORCH_STATE})
    if unknown:
        raise CheckpointError(f"{folder / SIDECAR}: 'files' lists unknown parts {unknown}")
    for name, digest in files.items():
        f = folder / name
        if not f.is_file():
            if name == NETWORK:
                raise CheckpointError(f"{where}: missing {f}")
            continue
        if digest != file_sha256(f):
            raise CheckpointError(
                f"{f}: contents do not match the sidecar's SHA-256 (corrupt, truncated or "
                "replaced file)"
            )
    return meta


def is_conditioned(meta: dict[str, Any]) -> bool:
    """Whether a network's sidecar says it reads the rules data (module docstring)."""
    return isinstance(meta.get("variant_space"), dict)


def check_conditioned(meta: dict[str, Any], game: ModuleType, where: str, any_rules: bool) -> None:
    """Refuse a conditioned network trained over another variant space than `game`'s, or (unless
    `any_rules`) asked to play under rules data outside it: CheckpointError, one line."""
    space, rec = space_of(game), meta["variant_space"]
    if (rec.get("game"), rec.get("version"), rec.get("digest")) != (
        space.game,
        space.version,
        space.digest(),
    ):
        raise CheckpointError(
            f"{where}: trained over {rec.get('game')}'s variant space version "
            f"{rec.get('version')} (digest {rec.get('digest')}), not this library's {game.NAME} "
            f"space version {space.version} (digest {space.digest()}): train it again over this "
            "space, or fine-tune it with --adapt or --init"
        )
    if not any_rules:
        try:
            space.check(game.GAME.rules_data, str(game.RULES_DATA_HASH))
        except OutsideSpaceError as e:
            raise CheckpointError(f"{where}: {e}") from None


def playing_arrays(
    arrays: dict[str, np.ndarray], meta: dict[str, Any], game: ModuleType, any_rules: bool
) -> dict[str, np.ndarray]:
    """The arrays the search plays: a conditioned network's with the rules features of the
    rules data in use folded in (zero features with `any_rules`: blind to the rules); any other
    network's as they are."""
    if not is_conditioned(meta):
        return arrays
    space = space_of(game)
    feat = (
        np.zeros(space.n_features, dtype=np.float32)
        if any_rules
        else space.features(game.GAME.rules_data, str(game.RULES_DATA_HASH))
    )
    return fold_features(arrays, int(game.OBS_SIZE), feat)


def load_network(
    path: str | Path,
    game: ModuleType | None = None,
    players: int | None = None,
    any_rules: bool = False,
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(network arrays, sidecar) after every check (check_network); unpickles nothing."""
    meta = check_network(path, game, players, any_rules)
    try:
        with np.load(checkpoint_dir(path) / NETWORK, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise CheckpointError(f"{PREFIX}{path}: unreadable {NETWORK} ({e})") from None
    return arrays, meta


def split_params(params: str) -> tuple[str, str]:
    """("PATH", "key=value,...") of the part of an `az:` spec after the prefix."""
    path, _sep, rest = params.partition(",")
    if "=" in path:  # no path: parameters only
        return "", params
    return path.strip(), rest


def _rules_flag(params: str, rest: str) -> tuple[str, bool]:
    """(`rest` without `rules=any`, whether it said so) of an `az:` spec; CheckpointError naming
    the spec for another `rules` value."""
    try:
        return split_any_rules(rest)
    except ValueError as e:
        raise CheckpointError(f"{PREFIX}{params}: {e}") from None


_CACHE: dict[tuple, tuple[dict[str, np.ndarray], dict[str, Any]]] = {}


def _cached_network(path: str, game: ModuleType, players: int | None, any_rules: bool):
    folder = network_folder(path, game)
    stamp = tuple(
        (f.name, f.stat().st_mtime_ns, f.stat().st_size)
        for f in sorted(folder.iterdir())
        if f.is_file()
    )
    key = (str(folder.resolve()), stamp, game.NAME, game.RULES_DATA_HASH, players, any_rules)
    if key not in _CACHE:
        arrays, meta = load_network(folder, game, players, any_rules)
        _CACHE[key] = (playing_arrays(arrays, meta, game, any_rules), meta)
    return _CACHE[key]


def recorded_search(meta: dict[str, Any], players: int | None = None) -> str:
    """The search parameters a network's sidecar records for `players` (its
    `search_by_players` entry, else its `search`)."""
    by = meta.get("search_by_players") or {}
    if players is not None and str(int(players)) in by:
        return str(by[str(int(players))])
    return str(meta.get("search") or "")


def search_config(meta: dict[str, Any], text: str, players: int | None = None) -> GuidedConfig:
    """The guided search's parameters for a network: its sidecar's search for `players`
    (recorded_search: the parameters it was trained and measured with, if recorded) and return
    kind, under the spec's `text`."""
    kw = config_pairs(GuidedConfig, recorded_search(meta, players), PREFIX.rstrip(":"))
    kw.setdefault("returns", meta.get("returns", "rank"))
    kw.update(config_pairs(GuidedConfig, text, PREFIX.rstrip(":")))
    return GuidedConfig(**kw)


def make_az_agent(
    game_name: str, params: str, seed: int, players: int | None = None, deterministic: bool = True
) -> GuidedAgent:
    """The agent `az:PATH,key=value,...` names: core.guided.GuidedAgent on the checked network,
    with search_config's parameters."""
    path, rest = split_params(params)
    game = get_game(game_name)
    label = path
    if not path:
        path, label = str(shipped_network(game, players)), ""
    rest, any_rules = _rules_flag(params, rest)
    arrays, meta = _cached_network(path, game, players, any_rules)
    try:
        config = search_config(meta, rest, players)
    except ValueError as e:
        raise CheckpointError(f"{PREFIX}{params}: {e}") from None
    spec = ",".join(x for x in (config.spec(), ANY_RULES if any_rules else "") if x)
    if label:
        name = PREFIX + label + ("," + spec if spec else "")
    else:  # the shipped network: `az` and the parameters
        name = PREFIX.rstrip(":") + (":" + spec if spec else "")
    return GuidedAgent(game, arrays, config, seed, name=name)


def az_fingerprint(params: str, game_name: str, players: int | None = None) -> str:
    """By content: the network's SHA-256 (checked against the sidecar first) and the search's
    parameters."""
    path, rest = split_params(params)
    game = get_game(game_name)
    folder = network_folder(path, game) if path else shipped_network(game, players)
    rest, any_rules = _rules_flag(params, rest)
    meta = check_network(folder, game, players, any_rules)
    digest = file_sha256(folder / NETWORK)
    search = search_config(meta, rest, players).spec()
    return f"az sha256:{digest[:16]} {search} rules:{meta.get('rules_data_hash')}"


def az_files(params: str) -> dict[str, bytes] | None:
    """What playing the network an `az:` spec names reads (its sidecar and weights), for a copy
    elsewhere (training.agents.registry.spec_files); None for a shipped network (no path, or
    its name), which is part of the installed library."""
    path, _rest = split_params(params)
    if not path or not Path(path).exists():
        return None
    return folder_files(checkpoint_dir(path), (SIDECAR, NETWORK))


def az_relocated(params: str, base: str | Path) -> str:
    """The `az:` parameters that play the copy of the network at `base` (az_files)."""
    path, rest = split_params(params)
    if not path:
        return params
    return f"{base},{rest}" if rest else str(base)


def read_az_sidecar(params: str) -> dict[str, Any] | None:
    """The parsed sidecar of the network an `az:` spec names; None for a shipped network (its
    game is the one played and its player count the one played at), named or not."""
    path, _rest = split_params(params)
    if not path or not Path(path).exists():
        return None
    return parse_sidecar(checkpoint_dir(path) / SIDECAR, AZ_FORMAT, AZ_FORMAT_VERSION, "network")
