"""python -m training.view --db FILE [--port P] [--host H]: serve the viewer of a game store."""

from __future__ import annotations

import argparse
import sys

from training.games import GameNotAvailableError, get_game
from training.store import GameStore, StoreError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.view",
        description="A local web viewer of the games in a store written by training.tournament "
        "(docs/viewer.md): a game list with filters and a replay of each game.",
    )
    p.add_argument("--db", required=True, help="a game store (SQLite) written by a tournament")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only; the viewer has no login)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        print("python -m training.view: error: --port must be 0..65535", file=sys.stderr)
        return 2
    from training.view.server import make_server

    try:
        game = get_game(GameStore.game_of(args.db))
        server = make_server(args.db, game, args.host, args.port)
    except (StoreError, GameNotAvailableError, OSError) as e:
        print(f"python -m training.view: error: {e}", file=sys.stderr)
        return 2
    print(f"{game.NAME} games of {args.db}: serving on {server.url}  (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        server.viewer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
