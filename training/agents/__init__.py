"""Agents by name: the registry of agent specs (`registry.make_agent`), checkpoints of trained
policies (`checkpoint`), policies played in numpy (`policy`) and RLlib checkpoints as agents
(`rllib_agent`). Bots are core.bots and the game packages' own."""
