"""Doors to other libraries' APIs for every registered game (optional extras): OpenSpiel
(`interop.openspiel`, extra `[openspiel]`)."""
