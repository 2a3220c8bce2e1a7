"""Imports point down only (docs/architecture.md), read from the source: every import statement, function-local ones
included, of every module of our packages; no upward arrow and no cycle, between layers or between modules."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "search", "nets", "tuner")
# Bottom first: a module may import its own layer and the layers before it. Every package has a row (and so
# does each module directly in `tuner/`), so a new one has to be placed here before this test passes.
LAYERS = (
    "games",  # rules: states, kernels, encoders, evaluations
    "search",  # searches, move choice, strength adjusters; declares the evaluator and allocation-step protocols
    "nets",  # networks, the batched evaluator, self-play training, shipped nets
    "tuner",  # the package itself: nothing
    "tuner.provenance",  # what produced a number
    "tuner.strategies",  # allocation strategies and spaces, the steps the search is given
    "tuner.samplers",  # the strategies as Optuna samplers
    "tuner.agents",  # the composition root: spec strings to agents
    "tuner.match",  # arenas, intervals, ratings
    "tuner.yardsticks",  # a training run's yardstick matches and report
    "tuner.study",  # study folders
    "tuner.play",  # a person against the opponent
    "tuner.cli",  # the command line
)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def imports(name: str) -> set[str]:
    """Our modules that module `name` imports anywhere in its source (a `from X import y` counts as X.y where
    X.y is a module, else as X)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names)
    ours = set()
    for target in found:
        while target not in MODULES and "." in target:
            target = target.rpartition(".")[0]
        if target in MODULES and target != name:
            ours.add(target)
    return ours


def layer(name: str) -> str:
    """The row of LAYERS that module `name` belongs to: the longest row that is it or a package holding it."""
    rows = [row for row in LAYERS if name == row or name.startswith(row + ".")]
    return max(rows, key=len) if rows else ""


GRAPH = {name: imports(name) for name in MODULES}


def test_every_package_and_every_module_of_tuner_has_a_row():
    packages = {module_name(p.parent / "__init__.py") for p in ROOT.glob("*/**/__init__.py")}
    packages = {p for p in packages if p.split(".")[0] in PACKAGES}
    top_modules = {module_name(p) for p in (ROOT / "tuner").glob("*.py") if p.name != "__init__.py"}
    assert sorted((packages | top_modules) - set(LAYERS)) == []
    assert sorted(set(LAYERS) - set(MODULES)) == []


def test_no_import_points_up():
    rank = {row: i for i, row in enumerate(LAYERS)}
    upward = [
        f"{name} ({layer(name)}) imports {target} ({layer(target)})"
        for name, targets in GRAPH.items()
        for target in sorted(targets)
        if rank[layer(target)] > rank[layer(name)]
    ]
    assert upward == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


# names that load a module by name at run time; exec and eval count only as bare names (`model.eval()` is torch's)
RUN_TIME_IMPORTS = {"import_module", "__import__", "spec_from_file_location", "module_from_spec", "run_module"}
RUN_TIME_IMPORTS |= {"run_path", "resolve_name", "load_module"}
BUILTINS = {"exec", "eval"}


def names_used(tree) -> set[str]:
    """The run-time imports a module's source mentions: as names, attributes or imported names (aliases seen
    through), and exec or eval as bare names."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in RUN_TIME_IMPORTS:
            found.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(alias.name.rpartition(".")[2] for alias in node.names)
    return found & (RUN_TIME_IMPORTS | BUILTINS)


def test_no_import_hides_from_this_test():
    """An import by name at run time (importlib, runpy, pkgutil, exec) is an arrow the rules above cannot see."""
    hidden = {name: sorted(names_used(ast.parse(path.read_text()))) for name, path in MODULES.items()}
    assert {name: used for name, used in hidden.items() if used} == {}
    assert names_used(ast.parse("from importlib import import_module as im\nim('x')")) == {"import_module"}
    assert names_used(ast.parse("net.eval()")) == set() and names_used(ast.parse("eval('x')")) == {"eval"}


def test_no_cycle_between_modules():
    assert cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_cycle_and_the_layer_rule_an_upward_arrow():
    """The checks above can fail: a made-up graph with a cycle, and a real module placed below what it imports."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert "games.kernels" in GRAPH["search.mcts"] or "games.jit" in GRAPH["search.mcts"]
    assert "search.evaluator" in GRAPH["nets.shipped"]  # nets sits above search: its arrow points down


def test_the_command_line_loads_no_study_machinery_until_a_study_runs():
    """`sparring play`, `demo` and `--help` import tuner.cli: Optuna, SQLAlchemy and matplotlib (0.8 s) wait for a
    study (tuner.study imports its modules on first use)."""
    code = "import json, sys, tuner.cli; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert [m for m in ("optuna", "sqlalchemy", "matplotlib", "torch") if m in loaded] == []


@pytest.mark.parametrize("package", ["games", "search", "tuner", "tuner.strategies"])
def test_importing_a_layer_loads_nothing_above_it_and_no_torch(package):
    """What the static rule cannot see: what importing a package actually loads (pycma and torch are paid for on
    first use only)."""
    code = f"import json, sys, {package}; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    rank = {row: i for i, row in enumerate(LAYERS)}
    above = [m for m in loaded if m in MODULES and rank[layer(m)] > rank[layer(package)]]
    assert above == []
    assert "torch" not in loaded and "cma" not in loaded
