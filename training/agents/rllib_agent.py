"""RLlib checkpoints as agents: the `rllib:PATH` agent spec (training.agents.registry registers
the kind).

A checkpoint written by training.learn.rllib_train is a folder:

- `rllib/`: RLlib's own checkpoint of the whole algorithm (`Algorithm.save_to_path`);
- `policy.npz`: the shared policy's actor (encoder MLP + action head) as plain numpy arrays, in
  the format of our own checkpoints' `.policy.npz` (training.agents.checkpoint.actor_arrays), so an
  `rllib:` agent plays in numpy, with no Ray instance and without Ray installed;
- `checkpoint.json`: the sidecar, read and checked first: format, game, NUM_ACTIONS, OBS_SIZE,
  layout versions, RULES_DATA_HASH, library version (refused on any mismatch, as ours are),
  players (trained at; the policy may play at any count of its game, as ours may), the Ray
  version, and the SHA-256 of `policy.npz` and of the `rllib/` folder's contents (a digest over
  its files' relative paths and SHA-256s). Every part listed that exists is checked; `rllib/`
  may be left out of a copy that is only meant to play.

`rllib:PATH` names such a folder, or a run folder (`--out` of training.learn.rllib_train: its
`final/`, else its newest `checkpoints/iter_*`). The agent takes the masked argmax of the policy's
logits (deterministic; `deterministic=False` samples from the masked softmax with the agent's seed),
so it plays only legal actions.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from core.registry import check_players, get_game
from training.agents.checkpoint import (
    CheckpointError,
    check_sidecar,
    file_sha256,
    folder_files,
    game_fingerprint,
    library_version,
    linear_stack_arrays,
    parse_sidecar,
)
from training.agents.policy import PolicyAgent

RLLIB_FORMAT = "village-troyes-rl/rllib-checkpoint"
RLLIB_FORMAT_VERSION = 1
SIDECAR = "checkpoint.json"
POLICY = "policy.npz"
RAY_DIR = "rllib"
PREFIX = "rllib:"
USAGE = "rllib:PATH (a checkpoint or run folder of training.learn.rllib_train)"


def tree_sha256(folder: Path) -> str:
    """SHA-256 over a folder's files: each file's relative path and SHA-256, in sorted order."""
    h = hashlib.sha256()
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(f.relative_to(folder).as_posix().encode() + b"\0")
        h.update(file_sha256(f).encode() + b"\n")
    return h.hexdigest()


def _tree_stamp(folder: Path) -> tuple:
    if not folder.is_dir():
        return ()
    st = [(str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in folder.rglob("*")]
    return tuple(sorted(st))


def checkpoint_dir(path: str | Path) -> Path:
    """The checkpoint folder `path` names: a checkpoint folder, its sidecar, or a run folder
    (its `final/`, else the newest `checkpoints/iter_*`); CheckpointError if none."""
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
        raise CheckpointError(f"{PREFIX}{path}: no such checkpoint")
    if p.name == RAY_DIR and (p.parent / SIDECAR).is_file():
        return p.parent
    raise CheckpointError(
        f"{PREFIX}{path}: not a checkpoint written by training.learn.rllib_train (no {SIDECAR}, no "
        f"final/{SIDECAR}, no checkpoints/iter_*/{SIDECAR}); a bare RLlib checkpoint carries "
        "no game or rules-data fingerprint and is refused"
    )


def read_rllib_sidecar(path: str | Path) -> dict[str, Any]:
    """The parsed sidecar of the RLlib checkpoint `path` names; CheckpointError if missing,
    corrupt or foreign."""
    side = checkpoint_dir(path) / SIDECAR
    return parse_sidecar(side, RLLIB_FORMAT, RLLIB_FORMAT_VERSION, "RLlib checkpoint")


def check_rllib_checkpoint(
    path: str | Path, game: ModuleType | None = None, players: int | None = None
) -> dict[str, Any]:
    """Read and check the checkpoint `path` names against `game` (default: the game it names)
    and the player count it is to play at; check every listed part's SHA-256; the sidecar."""
    folder = checkpoint_dir(path)
    meta = read_rllib_sidecar(folder)
    where = f"{PREFIX}{path}"
    try:
        game = game if game is not None else get_game(str(meta.get("game")))
        trained = meta.get("players")
        if not isinstance(trained, int) or trained not in game.PLAYER_COUNTS:
            raise CheckpointError(
                f"{where}: the sidecar's players {trained!r} is not a player count of "
                f"{game.NAME} {tuple(game.PLAYER_COUNTS)} (corrupt sidecar)"
            )
        if players is not None:
            check_players(game, players)
    except CheckpointError:
        raise
    except (ValueError, ImportError) as e:
        raise CheckpointError(f"{where}: {e}") from None
    check_sidecar(meta, game, players, where=where)
    files = meta.get("files")
    if not isinstance(files, dict) or POLICY not in files:
        raise CheckpointError(f"{folder / SIDECAR}: 'files' lists no SHA-256 for {POLICY}")
    unknown = sorted(set(files) - {POLICY, RAY_DIR})
    if unknown:
        raise CheckpointError(f"{folder / SIDECAR}: 'files' lists unknown parts {unknown}")
    if not (folder / POLICY).is_file():
        raise CheckpointError(f"{where}: missing {folder / POLICY}")
    if files[POLICY] != file_sha256(folder / POLICY):
        raise CheckpointError(
            f"{folder / POLICY}: contents do not match the sidecar's SHA-256 (corrupt, "
            "truncated or replaced file)"
        )
    if RAY_DIR in files and (folder / RAY_DIR).is_dir():
        if files[RAY_DIR] != tree_sha256(folder / RAY_DIR):
            raise CheckpointError(
                f"{folder / RAY_DIR}: the RLlib checkpoint's contents do not match the "
                "sidecar's SHA-256 (a file changed, was added or removed)"
            )
    return meta


def load_rllib_actor(
    path: str | Path, game: ModuleType | None = None, players: int | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(actor arrays, sidecar) of an RLlib checkpoint, after every check; unpickles nothing."""
    meta = check_rllib_checkpoint(path, game, players)
    try:
        with np.load(checkpoint_dir(path) / POLICY, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise CheckpointError(f"{PREFIX}{path}: unreadable {POLICY} ({e})") from None
    return arrays, meta


_CACHE: dict[tuple, dict[str, np.ndarray]] = {}


def cached_actor(path: str, game: ModuleType, players: int | None) -> dict[str, np.ndarray]:
    """load_rllib_actor's arrays, checked again whenever a file of the checkpoint changes (or
    for another game or player count): tournaments build an agent per game."""
    folder = checkpoint_dir(path)
    stamp = (
        _tree_stamp(folder / RAY_DIR),
        *(((folder / n).stat().st_mtime_ns, (folder / n).stat().st_size) for n in (SIDECAR,)),
        (folder / POLICY).stat().st_mtime_ns if (folder / POLICY).exists() else None,
    )
    key = (str(folder.resolve()), stamp, game.NAME, players)
    if key not in _CACHE:
        _CACHE[key] = load_rllib_actor(path, game, players)[0]
    return _CACHE[key]


def make_rllib_agent(
    game_name: str, params: str, seed: int, players: int | None = None, deterministic: bool = True
):
    """The agent `rllib:PATH` names (params = PATH): training.agents.policy.PolicyAgent on the
    exported actor (masked argmax, or sampled with `seed` when not deterministic)."""
    if not params:
        raise CheckpointError(f"{PREFIX!r} names no checkpoint; usage: {USAGE}")
    game = get_game(game_name)
    arrays = cached_actor(params, game, players)
    return PolicyAgent(game, arrays, seed, deterministic, name=f"{PREFIX}{params}")


def rllib_files(params: str) -> dict[str, bytes] | None:
    """What playing the checkpoint an `rllib:` spec names reads (its sidecar and the exported
    policy; not Ray's own state), for a copy elsewhere (training.agents.registry.spec_files)."""
    return folder_files(checkpoint_dir(params), (SIDECAR, POLICY))


def rllib_relocated(params: str, base: str | Path) -> str:
    """The `rllib:` parameters that play the copy at `base` (rllib_files)."""
    return str(base)


def rllib_fingerprint(params: str, game_name: str, players: int | None = None) -> str:
    """By content: the SHA-256 of the exported policy (checked against the sidecar first)."""
    meta = check_rllib_checkpoint(params, get_game(game_name), players)
    digest = file_sha256(checkpoint_dir(params) / POLICY)
    return f"rllib sha256:{digest[:16]} rules:{meta.get('rules_data_hash')}"


def write_rllib_checkpoint(
    folder: str | Path,
    arrays: dict[str, np.ndarray],
    game: ModuleType,
    players: int,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write `policy.npz` and the sidecar into `folder` (which may already hold RLlib's
    `rllib/` checkpoint, hashed too); returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / POLICY, **arrays)
    files = {POLICY: file_sha256(folder / POLICY)}
    if (folder / RAY_DIR).is_dir():
        files[RAY_DIR] = tree_sha256(folder / RAY_DIR)
    meta = {
        "format": RLLIB_FORMAT,
        "format_version": RLLIB_FORMAT_VERSION,
        **game_fingerprint(game),
        "players": int(players),
        "library_version": library_version(),
        "algo": "PPO (RLlib, shared-policy self-play)",
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "files": files,
        **(extra or {}),
    }
    tmp = folder / f"{SIDECAR}.tmp"
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True))
    tmp.replace(folder / SIDECAR)
    return folder


def module_actor_arrays(module) -> dict[str, np.ndarray]:
    """The actor of an RLlib PPO torch RLModule (its actor encoder MLP, then the `pi` head) as
    plain arrays in the format of training.agents.checkpoint.actor_arrays: W0, b0, ...,
    activations."""
    import torch.nn as nn

    enc = module.encoder
    actor = getattr(enc, "actor_encoder", None) or getattr(enc, "encoder", None)
    if actor is None:
        raise CheckpointError(f"cannot find the actor encoder of {type(module).__name__}")
    leaves = [  # the leaf layers in order (containers and identities skipped)
        layer
        for part in (actor, module.pi)
        for layer in part.modules()
        if not isinstance(layer, (nn.Sequential, nn.Identity)) and not list(layer.children())
    ]
    return linear_stack_arrays(leaves, "the RLlib actor")
