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

"""Setting up without mech-interact's release folder (``../shared`` absent, a new machine).

The packages only that release ships are skipped with one notice naming the requester
service and what to provide; every other missing or altered package stays an error; the
requester run is refused before anything starts. The release is made absent by pointing the
sync at an empty folder; the other sources are the real wheels (nothing mocked).
"""

import json
import shutil
import subprocess  # nosec B404: runs this repository's scripts
import sys
from pathlib import Path
from typing import Dict, List

import pytest
from aea.configurations.data_types import PackageId

from scripts.run_local.workspace import (
    REQUESTER_OWN_PACKAGES,
    drop_requester_packages,
    mech_interact_missing,
    service_unavailable,
)
from scripts.sync_packages import (
    CACHE_DIR,
    MECH_INTERACT_PACKAGES,
    MECH_INTERACT_SOURCE,
    REPO_ROOT,
    SyncError,
    ipfs_hash,
    mech_server_packages,
    open_autonomy_packages,
    package_dir,
    sync,
)

PACKAGES_JSON = REPO_ROOT / "packages" / "packages.json"
MECH_INTERACT_URIS = {package_id.to_uri_path for package_id in MECH_INTERACT_PACKAGES}
#: an open-autonomy package the requester and the catalogue both need
FRAMEWORK_PACKAGE = "skill/valory/abstract_round_abci/0.1.0"


def listing(target: Path, extra: Dict[str, str]) -> Path:
    """Write a ``packages/`` root listing the repository's third-party pins plus ``extra``.

    :param target: the folder to become a ``packages/`` root.
    :param extra: more ``third_party`` entries (URI -> hash).
    :return: ``target``.
    """
    pins = json.loads(PACKAGES_JSON.read_text(encoding="utf-8"))["third_party"]
    target.mkdir(parents=True, exist_ok=True)
    (target / "packages.json").write_text(
        json.dumps({"dev": {}, "third_party": {**pins, **extra}}, indent=4),
        encoding="utf-8",
    )
    return target


def wheels() -> List[Path]:
    """The sources other than mech-interact's release: the two wheels' ``packages/``.

    :return: the roots.
    """
    return [open_autonomy_packages(), mech_server_packages(CACHE_DIR)]


def run_sync(packages: Path, release: Path, *flags: str) -> subprocess.CompletedProcess:
    """Run ``python -m scripts.sync_packages`` as ``make sync`` does, on another root.

    :param packages: the ``packages/`` root to sync.
    :param release: where mech-interact's release is looked for.
    :param flags: more command-line flags.
    :return: the finished process (text output).
    """
    return subprocess.run(  # nosec B603: fixed arguments
        [
            sys.executable,
            "-m",
            "scripts.sync_packages",
            "--packages-dir",
            str(packages),
            "--mech-interact-source",
            str(release),
            "--no-aea-cache",
            *flags,
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_without_the_release_only_its_packages_are_skipped(tmp_path: Path) -> None:
    """Every other package is copied and verified; mech-interact's are ``skipped``.

    :param tmp_path: a temporary folder.
    """
    packages = listing(tmp_path / "packages", {})
    absent = tmp_path / "no-release"

    outcomes = sync(packages, wheels(), aea_cache=None, mech_interact_source=absent)

    skipped = {o.package_id.to_uri_path for o in outcomes if o.action == "skipped"}
    assert skipped == MECH_INTERACT_URIS
    for outcome in outcomes:
        folder = package_dir(packages, outcome.package_id)
        assert folder.is_dir() == (outcome.action != "skipped"), outcome
    # a second run (and --check) stays green and skips the same packages
    again = sync(
        packages, [], check_only=True, aea_cache=None, mech_interact_source=absent
    )
    assert {o.action for o in again} == {"kept", "skipped"}


def test_the_cli_prints_one_notice_naming_the_feature_and_what_to_provide(
    tmp_path: Path,
) -> None:
    """``make sync`` without the release exits 0 with one notice, not an error.

    :param tmp_path: a temporary folder.
    """
    packages = listing(tmp_path / "packages", {})
    absent = tmp_path / "nowhere" / "packages"

    result = run_sync(packages, absent)

    assert result.returncode == 0, result.stdout + result.stderr
    notices = [line for line in result.stdout.splitlines() if "Notice" in line]
    assert len(notices) == 1, result.stdout
    (notice,) = notices
    for words in ("requester", str(absent), "v0.32.3", "mech-interact", "provide"):
        assert words in notice, words
    assert f"{len(MECH_INTERACT_PACKAGES)} skipped" in result.stdout


def test_the_cli_says_what_it_copied_in_one_line_per_source(tmp_path: Path) -> None:
    """A first set-up prints a count per source, not a line per package (new-user trial).

    :param tmp_path: a temporary folder.
    """
    packages = listing(tmp_path / "packages", {})
    absent = tmp_path / "nowhere" / "packages"

    result = run_sync(packages, absent)

    copied = [line for line in result.stdout.splitlines() if line.startswith("copied")]
    assert sorted(line.rsplit(" from ", 1)[1] for line in copied) == sorted(
        map(str, wheels())
    ), result.stdout
    counts = [int(line.split()[1]) for line in copied]
    assert f"{sum(counts)} copied" in result.stdout
    verbose = run_sync(packages, absent, "--verbose").stdout
    listed = {line.split()[1] for line in verbose.splitlines() if line.startswith("  ")}
    assert listed == {
        package_id.to_uri_path
        for package_id in map(
            PackageId.from_uri_path,
            json.loads(PACKAGES_JSON.read_text(encoding="utf-8"))["third_party"],
        )
    }


def test_another_missing_package_is_still_an_error(tmp_path: Path) -> None:
    """A package no source has, not one of mech-interact's, fails the sync, named.

    :param tmp_path: a temporary folder.
    """
    unknown = "contract/valory/not_shipped_anywhere/0.1.0"
    packages = listing(tmp_path / "packages", {unknown: "bafybei" + "a" * 52})

    result = run_sync(packages, tmp_path / "no-release")

    assert result.returncode != 0
    assert unknown in result.stderr
    assert "Notice" not in result.stdout


def test_a_framework_package_missing_from_every_source_is_still_an_error(
    tmp_path: Path,
) -> None:
    """Without the release and without the wheels, the framework's packages fail the sync.

    :param tmp_path: a temporary folder.
    """
    packages = listing(tmp_path / "packages", {})
    empty = tmp_path / "empty"
    empty.mkdir()

    with pytest.raises(SyncError) as raised:
        sync(packages, [empty], aea_cache=None, mech_interact_source=tmp_path / "no")

    assert "is in packages.json but in none of" in str(raised.value.message)
    assert not any(uri in raised.value.message for uri in MECH_INTERACT_URIS)


def test_a_mech_interact_package_in_place_is_still_verified(tmp_path: Path) -> None:
    """A copy of mech-interact's skill already in packages/ is checked, release or not.

    :param tmp_path: a temporary folder.
    """
    packages = listing(tmp_path / "packages", {})
    absent = tmp_path / "no-release"
    sync(packages, wheels(), aea_cache=None, mech_interact_source=absent)
    skill = PackageId.from_uri_path("skill/valory/mech_interact_abci/0.1.0")
    stray = package_dir(packages, skill)
    stray.mkdir(parents=True)
    (stray / "skill.yaml").write_text("name: mech_interact_abci\n", encoding="utf-8")

    with pytest.raises(SyncError) as raised:
        sync(packages, [], check_only=True, aea_cache=None, mech_interact_source=absent)

    assert skill.to_uri_path in raised.value.message
    assert ipfs_hash(stray) in raised.value.message


def test_the_requester_run_is_refused_before_anything_starts(tmp_path: Path) -> None:
    """``make run SERVICE=requester`` stops with the notice; the catalogue service runs.

    :param tmp_path: a temporary folder.
    """
    packages = listing(tmp_path / "packages", {})
    absent = tmp_path / "no-release"
    sync(packages, wheels(), aea_cache=None, mech_interact_source=absent)

    refused = service_unavailable("requester", packages, absent)

    assert refused is not None
    assert "requester" in refused and str(absent) in refused
    assert service_unavailable("tool_metadata", packages, absent) is None


def test_a_release_present_but_not_synced_asks_for_make_sync(tmp_path: Path) -> None:
    """With the release there but its packages not copied, the run names ``make sync``.

    :param tmp_path: a temporary folder.
    """
    release = tmp_path / "release"
    release.mkdir()
    (release / "packages.json").write_text('{"dev": {}}', encoding="utf-8")

    refused = service_unavailable("requester", tmp_path / "packages", release)

    assert refused is not None and "make sync" in refused
    assert "skill/valory/mech_interact_abci/0.1.0" in refused


def test_the_repository_s_requester_runs_when_the_release_is_synced() -> None:
    """With the release (CI, /work/shared) the requester service is available here."""
    if not (MECH_INTERACT_SOURCE / "packages.json").is_file():
        pytest.skip(
            f"needs mech-interact v0.32.3's packages/ folder at {MECH_INTERACT_SOURCE}"
        )
    assert service_unavailable("requester") is None


def test_the_release_s_own_listing_is_the_script_s_list() -> None:
    """The script's list of mech-interact's packages is the release's ``dev`` listing."""
    if not (MECH_INTERACT_SOURCE / "packages.json").is_file():
        pytest.skip(
            f"needs mech-interact v0.32.3's packages/ folder at {MECH_INTERACT_SOURCE}"
        )
    release = json.loads((MECH_INTERACT_SOURCE / "packages.json").read_text())["dev"]
    assert set(release) == MECH_INTERACT_URIS
    pins = json.loads(PACKAGES_JSON.read_text(encoding="utf-8"))["third_party"]
    assert MECH_INTERACT_URIS <= set(pins)


def test_the_catalogue_s_packages_lock_without_mech_interact_s(tmp_path: Path) -> None:
    """``make run``'s registry locks without mech-interact's packages, requester left out.

    A copy of ``packages/`` without mech-interact's 14 packages (what ``make sync`` leaves
    without the release) fails ``autonomy packages lock --check`` (the requester's skill
    names a skill that is not there); with the requester's own packages dropped, as
    ``prepare_registry`` does, it passes.

    :param tmp_path: a temporary folder.
    """
    packages = tmp_path / "packages"
    shutil.copytree(
        REPO_ROOT / "packages", packages, ignore=shutil.ignore_patterns("__pycache__")
    )
    for package_id in MECH_INTERACT_PACKAGES:
        shutil.rmtree(package_dir(packages, package_id), ignore_errors=True)
    assert mech_interact_missing(packages) == sorted(MECH_INTERACT_URIS)
    command = [sys.executable, "-m", "autonomy.cli", "packages", "lock", "--check"]

    refused = subprocess.run(  # nosec B603: fixed arguments
        command, cwd=tmp_path, capture_output=True, text=True, check=False
    )
    drop_requester_packages(packages)
    locked = subprocess.run(  # nosec B603: fixed arguments
        command, cwd=tmp_path, capture_output=True, text=True, check=False
    )

    assert refused.returncode != 0
    assert "mech_interact_abci" in refused.stdout + refused.stderr
    assert locked.returncode == 0, (locked.stdout + locked.stderr)[-2000:]
    listed = json.loads((packages / "packages.json").read_text())["dev"]
    assert not {p.to_uri_path for p in REQUESTER_OWN_PACKAGES} & set(listed)
    assert "agent/mech_catalogue/tool_metadata/0.1.0" in listed
