"""OptunaHub package: sparring's CMAESSampler, one source of truth in tuner.samplers (sparring installed)."""

from tuner.samplers import CMAESSampler

__all__ = ["CMAESSampler"]
