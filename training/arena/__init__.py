"""Agents playing each other, stored and rated: `evaluate` (head-to-head win rates),
`tournament` (line-ups, resumable, process or Ray backends), `jobs` (one scheduled game),
`store` (SQLite), `ratings` and `leaderboard`, `replay` (re-simulate and verify), `ray_backend`,
`progress`. Needs no torch."""
