"""A local web viewer of stored games: `python -m training.view --db FILE` (docs/viewer.md).

positions.py  a state -> the position JSON: the game's own view (GameSpec.view) or the generic one
api.py        the JSON payloads: store summary, filtered game list, one game's replay
server.py     the HTTP server (standard library): routes, validation, responses
static/       the page, its script and style sheet (no build step, no external URL)
"""
