"""Troyes (Pearl Games, 2010): engine in progress."""
