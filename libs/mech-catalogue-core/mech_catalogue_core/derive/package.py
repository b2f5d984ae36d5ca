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

"""A tool package's files as handed in: ``component.yaml``, the entry point, the byte caps.

This module reads nothing itself: the files come from the caller, a local folder through
:func:`mech_catalogue_core.adapters.package_folder.derive_package`, a package directory
on IPFS through :func:`derive_files`. Nothing handed in is imported or executed; the
entry point's text goes to :func:`.module_analysis.derive_source`.
"""

import math
from dataclasses import replace
from typing import Any, Dict, List, Mapping, Tuple

import yaml
from mech_catalogue_core.derive.module_analysis import (
    derive_source,
)
from mech_catalogue_core.derive.results import (
    DerivedPackage,
    DeriveError,
)
from mech_catalogue_core.model.canonical import (
    MAX_SAFE_INTEGER,
)
from mech_catalogue_core.model.problems import (
    ENTRY_POINT_NOT_FOUND,
    INVALID_COMPONENT_YAML,
    NOT_A_CUSTOM_COMPONENT,
    PACKAGE_NOT_FOUND,
    SOURCE_TOO_LARGE,
    Problem,
    error,
    warning,
)

#: Byte caps on what is read from a tool package.
MAX_COMPONENT_YAML_BYTES = 64 * 1024
#: nesting levels of ``component.yaml`` (a mech tool's has 3: fingerprint, params)
MAX_COMPONENT_DEPTH = 32
MAX_SOURCE_BYTES = 2 * 1024 * 1024
#: Most sibling modules of a package folder read for helpers the entry point imports.
MAX_SIBLING_MODULES = 64


def derive_files(files: Mapping[str, bytes], where: str) -> DerivedPackage:
    """Analyse a tool package given as file contents (e.g. read from IPFS), never importing it.

    :param files: path inside the package (``component.yaml``, ``tool.py``...) -> bytes;
        the caller has capped and verified them.
    :param where: names the package in messages (e.g. ``ipfs://<CID>``).
    :return: what was found.
    :raises DeriveError: when ``component.yaml`` or its entry point is missing, too large
        or unreadable, or the module does not parse; the problem names ``where``.
    """
    if "component.yaml" not in files:
        raise DeriveError(
            error(
                PACKAGE_NOT_FOUND,
                f"{where}: no component.yaml in the package directory; point code_uri "
                "at the tool package directory.",
            )
        )
    component_raw = files["component.yaml"]
    if len(component_raw) > MAX_COMPONENT_YAML_BYTES:
        raise DeriveError(
            error(
                INVALID_COMPONENT_YAML,
                f"{where}/component.yaml: more than the {MAX_COMPONENT_YAML_BYTES}-byte cap.",
            )
        )
    component = parse_component(component_raw, f"{where}/component.yaml")
    entry_point = component["entry_point"].strip().lstrip("./")
    if entry_point not in files:
        raise DeriveError(
            error(
                ENTRY_POINT_NOT_FOUND,
                f"{where}/component.yaml: entry_point {component['entry_point']!r} is not "
                "a file of the package directory; add it or fix entry_point.",
                "/entry_point",
            )
        )
    raw = files[entry_point]
    if len(raw) > MAX_SOURCE_BYTES:
        raise DeriveError(
            error(
                SOURCE_TOO_LARGE,
                f"{where}/{entry_point}: more than the {MAX_SOURCE_BYTES}-byte cap.",
            )
        )
    name = where.rstrip("/").rsplit("/", 1)[-1]
    siblings = {
        n: b.decode("utf-8", errors="replace")
        for n, b in files.items()
        if n.endswith(".py") and n != entry_point and len(b) <= MAX_SOURCE_BYTES
    }
    return derive_component(
        component,
        raw,
        (f"{where}/component.yaml", f"{where}/{entry_point}"),
        name,
        siblings,
    )


def derive_component(
    component: Dict[str, Any],
    raw: bytes,
    names: Tuple[str, str],
    fallback_name: str,
    siblings: Dict[str, str],
) -> DerivedPackage:
    """Analyse a package's entry point given its parsed ``component.yaml`` (pure).

    :param component: ``component.yaml`` as :func:`parse_component` returns it.
    :param raw: the entry point's bytes (capped by the caller at
        :data:`MAX_SOURCE_BYTES`).
    :param names: ``(component.yaml, entry point)`` as messages name them (paths or
        ``ipfs://<CID>/...``).
    :param fallback_name: the tool's name when ``component.yaml`` has no ``name``.
    :param siblings: the package's other ``.py`` files, name -> text (for constants they
        define).
    :return: what was found; a component whose ``type`` is not ``custom`` carries a
        NOT_A_CUSTOM_COMPONENT warning.
    """
    component_file, entry_file = names
    warnings: List[Problem] = []
    if component.get("type") != "custom":
        warnings.append(
            warning(
                NOT_A_CUSTOM_COMPONENT,
                f"{component_file}: type is {component.get('type')!r}, expected 'custom'; "
                "derivation continues.",
                "/type",
            )
        )
    derived = derive_source(
        raw.decode("utf-8", errors="replace"),
        callable_name=component["callable"],
        component_name=str(component.get("name") or fallback_name),
        params=(
            component.get("params") if isinstance(component.get("params"), dict) else {}
        ),
        filename=entry_file,
        siblings=siblings,
    )
    description = str(component.get("description") or "").strip() or derived.description
    return replace(
        derived,
        author=str(component.get("author") or ""),
        version=str(component.get("version") or ""),
        description=description,
        entry_point=str(component["entry_point"]),
        problems=tuple(warnings) + derived.problems,
    )


class _ComponentLoader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
    """PyYAML's safe loader without what anyone's bytes could turn against the reader.

    ``component.yaml`` comes from whoever registers a package (``code_uri``), so: no
    aliases (a few hundred bytes of nested aliases expand to gigabytes: billion laughs),
    nesting at most :data:`MAX_COMPONENT_DEPTH` levels (composing is recursive), and no
    implicit timestamps (``version: 2001-13-45`` raised ``ValueError`` out of the loader;
    such scalars stay strings, as in JSON).
    """

    yaml_implicit_resolvers = {
        first: [
            (tag, regexp)
            for tag, regexp in resolvers
            if tag != "tag:yaml.org,2002:timestamp"
        ]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        """Read ``stream``.

        :param stream: the YAML text.
        """
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        """Compose one node, refusing aliases and nesting past the cap.

        :param parent: the parent node (PyYAML's resolver context).
        :param index: the node's index or key in its parent.
        :return: the node.
        :raises ComposerError: at an alias or past :data:`MAX_COMPONENT_DEPTH`.
        """
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not accepted", event.start_mark
            )
        self.depth += 1
        if self.depth > MAX_COMPONENT_DEPTH:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"nested deeper than {MAX_COMPONENT_DEPTH} levels",
                event.start_mark,
            )
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _not_json_like(value: Any, pointer: str) -> str:
    """The JSON Pointer of the first value JSON cannot hold, or ``""``.

    Recursion is bounded by :data:`MAX_COMPONENT_DEPTH`, already enforced by the loader.

    :param value: a value the loader built.
    :param pointer: its JSON Pointer (``""`` for the document).
    :return: the pointer of the first odd value (``"/"`` for the document), or ``""``.
    """
    if isinstance(value, (dict, list)):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(value, dict) and not isinstance(key, str):
                return f"{pointer}/{key!r}"
            found = _not_json_like(item, f"{pointer}/{key}")
            if found:
                return found
        return ""
    json_like = (
        value is None
        or isinstance(value, (bool, str))
        or (isinstance(value, int) and abs(value) <= MAX_SAFE_INTEGER)
        or (isinstance(value, float) and math.isfinite(value))
    )
    return "" if json_like else pointer or "/"


def parse_component(raw: bytes, component_file: str) -> Dict[str, Any]:
    """Read ``component.yaml`` bytes: safe YAML, JSON-like values only.

    Nothing in the file can make reading it raise anything but :class:`DeriveError` or
    cost more than its bytes: see :class:`_ComponentLoader`. Values must be what JSON
    holds (string keys; integers within +-(2**53 - 1); finite floats), because the
    component's ``params`` are canonicalised into the derivation.

    :param raw: the file's bytes (already capped).
    :param component_file: names the file in messages.
    :return: the component mapping, with string ``entry_point`` and ``callable``.
    :raises DeriveError: INVALID_COMPONENT_YAML when it is not such a mapping.
    """
    try:
        documents = list(yaml.load_all(raw.decode("utf-8"), Loader=_ComponentLoader))
    except (yaml.YAMLError, UnicodeDecodeError, ValueError, TypeError) as exc:
        # ValueError: an explicit !!timestamp that is no date, an integer of more
        # digits than Python converts; TypeError: an unhashable key built by a tag
        raise DeriveError(
            error(INVALID_COMPONENT_YAML, f"{component_file}: not valid YAML ({exc}).")
        ) from exc
    component = documents[0] if documents else None
    odd = _not_json_like(component, "")
    if odd:
        raise DeriveError(
            error(
                INVALID_COMPONENT_YAML,
                f"{component_file}: {odd} holds a value JSON cannot hold (a non-string "
                "key, a date, bytes, a set, a non-finite number or an integer beyond "
                "+-(2**53 - 1)); write it as a string.",
                odd,
            )
        )
    if not isinstance(component, dict):
        raise DeriveError(
            error(
                INVALID_COMPONENT_YAML,
                f"{component_file}: the first document is not a mapping.",
            )
        )
    for key in ("entry_point", "callable"):
        value = component.get(key)
        if not isinstance(value, str) or not value.strip():
            raise DeriveError(
                error(
                    INVALID_COMPONENT_YAML,
                    f"{component_file}: `{key}` is missing or not a string; "
                    "a mech tool needs entry_point (a .py file) and callable (e.g. run).",
                    "/" + key,
                )
            )
    return component
