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

"""A local tool package folder, read for :mod:`mech_catalogue_core.derive.package`.

The folder's files are read here, each capped (``component.yaml`` at
:data:`~mech_catalogue_core.derive.package.MAX_COMPONENT_YAML_BYTES`, Python files at
:data:`~mech_catalogue_core.derive.package.MAX_SOURCE_BYTES`, at most
:data:`~mech_catalogue_core.derive.package.MAX_SIBLING_MODULES` sibling modules), and
handed to the library's pure derivation (:func:`~mech_catalogue_core.derive.package.parse_component`,
:func:`~mech_catalogue_core.derive.package.derive_component`). Nothing read is imported
or executed. Used by the CLI's ``derive``/``generate``/``publish``, the publish skill's
``tool_packages`` and the devnet.
"""

from pathlib import Path
from typing import Dict, Union

from mech_catalogue_core.derive.package import (
    MAX_COMPONENT_YAML_BYTES,
    MAX_SIBLING_MODULES,
    MAX_SOURCE_BYTES,
    derive_component,
    parse_component,
)
from mech_catalogue_core.derive.results import (
    DerivedPackage,
    DeriveError,
)
from mech_catalogue_core.model.problems import (
    ENTRY_POINT_NOT_FOUND,
    INVALID_COMPONENT_YAML,
    PACKAGE_NOT_FOUND,
    SOURCE_TOO_LARGE,
    error,
)


def derive_package(path: Union[str, Path]) -> DerivedPackage:
    """Analyse a tool package folder (never importing its code).

    :param path: the folder holding ``component.yaml`` (or the ``component.yaml`` itself).
    :return: what was found.
    :raises DeriveError: when the folder, ``component.yaml``, entry point or callable is
        missing or unreadable, or a file is over its cap; the problem names the file and
        what to do.
    """
    folder = Path(path)
    if folder.is_file() and folder.name == "component.yaml":
        folder = folder.parent
    component_file = folder / "component.yaml"
    if not folder.exists():
        raise DeriveError(
            error(
                PACKAGE_NOT_FOUND,
                f"{folder}: no such folder (from {Path.cwd()}); pass a tool package "
                "folder, e.g. packages/AUTHOR/customs/NAME. The examples the docs "
                "name (examples/tools/...) are in the repository's checkout, not in the "
                "installed package.",
            )
        )
    if not component_file.is_file():
        raise DeriveError(
            error(
                PACKAGE_NOT_FOUND,
                f"{folder}: no component.yaml here; pass the tool package folder "
                "(e.g. packages/AUTHOR/customs/NAME).",
            )
        )
    component = parse_component(
        read_capped(component_file, MAX_COMPONENT_YAML_BYTES, INVALID_COMPONENT_YAML),
        str(component_file),
    )
    entry_file = entry_point_file(folder, component["entry_point"], component_file)
    return derive_component(
        component,
        read_capped(entry_file, MAX_SOURCE_BYTES, SOURCE_TOO_LARGE),
        (str(component_file), str(entry_file)),
        folder.name,
        sibling_modules(folder, entry_file),
    )


def sibling_modules(folder: Path, entry_file: Path) -> Dict[str, str]:
    """Read the folder's other ``.py`` files (the first :data:`MAX_SIBLING_MODULES`, by name).

    :param folder: the package folder.
    :param entry_file: the entry point, resolved (left out).
    :return: file name -> text (undecodable bytes replaced); :func:`read_capped`'s
        DeriveError SOURCE_TOO_LARGE propagates when one is over :data:`MAX_SOURCE_BYTES`.
    """
    return {
        path.name: read_capped(path, MAX_SOURCE_BYTES, SOURCE_TOO_LARGE).decode(
            "utf-8", errors="replace"
        )
        for path in sorted(folder.glob("*.py"))[:MAX_SIBLING_MODULES]
        if path.resolve() != entry_file and path.is_file()
    }


def read_capped(path: Path, cap: int, code: str) -> bytes:
    """Read a file, at most ``cap`` + 1 bytes.

    :param path: the file.
    :param cap: the most bytes accepted.
    :param code: the problem code when it is larger.
    :return: its bytes.
    :raises DeriveError: ``code`` when it holds more than ``cap`` bytes.
    """
    with path.open("rb") as handle:
        raw = handle.read(cap + 1)
    if len(raw) > cap:
        raise DeriveError(error(code, f"{path}: more than the {cap}-byte cap."))
    return raw


def entry_point_file(folder: Path, entry_point: str, component_file: Path) -> Path:
    """Resolve ``entry_point`` inside the folder.

    :param folder: the package folder.
    :param entry_point: ``component.yaml``'s ``entry_point``.
    :param component_file: ``component.yaml`` (named in the message).
    :return: the entry point's resolved path.
    :raises DeriveError: ENTRY_POINT_NOT_FOUND when it is not a file inside the folder
        (``..`` and links out of it included).
    """
    root = folder.resolve()
    candidate = (folder / entry_point).resolve()
    if not candidate.is_relative_to(root) or not candidate.is_file():
        raise DeriveError(
            error(
                ENTRY_POINT_NOT_FOUND,
                f"{component_file}: entry_point {entry_point!r} is not a file inside {folder}.",
                "/entry_point",
            )
        )
    return candidate
