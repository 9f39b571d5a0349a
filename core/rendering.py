"""The import hook of the rendered modules (core.codegen): installed when core is imported, it
answers ``import <package>.engine.<name>`` for a registered game package and a template name of
core.codegen with the rendering in the game's compile cache. Kept apart from core.codegen so
that importing core stays cheap and ``python -m core.codegen`` runs that module once."""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys


class RenderedModules(importlib.abc.MetaPathFinder):
    """Answers ``import <package>.engine.<name>`` for a registered game package and a name of
    TEMPLATES with the rendered file (`rendered_file`); every other import goes on to the next
    finder."""

    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if len(parts) != 3 or parts[1] != "engine":  # the cheap test first: every import asks
            return None
        from core.codegen import TEMPLATES, rendered_file
        from core.registry import game_packages

        if parts[2] not in TEMPLATES:
            return None
        if parts[0] not in game_packages().values():
            return None
        return importlib.util.spec_from_file_location(fullname, rendered_file(parts[2], parts[0]))


def install() -> None:
    """Put one `RenderedModules` at the front of ``sys.meta_path`` (once per process)."""
    if not any(isinstance(f, RenderedModules) for f in sys.meta_path):
        sys.meta_path.insert(0, RenderedModules())
