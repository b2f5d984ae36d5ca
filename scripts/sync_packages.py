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

"""Offline equivalent of ``autonomy packages sync`` for the third-party AEA packages.

``autonomy packages sync`` downloads third-party packages from the IPFS registry, which these
machines cannot reach. The same packages ship inside two Python wheels:

- the installed ``open-autonomy`` wheel (its top-level ``packages/`` folder), and
- the ``mech-server`` wheel (downloaded with ``pip download --no-deps``, never installed),
  for the open-aea protocols and connections that open-autonomy's wheel lacks.

For every ``third_party`` entry of ``packages/packages.json`` this script copies the package
from the first source that has it into ``packages/<author>/<type>s/<name>``, hashes it with
open-aea's own ``IPFSHashOnly`` (the hash ``autonomy packages lock`` computes), and fails with
the package, the expected and the actual hash on any mismatch. It also seeds the AEA package
cache (``~/.aea/cache/packages/<hash>/<name>/``, the layout of
``aea.package_manager.base.Cache``), so that ``autonomy packages sync`` finds missing packages
there instead of asking IPFS. Packages already in place with the right hash are left alone.

mech-interact (``--mech-interact``): its released packages (v0.32.3, not on PyPI) are read
from ``../shared/third_party/mech-interact-v0.32.3/packages`` (online they come from the IPFS
registry by the hashes of its ``packages.json``), verified package by package against that
``packages.json`` and copied to the git-ignored ``.run/mech_interact/packages`` for the
composition tests. The requester service (``requester_chained_abci``) runs mech-interact's
skill as an agent, so ``packages.json`` also lists its skill and contracts as ``third_party``:
they are copied from the same release folder into the git-ignored ``packages/valory``
(hash-checked like every third-party package) and never committed.

Usage: ``python -m scripts.sync_packages [--check] [--source DIR ...] [--mech-interact]``
"""

import fcntl
import hashlib
import json
import shutil
import subprocess  # nosec B404: runs pip with fixed arguments
import sys
import tempfile
import zipfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution, version
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence

import click
from aea.configurations.data_types import PackageId
from aea.helpers.ipfs.base import IPFSHashOnly
from aea.package_manager.v1 import PackageManagerV1

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES_DIR = REPO_ROOT / "packages"
CACHE_DIR = Path.home() / ".cache" / "mech-catalogue"
# The mech-server release whose wheel carries the open-aea protocols/connections that
# open-autonomy 0.21.30 pins (identical hashes; tests/test_foundation.py checks every pin).
MECH_SERVER = "mech-server==0.8.6"
AEA_PACKAGE_CACHE = Path.home() / ".aea" / "cache" / "packages"
#: mech-interact's released packages/ folder (see its PROVENANCE.md) and where it is synced
MECH_INTERACT_RELEASE = "v0.32.3"
MECH_INTERACT_SOURCE = (
    REPO_ROOT.parent
    / "shared"
    / "third_party"
    / f"mech-interact-{MECH_INTERACT_RELEASE}"
    / "packages"
)
MECH_INTERACT_DIR = REPO_ROOT / ".run" / "mech_interact" / "packages"
#: the packages only mech-interact's release ships (the ``dev`` entries of its
#: ``packages.json``): the requester service's skill and contracts. Without the release
#: folder these, and only these, are skipped; any other missing package is an error. A list
#: owned here rather than read from the release (absent exactly when it matters) or derived
#: from the requester agent's dependencies (which also name open-autonomy's packages, whose
#: absence must stay an error); tests/test_sync_without_mech_interact.py checks it against
#: the release's packages.json when the release is present.
MECH_INTERACT_PACKAGES = frozenset(
    PackageId.from_uri_path(uri)
    for uri in (
        "contract/valory/mech_marketplace_legacy/0.1.0",
        "contract/valory/mech/0.1.0",
        "contract/valory/mech_mm/0.1.0",
        "contract/valory/ierc1155/0.1.0",
        "contract/valory/nvm_balance_tracker_token/0.1.0",
        "contract/valory/nvm_balance_tracker_native/0.1.0",
        "contract/valory/escrow_payment_condition/0.1.0",
        "contract/valory/did_registry/0.1.0",
        "contract/valory/nft_sales/0.1.0",
        "contract/valory/lock_payment_condition/0.1.0",
        "contract/valory/agreement_store_manager/0.1.0",
        "contract/valory/transfer_nft_condition/0.1.0",
        "contract/valory/subscription_provider/0.1.0",
        "skill/valory/mech_interact_abci/0.1.0",
    )
)
#: the agent that needs them (``make run SERVICE=requester``)
MECH_INTERACT_FEATURE = "the requester service (agent/service mech_catalogue/requester)"


def mech_interact_missing_notice(source: Path) -> str:
    """The one notice printed when mech-interact's release folder is absent.

    :param source: where the release's ``packages/`` folder was looked for.
    :return: which feature is unavailable, and what to provide where.
    """
    return (
        f"mech-interact {MECH_INTERACT_RELEASE}'s packages are not at {source}: "
        f"{MECH_INTERACT_FEATURE} is unavailable and its "
        f"{len(MECH_INTERACT_PACKAGES)} packages (skill valory/mech_interact_abci and its "
        "contracts) were skipped. To use it, provide the packages/ folder of tag "
        f"{MECH_INTERACT_RELEASE} of github.com/valory-xyz/mech-interact (with its "
        "packages.json) there, or pass its path with --mech-interact-source, and run "
        "`make sync` again."
    )


def mech_interact_present(source: Path = MECH_INTERACT_SOURCE) -> bool:
    """Whether mech-interact's released ``packages/`` folder is at ``source``.

    :param source: the release's ``packages/`` folder.
    :return: True when its ``packages.json`` is there.
    """
    return (source / "packages.json").is_file()


class SyncError(click.ClickException):
    """A third-party package cannot be synced; the message names it and what to do."""


@dataclass(frozen=True)
class Outcome:
    """What happened to one package: ``kept``, ``copied``, ``replaced`` or ``skipped``.

    ``skipped``: a package of :data:`MECH_INTERACT_PACKAGES` while mech-interact's release
    folder is absent (see :func:`sync`).
    """

    package_id: PackageId
    action: str
    source: Optional[Path]


def open_autonomy_packages() -> Path:
    """Return the ``packages/`` folder of the installed open-autonomy wheel.

    :return: ``<site-packages>/packages``.
    :raises SyncError: when open-autonomy is not installed in this interpreter.
    """
    try:
        root = Path(str(distribution("open-autonomy").locate_file("packages")))
    except PackageNotFoundError as error:
        raise SyncError(
            "open-autonomy is not installed in this Python: run `make setup`"
        ) from error
    if not root.is_dir():
        raise SyncError(f"the open-autonomy wheel has no packages/ folder at {root}")
    return root


def mech_server_packages(cache_dir: Path) -> Path:
    """Return the ``packages/`` folder of the mech-server wheel, downloading it once.

    The wheel is fetched with ``pip download --no-deps`` into ``<cache_dir>/wheels`` and its
    ``packages/`` folder unpacked next to it; both are reused on later runs.

    :param cache_dir: the project's cache folder (``~/.cache/mech-catalogue``).
    :return: ``<cache_dir>/wheels/<wheel name>/packages``.
    :raises SyncError: when pip cannot download the wheel.
    """
    wheels = cache_dir / "wheels"
    version = MECH_SERVER.split("==")[1]
    found = sorted(wheels.glob(f"mech_server-{version}-*.whl"))
    if not found:
        wheels.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
        result = subprocess.run(  # nosec B603: fixed arguments
            [*command, MECH_SERVER, "--dest", str(wheels)],
            capture_output=True,
            text=True,
            check=False,
        )
        found = sorted(wheels.glob(f"mech_server-{version}-*.whl"))
        if result.returncode != 0 or not found:
            raise SyncError(
                f"cannot download {MECH_SERVER} with pip (PyPI unreachable?): "
                f"{result.stderr.strip().splitlines()[-1:] or result.returncode}"
            )
    wheel = found[0]
    unpacked = wheels / wheel.name.removesuffix(".whl")
    if not (unpacked / "packages").is_dir():
        staging = Path(tempfile.mkdtemp(dir=wheels))
        with zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.namelist() if m.startswith("packages/")]
            archive.extractall(staging, members=members)
        shutil.rmtree(unpacked, ignore_errors=True)
        staging.rename(unpacked)
    return unpacked / "packages"


def package_dir(root: Path, package_id: PackageId) -> Path:
    """Return where a package lives under a ``packages/`` root.

    :param root: a ``packages/`` folder.
    :param package_id: the package.
    :return: ``<root>/<author>/<type>s/<name>``.
    """
    plural = package_id.package_type.to_plural()
    return root / package_id.author / plural / package_id.name


def ipfs_hash(path: Path) -> str:
    """Return a package folder's hash exactly as ``autonomy packages lock`` computes it.

    :param path: the package folder.
    :return: the CIDv1 (base32 ``bafybei...``) of the folder, ``__pycache__`` excluded.
    """
    return IPFSHashOnly.get(str(path))


def ensure_init_files(packages_dir: Path, package_id: PackageId) -> None:
    """Create the ``__init__.py`` files that make the author and type folders importable.

    :param packages_dir: the repository's ``packages/`` folder.
    :param package_id: the package whose parent folders must exist.
    """
    author = packages_dir / package_id.author
    for folder in (author, author / package_id.package_type.to_plural()):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").touch()


@contextmanager
def exclusive(folder: Path) -> Iterator[None]:
    """Hold a machine-wide lock on syncing into ``folder``, so that syncs take turns.

    Test workers (pytest-xdist), two ``make`` runs and git worktrees sync into the same
    folders (``.run/mech_interact/packages``, the shared AEA cache) at once; without turns
    one process renames its copy over another's staging folder or hashes a half-made copy.
    The lock is an ``flock`` on a file in the temporary folder named by the folder's path,
    released when the holder exits, even when it is killed.

    :param folder: the folder about to be written.
    :yield: while the lock is held.
    """
    key = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    lock_path = Path(tempfile.gettempdir()) / f"mech-catalogue-sync-{key}.lock"
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def copy_package(source: Path, destination: Path) -> None:
    """Replace ``destination`` with a copy of ``source`` (without ``__pycache__``).

    The copy goes to a sibling temporary folder first and is renamed into place, so an
    interrupted run never leaves a half-copied package.

    :param source: the package folder to copy.
    :param destination: the package folder to (re)create.
    """
    staging = destination.with_name(f".{destination.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.rmtree(destination, ignore_errors=True)
    staging.rename(destination)


def seed_cache(cache: Path, package_path: Path, package_hash: str) -> None:
    """Put a verified package into the AEA package cache, as ``Cache.add`` lays it out.

    :param cache: the AEA package cache (``~/.aea/cache/packages``).
    :param package_path: the verified package folder.
    :param package_hash: its hash (the cache key).
    """
    entry = cache / package_hash
    if (entry / package_path.name).is_dir():
        return
    staging = cache / f".{package_hash}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(
        package_path,
        staging / package_path.name,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.rmtree(entry, ignore_errors=True)
    staging.rename(entry)


def find_source(sources: Sequence[Path], package_id: PackageId) -> Path:
    """Return the package folder in the first source that has the package.

    :param sources: ``packages/`` roots, in order of preference.
    :param package_id: the package.
    :return: the package folder.
    :raises SyncError: when no source has the package.
    """
    for root in sources:
        candidate = package_dir(root, package_id)
        if candidate.is_dir():
            return candidate
    searched = ", ".join(str(root) for root in sources)
    raise SyncError(
        f"{package_id.to_uri_path} is in packages.json but in none of: {searched}. "
        "Remove it from packages.json or add a source that ships it."
    )


def sync_package(
    packages_dir: Path,
    sources: Sequence[Path],
    package_id: PackageId,
    expected: str,
    check_only: bool,
    pinned: Optional[Dict[PackageId, str]] = None,
) -> Outcome:
    """Make ``packages/`` hold one third-party package with its pinned hash.

    A package from mech-interact's release is checked against the release's own
    ``packages.json``, then its dependencies are re-pinned to ``pinned``
    (:func:`repin_dependencies`): ``expected`` is the hash of that re-pinned copy.

    :param packages_dir: the repository's ``packages/`` folder.
    :param sources: ``packages/`` roots to copy from, in order of preference.
    :param package_id: the package.
    :param expected: its hash in ``packages.json``.
    :param check_only: only verify what is in ``packages/``; copy nothing.
    :param pinned: every third-party package's hash in ``packages.json`` (re-pinning).
    :return: what was done.
    :raises SyncError: when the source (or, with ``check_only``, the local copy) does not
        hash to ``expected``, or when no source has the package.
    """
    destination = package_dir(packages_dir, package_id)
    present = destination.is_dir()
    if present and ipfs_hash(destination) == expected:
        return Outcome(package_id, "kept", None)
    if check_only:
        actual = ipfs_hash(destination) if present else "missing"
        raise SyncError(
            f"{package_id.to_uri_path} at {destination}: expected hash {expected}, "
            f"actual {actual}. Run `make sync` to restore it."
        )
    source = find_source(sources, package_id)
    released = release_hash(source, package_id)
    actual = ipfs_hash(source)
    if actual != (released or expected):
        raise SyncError(
            f"{package_id.to_uri_path} from {source}: expected hash "
            f"{released or expected}, actual {actual}. The source is not the pinned "
            f"release (open-autonomy 0.21.30, {MECH_SERVER}, mech-interact "
            f"{MECH_INTERACT_RELEASE}) or was modified; reinstall with `make setup`."
        )
    ensure_init_files(packages_dir, package_id)
    copy_package(source, destination)
    if released is not None:
        repin_dependencies(destination, pinned)
    copied = ipfs_hash(destination)
    if copied != expected:
        raise SyncError(
            f"{package_id.to_uri_path} at {destination}: hash {copied} after copying "
            f"from {source}, expected {expected}. Check the disk and retry."
        )
    return Outcome(package_id, "replaced" if present else "copied", source)


def release_hash(source: Path, package_id: PackageId) -> Optional[str]:
    """Return a package's hash in mech-interact's release listing, when it comes from there.

    :param source: the package folder found by :func:`find_source`.
    :param package_id: the package.
    :return: its hash in ``<release>/packages.json`` (``dev``), or None for a package of the
        open-autonomy or mech-server wheels.
    :raises SyncError: when the folder is in the release but its listing lacks it.
    """
    release = MECH_INTERACT_SOURCE.resolve()
    if release not in source.resolve().parents:
        return None
    listing = json.loads((release / "packages.json").read_text(encoding="utf-8"))
    try:
        return str(listing["dev"][package_id.to_uri_path])
    except KeyError as error:
        raise SyncError(
            f"{package_id.to_uri_path} is in {release} but not in its packages.json"
        ) from error


def repin_dependencies(folder: Path, pinned: Optional[Dict[PackageId, str]]) -> None:
    """Point a released package's dependency pins at this repository's third-party hashes.

    mech-interact v0.32.3 was locked against open-autonomy 0.21.23; its skill names
    ``valory/abstract_round_abci``, ``valory/gnosis_safe``... with that release's hashes, and
    ``autonomy packages lock --check`` refuses a package whose pins differ from the hashes
    in ``packages.json``; its contracts pin ``open-aea-ledger-ethereum==2.2.7``, and
    ``aea run`` refuses an agent whose packages pin two versions of one Python package.
    Only the ``author/name:version:hash`` lines and the ``version: ==X`` pins of Python
    packages installed here (:func:`installed_pin`) of the package's YAML file are
    rewritten (what ``autonomy packages lock`` does to a dev package's hashes); its code is
    the release's, unchanged (the fingerprints in the YAML still check every file).

    :param folder: the copied package folder.
    :param pinned: third-party package -> hash from ``packages.json`` (None: no change).
    """
    if not pinned:
        return
    by_reference = {
        f"{package_id.author}/{package_id.name}:{package_id.version}": digest
        for package_id, digest in pinned.items()
    }
    (config,) = [
        path
        for path in folder.glob("*.yaml")
        if path.name
        in ("skill.yaml", "contract.yaml", "protocol.yaml", "connection.yaml")
    ]
    lines: List[str] = []
    for line in config.read_text(encoding="utf-8").splitlines(keepends=True):
        head, _, tail = line.rpartition(":")
        reference = head.lstrip(" -")
        newline = "\n" if tail.endswith("\n") else ""
        if line.lstrip().startswith("- ") and reference in by_reference:
            line = f"{head}:{by_reference[reference]}{newline}"
        elif line.strip().startswith("version: ==") and lines:
            distribution = lines[-1].strip().rstrip(":")
            pin = installed_pin(distribution)
            if pin is not None:
                line = f"{line[: line.index('version:')]}version: =={pin}{newline}"
        lines.append(line)
    config.write_text("".join(lines), encoding="utf-8")


def installed_pin(distribution: str) -> Optional[str]:
    """The installed version of a framework distribution a released package pins.

    :param distribution: a name under a package's ``dependencies:``.
    :return: its installed version for ``open-autonomy`` and the ``open-aea*``
        distributions, None otherwise (or when not installed): other pins stay as released.
    """
    if distribution != "open-autonomy" and not distribution.startswith("open-aea"):
        return None
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def stale_packages(
    packages_dir: Path, authors: Iterable[str], wanted: Iterable[PackageId]
) -> List[Path]:
    """Return package folders of third-party authors that ``packages.json`` does not list.

    ``autonomy packages lock --check`` walks every package under ``packages/``, so a stray
    third-party package would make it fail.

    :param packages_dir: the repository's ``packages/`` folder.
    :param authors: third-party authors (their folders are git-ignored and managed here).
    :param wanted: every package listed in ``packages.json``.
    :return: folders to remove.
    """
    keep = {package_dir(packages_dir, package_id) for package_id in wanted}
    stale = []
    for author in authors:
        for config in sorted((packages_dir / author).glob("*/*/*.yaml")):
            folder = config.parent
            if folder not in keep and folder not in stale:
                stale.append(folder)
    return stale


def skipped_without_release(
    packages_dir: Path, third_party: Dict[PackageId, str], release_present: bool
) -> List[PackageId]:
    """Return the packages to skip because mech-interact's release folder is absent.

    Only packages of :data:`MECH_INTERACT_PACKAGES` that are not already in ``packages/``
    are skipped (a copy in place is still verified); with the release present, none.

    :param packages_dir: the repository's ``packages/`` folder.
    :param third_party: every third-party package of ``packages.json`` -> its hash.
    :param release_present: whether mech-interact's release folder is there.
    :return: the packages to leave out, in ``packages.json`` order.
    """
    if release_present:
        return []
    return [
        package_id
        for package_id in third_party
        if package_id in MECH_INTERACT_PACKAGES
        and not package_dir(packages_dir, package_id).is_dir()
    ]


def sync(  # pylint: disable=too-many-arguments,too-many-locals
    packages_dir: Path,
    sources: Sequence[Path],
    check_only: bool = False,
    aea_cache: Optional[Path] = AEA_PACKAGE_CACHE,
    mech_interact_source: Path = MECH_INTERACT_SOURCE,
) -> List[Outcome]:
    """Sync every third-party package of ``<packages_dir>/packages.json``.

    When mech-interact's release is not at ``mech_interact_source``, its packages
    (:data:`MECH_INTERACT_PACKAGES`, needed only by the requester service) are left out,
    each with a ``skipped`` outcome: the caller prints :func:`mech_interact_missing_notice`.

    :param packages_dir: the repository's ``packages/`` folder (holds ``packages.json``).
    :param sources: ``packages/`` roots to copy from, in order of preference.
    :param check_only: only verify what is in ``packages/``; copy and remove nothing.
    :param aea_cache: the AEA package cache to seed, or None to leave it alone.
    :param mech_interact_source: mech-interact's released ``packages/`` folder.
    :return: one outcome per third-party package.
    :raises SyncError: on a hash mismatch, a package no source has (other than a skipped
        one), or a stray package when ``check_only``.
    """
    with exclusive(packages_dir):
        manager = PackageManagerV1.from_dir(packages_dir)
        third_party: Dict[PackageId, str] = dict(manager.third_party_packages)
        skipped = skipped_without_release(
            packages_dir, third_party, mech_interact_present(mech_interact_source)
        )
        outcomes = [
            (
                Outcome(package_id, "skipped", None)
                if package_id in skipped
                else sync_package(
                    packages_dir, sources, package_id, expected, check_only, third_party
                )
            )
            for package_id, expected in third_party.items()
        ]
        dev_authors = {package_id.author for package_id in manager.dev_packages}
        third_party_authors = {
            package_id.author for package_id in third_party
        } - dev_authors
        wanted = [*third_party, *manager.dev_packages]
        for folder in stale_packages(packages_dir, sorted(third_party_authors), wanted):
            if check_only:
                raise SyncError(
                    f"{folder} is not listed in packages.json; run `make sync` to remove it"
                )
            shutil.rmtree(folder)
            click.echo(f"removed {folder}: not listed in packages.json")
        if aea_cache is not None and not check_only:
            aea_cache.mkdir(parents=True, exist_ok=True)
            with exclusive(aea_cache):
                for package_id, expected in third_party.items():
                    if package_id in skipped:
                        continue
                    seed_cache(
                        aea_cache, package_dir(packages_dir, package_id), expected
                    )
    return outcomes


def sync_mech_interact(
    source: Path = MECH_INTERACT_SOURCE, destination: Path = MECH_INTERACT_DIR
) -> List[Outcome]:
    """Copy mech-interact's released ``dev`` packages, each verified against its packages.json.

    Only the packages mech-interact itself ships (``dev``: its skill and contracts) are
    copied; its ``third_party`` dependencies are open-autonomy's and resolve to the ones
    already synced into ``packages/valory`` (other hashes: a newer framework).

    :param source: mech-interact's ``packages/`` folder (holds its ``packages.json``).
    :param destination: a ``packages/`` root to copy into (git-ignored; never ``packages/``).
    :return: one outcome per package.
    :raises SyncError: when the release is not at ``source`` (the message says what to
        provide), or a package there or its copy does not hash to packages.json.
    """
    listing = source / "packages.json"
    if not listing.is_file():
        raise SyncError(
            f"mech-interact {MECH_INTERACT_RELEASE}'s packages are not at {source}: provide "
            f"the packages/ folder of tag {MECH_INTERACT_RELEASE} of "
            "github.com/valory-xyz/mech-interact (with its packages.json) there, or pass "
            "its path with --mech-interact-source"
        )
    if destination.resolve() == PACKAGES_DIR.resolve():
        raise SyncError(
            "mech-interact's packages are never synced into packages/: pick another folder"
        )
    dev = json.loads(listing.read_text(encoding="utf-8"))["dev"]
    with exclusive(destination):
        outcomes = []
        for uri, expected in dev.items():
            package_id = PackageId.from_uri_path(uri)
            folder = package_dir(destination, package_id)
            if folder.is_dir() and ipfs_hash(folder) == expected:
                outcomes.append(Outcome(package_id, "kept", None))
                continue
            origin = package_dir(source, package_id)
            actual = ipfs_hash(origin) if origin.is_dir() else "missing"
            if actual != expected:
                raise SyncError(
                    f"{uri} at {origin}: expected hash {expected} (mech-interact "
                    f"{MECH_INTERACT_RELEASE}'s packages.json), actual {actual}. The folder "
                    "is not the released package or was modified; provide the release again."
                )
            present = folder.is_dir()
            ensure_init_files(destination, package_id)
            copy_package(origin, folder)
            if ipfs_hash(folder) != expected:
                raise SyncError(
                    f"{uri} at {folder}: the copy does not hash to {expected}"
                )
            outcomes.append(
                Outcome(package_id, "replaced" if present else "copied", origin)
            )
        for init in (destination / "__init__.py",):
            init.touch()
    return outcomes


@click.command()
@click.option(
    "--packages-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=PACKAGES_DIR,
    show_default=True,
    help="The packages/ folder holding packages.json.",
)
@click.option(
    "--source",
    "extra_sources",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A packages/ root searched before the wheels (repeatable).",
)
@click.option(
    "--check", is_flag=True, help="Only verify packages/; copy and remove nothing."
)
@click.option("--no-aea-cache", is_flag=True, help="Do not seed ~/.aea/cache/packages.")
@click.option(
    "--mech-interact",
    is_flag=True,
    help=f"Also sync mech-interact's packages into {MECH_INTERACT_DIR} (composition tests).",
)
@click.option(
    "--mech-interact-source",
    type=click.Path(file_okay=False, path_type=Path),
    default=MECH_INTERACT_SOURCE,
    show_default=True,
    help="mech-interact's released packages/ folder.",
)
@click.option("--verbose", is_flag=True, help="Print each package and what was done.")
def main(  # pylint: disable=too-many-arguments
    packages_dir: Path,
    extra_sources: Sequence[Path],
    check: bool,
    no_aea_cache: bool,
    mech_interact: bool,
    mech_interact_source: Path,
    verbose: bool,
) -> None:
    """Copy and verify the third-party packages pinned in packages.json, offline.

    :param packages_dir: the packages/ folder holding packages.json.
    :param extra_sources: packages/ roots searched before the wheels.
    :param check: only verify, copy nothing.
    :param no_aea_cache: do not seed the AEA package cache.
    :param mech_interact: also sync mech-interact's packages.
    :param mech_interact_source: mech-interact's released packages/ folder.
    :param verbose: also print each package and what happened to it.
    """
    if mech_interact:
        synced = sync_mech_interact(mech_interact_source)
        click.echo(
            f"mech-interact packages: {len(synced)} verified into {MECH_INTERACT_DIR}"
        )
    sources = list(extra_sources)
    if not check:
        sources += [
            open_autonomy_packages(),
            mech_server_packages(CACHE_DIR),
            mech_interact_source,
        ]
    outcomes = sync(
        packages_dir,
        sources,
        check_only=check,
        aea_cache=None if no_aea_cache else AEA_PACKAGE_CACHE,
        mech_interact_source=mech_interact_source,
    )
    skipped = sum(outcome.action == "skipped" for outcome in outcomes)
    if skipped:
        click.echo(f"Notice: {mech_interact_missing_notice(mech_interact_source)}")
    # a package's source is <root>/<author>/<type>s/<name>: one line per root
    moved = Counter(
        (outcome.action, outcome.source.parents[2] if outcome.source else None)
        for outcome in outcomes
        if outcome.action not in ("kept", "skipped")
    )
    for (action, source), count in moved.items():
        click.echo(f"{action} {count} package{'s' * (count != 1)} from {source}")
    if verbose:
        for outcome in outcomes:
            click.echo(f"  {outcome.action} {outcome.package_id.to_uri_path}")
    kept = sum(outcome.action == "kept" for outcome in outcomes)
    click.echo(
        f"third-party packages: {len(outcomes) - skipped} verified "
        f"({kept} already in place, {len(outcomes) - kept - skipped} copied"
        + (f", {skipped} skipped" if skipped else "")
        + ")"
    )


if __name__ == "__main__":
    main()  # pylint: disable=no-value-for-parameter
