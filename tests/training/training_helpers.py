"""Shared bits of the training tests."""

from core.registry import game_names

GAMES = game_names()  # every registered game (core.registry)
