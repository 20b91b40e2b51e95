#!/usr/bin/env bash
# Prepares a fresh Debian 12 machine for weft: system packages (only the missing ones), a venv at
# .venv with the Python test and build dependencies, and weft itself built by scikit-build-core
# and installed into the venv. Idempotent: a second run with unchanged sources does no work.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

log() { printf 'setup: %s\n' "$*"; }

# System packages: ask apt only for what is missing, so a prepared machine needs no network.
missing=()
command -v python3 >/dev/null || missing+=(python3)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null || missing+=(python3-dev)
command -v g++ >/dev/null || missing+=(build-essential)
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing system packages: ${missing[*]}"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The venv and its Python packages.
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  python3 -m venv .venv
fi
py=.venv/bin/python
if ! "$py" -c 'import numpy, pytest, xdist, hypothesis, ml_dtypes, scikit_build_core, nanobind' 2>/dev/null; then
  log "installing Python packages into .venv"
  "$py" -m pip install -q --upgrade pip
  "$py" -m pip install -q numpy pytest pytest-xdist hypothesis ml_dtypes 'scikit-build-core>=0.10' 'nanobind>=2.0'
fi

# weft itself, rebuilt only when a source that goes into the wheel changed. The stamp is a hash of
# those files' contents; the build folder (build/<wheel tag>) keeps incremental rebuilds fast.
stamp_file=.venv/.weft-source-stamp
stamp=$(find src include python CMakeLists.txt pyproject.toml -type f \
          ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] && "$py" -c 'import weft' 2>/dev/null; then
  log "weft is up to date in .venv"
  exit 0
fi
log "building and installing weft into .venv"
# No build isolation: the venv already holds scikit-build-core and nanobind, and an isolated build
# would download them again on every install.
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} \
  "$py" -m pip install -q --no-build-isolation --no-deps "$repo"
"$py" -c 'import weft' >/dev/null
echo "$stamp" >"$stamp_file"
log "done: weft installed in .venv (try .venv/bin/python examples/vec_add.py)"
