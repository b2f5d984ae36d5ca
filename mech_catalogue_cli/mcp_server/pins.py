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

"""Approved tool definitions (``mcp --pin FILE``): a changed definition is not callable.

A tool's *definition* is what the model reads of it, as the catalogue exports it:
``name``, ``description``, ``inputSchema`` and ``outputSchema`` of the MCP Tool, before
the server adds its own facts (price, mech: those change with the chain, and a raised
price is refused before paying anyway). Its digest is ``sha256:`` and the hex SHA-256 of
its RFC 8785 canonical JSON.

The file is JSON, ``{"version": 1, "tools": {"<MCP name>": {"digest": "sha256:...",
"definition": {...}, "mech_tool": "<mech tool name>"}}}``: an MCP name whose mech tool
is no longer the approved one is refused too, however alike the definitions read
(``mech_tool`` is recorded for entries of older files at their next approval check). A tool not in it is approved the first time it is listed (trust
on first use, written back to the file); a tool whose definition differs from its entry is
not listed, and a call names what changed (:func:`.definition_checks.definition_changes`). To
approve the new definition, delete the tool's entry (or the file): it is approved again
at the next catalogue read that finds it (the next change, or a restart).
"""

import hashlib
import json
import logging
from pathlib import Path
from typing import Any, Dict, List, Tuple

from mech_catalogue_core.model.canonical import (
    canonical_bytes,
)
from mech_catalogue_core.model.untrusted_text import label_for_model

from .definition_checks import pin_refusal
from .source import ServedCatalogue, ServedTool, SourceError
from .whole_file import write_whole

LOGGER = logging.getLogger("mech_catalogue.mcp")

PIN_FILE_VERSION = 1
#: the MCP Tool fields a definition holds
DEFINITION_FIELDS = ("name", "description", "inputSchema", "outputSchema")


class PinFileError(SourceError):
    """The pin file cannot be read or written; the message names it and what to do.

    A :class:`.source.SourceError`: like an unreadable source, it stops the server at
    start and keeps the last catalogue at a later read.
    """


def definition_of(tool: Dict[str, Any]) -> Dict[str, Any]:
    """The definition of an MCP Tool (its :data:`DEFINITION_FIELDS` that are present).

    :param tool: MCP Tool JSON as exported (before the server's facts are added).
    :return: a new dict.
    """
    return {key: tool[key] for key in DEFINITION_FIELDS if key in tool}


def definition_digest(definition: Dict[str, Any]) -> str:
    """Identify a definition.

    :param definition: from :func:`definition_of`.
    :return: ``"sha256:" + hex`` of its RFC 8785 canonical JSON.
    """
    return "sha256:" + hashlib.sha256(canonical_bytes(definition)).hexdigest()


def load_pins(path: Path) -> Dict[str, Dict[str, Any]]:
    """Read the approved definitions.

    :param path: the pin file.
    :return: MCP name -> ``{"digest", "definition"}`` (empty when the file is absent).
    :raises PinFileError: when it is not a pin file of this version.
    """
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PinFileError(
            f"pin file {path} cannot be read ({type(exc).__name__}); fix or delete it"
        ) from exc
    data = data if isinstance(data, dict) else {}
    tools = data.get("tools")
    if data.get("version") != PIN_FILE_VERSION or not isinstance(tools, dict):
        raise PinFileError(
            f"pin file {path} is not a version-{PIN_FILE_VERSION} pin file "
            '({"version": 1, "tools": {...}}); fix or delete it'
        )
    return {
        str(name): entry
        for name, entry in tools.items()
        if isinstance(entry, dict) and isinstance(entry.get("digest"), str)
    }


def save_pins(path: Path, pins: Dict[str, Dict[str, Any]]) -> None:
    """Write the approved definitions atomically (a crash leaves the old file).

    :param path: the pin file.
    :param pins: MCP name -> ``{"digest", "definition"}``.
    :raises PinFileError: when it cannot be written.
    """
    body = json.dumps(
        {"version": PIN_FILE_VERSION, "tools": pins}, indent=1, sort_keys=True
    )
    try:
        write_whole(path, body)
    except OSError as exc:
        raise PinFileError(f"pin file {path} cannot be written: {exc}") from exc


def mech_tool_refusal(approved: str, current: str, pin_file: str) -> str:
    """Why a pinned MCP name that now stands for another mech tool is not callable.

    :param approved: the mech tool name approved under the MCP name.
    :param current: the mech tool name behind it now.
    :param pin_file: the pin file's path, to say how to re-approve.
    :return: a sentence naming both mech tools and how to approve the new one.
    """
    return (
        f"refused: this name was approved for mech tool {label_for_model(approved)!r} "
        f"and now stands for mech tool {label_for_model(current)!r} (another tool, "
        f"other mechs paid); review it, then delete its entry from {pin_file} to "
        "approve it (taken at the next catalogue change or restart)"
    )


def approved_tools(
    served: ServedCatalogue, pin_file: str
) -> Tuple[ServedCatalogue, Dict[str, str]]:
    """Keep the tools whose definition is approved in ``pin_file``.

    A tool not in the file is approved now (written back); one whose definition differs
    is left out, with what changed. A file that cannot be read or written raises
    :class:`PinFileError`.

    :param served: the tools that may be listed.
    :param pin_file: the ``--pin`` file ("" for none).
    :return: the approved tools (same digest; ``served`` itself without a pin file),
        and MCP name -> why its new definition is refused.
    """
    if not pin_file:
        return served, {}
    path = Path(pin_file)
    pins = load_pins(path)
    kept: List[ServedTool] = []
    changed: Dict[str, str] = {}
    approved_now = recorded = 0
    for tool in served.tools:
        definition = definition_of(tool.tool)
        digest = definition_digest(definition)
        entry = pins.get(tool.name)
        pinned_tool = entry.get("mech_tool") if entry is not None else None
        if entry is None:
            pins[tool.name] = {
                "digest": digest,
                "definition": definition,
                "mech_tool": tool.mech_tool,
            }
            approved_now += 1
        elif isinstance(pinned_tool, str) and pinned_tool != tool.mech_tool:
            # the same words can stand for another mech tool: its description may
            # copy the approved one's, "(mech tool name: ...)" included (adv29v)
            changed[tool.name] = mech_tool_refusal(
                pinned_tool, tool.mech_tool, str(path)
            )
            continue
        elif entry["digest"] != digest:
            changed[tool.name] = pin_refusal(
                entry.get("definition") or {}, definition, str(path)
            )
            continue
        elif pinned_tool is None:  # approved by an older version: recorded now
            entry["mech_tool"] = tool.mech_tool
            recorded += 1
        kept.append(tool)
    if approved_now or recorded:
        save_pins(path, pins)
        LOGGER.info("%d new tool definitions approved in %s", approved_now, path)
    if changed:
        LOGGER.warning(
            "%d tools not listed: changed since approved in %s (%s)",
            len(changed),
            path,
            ", ".join(sorted(changed)[:10]),
        )
    return ServedCatalogue(served.digest, tuple(kept)), changed
