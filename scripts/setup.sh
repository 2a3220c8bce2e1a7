#!/usr/bin/env bash
# Create .venv and install sparring with its test extra. Usage: bash scripts/setup.sh
# torch is pinned to 2.13.0 first: on our build machines pip takes the CPU build that lies on disk,
# so nothing pulls a multi-GB CUDA build; elsewhere pip installs PyPI's 2.13.0 as usual.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install -qq -e ".[test]"  # -qq: not setuptools' boxed notice on editable installs
