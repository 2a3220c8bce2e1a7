"""Tuning, matches and the command line, in layers (this package imports none of them itself).

- `tuner.strategies`: allocation strategies and parameter spaces, the lower layer that the compiled
  search runs per simulation (it depends on `games` only);
- above `search` and `nets`: `tuner.match` (matches, records, ratings), `tuner.study` (off-line
  tuning in study folders) and `tuner.cli` (the `sparring` command).
"""
