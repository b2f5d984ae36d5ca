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

# Install the project's pinned external tools into the git-ignored .tools/ folder:
#   .tools/bin/anvil        npm @foundry-rs/anvil (the binary ships in a per-platform package)
#   .tools/node_modules/solc npm solc (solcjs), run with node
#   .tools/bin/ipfs         kubo, built from the Go module proxy
#   .tools/bin/tendermint   Tendermint, built from the Go module proxy
#   .tools/bin/addlicense   Google's addlicense (licence headers), from the Go module proxy
# Versions come from scripts/toolchain.py (the single source). Idempotent: a tool whose
# pinned version is already in place is not touched, so a second run takes about a second.
#
# Why the Go tools are built this way and not with `go install module@version`:
#   - `go install` refuses modules whose go.mod has replace/exclude directives. kubo's has
#     them; kubo v0.43.x additionally replaces a dependency with a fork the Go proxy does not
#     serve, so v0.42.0 is the newest kubo that builds from the proxy alone.
#   - Tendermint's version list on the proxy (@v/list) answers 403, but the exact version
#     downloads.
#   So: `go mod download -json module@version` gives the module's source directory ("Dir"),
#   and `go build -mod=mod` there builds the command with the module's own go.mod.
# Built binaries are cached in ~/.cache/mech-catalogue/bin/<name>-<version> so that a fresh
# clone on the same machine (CI) copies them instead of rebuilding (minutes each, cold).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_DIR="$REPO_ROOT/.tools"
BIN_DIR="$TOOLS_DIR/bin"
CACHE_BIN="${MECH_CATALOGUE_CACHE:-$HOME/.cache/mech-catalogue}/bin"

die() { echo "install_tools: $*" >&2; exit 1; }
need() {  # need <command> <how to install>
    command -v "$1" >/dev/null 2>&1 || die "missing prerequisite '$1': $2"
}

need python3 "install Python 3.11 (https://www.python.org/downloads/ or apt-get install python3)"
need node "install Node.js >= 18 (https://nodejs.org/ or apt-get install nodejs)"
need npm "install npm (ships with Node.js; or apt-get install npm)"
need go "install Go >= 1.22 (https://go.dev/doc/install)"

# One interpreter start (a pyenv shim costs about a second): the five pinned versions.
read -r ANVIL_VERSION SOLC_VERSION KUBO_VERSION TENDERMINT_VERSION ADDLICENSE_VERSION < <(
    cd "$REPO_ROOT" && python3 -c 'from scripts import toolchain as t
print(t.ANVIL_VERSION, t.SOLC_VERSION, t.KUBO_VERSION, t.TENDERMINT_VERSION, t.ADDLICENSE_VERSION)'
)
[ -n "${ADDLICENSE_VERSION:-}" ] || die "cannot read the pinned versions from scripts/toolchain.py"

mkdir -p "$BIN_DIR" "$CACHE_BIN"

platform() {  # the @foundry-rs/anvil-<os>-<arch> suffix for this machine
    local os arch
    case "$(uname -s)" in
        Linux) os=linux ;;
        Darwin) os=darwin ;;
        *) die "unsupported OS $(uname -s) for @foundry-rs/anvil" ;;
    esac
    case "$(uname -m)" in
        x86_64 | amd64) arch=amd64 ;;
        aarch64 | arm64) arch=arm64 ;;
        *) die "unsupported CPU $(uname -m) for @foundry-rs/anvil" ;;
    esac
    echo "$os-$arch"
}

install_npm_tools() {
    local wanted="@foundry-rs/anvil@$ANVIL_VERSION solc@$SOLC_VERSION"
    local stamp="$TOOLS_DIR/.npm.versions"
    if [ -x "$BIN_DIR/anvil" ] && [ -f "$TOOLS_DIR/node_modules/solc/solc.js" ] \
        && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
        echo "anvil $ANVIL_VERSION, solc $SOLC_VERSION: already installed"
        return
    fi
    echo "anvil $ANVIL_VERSION, solc $SOLC_VERSION: npm install"
    # --ignore-scripts: anvil's postinstall only re-links the binary that npm already
    # unpacked from the platform package (an optionalDependency); we link it ourselves.
    # shellcheck disable=SC2086  # two package specs
    npm install --prefix "$TOOLS_DIR" --no-audit --no-fund --ignore-scripts --save-exact \
        $wanted >/dev/null
    local binary="node_modules/@foundry-rs/anvil-$(platform)/bin/anvil"
    [ -x "$TOOLS_DIR/$binary" ] || die "npm did not unpack $TOOLS_DIR/$binary (platform package missing?)"
    ln -sfn "../$binary" "$BIN_DIR/anvil"  # relative: survives moving the clone
    echo "$wanted" >"$stamp"
}

build_go_tool() {  # build_go_tool <name> <module> <version> <package path>
    local name="$1" module="$2" version="$3" pkg="$4"
    local cached="$CACHE_BIN/$name-$version" stamp="$BIN_DIR/.$name.version"
    if [ -x "$BIN_DIR/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
        echo "$name $version: already installed"
        return
    fi
    # The cache is the machine's: two clones set up at once take turns (flock, where the
    # system has it), and each builds into a file of its own before the rename, so no
    # one copies a half-written binary.
    (
        if command -v flock >/dev/null; then flock 9; fi
        if [ ! -x "$cached" ]; then
            echo "$name $version: building from the Go module proxy (minutes on a cold cache)"
            local dir partial="$cached.partial.$$"
            dir="$(go mod download -json "$module@$version" | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')"
            (cd "$dir" && GOFLAGS=-mod=mod go build -trimpath -o "$partial" "$pkg")
            mv -f "$partial" "$cached"
        fi
    ) 9>"$cached.lock"
    cp "$cached" "$BIN_DIR/$name.partial" && mv "$BIN_DIR/$name.partial" "$BIN_DIR/$name"
    echo "$version" >"$stamp"
    echo "$name $version: installed from $cached"
}

install_npm_tools
build_go_tool ipfs github.com/ipfs/kubo "$KUBO_VERSION" ./cmd/ipfs
build_go_tool tendermint github.com/tendermint/tendermint "$TENDERMINT_VERSION" ./cmd/tendermint
build_go_tool addlicense github.com/google/addlicense "$ADDLICENSE_VERSION" .
