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

"""Docstrings and docs/*.md name files and modules that exist.

A reference is checked when it points into this repository: a path whose first folder is
one of ours (``scripts/``, ``tests/``, ``docs/``, ``mech_catalogue_core/``, ``tool_metadata_abci/``...)
or that starts with ``packages/mech_catalogue``, and every Sphinx ``:mod:`` reference
(relative ones resolved from the module they appear in). References to other projects
(``packages/valory/...``, ``autonomy/...``, a tutorial's ``my-mech/...``) are not checked.
A path resolves when it exists from the repository root or the file's folder, or when a
file of the repository ends with it (``mech_catalogue_core/ipfs/cid.py``); ``...`` stands for any
folders.
"""

import ast
import importlib.util
import re
import subprocess  # nosec B404: git lists the repository's files
from functools import lru_cache
from pathlib import Path
from typing import Iterator, List, Optional, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIPPED_DIRS = {".venv", ".tools", ".git", "__pycache__", "node_modules", "mutants"}
SCOPE = ("libs", "packages/mech_catalogue", "scripts", "tests", "docs", "README.md")
#: folders holding top-level Python packages (``:mod:`` references resolve from each)
MODULE_ROOTS = (ROOT, ROOT / "libs" / "mech-catalogue-core")
#: first folders of a path that mean "this repository"
OUR_ROOTS = {
    "scripts",
    "tests",
    "docs",
    "examples",
    "libs",
    "mech_catalogue_core",
    "skills",
    "behaviours",
    "states",
    "connections",
    "contracts",
    "tool_metadata_abci",
    "tool_metadata_chained_abci",
}
PATH_RE = re.compile(
    r"(?<![\w/.:-])((?:[A-Za-z_][\w.-]*|\.\.\.)(?:/(?:[\w.-]+|\.\.\.))+"
    r"\.(?:py|md|yaml|json|sh|sol))\b"
)
MOD_RE = re.compile(r":mod:`~?([.\w]+)`")

#: (file, reference) pairs known to be stale; empty: every reference resolves. An entry
#: added here must be removed once fixed (the test fails on a stale entry).
KNOWN_UNRESOLVED: Set[Tuple[str, str]] = set()


def _files() -> Iterator[Path]:
    """The repository's own files: tracked, or new and not ignored.

    What set-up fetches or builds (``packages/valory/`` from ``../shared``, ``.run/``,
    ``dist/``) is ignored by git: a reference that resolves only there would fail on a
    clone without them. Without git (an unpacked archive), every file below the root.

    :yields: each file's path.
    """
    try:
        listed = subprocess.run(  # nosec B603 B607: a fixed git command
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        listed = b""
    if listed:
        for name in listed.decode("utf-8", "surrogateescape").split("\0"):
            path = ROOT / name
            if name and path.is_file():
                yield path
        return
    for path in ROOT.rglob("*"):
        if path.is_file() and not SKIPPED_DIRS.intersection(path.parts):
            yield path


@lru_cache(maxsize=1)
def _repository_paths() -> Tuple[str, ...]:
    return tuple(str(p.relative_to(ROOT)) for p in _files())


def is_ours(reference: str) -> bool:
    """Say whether a path reference points into this repository.

    :param reference: a path as written, e.g. ``mech_catalogue_core/ipfs/cid.py``.
    :return: True when it should be checked.
    """
    if reference.startswith("packages/"):
        return reference.startswith(("packages/mech_catalogue", "packages/..."))
    return reference.split("/", 1)[0] in OUR_ROOTS


def path_resolves(reference: str, where: Path) -> bool:
    """Say whether a path reference names an existing file.

    :param reference: the path as written (``...`` = any folders).
    :param where: the file it appears in.
    :return: True when it exists from the root or ``where``'s folder, or ends a file path.
    """
    if "..." not in reference and (
        (ROOT / reference).exists() or (where.parent / reference).exists()
    ):
        return True
    pattern = re.compile(
        r"(^|.*/)" + re.escape(reference).replace(re.escape("..."), ".+") + "$"
    )
    return any(pattern.match(path) for path in _repository_paths())


def _module_exists(dotted: str) -> bool:
    for root in MODULE_ROOTS:
        base = root.joinpath(*dotted.split("."))
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return True
    return False


def module_resolves(reference: str, module: str) -> bool:
    """Say whether a ``:mod:`` reference names a module.

    :param reference: e.g. ``.tool``, ``..manifest.validation`` or ``json``.
    :param module: the dotted name of the module the reference appears in.
    :return: True when the module exists (relative: from ``module``'s package).
    """
    if reference.startswith("."):
        dots = len(reference) - len(reference.lstrip("."))
        package = module.split(".")[:-1]
        package = package[: len(package) - (dots - 1)] if dots > 1 else package
        rest = reference.lstrip(".")
        return _module_exists(".".join(package + ([rest] if rest else [])))
    if _module_exists(reference):
        return True
    return importlib.util.find_spec(reference.split(".")[0]) is not None


def _texts(path: Path, source: str) -> Iterator[str]:
    if path.suffix == ".md":
        yield source
        return
    tree = ast.parse(source)
    nodes = [tree] + [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    for node in nodes:
        doc = ast.get_docstring(node, clean=False)
        if doc:
            yield doc


def unresolved_references(path: Path, source: Optional[str] = None) -> List[str]:
    """List the references of one file that do not resolve.

    :param path: a Markdown or Python file of the repository (it need not exist when
        ``source`` is given: the check then runs as if it were there).
    :param source: the file's text (default: read ``path``).
    :return: the unresolved references (``:mod:`` ones prefixed ``:mod:``).
    """
    relative = path.relative_to(ROOT)
    module = str(relative.with_suffix("")).replace("/", ".")
    if source is None:
        source = path.read_text(encoding="utf-8")
    found = []
    for text in _texts(path, source):
        for match in PATH_RE.finditer(text):
            reference = match.group(1)
            if is_ours(reference) and not path_resolves(reference, path):
                found.append(reference)
        if path.suffix == ".py":
            for match in MOD_RE.finditer(text):
                if not module_resolves(match.group(1), module):
                    found.append(":mod:" + match.group(1))
    return found


def _scope() -> List[Path]:
    return sorted(
        path
        for path in _files()
        if path.suffix in (".py", ".md")
        and str(path.relative_to(ROOT)).startswith(SCOPE)
        and "fixtures" not in path.parts
    )


def test_docstrings_and_docs_name_existing_files_and_modules() -> None:
    """Every checked reference resolves, except the known ones listed for other branches."""
    found = {
        (str(path.relative_to(ROOT)), reference)
        for path in _scope()
        for reference in unresolved_references(path)
    }
    assert sorted(found - KNOWN_UNRESOLVED) == []
    assert sorted(KNOWN_UNRESOLVED - found) == [], "fixed: delete from KNOWN_UNRESOLVED"


@pytest.mark.parametrize(
    "docstring, expected",
    [
        ('"""See mech_catalogue_core/ipfs/cid.py and :mod:`.tool`."""', []),
        (
            '"""See mech_catalogue_core/published.py."""',
            ["mech_catalogue_core/published.py"],
        ),
        (
            '"""See mech_catalogue_core/tests/test_nothing_here.py."""',
            ["mech_catalogue_core/tests/test_nothing_here.py"],
        ),
        (
            '"""Moved: :mod:`.validation`; gone: :mod:`..nowhere`."""',
            [":mod:.validation", ":mod:..nowhere"],
        ),
        (
            '"""Other projects are not ours: autonomy/deploy/app.py, my-mech/x.json."""',
            [],
        ),
        (
            '"""Stdlib and relative up: :mod:`json`, :mod:`..manifest.validation`."""',
            [],
        ),
    ],
)
def test_the_check_finds_what_does_not_resolve(
    docstring: str, expected: List[str]
) -> None:
    """A module written here is checked as if it were in mech_catalogue_core/model/ (nothing is written).

    :param docstring: the module's docstring.
    :param expected: the references the check must report.
    """
    probe = ROOT / "libs/mech-catalogue-core/mech_catalogue_core/model/_probe.py"
    assert unresolved_references(probe, docstring + "\n") == expected


def test_references_resolve_only_to_the_repositorys_own_files() -> None:
    """What set-up fetches (ignored by git) never makes a reference resolve.

    mech-interact's request behaviour exists only in its synced package, which a clone
    without ``../shared`` lacks; a file of ours does resolve by its ending.
    """
    paths = _repository_paths()
    assert not [
        p for p in paths if p.startswith(("packages/valory/", ".run/", "dist/"))
    ]
    probe = ROOT / "docs" / "_probe.md"
    assert unresolved_references(probe, "See `behaviours/request.py`.") == [
        "behaviours/request.py"
    ]
    assert not unresolved_references(probe, "See `ipfs/cid.py`.")
