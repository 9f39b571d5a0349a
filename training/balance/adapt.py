"""Learned agents adapted to a rules variant, for balance studies that ask how play changes when
players know the new rule (`--adapt MINUTES` of python -m training.balance, its sweep and its
tuning).

For each `az` agent of a study and each variant, the agent's network is fine-tuned under the
variant by expert iteration (training.alphazero: `--rules FILE --init NETWORK --hours M/60`) with
the recipe its sidecar records (the settings it was trained with: games, simulations, opponent,
learning rate...; the trainer's defaults where none is recorded), one self-play worker, no ladder,
seed 0. The result is written to the adaptation cache (default: `adapted/` beside the game store)
in a folder named for a digest of what decides it: the game, player count, the variant's rules
data hash, the parent network's SHA-256, the minutes, the recipe and the seed. A folder that holds
a finished adaptation (its `adapt.json` written last) is used as it is, so a rerun adapts nothing
again, while a changed variant or parent network adapts again. Fine-tuning stops on a wall-clock
budget, so how far it gets depends on the machine: the cached network is what makes a rerun
repeat the same games.

A conditioned network (one that reads the rules data, training.alphazero.conditioned) needs no
fine-tuning under a variant inside its game's variant space: it plays the variant reading its
rules, and its unadapted self is the same network blind to them (`rules=any`); such an agent is
paired so (`how`: "conditioned") with or without `--adapt`, and `--adapt` fine-tunes the other
`az` agents. A variant outside the space leaves a conditioned network to its own refusal.

Bots (`heuristic`, `mcts`, ...) do not learn and play every study as they are. A study with
another learned agent (a PPO or RLlib checkpoint) under `--adapt` is refused: fine-tune it under
the variant with its own trainer (`python -m training.learn.train --rules FILE --init-from PATH`)
and pass it by path.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable

from core.registry import get_game
from core.rules_file import rules_file_data, rules_file_loaded
from core.variant_space import space_of
from training.agents.az_agent import (
    NETWORK,
    is_conditioned,
    network_folder,
    shipped_network,
    split_params,
)
from training.agents.checkpoint import ANY_RULES, file_sha256, split_any_rules
from training.agents.registry import checkpoint_sidecar

MAX_MINUTES = 24 * 60
DONE = "adapt.json"  # written last: a folder without it is an unfinished adaptation
# the settings of a network's own training that its fine-tune keeps (AZConfig field names)
RECIPE = (
    "games", "sims", "root", "m", "cscale", "explore", "noise", "mix", "qmix", "opponent",
    "opponent_share", "c", "opp", "returns", "buffer", "batch", "steps", "lr", "weight_decay",
)  # fmt: skip
SEED = 0


@dataclass(frozen=True)
class Adapted:
    """One agent of a study under one variant: its spec as given, the spec that plays its network
    unadapted under the variant (`fixed`), the adapted network's spec and folder."""

    spec: str
    fixed: str
    adapted: str
    folder: Path
    record: dict[str, Any]  # how: "fine-tuned" (the adaptation's record) or "conditioned"

    @property
    def conditioned(self) -> bool:
        return self.record.get("how") == "conditioned"


def is_az(spec: str) -> bool:
    return spec == "az" or spec.startswith("az:")


def check_minutes(minutes: float) -> float:
    if not 0 < minutes <= MAX_MINUTES:
        raise ValueError(f"--adapt must be in (0, {MAX_MINUTES}] minutes, got {minutes:g}")
    return float(minutes)


def check_adaptable(agents: list[str]) -> list[str]:
    """The `az` agents of a study (what --adapt fine-tunes); ValueError for another learned
    agent, which --adapt would otherwise leave unadapted without a word."""
    for spec in agents:
        if (
            not is_az(spec) and checkpoint_sidecar(spec) is not None
        ):  # az: fine-tuned or conditioned
            raise ValueError(
                f"--adapt fine-tunes az networks; {spec} is another learned agent: fine-tune it "
                "under the variant with its own trainer (python -m training.learn.train --rules "
                "FILE --init-from PATH) and pass it by path"
            )
    return [s for s in dict.fromkeys(agents) if is_az(s)]


def fixed_field(agents: list[str], minutes: float) -> list[str]:
    """The agents as they play a variant unadapted under --adapt MINUTES: every az agent with
    `rules=any`, the rest as given; the minutes and the agents checked first (ValueError)."""
    check_minutes(minutes)
    check_adaptable(agents)
    return [fixed_spec(a) if is_az(a) else a for a in agents]


def _parts(spec: str) -> tuple[str, str]:
    """(network path or "" for the shipped one, the search parameters without rules=any)."""
    path, rest = split_params(spec[len("az:") :] if spec.startswith("az:") else "")
    rest, _any = split_any_rules(rest)
    return path, rest


def fixed_spec(spec: str) -> str:
    """`spec` told to play under rules data other than its network's own (`rules=any`)."""
    path, rest = _parts(spec)
    return "az:" + ",".join(x for x in (path, rest, ANY_RULES) if x)


def parent_folder(spec: str, game_name: str, players: int) -> Path:
    path, _rest = _parts(spec)
    game = get_game(game_name)
    return network_folder(path, game) if path else shipped_network(game, players)


def played_spec(spec: str) -> str:
    """`spec` as it plays reading the rules (without `rules=any`)."""
    path, rest = _parts(spec)
    return "az:" + ",".join(x for x in (path, rest) if x) if (path or rest) else "az"


def conditioned_network(spec: str, game_name: str, players: int) -> bool:
    """Whether `spec` is an `az` agent whose network reads the rules (a conditioned network)."""
    if not is_az(spec):
        return False
    folder = parent_folder(spec, game_name, players)
    return is_conditioned(json.loads((folder / "checkpoint.json").read_text()))


def conditioned_pair(spec: str, game_name: str, players: int, rules_file) -> Adapted | None:
    """The pair of a conditioned `az` agent under `rules_file` (module docstring): the network
    reading the variant's rules beside itself blind to them; None for another agent, or when
    the variant lies outside the network's space."""
    if not conditioned_network(spec, game_name, players):
        return None
    folder = parent_folder(spec, game_name, players)
    meta = json.loads((folder / "checkpoint.json").read_text())
    game = get_game(game_name)
    data, variant_hash = rules_file_data(rules_file, game_name)
    if space_of(game).outside(data, str(variant_hash)) is not None:
        return None
    record = {
        "how": "conditioned",
        "network": str(folder),
        "variant_space": meta["variant_space"].get("digest"),
        "variant_rules_data_hash": str(variant_hash),
    }
    return Adapted(spec, fixed_spec(spec), played_spec(spec), folder, record)


def reads_rules(agents: list[str], game_name: str, players: int, rules_file) -> bool:
    """Whether any agent of `agents` is a conditioned network that reads `rules_file`."""
    return any(conditioned_pair(a, game_name, players, rules_file) for a in dict.fromkeys(agents))


def recipe(folder: Path) -> dict[str, Any]:
    """The fine-tune settings from the network's sidecar (a shipped network's
    trained_from.training, a run checkpoint's training), RECIPE keys only."""
    meta = json.loads((folder / "checkpoint.json").read_text())
    settings = (meta.get("trained_from") or {}).get("training") or meta.get("training") or {}
    return {k: settings[k] for k in RECIPE if k in settings}


def adapt_key(game_name: str, players: int, rules_file, folder: Path, minutes: float) -> dict:
    """What decides an adaptation (the cache key's contents)."""
    _data, variant_hash = rules_file_data(rules_file, game_name)
    return {
        "game": game_name,
        "players": int(players),
        "variant_rules_data_hash": str(variant_hash),
        "parent_sha256": file_sha256(folder / NETWORK),
        "minutes": float(minutes),
        "recipe": recipe(folder),
        "seed": SEED,
    }


def key_digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def cached(folder: Path, key: dict) -> dict | None:
    """The finished adaptation's record in `folder` when its key is `key`, else None."""
    done = folder / DONE
    if not done.is_file():
        return None
    try:
        record = json.loads(done.read_text())
    except (OSError, ValueError):
        return None
    return record if record.get("key") == key else None


def fine_tune(key: dict, parent: Path, rules_file, folder: Path, say: Callable) -> dict:
    """Train the adapted network into `folder` (module docstring); its record."""
    from training.alphazero.loop import AZConfig, train
    from training.alphazero.ship import ship

    run = folder / "run"
    names = {f.name for f in fields(AZConfig)}
    settings = {k: v for k, v in key["recipe"].items() if k in names}
    meta = json.loads((parent / "checkpoint.json").read_text())
    cfg = AZConfig(
        game=key["game"],
        out=str(run),
        players=key["players"],
        hours=key["minutes"] / 60.0,
        workers=1,
        eval_every=0,
        init=f"az:{parent}",
        rules=str(rules_file),
        seed=key["seed"],
        hidden=tuple(int(h) for h in meta["network"]["hidden"]),
        **settings,
    )
    t0 = time.monotonic()
    summary = train(cfg, out=lambda line: None)
    with rules_file_loaded(rules_file, key["game"]):  # the network's own rules data
        net = ship(run, dest=folder / "network", search=str(meta.get("search") or ""))
    shutil.rmtree(run / "checkpoints", ignore_errors=True)  # the shipped copy is what plays
    shutil.rmtree(run / "final", ignore_errors=True)
    record = {
        "how": "fine-tuned",
        "key": key,
        "parent": str(parent),
        "rules_file": str(rules_file),
        "network": str(net),
        "seconds": round(time.monotonic() - t0, 1),
        "iterations": summary.get("iterations"),
        "games": summary.get("games"),
    }
    (folder / DONE).write_text(json.dumps(record, indent=1) + "\n")
    say(
        f"adapted {key['game']} network {parent} to rules data {key['variant_rules_data_hash']} "
        f"in {record['seconds']:.0f} s -> {net}"
    )
    return record


def adapt(
    agents: list[str],
    game_name: str,
    players: int,
    rules_file,
    minutes: float | None,
    cache: str | Path,
    say: Callable = print,
) -> list[Adapted]:
    """The adapted version of every `az` agent of `agents` under `rules_file`: a conditioned
    network reading the variant (conditioned_pair), any other fine-tuned now or found in `cache`
    (with `minutes`; without, it is left out: it plays the variant fixed)."""
    out = []
    learned = check_adaptable(agents) if minutes is not None else [a for a in agents if is_az(a)]
    for spec in dict.fromkeys(learned):
        pair = conditioned_pair(spec, game_name, players, rules_file)
        if pair is not None:
            say(f"{spec} reads the rules of {rules_file} (a conditioned network): no fine-tuning")
            out.append(pair)
            continue
        if minutes is None:
            continue
        if conditioned_network(spec, game_name, players):
            raise ValueError(
                f"{spec} reads the rules, and {rules_file} lies outside its variant space; "
                "fine-tuning a conditioned network under one variant is not supported: play it "
                f"blind to the rules ({fixed_spec(spec)}) or adapt a per-count network "
                f"(az:az-{players}p)"
            )
        parent = parent_folder(spec, game_name, players)
        key = adapt_key(game_name, players, rules_file, parent, check_minutes(minutes))
        folder = Path(cache) / f"{game_name}-{players}p-{key_digest(key)}"
        record = cached(folder, key)
        if record is None:
            if folder.exists():  # an unfinished adaptation: start it again
                shutil.rmtree(folder)
            say(
                f"adapting {spec} to {rules_file} for {minutes:g} min of wall-clock ({folder}; "
                "how far it gets depends on the machine, the cached network makes reruns repeat)"
            )
            record = fine_tune(key, parent, rules_file, folder, say)
        else:
            say(f"adapted {spec} to {rules_file}: found in {folder}")
        _path, rest = _parts(spec)
        adapted = "az:" + ",".join(x for x in (str(folder / "network"), rest) if x)
        out.append(Adapted(spec, fixed_spec(spec), adapted, folder, record))
    return out


def add_adapt_arguments(p) -> None:
    """--adapt MINUTES and --adapt-cache DIR (python -m training.balance and its sweep)."""
    p.add_argument(
        "--adapt",
        type=float,
        metavar="MINUTES",
        help="also fine-tune every az agent under each variant for MINUTES of wall-clock and "
        "report the strategic response (fixed vs adapted agents; training.balance.adapt)",
    )
    p.add_argument(
        "--adapt-cache",
        metavar="DIR",
        help="where adapted networks are kept and found again (default: adapted/ beside --db)",
    )


def default_cache(db: str | Path) -> Path:
    """The adaptation cache beside a study's game store."""
    return Path(db).resolve().parent / "adapted"
