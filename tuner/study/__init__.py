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

_EXPORTS = {  # name: its module, imported on first use: a command that runs no study never loads Optuna or matplotlib
    "StudyError": "spec",
    "StudySpec": "spec",
    "run": "runner",
    "status": "runner",
    "write_comparison": "report",
    "write_report": "report",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f"tuner.study.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'tuner.study' has no attribute {name!r}")
