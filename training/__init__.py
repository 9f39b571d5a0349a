"""What is built on the games: agents, the arena, learning, balance studies and the viewer.

Each subsystem is a package; dependencies point one way (core -> games -> agents -> arena ->
learn / balance / view; tests/test_import_layers.py checks it):

agents/   the agent registry (`make_agent` from a spec string), checkpoints, trained policies
          played in numpy (our own and RLlib's); the bots themselves are core.bots and the games'
arena/    agents playing each other: evaluate, tournaments, the game store, ratings, leaderboards,
          replay, the Ray backend (no torch needed)
learn/    MaskablePPO self-play (train, the single-seat and batch envs, the main job) and RLlib
balance/  balance studies of stored games (python -m training.balance)
view/     the browser viewer of stored games and play against agents (python -m training.view)
"""
