"""Anthropic Messages API tools.

Shape (Anthropic tool-use documentation): ``{"name", "description", "input_schema"}``;
``name`` matches ``^[a-zA-Z0-9_-]{1,64}$``; ``input_schema`` is a JSON Schema object.
"""

from typing import Any, Dict, Iterable, List, Optional

from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.names import (
    ANTHROPIC_RULE,
    described,
    export_names,
    named_once,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.schemas import (
    call_schema,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.tool import Tool


def to_anthropic_tool(tool: Tool, name: Optional[str] = None) -> Dict[str, Any]:
    """Return the tool JSON.

    :param tool: the model tool.
    :param name: exported name (default: sanitised).
    :return: the tool JSON.
    """
    exported = name or export_names([tool.name], ANTHROPIC_RULE)[tool.name]
    description = described(tool, exported)
    return {
        "name": exported,
        "description": description,
        "input_schema": call_schema(tool),
    }


def to_anthropic_tools(tools: Iterable[Tool]) -> List[Dict[str, Any]]:
    """Return Anthropic tools, names unique (first of a repeated name wins).

    :param tools: model tools.
    :return: Anthropic tools, names unique (first of a repeated name wins).
    """
    return [to_anthropic_tool(t, name) for t, name in named_once(tools, ANTHROPIC_RULE)]
