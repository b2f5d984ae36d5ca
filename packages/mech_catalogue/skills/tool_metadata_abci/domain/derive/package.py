"""Reading a tool package folder: ``component.yaml``, the entry point, and the byte caps.

Nothing read here is imported or executed; the entry point's text goes to
:func:`.module_analysis.derive_source`.
"""

from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Union

import yaml

from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.module_analysis import (
    derive_source,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.results import (
    DerivedPackage,
    DeriveError,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.problems import (
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
MAX_SOURCE_BYTES = 2 * 1024 * 1024


def derive_package(path: Union[str, Path]) -> DerivedPackage:
    """Analyse a tool package folder (never importing its code).

    :param path: the folder holding ``component.yaml`` (or the ``component.yaml`` itself).
    :return: what was found.
    :raises DeriveError: when the folder, ``component.yaml``, entry point or callable is
        missing or unreadable; the problem names the file and what to do.
    """
    folder = Path(path)
    if folder.is_file() and folder.name == "component.yaml":
        folder = folder.parent
    component_file = folder / "component.yaml"
    if not component_file.is_file():
        raise DeriveError(
            error(
                PACKAGE_NOT_FOUND,
                f"{folder}: no component.yaml here; pass the tool package folder "
                "(e.g. packages/<author>/customs/<name>).",
            )
        )
    component = _read_component(component_file)
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
    entry_file = _entry_point_file(folder, component["entry_point"], component_file)
    raw = _read_capped(entry_file, MAX_SOURCE_BYTES, SOURCE_TOO_LARGE)
    derived = derive_source(
        raw.decode("utf-8", errors="replace"),
        callable_name=component["callable"],
        component_name=str(component.get("name") or folder.name),
        params=(
            component.get("params") if isinstance(component.get("params"), dict) else {}
        ),
        filename=str(entry_file),
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


def _read_capped(path: Path, cap: int, code: str) -> bytes:
    with path.open("rb") as handle:
        raw = handle.read(cap + 1)
    if len(raw) > cap:
        raise DeriveError(error(code, f"{path}: more than the {cap}-byte cap."))
    return raw


def _read_component(component_file: Path) -> Dict[str, Any]:
    raw = _read_capped(component_file, MAX_COMPONENT_YAML_BYTES, INVALID_COMPONENT_YAML)
    try:
        documents = list(yaml.safe_load_all(raw.decode("utf-8")))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DeriveError(
            error(INVALID_COMPONENT_YAML, f"{component_file}: not valid YAML ({exc}).")
        ) from exc
    component = documents[0] if documents else None
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


def _entry_point_file(folder: Path, entry_point: str, component_file: Path) -> Path:
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
