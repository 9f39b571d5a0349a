"""Checkpoints: an SB3 model zip, a numpy copy of the actor, and a JSON sidecar checked first.

A checkpoint named `PATH` is three files: `PATH.zip` (the MaskablePPO model, as SB3 saves it),
`PATH.policy.npz` (the actor's weights as plain arrays, loadable without unpickling) and
`PATH.json` (the sidecar). The sidecar records the game, the player count it was trained at
(a policy may play at any count of its game), NUM_ACTIONS, OBS_SIZE, layout versions,
RULES_DATA_HASH, library version and the SHA-256 of the other two files, keyed by part (".zip",
".policy.npz"), not by file name: a renamed copy (`final.*` -> `clean.*`) is the same
checkpoint. Every load reads and checks the sidecar BEFORE anything is unpickled, refuses a
mismatch with a message naming what differs, and checks the SHA-256 of every part the sidecar
lists that exists (not only the part it loads).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from core.registry import check_players, get_game

FORMAT = "village-troyes-rl/checkpoint"
FORMAT_VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint is missing, corrupt, foreign, or does not fit the game it is used with."""


def library_version() -> str:
    """Installed version of the `village-troyes-rl` distribution ("unknown" if not installed)."""
    try:
        return metadata.version("village-troyes-rl")
    except metadata.PackageNotFoundError:
        return "unknown"


def game_fingerprint(game: ModuleType) -> dict[str, Any]:
    """The fields a checkpoint must agree on with the running game module."""
    return {
        "game": game.NAME,
        "num_actions": int(game.NUM_ACTIONS),
        "obs_size": int(game.OBS_SIZE),
        "layout_version": int(game.LAYOUT.version),
        "actions_version": int(game.ACTIONS.version),
        "rules_data_hash": str(game.RULES_DATA_HASH),
    }


def base_path(path: str | Path) -> Path:
    """`PATH` of a checkpoint given PATH, PATH.zip, PATH.json, PATH.policy.npz or a run folder."""
    p = Path(path)
    if p.is_dir():
        for name in ("final", "latest"):
            if (p / f"{name}.json").exists():
                return p / name
        ckpts = sorted((p / "checkpoints").glob("*.json")) if (p / "checkpoints").is_dir() else []
        if ckpts:
            return ckpts[-1].with_suffix("")
        hint = ""
        if any((d / "checkpoint.json").is_file() for d in (p, p / "final")) or any(
            (p / "checkpoints").glob("iter_*/checkpoint.json")
        ):
            hint = (
                f"; it holds an RLlib checkpoint of training.learn.rllib_train: name it rllib:{p}"
            )
        raise CheckpointError(
            f"{p}: a folder with no checkpoint (no final.json, no checkpoints/){hint}"
        )
    s = str(p)
    for suf in (".policy.npz", ".zip", ".json"):
        if s.endswith(suf):
            return Path(s[: -len(suf)])
    return p


def checkpoint_spec(spec: str) -> tuple[str, bool]:
    """(path, rules=any?) of a checkpoint spec `PATH` or `PATH,rules=any`; the spec itself and
    False when the part after the comma is not that (a path with a comma in it)."""
    path, sep, rest = str(spec).partition(",")
    if not sep:
        return str(spec), False
    try:
        left, any_rules = split_any_rules(rest)
    except ValueError:
        return str(spec), False
    return (path, True) if any_rules and not left else (str(spec), False)


def looks_like_checkpoint(path: str | Path) -> bool:
    """True if `path` names an existing file or folder that could be a checkpoint."""
    p = Path(path)
    if p.is_dir():
        return True
    try:
        return base_path(p).with_suffix(".json").exists() or p.exists()
    except CheckpointError:
        return False


PARTS = (".zip", ".policy.npz")  # the files a sidecar hashes, by suffix


def _part_of(key: str) -> str | None:
    """The part a sidecar `files` key names: the key is the part (".zip", ".policy.npz") or,
    in sidecars written before the hashes were keyed by part, a file name ending in one."""
    for suf in (".policy.npz", ".zip"):
        if key.endswith(suf):
            return suf
    return None


def file_sha256(path: Path) -> str:
    """SHA-256 (hex) of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def actor_arrays(model) -> dict[str, np.ndarray]:
    """The actor (policy MLP + action head) of an SB3 MaskablePPO model as plain numpy arrays."""
    pol = model.policy
    feat = getattr(pol, "features_extractor", None)
    if feat is not None and type(feat).__name__ != "FlattenExtractor":
        raise CheckpointError(f"only FlattenExtractor policies are supported, not {type(feat)}")
    return linear_stack_arrays(
        [*pol.mlp_extractor.policy_net, pol.action_net], "the SB3 policy net"
    )


def linear_stack_arrays(layers, where: str) -> dict[str, np.ndarray]:
    """The arrays of an actor given as its leaf layers in order, Linear (activation Linear)*:
    W0, b0, W1, b1, ... (float32) and `activations` (tanh / relu), the format `mlp_logits`
    (training.agents.registry) plays; CheckpointError naming `where` for any other shape."""
    import torch.nn as nn

    out: dict[str, np.ndarray] = {}
    acts: list[str] = []
    i = 0
    for layer in layers:
        if isinstance(layer, nn.Linear):
            if i != len(acts):
                raise CheckpointError(f"{where} is not a Linear/activation stack")
            out[f"W{i}"] = layer.weight.detach().cpu().numpy().astype(np.float32)
            out[f"b{i}"] = layer.bias.detach().cpu().numpy().astype(np.float32)
            i += 1
        elif isinstance(layer, nn.Tanh):
            acts.append("tanh")
        elif isinstance(layer, nn.ReLU):
            acts.append("relu")
        else:
            raise CheckpointError(f"unsupported layer in {where}: {layer}")
    if i == 0 or len(acts) != i - 1:
        raise CheckpointError(f"{where} is not a Linear/activation stack ending in a Linear")
    out["activations"] = np.array(acts, dtype="<U8")
    return out


def save_actor_npz(model, path: str | Path) -> Path:
    """Write the actor's arrays to `path` (.npz, no pickle)."""
    path = Path(path)
    np.savez(path, **actor_arrays(model))
    return path


def save_checkpoint(
    model,
    path: str | Path,
    game: ModuleType,
    players: int,
    extra: dict[str, Any] | None = None,
    with_zip: bool = True,
) -> Path:
    """Save `model` as checkpoint PATH (PATH.zip, PATH.policy.npz, PATH.json); returns PATH.

    `with_zip=False` writes a snapshot: the actor and sidecar only (for the self-play pool).
    """
    base = base_path(path)
    base.parent.mkdir(parents=True, exist_ok=True)
    parts = [".zip", ".policy.npz"] if with_zip else [".policy.npz"]
    if with_zip:
        model.save(Path(f"{base}.zip"))
    save_actor_npz(model, Path(f"{base}.policy.npz"))
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        **game_fingerprint(game),
        "players": int(players),
        "library_version": library_version(),
        "algo": type(model).__name__,
        "num_timesteps": int(model.num_timesteps),
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "files": {part: file_sha256(Path(f"{base}{part}")) for part in parts},
        **(extra or {}),
    }
    tmp = Path(f"{base}.json.tmp")
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True))
    tmp.replace(Path(f"{base}.json"))
    return base


def read_sidecar(path: str | Path) -> dict[str, Any]:
    """The parsed sidecar of checkpoint `path`; a clear error if it is missing or not ours."""
    base = base_path(path)
    side = Path(f"{base}.json")
    if not side.exists():
        if Path(f"{base}.zip").exists() or Path(str(path)).exists():
            raise CheckpointError(
                f"{path}: no sidecar {side.name}; not a checkpoint written by training "
                "(refusing to unpickle a model of unknown origin)"
            )
        raise CheckpointError(f"{path}: no such checkpoint (looked for {side})")
    return parse_sidecar(side, FORMAT, FORMAT_VERSION)


def parse_sidecar(side: Path, fmt: str, version: int, kind: str = "checkpoint") -> dict[str, Any]:
    """The JSON of sidecar file `side`, refused (CheckpointError) unless it is valid JSON of
    format `fmt` at `version`; `kind` names the checkpoint kind in the message."""
    try:
        meta = json.loads(side.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{side}: corrupt sidecar, not valid JSON ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        raise CheckpointError(f"{side}: not a {fmt} sidecar (foreign file)")
    if meta.get("format_version") != version:
        raise CheckpointError(
            f"{side}: {kind} format version {meta.get('format_version')!r}, this library "
            f"reads version {version}"
        )
    return meta


ANY_RULES = "rules=any"  # the spec parameter that lets a checkpoint play under other rules data
RULES_HINT = (
    "a checkpoint trained under other rules data plays under these only when its spec says so: "
    f"add ',{ANY_RULES}' (e.g. az:PATH,{ANY_RULES} or az:{ANY_RULES})"
)


def split_any_rules(params: str) -> tuple[str, bool]:
    """(`params` without its `rules=...` pair, whether that pair says `rules=any`) of a spec's
    comma-separated `key=value` parameters; ValueError for any other `rules` value."""
    keep, any_rules = [], False
    for part in params.split(",") if params else []:
        key, _sep, value = part.partition("=")
        if key.strip() != "rules":
            keep.append(part)
        elif value.strip() == "any":
            any_rules = True
        else:
            raise ValueError(
                f"rules={value.strip()!r}: the only value is 'any' (play under whatever rules "
                "data is loaded); leave it out to require the checkpoint's own"
            )
    return ",".join(keep), any_rules


def check_sidecar(
    meta: dict[str, Any],
    game: ModuleType | None = None,
    players: int | None = None,
    where: str = "checkpoint",
    any_rules: bool = False,
) -> ModuleType:
    """Refuse `meta` if it does not fit `game` (default: the game it names); returns the game.

    The message names every field that differs. A different RULES_DATA_HASH (a rules variant
    loaded, or the checkpoint trained under one) is refused too unless `any_rules` (the spec's
    `rules=any`), and the refusal names that option. `players`, the count the policy is to play at,
    must be one of the game's counts but need not be the count it was trained at (the sidecar's
    `players`): a game's OBS_SIZE and NUM_ACTIONS do not depend on the player count (the
    observation has a block per seat up to the maximum, zero for absent seats, and a player-count
    one-hot), and the sidecar's obs_size and num_actions are checked.
    """
    if game is None:
        game = get_game(str(meta.get("game")))
    if players is not None:
        check_players(game, players)
    want = game_fingerprint(game)
    if any_rules:
        del want["rules_data_hash"]
    diffs = [
        f"{k}: checkpoint has {meta.get(k)!r}, this library has {v!r}"
        for k, v in want.items()
        if meta.get(k) != v
    ]
    if "rules_data_hash" in want and meta.get("rules_data_hash") != want["rules_data_hash"]:
        diffs.append(RULES_HINT)
    if meta.get("library_version") != library_version():  # any other version: refused
        diffs.append(
            f"library_version: checkpoint has {meta.get('library_version')!r}, "
            f"this library has {library_version()!r}"
        )
    if diffs:
        raise CheckpointError(f"{where} does not match: " + "; ".join(diffs))
    return game


def folder_files(folder: Path, names: tuple[str, ...]) -> dict[str, bytes]:
    """{"/NAME": bytes} of the files `names` of a checkpoint folder that exist: what playing it
    reads, for a copy elsewhere, keyed as suffixes of the folder's path (a copy at BASE is
    BASE/NAME)."""
    return {f"/{n}": (folder / n).read_bytes() for n in names if (folder / n).is_file()}


def sidecar_hashes(path: str | Path, meta: dict[str, Any]) -> dict[str, str]:
    """{part: SHA-256} of the files the sidecar of checkpoint `path` lists (module docstring)."""
    side = Path(f"{base_path(path)}.json")
    files = meta.get("files")
    if not isinstance(files, dict):
        raise CheckpointError(
            f"{side}: 'files' must map {', '.join(PARTS)} to SHA-256 digests, got {files!r}"
        )
    out: dict[str, str] = {}
    for key, digest in files.items():
        part = _part_of(str(key))
        if part is None:
            raise CheckpointError(
                f"{side}: 'files' lists {key!r}, not a checkpoint part ({', '.join(PARTS)})"
            )
        if out.setdefault(part, digest) != digest:
            raise CheckpointError(f"{side}: 'files' lists two different SHA-256 for {part}")
    return out


def verify_files(path: str | Path, meta: dict[str, Any], names: tuple[str, ...]) -> None:
    """Check the SHA-256 of every part the sidecar lists that exists; the parts in `names`
    (suffixes, e.g. (".zip",)) must also be listed and exist."""
    base = base_path(path)
    hashes = sidecar_hashes(path, meta)
    for suffix in names:
        if suffix not in hashes:
            raise CheckpointError(f"{base}.json: lists no SHA-256 for {base.name}{suffix}")
    for suffix, digest in hashes.items():
        f = Path(f"{base}{suffix}")
        if not f.exists():
            if suffix in names:
                raise CheckpointError(f"{base}: missing {f.name}")
            continue
        if digest != file_sha256(f):
            raise CheckpointError(
                f"{f}: contents do not match the sidecar's SHA-256 (corrupt, truncated or "
                "replaced file)"
            )


def load_checkpoint(
    path: str | Path,
    game: ModuleType | None = None,
    players: int | None = None,
    env=None,
    device: str = "cpu",
    any_rules: bool = False,
):
    """(MaskablePPO model, sidecar) after checking the sidecar (with `any_rules` not its rules
    data) and every listed file's hash."""
    meta = read_sidecar(path)
    check_sidecar(meta, game, players, where=str(path), any_rules=any_rules)
    verify_files(path, meta, (".zip",))
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(f"{base_path(path)}.zip", env=env, device=device)
    return model, meta


def load_actor(
    path: str | Path,
    game: ModuleType | None = None,
    players: int | None = None,
    any_rules: bool = False,
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(actor arrays, sidecar) of a checkpoint, checked (the .zip too, when present; with
    `any_rules` not its rules data, check_sidecar); never unpickles anything."""
    meta = read_sidecar(path)
    check_sidecar(meta, game, players, where=str(path), any_rules=any_rules)
    verify_files(path, meta, (".policy.npz",))
    with np.load(f"{base_path(path)}.policy.npz", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return arrays, meta
