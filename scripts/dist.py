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

"""``make dist``: the wheels of the two distributions, the library and the CLI.

- ``mech-catalogue-core`` (``libs/mech-catalogue-core``): the domain library;
- ``mech-catalogue`` (the root ``pyproject.toml``): the CLI and the MCP server.

Each is built with ``pip wheel --no-deps`` (pip's build isolation fetches the
``setuptools`` its ``[build-system]`` asks for, from pip's cache after the first time) from
a copy of exactly the files that go into it, so that no ``build/`` or ``*.egg-info`` is left
in the checkout, and the digest of those files (:func:`source_digest`) names the build:
:func:`cached_wheels` reuses the wheels of an unchanged source (tests/devnet/
test_installed_wheels.py). ``python -m scripts.dist --out dist`` writes them into ``dist/``.
"""

import argparse
import hashlib
import os
import shutil
import subprocess  # nosec B404: runs this interpreter's pip
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Sequence, Tuple

from scripts.toolchain import REPO_ROOT

#: the project's cache root (scripts/install_tools.sh, scripts/devnet/solidity.py)
CACHE_ROOT = Path(
    os.environ.get("MECH_CATALOGUE_CACHE", Path.home() / ".cache" / "mech-catalogue")
)
#: the file naming a cached build's wheels, written last
LISTING = "wheels.txt"
#: files that never go into a wheel
_SKIPPED_PARTS = frozenset({"__pycache__", "tests"})


class DistError(Exception):
    """A wheel could not be built; the message carries pip's last words."""


@dataclass(frozen=True)
class Distribution:
    """One distribution: its project folder and what its wheel is built from.

    :param name: the ``[project] name`` of its ``pyproject.toml``.
    :param project: its folder (the one holding ``pyproject.toml``), repository-relative.
    :param package: its import package folder, relative to ``project``.
    """

    name: str
    project: str
    package: str

    def files(self, root: Path) -> Iterator[Path]:
        """Yield the files its wheel is built from, relative to ``root``, in a fixed order.

        :param root: the repository root.
        :yield: ``pyproject.toml``, ``README.md`` and every package file but tests and caches.
        """
        project = root / self.project
        yield Path(self.project) / "pyproject.toml"
        yield Path(self.project) / "README.md"
        for path in sorted((project / self.package).rglob("*")):
            relative = path.relative_to(project)
            if path.is_file() and not _SKIPPED_PARTS & set(relative.parts):
                if path.suffix != ".pyc":
                    yield Path(self.project) / relative


#: the library first: the CLI's wheel depends on it by exact version
DISTRIBUTIONS: Tuple[Distribution, ...] = (
    Distribution(
        "mech-catalogue-core", "libs/mech-catalogue-core", "mech_catalogue_core"
    ),
    Distribution("mech-catalogue", ".", "mech_catalogue_cli"),
)


def source_digest(
    root: Path = REPO_ROOT, distributions: Sequence[Distribution] = DISTRIBUTIONS
) -> str:
    """Return the sha256 of every file the wheels are built from (paths and contents).

    :param root: the repository root.
    :param distributions: the distributions.
    :return: 64 hex digits; any edit, added or removed file changes it.
    """
    digest = hashlib.sha256()
    for distribution in distributions:
        for relative in distribution.files(root):
            content = (root / relative).read_bytes()
            digest.update(f"{relative.as_posix()}\0{len(content)}\0".encode())
            digest.update(content)
    return digest.hexdigest()


def _copy_sources(distribution: Distribution, root: Path, into: Path) -> Path:
    for relative in distribution.files(root):
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / relative, target)
    return into / distribution.project


#: the wheels' file times unless the caller sets ``SOURCE_DATE_EPOCH``: the same sources
#: then give byte-identical wheels (reproducible-builds.org's variable, which the
#: ``wheel`` package's writer honours); 1980-01-01 is the earliest time a zip holds
BUILD_EPOCH = "315532800"


def _pip_wheel(project: Path, out: Path) -> None:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet"]
    done = subprocess.run(  # nosec B603: this interpreter's pip, fixed arguments
        [*command, "--wheel-dir", str(out), str(project)],
        capture_output=True,
        text=True,
        check=False,
        env={"SOURCE_DATE_EPOCH": BUILD_EPOCH, **os.environ},
    )
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-3:] or [f"exit {done.returncode}"]
        raise DistError(
            f"pip wheel {project.name or project}: {' / '.join(last)} "
            "(the first build fetches setuptools from PyPI; later ones use pip's cache)"
        )


def build_wheels(out: Path, root: Path = REPO_ROOT) -> List[Path]:
    """Build the wheel of each distribution into ``out``.

    :param out: the folder the wheels are written to (created if missing).
    :param root: the repository root.
    :return: the wheel files, the library's first.
    :raises DistError: when pip cannot build one.
    """
    out.mkdir(parents=True, exist_ok=True)
    wheels = []
    with tempfile.TemporaryDirectory(prefix="mech-catalogue-dist-") as scratch:
        for distribution in DISTRIBUTIONS:
            project = _copy_sources(distribution, root, Path(scratch))
            before = set(out.glob("*.whl"))
            _pip_wheel(project, out)
            made = sorted(set(out.glob("*.whl")) - before) or sorted(
                out.glob(f"{distribution.name.replace('-', '_')}-*.whl")
            )
            if not made:
                raise DistError(f"pip wheel left no wheel of {distribution.name}")
            wheels.append(made[-1])
    return wheels


def cached_wheels(cache_root: Path = CACHE_ROOT, root: Path = REPO_ROOT) -> List[Path]:
    """Return the wheels of the current sources, built once per :func:`source_digest`.

    A build goes to a folder of its own and is renamed into place whole, so that runs
    sharing the cache (several checkouts, several test workers) never read a wheel being
    written; of two builds of one digest, the first renamed is kept.

    :param cache_root: the project's cache root; wheels go to ``<it>/dist/<digest>/``.
    :param root: the repository root.
    :return: the wheel files, the library's first.
    :raises DistError: when pip cannot build one (:func:`build_wheels`), or the digest's
        folder holds an incomplete build.
    """
    folder = cache_root / "dist" / source_digest(root)
    if not _listed(folder):
        folder.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder.parent) as scratch:
            built = Path(scratch) / "wheels"
            wheels = build_wheels(built, root)
            (built / LISTING).write_text("\n".join(w.name for w in wheels) + "\n")
            try:
                built.rename(folder)
            except OSError:  # another run renamed its build first
                pass
    wheels = _listed(folder)
    if not wheels:
        raise DistError(f"{folder} holds no complete build; remove it and run again")
    return wheels


def _listed(folder: Path) -> List[Path]:
    try:
        names = (folder / LISTING).read_text().split()
    except OSError:
        return []
    wheels = [folder / name for name in names]
    return wheels if wheels and all(wheel.is_file() for wheel in wheels) else []


def main(argv: Sequence[str] = ()) -> int:
    """Build the wheels into ``--out`` (``make dist``), replacing older ones of ours there.

    :param argv: command-line arguments.
    :return: 0, or 1 when a build fails (the reason on stderr).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "dist")
    out = parser.parse_args(list(argv)).out
    for old in out.glob("mech_catalogue*.whl"):
        old.unlink()
    try:
        wheels = build_wheels(out)
    except DistError as error:
        print(f"dist: {error}", file=sys.stderr)
        return 1
    for wheel in wheels:
        print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
