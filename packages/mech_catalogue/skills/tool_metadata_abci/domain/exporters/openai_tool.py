"""OpenAI function tools in strict mode.

Shape (OpenAI function-calling guide): ``{"type": "function", "function": {"name",
"description", "parameters", "strict": true}}``; ``name`` matches
``^[a-zA-Z0-9_-]{1,64}$``; with ``strict`` the parameters must follow the Structured
Outputs subset (see :func:`.schemas.strict_schema`).
"""

from typing import Any, Dict, Iterable, List, Optional

from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.names import (
    OPENAI_RULE,
    described,
    export_names,
    named_once,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.schemas import (
    call_schema,
    strict_schema,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.tool import Tool

MAX_DESCRIPTION = 1024  # OpenAI truncates longer function descriptions


def to_openai_tool(tool: Tool, name: Optional[str] = None) -> Dict[str, Any]:
    """Return the tool JSON.

    :param tool: the model tool.
    :param name: exported name (default: sanitised).
    :return: the tool JSON.
    """
    exported = name or export_names([tool.name], OPENAI_RULE)[tool.name]
    description = described(tool, exported)
    return {
        "type": "function",
        "function": {
            "name": exported,
            "description": description[:MAX_DESCRIPTION],
            "parameters": strict_schema(call_schema(tool)),
            "strict": True,
        },
    }


def to_openai_tools(tools: Iterable[Tool]) -> List[Dict[str, Any]]:
    """Return OpenAI tools, names unique (first of a repeated name wins).

    :param tools: model tools.
    :return: OpenAI tools, names unique (first of a repeated name wins).
    """
    return [to_openai_tool(t, name) for t, name in named_once(tools, OPENAI_RULE)]
