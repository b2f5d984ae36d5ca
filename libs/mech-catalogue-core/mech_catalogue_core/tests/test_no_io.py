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

"""The library does no I/O outside :mod:`mech_catalogue_core.adapters` (issue #30 item 5).

Its modules decide; disk, threads, sockets and processes are behind the adapters a caller
hands in (:mod:`mech_catalogue_core.ports`). This reads every module's source and fails on
an import of an I/O module or a call of ``open`` outside the adapters.
"""

import ast
from pathlib import Path
from typing import Iterator, Set, Tuple

import mech_catalogue_core

LIBRARY = Path(mech_catalogue_core.__file__).parent
#: modules whose import means I/O (files, processes, threads, network)
IO_MODULES = frozenset(
    {
        "os",
        "io",
        "shutil",
        "tempfile",
        "socket",
        "subprocess",
        "threading",
        "multiprocessing",
        "urllib.request",
        "http.client",
        "requests",
        "aiohttp",
        "web3",
    }
)
#: names whose import means starting threads or processes
IO_NAMES = frozenset({"ThreadPoolExecutor", "ProcessPoolExecutor", "Path"})
#: what still does I/O outside the adapters, and why; remove an entry once it moves
KNOWN: Set[Tuple[str, str]] = {
    # the manifest JSON Schema, the library's own package data, read once at import
    ("manifest/validation.py", "Path"),
}


def _io_uses(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name in IO_MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module in IO_MODULES:
                yield node.module
            yield from (a.name for a in node.names if a.name in IO_NAMES)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "open":
                yield "open"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "open":
                yield "open"


def test_only_the_adapters_do_io() -> None:
    """Every I/O import or ``open`` call is in adapters/ or listed in :data:`KNOWN`."""
    found: Set[Tuple[str, str]] = set()
    for path in LIBRARY.rglob("*.py"):
        relative = path.relative_to(LIBRARY)
        if relative.parts[0] in ("adapters", "tests"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found.update((relative.as_posix(), use) for use in _io_uses(tree))
    assert found - KNOWN == set()
    assert KNOWN - found == set(), "moved behind an adapter: delete it from KNOWN"


def test_the_check_sees_each_kind_of_io() -> None:
    """Each kind the rule names is found in a module written here."""
    source = (
        "import os\nimport threading as t\nfrom concurrent.futures import "
        "ThreadPoolExecutor\nfrom urllib.request import urlopen\n"
        "with open('x') as f: pass\nPath('x').open()\n"
    )
    assert sorted(_io_uses(ast.parse(source))) == sorted(
        ["os", "threading", "ThreadPoolExecutor", "urllib.request", "open", "open"]
    )
