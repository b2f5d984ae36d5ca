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

"""scripts/dist.py: what the wheels are built from, and when a cached build is reused.

Building and installing the wheels themselves is tests/devnet/test_installed_wheels.py;
these lay out a small source tree of the two distributions in a temporary folder.
"""

import os
from pathlib import Path

import pytest

from scripts.dist import (
    LISTING,
    DistError,
    build_wheels,
    cached_wheels,
    source_digest,
)


def _tree(root: Path) -> Path:
    for project, package in (
        ("libs/mech-catalogue-core", "mech_catalogue_core"),
        (".", "mech_catalogue_cli"),
    ):
        folder = root / project
        (folder / package / "sub").mkdir(parents=True)
        (folder / "pyproject.toml").write_text(f'[project]\nname = "{package}"\n')
        (folder / "README.md").write_text(f"# {package}\n")
        (folder / package / "__init__.py").write_text('"""Package."""\n')
        (folder / package / "sub" / "part.py").write_text("VALUE = 1\n")
    return root


def test_the_digest_follows_every_file_the_wheels_hold(tmp_path: Path) -> None:
    """An edit, a new file or a README change moves the digest; a rebuild of nothing does not."""
    root = _tree(tmp_path)
    first = source_digest(root)
    assert source_digest(root) == first
    part = root / "libs/mech-catalogue-core/mech_catalogue_core/sub/part.py"
    part.write_text("VALUE = 2\n")
    edited = source_digest(root)
    assert edited != first
    (root / "mech_catalogue_cli" / "sub" / "more.py").write_text("")
    added = source_digest(root)
    assert added not in {first, edited}
    (root / "README.md").write_text("# the CLI, described anew\n")
    assert source_digest(root) not in {first, edited, added}


def test_tests_and_caches_are_not_sources(tmp_path: Path) -> None:
    """The library's tests and byte-code never reach a wheel, so they leave the digest be."""
    root = _tree(tmp_path)
    before = source_digest(root)
    library = root / "libs/mech-catalogue-core/mech_catalogue_core"
    (library / "tests").mkdir()
    (library / "tests" / "test_it.py").write_text("def test(): pass\n")
    (library / "__pycache__").mkdir()
    (library / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (library / "sub" / "stray.pyc").write_bytes(b"\0")
    assert source_digest(root) == before


def test_a_complete_cached_build_is_reused_without_building(tmp_path: Path) -> None:
    """The digest's folder listing wheels that exist: returned as they are, nothing built."""
    root = _tree(tmp_path / "src")
    folder = tmp_path / "cache" / "dist" / source_digest(root)
    folder.mkdir(parents=True)
    names = ["mech_catalogue_core-0.1.0-py3-none-any.whl", "mech_catalogue-0.1.0.whl"]
    for name in names:
        (folder / name).write_bytes(b"PK")
    (folder / LISTING).write_text("\n".join(names) + "\n")
    assert cached_wheels(tmp_path / "cache", root) == [folder / n for n in names]


def test_an_incomplete_build_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listing naming a wheel that is gone is not a build: the wheels are built again."""
    root = _tree(tmp_path / "src")
    folder = tmp_path / "cache" / "dist" / source_digest(root)
    folder.mkdir(parents=True)
    (folder / LISTING).write_text("mech_catalogue-0.1.0-py3-none-any.whl\n")
    asked = []

    def refuse(_out: Path, source_root: Path) -> None:
        asked.append(source_root)
        raise DistError("pip is not asked here")

    monkeypatch.setattr("scripts.dist.build_wheels", refuse)  # pip: the devnet test's
    with pytest.raises(DistError):
        cached_wheels(tmp_path / "cache", root)
    assert asked == [root]


def test_the_same_sources_give_byte_identical_wheels(tmp_path: Path) -> None:
    """Two builds of one tree, its files touched in between, give the same bytes.

    :param tmp_path: the tree and the two output folders.
    """
    root = _tree(tmp_path / "tree")
    for project, package in (
        ("libs/mech-catalogue-core", "mech_catalogue_core"),
        (".", "mech_catalogue_cli"),
    ):
        (root / project / "pyproject.toml").write_text(
            '[build-system]\nrequires = ["setuptools>=77"]\n'
            'build-backend = "setuptools.build_meta"\n'
            f'[project]\nname = "{package}"\nversion = "1.0"\n'
            f'[tool.setuptools.packages.find]\ninclude = ["{package}*"]\n'
        )
    first = build_wheels(tmp_path / "first", root)
    for path in root.rglob("*"):
        os.utime(path, (1.9e9, 1.9e9))  # another checkout time
    second = build_wheels(tmp_path / "second", root)
    assert [w.name for w in first] == [w.name for w in second]
    for made, again in zip(first, second):
        assert made.read_bytes() == again.read_bytes(), made.name
