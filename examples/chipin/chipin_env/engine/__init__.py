"""The compiled Chip In engine: rules.py, the rules and the game contract over them
(core/game_contract.py). The step driver, the entry points, the full contract and the loops have
no files here: core renders them from its templates at first import (core.codegen)."""
