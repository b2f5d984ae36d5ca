"""Convert model tools and mechs to the formats agents speak.

==========  ===========================================  ====================================
format      function                                     output
==========  ===========================================  ====================================
mcp         :func:`.mcp_tool.to_mcp_tools`               MCP 2025-11-25 ``Tool`` JSON list
            :func:`.mcp_tool.catalogue_to_mcp_tools`     same, a catalogue (name collisions)
openai      :func:`.openai_tool.to_openai_tools`         strict function tools JSON list
anthropic   :func:`.anthropic_tool.to_anthropic_tools`   Messages API tools JSON list
langchain   :func:`.langchain_tool.to_langchain_tool`    ``StructuredTool`` (optional dep)
a2a         :func:`.a2a_card.to_agent_card`              AgentCard JSON (skills per tool)
erc8004     :func:`.erc8004.to_registration`             ERC-8004 registration file JSON
==========  ===========================================  ====================================

Names are sanitised per format by :mod:`.names` (documented, collision-free mapping).
"""

from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.a2a_card import (
    to_agent_card,
    to_agent_skill,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.anthropic_tool import (
    to_anthropic_tool,
    to_anthropic_tools,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.erc8004 import (
    Service,
    caip10,
    to_registration,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.langchain_tool import (
    MissingDependency,
    to_langchain_tool,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.mcp_tool import (
    catalogue_to_mcp_tools,
    to_mcp_tool,
    to_mcp_tools,
    to_mcp_tools_list_result,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.names import (
    export_names,
    reverse_names,
    sanitise_name,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.openai_tool import (
    to_openai_tool,
    to_openai_tools,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.exporters.schemas import (
    call_schema,
    strict_schema,
)

FORMATS = ("mcp", "openai", "anthropic", "langchain", "a2a", "erc8004")

__all__ = [
    "FORMATS",
    "MissingDependency",
    "Service",
    "caip10",
    "catalogue_to_mcp_tools",
    "call_schema",
    "export_names",
    "reverse_names",
    "sanitise_name",
    "strict_schema",
    "to_agent_card",
    "to_agent_skill",
    "to_anthropic_tool",
    "to_anthropic_tools",
    "to_langchain_tool",
    "to_mcp_tool",
    "to_mcp_tools",
    "to_mcp_tools_list_result",
    "to_openai_tool",
    "to_openai_tools",
    "to_registration",
]
