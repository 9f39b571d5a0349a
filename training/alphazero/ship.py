"""Ship a trained network inside its game's package, where `az` with no path finds it.

    python -m training.alphazero.ship runs/az-troyes            # its final/ (or newest checkpoint)
    python -m training.alphazero.ship runs/az-troyes/checkpoints/iter_00420 --dest /tmp/net

The network folder is checked first (training.agents.az_agent: sidecar, fingerprint, SHA-256),
then written to `<game package>/networks/az-<N>p/` (N: the player count it was trained at; a
conditioned network, trained over the game's variant space at several counts: `networks/az/`) as
`network.npz` and a new sidecar: the same game fingerprint and network, without the torch state
(playing needs none), with `trained_from` (the source folder's iteration, seconds and training
settings, the command that reproduces the run and, for a run started from another network, that
network's record) and `search` (the source's, with `--search`'s parameters over it:
the guided search's parameters `az` plays it with unless its spec says otherwise). An existing
shipped network of that count is replaced only with `--replace`. A shipped network shipped
again (to change its `search`) keeps its `trained_from`:

    python -m training.alphazero.ship troyes_env/networks/az-4p --search "mix=0.5,opp=prior" \
        --replace
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from core.registry import get_game
from training.agents.az_agent import (
    CONDITIONED,
    checkpoint_dir,
    is_conditioned,
    load_network,
    per_count_name,
    search_config,
    shipped_folder,
    write_network,
)
from training.agents.checkpoint import CheckpointError


def training_command(settings: dict[str, Any]) -> str:
    """The `python -m training.alphazero` command line of a run's settings (its config): a flag
    for each setting the command line takes (a setting it has no flag for, such as the weight
    decay, is at the trainer's default), `--fixed-threads` for a run that kept its threads."""
    from dataclasses import fields

    from training.alphazero.loop import AZConfig, build_parser

    flags = {a.dest: a.option_strings[0] for a in build_parser()._actions if a.option_strings}
    skip = {"out", "iterations"} if settings.get("iterations", 0) == 0 else {"out"}
    order = [f.name for f in fields(AZConfig)]
    keys = sorted(settings, key=lambda k: order.index(k) if k in order else len(order))
    parts = ["python -m training.alphazero"]
    for key in keys:
        value = settings[key]
        if key == "adapt_threads":  # the flag says the opposite: --fixed-threads
            parts += [] if value is not False else ["--fixed-threads"]
            continue
        if key == "conditioned":  # a switch
            parts += ["--conditioned"] if value else []
            continue
        if key in skip or value in ("", ()) or key not in flags:  # empty: the default, no flag
            continue
        if isinstance(value, (list, tuple)):
            sep = "," if key in ("hidden", "counts", "count_shares") else " "
            parts.append(f"{flags[key]} {sep.join(str(v) for v in value)}")
        else:
            parts.append(f"{flags[key]} {value}")
    return " ".join(parts + ["--out RUN"])


def ship(
    source: str | Path,
    dest: str | Path | None = None,
    replace: bool = False,
    search: str = "",
    search_at: dict[int, str] | None = None,
) -> Path:
    """Check the network `source` names and write it as a shipped network (module docstring);
    `search`: the guided search's parameters `az` plays it with by default (default: the
    source's own); `search_at` {count: parameters}: where a count plays otherwise (a conditioned
    network's `search_by_players`). Returns the folder written."""
    folder = checkpoint_dir(source)
    arrays, meta = load_network(folder)
    game = get_game(str(meta["game"]))
    conditioned = is_conditioned(meta)
    players = meta["players"] if conditioned else int(meta["players"])
    if dest is None:
        root = shipped_folder(game)
        if root is None:
            raise CheckpointError(f"{game.NAME}: its package cannot be located; pass --dest")
        dest = root / (CONDITIONED if conditioned else per_count_name(players))
    out = Path(dest)
    if out.exists() and not replace:
        raise CheckpointError(f"{out} exists; pass --replace to replace it")
    if out.exists():
        shutil.rmtree(out)
    settings = meta.get("training") or {}
    if not settings and meta.get("trained_from"):  # a shipped network, shipped again: its record
        trained_from = dict(meta["trained_from"])
    else:
        trained_from = {
            "iteration": meta.get("iteration"),
            "seconds": meta.get("seconds"),
            "training": settings,
            "command": training_command(settings) if settings else None,
        }
        if meta.get("init"):  # the network the run started from (--init): folder, SHA-256, ...
            trained_from["init"] = meta["init"]
    extra: dict[str, Any] = {"trained_from": trained_from}
    search = search or str(meta.get("search") or "")
    if search:
        extra["search"] = search_config(meta, search).spec()  # checked
    by = {
        **(meta.get("search_by_players") or {}),
        **{str(n): v for n, v in (search_at or {}).items()},
    }
    if by:
        extra["search_by_players"] = {
            n: search_config({**meta, "search": search}, v, None).spec()
            for n, v in sorted(by.items())
        }
    if conditioned:
        extra.update(players=list(players), variant_space=meta["variant_space"])
    count = min(players) if conditioned else players
    return write_network(out, arrays, game, count, meta["network"], meta["returns"], extra=extra)


def main(argv: list[str] | None = None) -> int:
    from training.arena.cli import OneLineParser

    p = OneLineParser(
        prog="python -m training.alphazero.ship",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("source", help="a network folder or run folder of training.alphazero")
    p.add_argument(
        "--dest", "--out", help="write here instead of the game package's networks/az-<N>p/"
    )
    p.add_argument("--replace", action="store_true", help="replace an existing shipped network")
    p.add_argument("--search", default="", help="az's default parameters for it, e.g. mix=0.5")
    p.add_argument(
        "--search-at",
        action="append",
        default=[],
        metavar="N=PARAMS",
        help="a conditioned network's parameters at N players where they differ, e.g. "
        "4=root=gumbel,opp=prior (repeatable)",
    )
    a = p.parse_args(argv)
    try:
        at = {}
        for item in a.search_at:
            n, sep, params = item.partition("=")
            if not sep or not n.strip().isdigit():
                raise ValueError(f"--search-at takes N=PARAMS, e.g. 4=opp=prior; got {item!r}")
            at[int(n)] = params
        out = ship(a.source, a.dest, a.replace, a.search, at)
    except (CheckpointError, ValueError) as e:
        p.error(str(e))
    print(json.dumps({"shipped": str(out)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
