#!/usr/bin/env bash
# Copyright 2026 mech-catalogue contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Make a fresh machine (or a fresh clone) ready: Python environment, pinned tools, synced
# third-party AEA packages. Idempotent; every step is skipped when already done:
#   1. .venv from requirements.txt + requirements-lint.txt (skipped while the stamp
#      .venv/.requirements.sha256 matches those files),
#   2. the mech-catalogue-core library and the mech-catalogue CLI, installed editable
#      (libs/mech-catalogue-core/pyproject.toml, pyproject.toml; skipped while .venv's
#      `mech_catalogue_core` and `mech_catalogue_cli` already are this checkout's),
#   3. scripts/install_tools.sh (anvil, solc, kubo, tendermint, addlicense into .tools/),
#   4. scripts/sync_packages.py (third-party packages into packages/, verified).
#   5. Debian's chromium and chromium-driver for the catalogue page's browser test
#      (tests/browser.py), with apt-get when run as root; otherwise it says what to
#      install, and that test skips saying it too.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
VENV="$REPO_ROOT/.venv"
STAMP="$VENV/.requirements.sha256"
REQUIREMENTS=(requirements.txt requirements-lint.txt)

die() { echo "setup: $*" >&2; exit 1; }

PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
    for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 \
            && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
            PYTHON="$candidate"
            break
        fi
    done
fi
[ -n "$PYTHON" ] || die "missing prerequisite 'python3.11': install Python 3.11 (https://www.python.org/downloads/, pyenv, or apt-get install python3.11 python3.11-venv)"

# `--venv-only` (`make venv`): the bare .venv and nothing else, all `make dist` needs to
# build the two pure-Python wheels (pip fetches their build backend itself).
if [ "${1:-}" = "--venv-only" ]; then
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    exit 0
fi

step_start=0
step() { step_start=$(date +%s); echo "== $1"; }
done_step() { echo "   ($(( $(date +%s) - step_start )) s)"; }
# A step's lines (its errors too) indented under it as they come: sed buffers its
# output when it goes to a file or a pipe, so a log showed nothing for minutes.
indented() { while IFS= read -r line || [ -n "$line" ]; do printf '   %s\n' "$line"; done; }
total_start=$(date +%s)

step "Python environment (.venv)"
wanted="$(cat "${REQUIREMENTS[@]}" | sha256sum | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$wanted" ]; then
    echo "   requirements unchanged, skipped"
else
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "pip==26.3"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        -r requirements.txt -r requirements-lint.txt
    "$VENV/bin/python" -m pip check
    echo "$wanted" >"$STAMP"
fi
done_step

step "mech-catalogue-core library and CLI (editable installs: .venv/bin/mech-catalogue)"
LIBRARY="$REPO_ROOT/libs/mech-catalogue-core"
origin() {
    (cd / && env -u PYTHONPATH "$VENV/bin/python" -c \
        "import importlib.util as u; s = u.find_spec('$1'); print(s.origin if s else '')" \
        2>/dev/null || true)
}
# a new version or entry point in either pyproject.toml needs a new install
EDITABLE_STAMP="$VENV/.editable.sha256"
editable_wanted="$(cat pyproject.toml "$LIBRARY/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [ -x "$VENV/bin/mech-catalogue" ] \
    && [ "$(origin mech_catalogue_cli)" = "$REPO_ROOT/mech_catalogue_cli/__init__.py" ] \
    && [ "$(origin mech_catalogue_core)" = "$LIBRARY/mech_catalogue_core/__init__.py" ] \
    && [ "$(cat "$EDITABLE_STAMP" 2>/dev/null)" = "$editable_wanted" ]; then
    echo "   already installed from this checkout, skipped"
else
    # --no-deps: the pins in requirements.txt are installed above. setuptools warns at
    # each editable build (twice here) that a folder named like the package in the working
    # directory may shadow it: here that folder is the package itself, so the banner only
    # alarms; it is silenced by its message (no setuptools import needed to match it).
    PYTHONWARNINGS="ignore:Editable installation" \
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        -e "$LIBRARY" -e .
    echo "$editable_wanted" >"$EDITABLE_STAMP"
fi
done_step

step "Tools (.tools: anvil, solc, kubo, tendermint)"
bash scripts/install_tools.sh 2>&1 | indented
done_step

step "Third-party AEA packages (packages/valory, packages/open_aea)"
"$VENV/bin/python" -m scripts.sync_packages 2>&1 | indented
done_step

step "Browser for the catalogue page's test (Debian's chromium, chromium-driver)"
BROWSER_PACKAGES=(chromium chromium-driver)
if [ -x /usr/bin/chromium ] && [ -e /usr/bin/chromedriver ]; then
    echo "   already installed, skipped"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    # the package lists may be missing or old on a fresh machine: update once on failure
    if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${BROWSER_PACKAGES[@]}" >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null 2>&1 \
            && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${BROWSER_PACKAGES[@]}" >/dev/null 2>&1; }; then
        echo "   installed ${BROWSER_PACKAGES[*]}"
    else
        echo "   apt-get could not install ${BROWSER_PACKAGES[*]}; the page's browser test will skip"
    fi
else
    echo "   missing: run \`apt-get install ${BROWSER_PACKAGES[*]}\` as root (Debian); until then the page's browser test skips"
fi
done_step

echo "== ready in $(( $(date +%s) - total_start )) s"
