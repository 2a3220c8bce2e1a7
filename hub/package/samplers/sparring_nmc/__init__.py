"""OptunaHub package: sparring's NMCSampler, one source of truth in tuner.samplers (sparring installed)."""

from tuner.samplers import NMCSampler

__all__ = ["NMCSampler"]
