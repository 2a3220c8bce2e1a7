"""Study folders: off-line tuning of an agent's parameters, reproducible from `study.toml` (DESIGN section 7).

- `spec`: the study.toml schema, its validation and templates;
- `objective`: what a trial measures (matches against the opponents, reduced to one number);
- `sampling`: which Optuna sampler each study strategy is (ours through `tuner.samplers`, Optuna's, skopt's);
- `storage`: the Optuna storage (journal file or PostgreSQL), locks and crash recovery;
- `runner`: running a study with workers, and its status;
- `report`: Markdown reports with plots, and comparisons of strategies;
- `recommend`, `validate`: the final recommendation, and its replay with fresh games;
- `truth`, `regret`: a dense ground truth, and strategies scored by the true value of what they recommend.
"""

__all__ = ["StudyError", "StudySpec", "run", "status", "write_comparison", "write_report"]


def __getattr__(name):
    """The names above, each imported with its module on first use: a command that runs no study never loads
    Optuna, SQLAlchemy or matplotlib."""
    if name in ("StudyError", "StudySpec"):
        from tuner.study import spec as module
    elif name in ("run", "status"):
        from tuner.study import runner as module
    elif name in ("write_comparison", "write_report"):
        from tuner.study import report as module
    else:
        raise AttributeError(f"module 'tuner.study' has no attribute {name!r}")
    return getattr(module, name)
