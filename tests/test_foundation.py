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

"""The repository's foundation: offline package sync, package lock, tool installation.

Everything here runs the real scripts and the real open-aea hashing; nothing is mocked.
"""

import contextlib
import json
import os
import shutil
import subprocess  # nosec B404: runs the repository's own scripts
import sys
import zipfile
from pathlib import Path
from typing import Dict, List, Set

import pytest
from aea.configurations.data_types import PackageId

from scripts import toolchain
from scripts.sync_packages import (
    CACHE_DIR,
    MECH_INTERACT_PACKAGES,
    MECH_INTERACT_SOURCE,
    SyncError,
    ipfs_hash,
    mech_interact_missing_notice,
    mech_interact_present,
    mech_server_packages,
    open_autonomy_packages,
    package_dir,
    repin_dependencies,
    sync,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES_JSON = REPO_ROOT / "packages" / "packages.json"
TAMPERED = "protocol/valory/abci/0.1.0"
AUTONOMY = str(Path(sys.executable).parent / "autonomy")


def run(
    args: List[str], cwd: Path = REPO_ROOT, **env: str
) -> subprocess.CompletedProcess:
    """Run a command with the repository root first on the Python path.

    :param args: the command.
    :param cwd: its working folder.
    :param env: extra environment variables.
    :return: the finished process (stdout and stderr as text).
    """
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **env}
    return subprocess.run(  # nosec B603: fixed arguments
        args, cwd=cwd, env=environment, capture_output=True, text=True, check=False
    )


MECH_INTERACT_URIS = {package_id.to_uri_path for package_id in MECH_INTERACT_PACKAGES}


def needs_mech_interact() -> None:
    """Skip the calling test, saying what to provide, without mech-interact's release."""
    if not mech_interact_present():
        pytest.skip(mech_interact_missing_notice(MECH_INTERACT_SOURCE))


def unavailable_here() -> Set[str]:
    """The third-party packages a sync skips on this machine (none with the release).

    :return: mech-interact's package URIs when its release folder is absent, else empty.
    """
    return set() if mech_interact_present() else set(MECH_INTERACT_URIS)


def third_party_only(target: Path) -> Path:
    """Write a ``packages.json`` with the repository's third-party pins and no dev packages.

    :param target: the folder to become a ``packages/`` root.
    :return: ``target``.
    """
    pins = json.loads(PACKAGES_JSON.read_text(encoding="utf-8"))
    target.mkdir(parents=True, exist_ok=True)
    (target / "packages.json").write_text(
        json.dumps({"dev": {}, "third_party": pins["third_party"]}, indent=4),
        encoding="utf-8",
    )
    return target


def wheel_sources() -> List[Path]:
    """Return the default sources: the two wheels' ``packages/`` and mech-interact's release.

    :return: the three roots, in the order the sync script searches them.
    """
    return [
        open_autonomy_packages(),
        mech_server_packages(CACHE_DIR),
        MECH_INTERACT_SOURCE,
    ]


def tamper(package_path: Path) -> None:
    """Change one byte of meaning in a package's ``__init__.py``.

    :param package_path: the package folder.
    """
    init = package_path / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + "\nTAMPERED = True\n")


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``packages/`` root synced from the wheels (no AEA cache seeding).

    :param tmp_path_factory: pytest's temporary folder factory.
    :return: the synced root.
    """
    root = third_party_only(tmp_path_factory.mktemp("synced") / "packages")
    sync(root, wheel_sources(), aea_cache=None)
    return root


@pytest.fixture
def synced_copy(synced: Path, tmp_path: Path) -> Path:
    """A private copy of the synced root, for tests that modify it.

    :param synced: a synced ``packages/`` root.
    :param tmp_path: a temporary folder.
    :return: ``<tmp_path>/packages``.
    """
    packages = tmp_path / "packages"
    shutil.copytree(synced, packages)
    return packages


def test_pins_are_open_autonomy_0_21_30_hashes() -> None:
    """Every third-party hash is the one open-autonomy 0.21.30 pins (README.md, offline sync).

    The two packages open-autonomy does not pin (http_server, complementary_service_metadata)
    carry mech-server 0.8.6's pins.
    """
    ours: Dict[str, str] = json.loads(PACKAGES_JSON.read_text(encoding="utf-8"))[
        "third_party"
    ]
    upstream = json.loads(
        (open_autonomy_packages() / "packages.json").read_text(encoding="utf-8")
    )
    open_autonomy = {**upstream["dev"], **upstream["third_party"]}
    (wheel,) = (CACHE_DIR / "wheels").glob("mech_server-0.8.6-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        mech_server = json.loads(archive.read("packages/packages.json"))["third_party"]
    mech_interact = MECH_INTERACT_URIS  # the release's own list: the next test
    for package_id, package_hash in ours.items():
        if package_id in mech_interact:
            continue  # test_mech_interact_pins_are_its_release_s
        expected = open_autonomy.get(package_id, mech_server.get(package_id))
        assert package_hash == expected, package_id
    assert set(ours) - set(open_autonomy) - set(mech_interact) == {
        "connection/valory/http_server/0.22.0",
        "contract/valory/complementary_service_metadata/0.1.0",
    }


def test_mech_interact_pins_are_its_release_s(tmp_path: Path) -> None:
    """mech-interact's packages are its release, re-pinned to this framework, nothing else.

    Re-pinning a fresh copy of each released package (checked against the release's
    packages.json first) reproduces our hash; the lines that differ are dependency pins
    only (a package hash of ours, or the installed framework's version).

    The sync script's own list of mech-interact's packages (skipped without the release)
    is exactly the release's ``dev`` listing.

    :param tmp_path: a temporary folder.
    """
    needs_mech_interact()
    ours: Dict[str, str] = json.loads(PACKAGES_JSON.read_text(encoding="utf-8"))[
        "third_party"
    ]
    release = json.loads(
        (MECH_INTERACT_SOURCE / "packages.json").read_text(encoding="utf-8")
    )["dev"]
    assert set(release) == MECH_INTERACT_URIS
    assert set(release) <= set(ours)
    pins = {PackageId.from_uri_path(uri): digest for uri, digest in ours.items()}
    for uri, released in release.items():
        package_id = PackageId.from_uri_path(uri)
        source = package_dir(MECH_INTERACT_SOURCE, package_id)
        copy = tmp_path / package_id.name
        shutil.copytree(source, copy)
        assert ipfs_hash(copy) == released, uri
        repin_dependencies(copy, pins)
        assert ipfs_hash(copy) == ours[uri], uri
        (config,) = [
            path
            for path in copy.glob("*.yaml")
            if path.name != "fsm_specification.yaml"
        ]
        before = (source / config.name).read_text().splitlines()
        after = config.read_text().splitlines()
        assert len(before) == len(after), uri
        for old, new in zip(before, after):
            if old != new:
                assert old.rsplit(":", 1)[0] == new.rsplit(":", 1)[0], (uri, old)
                pin = new.rsplit(":", 1)[1].strip()
                assert pin in ours.values() or pin.startswith("=="), (uri, new)


def test_sync_copies_every_pinned_package(synced: Path) -> None:
    """A sync from the wheels yields exactly the pinned packages, each with its hash.

    Without mech-interact's release, exactly its packages are absent and ``skipped``.

    :param synced: a synced ``packages/`` root.
    """
    pins = json.loads((synced / "packages.json").read_text(encoding="utf-8"))
    skipped = unavailable_here()
    for uri in pins["third_party"]:
        path = package_dir(synced, PackageId.from_uri_path(uri))
        assert path.is_dir() == (uri not in skipped), uri
    outcomes = sync(synced, [], check_only=True, aea_cache=None)
    assert {
        outcome.package_id.to_uri_path
        for outcome in outcomes
        if outcome.action == "skipped"
    } == skipped
    assert {outcome.action for outcome in outcomes} - {"skipped"} == {"kept"}
    assert len(outcomes) == len(pins["third_party"])


def test_sync_refuses_a_tampered_source(tmp_path: Path) -> None:
    """A source whose package does not hash to the pin fails, naming package and hashes.

    :param tmp_path: a temporary folder.
    """
    source = tmp_path / "source"
    original = package_dir(open_autonomy_packages(), PackageId.from_uri_path(TAMPERED))
    copy = package_dir(source, PackageId.from_uri_path(TAMPERED))
    shutil.copytree(original, copy)
    tamper(copy)
    packages = third_party_only(tmp_path / "packages")
    expected = json.loads((packages / "packages.json").read_text())["third_party"][
        TAMPERED
    ]

    result = run(
        [
            sys.executable,
            "-m",
            "scripts.sync_packages",
            "--packages-dir",
            str(packages),
            "--source",
            str(source),
            "--no-aea-cache",
        ]
    )

    assert result.returncode != 0
    assert TAMPERED in result.stderr
    assert f"expected hash {expected}" in result.stderr
    assert "actual bafybei" in result.stderr
    assert not package_dir(packages, PackageId.from_uri_path(TAMPERED)).exists()


def test_check_finds_a_tampered_copy_and_sync_restores_it(synced_copy: Path) -> None:
    """``--check`` fails on a modified local package; a plain sync replaces it.

    :param synced_copy: a synced ``packages/`` root to modify.
    """
    packages = synced_copy
    tamper(package_dir(packages, PackageId.from_uri_path(TAMPERED)))

    with pytest.raises(SyncError, match=f"{TAMPERED} at .*: expected hash"):
        sync(packages, [], check_only=True, aea_cache=None)
    outcomes = sync(packages, wheel_sources(), aea_cache=None)

    replaced = [o.package_id.to_uri_path for o in outcomes if o.action == "replaced"]
    assert replaced == [TAMPERED]
    sync(packages, [], check_only=True, aea_cache=None)


def test_sync_removes_a_package_packages_json_does_not_list(synced_copy: Path) -> None:
    """A stray third-party package would break ``packages lock --check``; sync removes it.

    :param synced_copy: a synced ``packages/`` root to modify.
    """
    packages = synced_copy
    stray = packages / "valory" / "skills" / "counter"
    shutil.copytree(open_autonomy_packages() / "valory" / "skills" / "counter", stray)

    with pytest.raises(SyncError, match="counter is not listed in packages.json"):
        sync(packages, [], check_only=True, aea_cache=None)
    sync(packages, wheel_sources(), aea_cache=None)

    assert not stray.exists()


def test_sync_names_a_package_no_source_has(tmp_path: Path) -> None:
    """A pinned package that no source ships fails with its id and the searched roots.

    :param tmp_path: a temporary folder.
    """
    packages = tmp_path / "packages"
    packages.mkdir()
    missing = "protocol/valory/not_shipped/0.1.0"
    (packages / "packages.json").write_text(
        json.dumps({"dev": {}, "third_party": {missing: "bafybeiaaaa"}})
    )

    with pytest.raises(
        SyncError, match=f"{missing} is in packages.json but in none of"
    ):
        sync(packages, [tmp_path / "empty"], aea_cache=None)


def test_seeded_cache_lets_autonomy_packages_sync_work_offline(
    synced: Path, tmp_path: Path
) -> None:
    """With the AEA cache seeded, ``autonomy packages sync`` restores packages offline.

    The IPFS registry is unreachable from this machine, so a download would fail: the
    packages can only come from the seeded cache.

    :param synced: a synced ``packages/`` root.
    :param tmp_path: a temporary folder (also the HOME of the autonomy process).
    """
    cache = tmp_path / ".aea" / "cache" / "packages"
    sync(synced, [], aea_cache=cache)
    project = tmp_path / "project"
    listing = third_party_only(project / "packages") / "packages.json"
    pins = json.loads(listing.read_text(encoding="utf-8"))
    for uri in unavailable_here():  # never synced, so not in the cache either
        del pins["third_party"][uri]
    listing.write_text(json.dumps(pins, indent=4), encoding="utf-8")

    result = run(
        [AUTONOMY, "packages", "sync"],
        cwd=project,
        HOME=str(tmp_path),
    )

    assert result.returncode == 0, result.stderr[-2000:]
    outcomes = sync(project / "packages", [], check_only=True, aea_cache=None)
    assert {outcome.action for outcome in outcomes} == {"kept"}


def test_packages_lock_check_passes_on_the_repository() -> None:
    """``autonomy packages lock --check`` accepts the repository's packages as committed.

    It loads every package the requester's skill depends on, mech-interact's included.
    """
    needs_mech_interact()
    result = run([AUTONOMY, "packages", "lock", "--check"])
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert "Verification successful" in result.stdout


def test_packages_lock_check_fails_on_a_tampered_package(synced_copy: Path) -> None:
    """The same check fails when a third-party package differs from its pin.

    :param synced_copy: a synced ``packages/`` root to modify.
    """
    tamper(package_dir(synced_copy, PackageId.from_uri_path(TAMPERED)))

    result = run(
        [AUTONOMY, "packages", "lock", "--check"],
        cwd=synced_copy.parent,
    )

    assert result.returncode != 0
    assert "valory/abci" in result.stdout + result.stderr


def test_a_missing_tool_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tool_path``/``solc_js`` raise MissingTool with one line: the tool and the fix.

    :param tmp_path: an empty folder standing in for ``.tools``.
    :param monkeypatch: pytest's monkeypatch fixture.
    """
    monkeypatch.setattr(toolchain, "BIN_DIR", tmp_path / "bin")
    monkeypatch.setattr(toolchain, "NODE_MODULES", tmp_path / "node_modules")

    for name in ("anvil", "ipfs", "tendermint"):
        with pytest.raises(toolchain.MissingTool) as raised:
            toolchain.tool_path(name)
        message = str(raised.value)
        assert "\n" not in message
        assert message.startswith(f"{name} is not installed")
        assert "make tools" in message
    with pytest.raises(toolchain.MissingTool, match="solc .*make tools"):
        toolchain.solc_js()


def test_install_tools_names_a_missing_prerequisite(tmp_path: Path) -> None:
    """Without Go on PATH, install_tools.sh stops with one line naming it and the fix.

    :param tmp_path: a folder holding the only commands on PATH.
    """
    for command in ("dirname", "python3", "node", "npm"):
        found = shutil.which(command)
        assert found, f"{command} is needed to run this test"
        (tmp_path / command).symlink_to(found)

    result = run(
        [shutil.which("bash") or "/bin/bash", "scripts/install_tools.sh"],
        PATH=str(tmp_path),
    )

    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "install_tools: missing prerequisite 'go': install Go >= 1.22 "
        "(https://go.dev/doc/install)"
    ]


FAKE_GO = """#!/bin/bash
# A stand-in for go (no Go module proxy in this test): "mod download -json" names a
# folder, "build -o OUT" counts the build, takes a second, and writes OUT.
if [ "$1" = mod ]; then echo '{"Dir": "'"$FAKE_GO_DIR"'"}'; exit 0; fi
while [ "$1" != -o ]; do shift; done
echo built >>"$FAKE_GO_DIR/builds"
sleep 1
printf '#!/bin/sh\\necho fake\\n' >"$2" && chmod +x "$2"
"""


def test_two_set_ups_at_once_build_each_go_tool_once(tmp_path: Path) -> None:
    """Two clones' install_tools.sh share the machine's cache: one builds, one waits.

    A new user's second clone set up beside the first built kubo into the same
    ``.partial`` file at the same time (double the CPU; the second ``mv`` could move a
    half-written binary). Go is a stand-in here (the test has no module proxy); the
    script, its lock and its renames are the real ones.

    :param tmp_path: two copies of the repository's scripts, a shared cache, fake go.
    """
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "go").write_text(FAKE_GO)
    (fake / "go").chmod(0o755)
    clones = []
    for name in ("first", "second"):
        clone = tmp_path / name
        (clone / "scripts").mkdir(parents=True)
        for script in ("install_tools.sh", "toolchain.py", "__init__.py"):
            shutil.copy(REPO_ROOT / "scripts" / script, clone / "scripts" / script)
        tools = clone / ".tools"
        (tools / "bin").mkdir(parents=True)
        (tools / "node_modules/solc").mkdir(parents=True)
        (tools / "node_modules/solc/solc.js").write_text("")
        (tools / "bin/anvil").symlink_to(shutil.which("true") or "/bin/true")
        (tools / ".npm.versions").write_text(
            f"@foundry-rs/anvil@{toolchain.ANVIL_VERSION} solc@{toolchain.SOLC_VERSION}\n"
        )
        clones.append(clone)
    environment = {
        **os.environ,
        "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}",
        "FAKE_GO_DIR": str(fake),
        "MECH_CATALOGUE_CACHE": str(tmp_path / "cache"),
    }
    with contextlib.ExitStack() as both:  # the two set-ups run at once
        running = [
            both.enter_context(
                subprocess.Popen(  # nosec B603: the repository's script, fixed args
                    ["bash", str(clone / "scripts/install_tools.sh")],
                    env=environment,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            for clone in clones
        ]
        outputs = [process.communicate(timeout=120) for process in running]

    assert [process.returncode for process in running] == [0, 0], outputs
    builds = (fake / "builds").read_text().count("built")
    assert builds == 3  # ipfs, tendermint, addlicense: once each
    for clone in clones:
        for name in ("ipfs", "tendermint", "addlicense"):
            installed = clone / ".tools/bin" / name
            assert (
                subprocess.run(  # nosec B603: the binary the script installed
                    [str(installed)], capture_output=True, text=True, check=True
                ).stdout
                == "fake\n"
            )
    assert not list((tmp_path / "cache/bin").glob("*.partial*"))


def test_install_tools_is_idempotent() -> None:
    """A second run finds every pinned tool in place and rebuilds nothing."""
    first = run(["bash", "scripts/install_tools.sh"])
    assert first.returncode == 0, first.stderr
    binaries = sorted(toolchain.BIN_DIR.iterdir())
    modified = {path: path.stat().st_mtime_ns for path in binaries}

    second = run(["bash", "scripts/install_tools.sh"])

    assert second.returncode == 0, second.stderr
    # one line per install step: npm (anvil + solc), then each Go tool
    assert second.stdout.count("already installed") == 4, second.stdout
    assert "building" not in second.stdout and "npm install" not in second.stdout
    assert {path: path.stat().st_mtime_ns for path in binaries} == modified
    for name in ("anvil", "ipfs", "tendermint", "addlicense"):
        assert os.access(toolchain.tool_path(name), os.X_OK)
