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

"""Convert model tools and mechs to the formats agents speak.

==========  ===========================================  ====================================
format      function                                     output
==========  ===========================================  ====================================
mcp         :func:`.mcp_tool.to_mcp_tools`               MCP 2026-07-28 ``Tool`` JSON list
            :func:`.mcp_tool.to_mcp_tools_list_result`   its ``tools/list`` result
            :func:`.mcp_tool.catalogue_to_mcp_tools`     same, a catalogue (name collisions)
openai      :func:`.openai_tool.to_openai_tools`         function tools, strict when possible
anthropic   :func:`.anthropic_tool.to_anthropic_tools`   Messages API tools JSON list
langchain   :func:`.langchain_tool.to_langchain_tool`    ``StructuredTool`` (optional dep)
a2a         :func:`.a2a_card.to_agent_card`              AgentCard JSON (skills per tool)
erc8004     :func:`.erc8004.to_registration`             ERC-8004 registration-v1 file JSON
==========  ===========================================  ====================================

Names are sanitised per format by :mod:`.names` (total, deterministic, reversible). Every
exported schema is self-contained (:mod:`.schemas`), and :mod:`.conformance` checks each
format's output against its consumer's documented rules.
"""

from mech_catalogue_core.exporters.a2a_card import (
    to_agent_card,
    to_agent_skill,
)
from mech_catalogue_core.exporters.anthropic_tool import (
    to_anthropic_tool,
    to_anthropic_tools,
)
from mech_catalogue_core.exporters.erc8004 import (
    UNKNOWN_REF,
    RegistrationError,
    Service,
    caip10,
    expand_templates,
    to_registration,
)
from mech_catalogue_core.exporters.langchain_tool import (
    MissingDependency,
    to_langchain_tool,
    to_langchain_tools,
)
from mech_catalogue_core.exporters.mcp_tool import (
    MCP_PROTOCOL_VERSION,
    catalogue_to_mcp_tools,
    to_mcp_tool,
    to_mcp_tools,
    to_mcp_tools_list_result,
)
from mech_catalogue_core.exporters.names import (
    export_names,
    reverse_names,
    sanitise_name,
)
from mech_catalogue_core.exporters.openai_tool import (
    to_openai_tool,
    to_openai_tools,
)
from mech_catalogue_core.exporters.schemas import (
    call_schema,
    strict_schema,
)

FORMATS = ("mcp", "openai", "anthropic", "langchain", "a2a", "erc8004")

__all__ = [
    "FORMATS",
    "MCP_PROTOCOL_VERSION",
    "MissingDependency",
    "RegistrationError",
    "UNKNOWN_REF",
    "Service",
    "caip10",
    "expand_templates",
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
    "to_langchain_tools",
    "to_mcp_tool",
    "to_mcp_tools",
    "to_mcp_tools_list_result",
    "to_openai_tool",
    "to_openai_tools",
    "to_registration",
]
