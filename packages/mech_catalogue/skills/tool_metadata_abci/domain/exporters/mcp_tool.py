"""MCP ``Tool`` objects (Model Context Protocol, revision 2025-11-25, ``tools/list``).

Shape (schema.ts of that revision): ``name`` (1-128 of ``A-Za-z0-9_.-``), ``title``,
``description``, ``inputSchema`` (object schema), ``outputSchema`` (object schema, only
when the tool declares one of type object), ``annotations`` (hints; mech tools reach
outside services, so ``openWorldHint`` is true) and ``_meta`` carrying the tool's
provenance under :data:`META_KEY` and the original name when it had to be changed.
"""

from typing import Any, Dict, Iterable, List, Optional

from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.names import (
    MCP_RULE,
    export_names,
    named_once,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.schemas import (
    call_schema,
    output_object_schema,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model import Catalogue
from packages.mech_catalogue.skills.tool_metadata_abci.domain.tool import Tool

MCP_PROTOCOL_VERSION = "2025-11-25"
META_KEY = "io.olas/mech-tool"


def to_mcp_tool(tool: Tool, name: Optional[str] = None) -> Dict[str, Any]:
    """One MCP Tool as JSON.

    :param tool: the model tool.
    :param name: the exported name (default: ``tool.name`` sanitised by the MCP rule).
    :return: a dict with camelCase keys as on the wire.
    """
    exported = name or export_names([tool.name], MCP_RULE)[tool.name]
    meta: Dict[str, Any] = {"provenance": tool.provenance.to_dict()}
    if exported != tool.name:
        meta["mechToolName"] = tool.name
    result: Dict[str, Any] = {
        "name": exported,
        "title": tool.name,
        "description": tool.description or f"Mech tool {tool.name}.",
        "inputSchema": call_schema(tool),
        "annotations": {"title": tool.name, "openWorldHint": True},
        "_meta": {META_KEY: meta},
    }
    output = output_object_schema(tool)
    if output is not None:
        result["outputSchema"] = output
    return result


def to_mcp_tools(tools: Iterable[Tool]) -> List[Dict[str, Any]]:
    """MCP Tools for several tools, names unique across the list.

    :param tools: model tools (e.g. one mech's, or a catalogue's de-duplicated by name).
    :return: the list, in input order; a repeated tool name is exported once.
    """
    return [to_mcp_tool(t, name) for t, name in named_once(tools, MCP_RULE)]


def to_mcp_tools_list_result(tools: Iterable[Tool]) -> Dict[str, Any]:
    """Return the ``tools/list`` result ``{"tools": [...]}``.

    :param tools: model tools.
    :return: the ``tools/list`` result ``{"tools": [...]}``.
    """
    return {"tools": to_mcp_tools(tools)}


def catalogue_to_mcp_tools(catalogue: Catalogue) -> List[Dict[str, Any]]:
    """MCP Tools for a whole catalogue: one per distinct tool name.

    Two mechs may claim the same tool name: the first in mech-ref order describes it, and
    ``_meta[META_KEY]["mechs"]`` lists the key (:attr:`.tool.MechRef.key`) of every mech
    offering it, so a caller can pick one.

    :param catalogue: the catalogue.
    :return: the tools, in catalogue order (mechs by ref, tools in manifest order).
    """
    exported = to_mcp_tools(catalogue.tools())
    for item in exported:
        offers = catalogue.tools_named(item["title"])
        item["_meta"][META_KEY]["mechs"] = [
            t.provenance.mech.key for t in offers if t.provenance.mech is not None
        ]
    return exported
