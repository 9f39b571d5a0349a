"""Compiled public-API entry points with exactly one signature each (`<game>_env/engine/api.py`).

A dispatcher compiled for one signature and then closed to compilation raises TypeError at
dispatch for any other argument types (a float, 2-D, strided or read-only state), which the
Python wrappers turn into their checked slow path, instead of compiling a new specialisation.
"""

from __future__ import annotations


def compile_exactly(dispatchers_and_signatures) -> None:
    """Compile (or load from numba's cache) each (dispatcher, signature) pair, then refuse every
    other specialisation. Called again with other table types, it adds their signatures."""
    for dispatcher, sig in dispatchers_and_signatures:
        dispatcher.disable_compile(False)
        dispatcher.compile(sig)
        dispatcher.disable_compile()
