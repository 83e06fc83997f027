#!/usr/bin/env bash
# The Python package's lints and tests: `cargo fmt --check` and `cargo
# clippy` of its crate (a workspace of its own), then a virtual environment
# (target/python-venv, made if missing) with maturin, numpy, pytest,
# OpenSpiel, PettingZoo and Ray at the versions python/requirements-test.txt
# pins, the package built by that maturin and installed from python/, and
# its tests (tests/python) run there (Ray's on a local cluster of two
# CPUs). Compiled games are built in target/python-cache (the
# first build also builds PyO3). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

cargo fmt --manifest-path python/Cargo.toml -- --check
cargo clippy --manifest-path python/Cargo.toml --all-targets -- -D warnings

VENV=$ROOT/target/python-venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet -r python/requirements-test.txt
# maturin's build backend runs the `maturin` the environment installed.
PATH="$VENV/bin:$PATH" "$VENV/bin/pip" install --quiet --no-build-isolation ./python
cd tests/python
GDLC_CACHE_DIR=$ROOT/target/python-cache "$VENV/bin/python" -m pytest -q "$@"
