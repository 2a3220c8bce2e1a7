"""The OptunaHub packages (hub/package/samplers/sparring_NAME, OptunaHub's registry layout): one for every named
sampler of `tuner.samplers`, each a thin wrapper (the same class), with the files and README sections OptunaHub asks
for; each loads with `optunahub.load_local_module` and its README's example runs on a plain Optuna objective."""

import re
from pathlib import Path

import optuna
import pytest

import tuner.samplers

optunahub = pytest.importorskip("optunahub", reason="needs the optunahub package (the test extra installs it)")
optuna.logging.set_verbosity(optuna.logging.WARNING)

REGISTRY_ROOT = Path(__file__).resolve().parent.parent / "hub" / "package"
NAMED = {cls.removesuffix("Sampler").lower(): cls for cls in tuner.samplers.__all__[1:]}  # ntbea: NTBEASampler


def test_every_named_sampler_has_a_package_and_every_package_a_sampler():
    packages = sorted(p.name for p in (REGISTRY_ROOT / "samplers").iterdir() if p.is_dir())
    assert packages == sorted(f"sparring_{name}" for name in NAMED)


@pytest.mark.parametrize("name", NAMED)
def test_a_package_has_optunahubs_files_and_front_matter(name):
    folder = REGISTRY_ROOT / "samplers" / f"sparring_{name}"
    assert {p.name for p in folder.iterdir() if not p.name.startswith(("_", "."))} >= {"README.md", "LICENSE"}
    text = (folder / "README.md").read_text()
    front = text.split("---\n")[1]
    keys = dict(line.split(": ", 1) for line in front.strip().splitlines())
    assert set(keys) == {"author", "title", "description", "tags", "optuna_versions", "license"}
    assert "sampler" in keys["tags"] and optuna.__version__ in keys["optuna_versions"]
    assert all(f"\n## {section}\n" in text for section in ("Abstract", "APIs", "Installation", "Example"))
    assert "<" not in text.replace("<=", "")  # OptunaHub strips HTML tags: none
    assert "Apache License" in (folder / "LICENSE").read_text()


@pytest.mark.parametrize("name", NAMED)
@pytest.mark.slow
def test_a_package_loads_the_projects_own_sampler_and_runs_its_readme_example(name, capsys):
    package = f"samplers/sparring_{name}"
    module = optunahub.load_local_module(package=package, registry_root=str(REGISTRY_ROOT))
    assert getattr(module, NAMED[name]) is getattr(tuner.samplers, NAMED[name])  # one source of truth
    text = (REGISTRY_ROOT / package / "README.md").read_text()
    (example,) = re.findall(r"```python\n(.*?)```", text, re.S)
    remote = f'optunahub.load_module(package="{package}")'
    assert remote in example
    local = f'optunahub.load_local_module(package="{package}", registry_root={str(REGISTRY_ROOT)!r})'
    exec(example.replace(remote, local), {"__name__": "example"})  # the README's code, run as a reader would
    assert "'x'" in capsys.readouterr().out
