"""OptunaHub package: sparring's NTBEASampler, one source of truth in tuner.samplers (sparring installed)."""

from tuner.samplers import NTBEASampler

__all__ = ["NTBEASampler"]
