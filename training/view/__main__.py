"""python -m training.view --db FILE [--port P] [--host H [--public]]: serve the viewer of a game
store (on a loopback address unless --public says the page may be reachable by others).

python -m training.view --play --game G --players P --agents SPEC [SPEC ...] --db FILE [--seed S]:
also play in the browser against agents (one of the specs is `human`: your seat); every finished
game goes into the store (created if missing) and can be replayed like any other.
"""

from __future__ import annotations

import argparse
import signal
import sys

from core.registry import GameNotAvailableError, get_game
from training.arena.cli import OneLineParser
from training.arena.store import GameStore, StoreError


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m training.view",
        description="A local web viewer of the games in a store written by "
        "training.arena.tournament "
        "(docs/viewer.md): a game list with filters and a replay of each game; with --play, "
        "games against agents played in the browser.",
    )
    p.add_argument("--db", required=True, help="a game store (SQLite) written by a tournament")
    p.add_argument(
        "--play",
        action="store_true",
        help="play in the browser against agents (needs --game, --players, --agents)",
    )
    p.add_argument("--game", help="with --play: the game (any registered game, e.g. village)")
    p.add_argument("--players", type=int, help="with --play: the number of seats")
    p.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        help="with --play: one agent spec per seat, in seat order; exactly one is 'human' "
        "(your seat), the others any spec training.arena.tournament accepts",
    )
    p.add_argument(
        "--seed", type=int, help="with --play: base seed of the deals (default: a fresh one)"
    )
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only; the viewer has no login); "
        "any loopback address (127.x.x.x, ::1, localhost), another one only with --public",
    )
    p.add_argument(
        "--public",
        action="store_true",
        help="allow a --host that is not a loopback address (e.g. 0.0.0.0): anyone who can reach "
        "it can read the store (and, with --play, play games into it); there is no login",
    )
    return p


def _error(parser: argparse.ArgumentParser, message: str) -> int:
    """The one-line refusal, named as the user called the tool (`vtrl view` or `python -m`)."""
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    return 2


def _play_host(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """The PlayHost of --play (argparse errors for a bad combination), or None."""
    play_only = ("game", "players", "agents", "seed")
    if not args.play:
        given = [f"--{k}" for k in play_only if getattr(args, k) is not None]
        if given:
            parser.error(f"{', '.join(given)} only go with --play")
        return None
    missing = [f"--{k}" for k in ("game", "players", "agents") if getattr(args, k) is None]
    if missing:
        parser.error(f"--play needs {', '.join(missing)}")
    from training.agents.checkpoint import CheckpointError
    from training.agents.registry import AgentSpecError
    from training.view.play import PlayConfig, PlayHost, check_specs, prepare_store

    try:
        game = get_game(args.game)
    except (GameNotAvailableError, ValueError, KeyError) as e:
        parser.error(f"--game: {e}")
    try:
        check_specs(game, args.players, list(args.agents))
        config = PlayConfig(game, tuple(args.agents), args.db, args.seed)
        host = PlayHost(config)
    except (ValueError, AgentSpecError, CheckpointError) as e:
        parser.error(str(e))
    try:
        prepare_store(args.db, game)
    except (StoreError, OSError) as e:
        parser.error(f"--db: {e}")
    return host


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        return _error(parser, "--port must be 0..65535")
    from training.view.server import ServeError, check_address, make_server

    try:  # before --play creates the store: a refused address changes nothing
        check_address(args.host, args.public)
    except ServeError as e:
        return _error(parser, str(e))
    play = _play_host(parser, args)

    try:
        game = get_game(GameStore.game_of(args.db))
        if play is not None and game.NAME != play.config.game.NAME:
            raise StoreError(f"{args.db} holds {game.NAME} games, not {play.config.game.NAME}")
        server = make_server(args.db, game, args.host, args.port, play=play, public=args.public)
    except (StoreError, GameNotAvailableError, OSError, ServeError) as e:
        return _error(parser, str(e))
    what = "play and view" if play is not None else "games of"
    print(f"{game.NAME} {what} {args.db}: serving on {server.url}  (Ctrl-C stops)", flush=True)
    policy = server.policy
    if not policy.loopback:
        where = f"port {policy.port} of this machine" if policy.wildcard else server.url
        also = " and play games into it" if play is not None else ""
        print(
            f"python -m training.view: warning: --public: the viewer has no login; anyone who "
            f"can reach {where} can read this store{also}",
            file=sys.stderr,
            flush=True,
        )
    # SIGTERM stops the server like Ctrl-C: a game being recorded is written whole, and the store
    # is closed with nothing left beside it
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
        if play is not None:
            play.close()
        server.viewer.close()
    return 0


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
