"""Imports point down only (README, Layout): each layer, imported alone, loads nothing above it."""

import json
import subprocess
import sys

import pytest

# layer -> our modules it may load (prefixes)
ALLOWED = {
    "games": ("games",),
    "tuner.strategies": ("games", "tuner", "tuner.strategies"),
    "search": ("games", "tuner", "tuner.strategies", "search"),
    "tuner": ("tuner",),
}
OURS = ("games", "search", "nets", "tuner")


@pytest.mark.parametrize("layer", ALLOWED)
def test_a_layer_imports_nothing_above_it(layer):
    code = f"import json, sys, {layer}; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    ours = [m for m in loaded if m.split(".")[0] in OURS]
    above = [m for m in ours if not any(m == a or m.startswith(a + ".") for a in ALLOWED[layer])]
    assert above == [], f"importing {layer} loads {above}"
    if layer == "tuner.strategies":
        assert "cma" not in loaded  # pycma is imported on first use of CMA-ES only
