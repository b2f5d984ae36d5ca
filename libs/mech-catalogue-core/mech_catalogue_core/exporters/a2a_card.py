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

"""A2A AgentCard and AgentSkill JSON for a mech (A2A protocol 1.0, ``a2a.proto``).

Field names are the proto JSON names (camelCase), so the output loads with
``google.protobuf.json_format.ParseDict`` into a2a-sdk's ``AgentCard``. Required by the
proto (``field_behavior = REQUIRED``): card ``name``, ``description``,
``supportedInterfaces`` (``url``, ``protocolBinding``, ``protocolVersion``), ``version``,
``capabilities``, ``defaultInputModes``, ``defaultOutputModes``, ``skills``; skill ``id``,
``name``, ``description``, ``tags``. A mech is reached through its marketplace, not A2A,
so the interface URL is the caller's (e.g. this agent's HTTP endpoint); a URL holding a
``{...}`` template is refused (:func:`.erc8004.expand_templates` fills ``{agentId}``
first when the caller knows it).
"""

import json
from typing import Any, Dict, List, Optional

from mech_catalogue_core.exporters.composed_text import (
    composed_for_model,
)
from mech_catalogue_core.exporters.erc8004 import (
    UNKNOWN_REF,
    checked_uri,
    expand_templates,
)
from mech_catalogue_core.exporters.names import MCP_RULE, sanitise_name
from mech_catalogue_core.model.catalogue import (
    Mech,
)
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import (
    label_for_model,
    prose_for_model,
    tool_for_model,
)

A2A_PROTOCOL_VERSION = "1.0"
A2A_BINDING_JSONRPC = "JSONRPC"
SKILL_TAG = "olas-mech-tool"


def to_agent_skill(tool: Tool) -> Dict[str, Any]:
    """Return AgentSkill JSON (examples as JSON text).

    The ``id`` is the mech's tool name as published (what a request names; the parser
    refuses one hiding text); the ``name`` a directory shows is that name when it is an
    identifier, else its MCP name (:data:`.names.MCP_RULE`: never the mech's sentence
    posing as a fact, adv29yt); the description and examples are cleaned and capped
    (:mod:`..model.untrusted_text`).
    The examples are prose there (example prompts a directory shows and a client hands a
    model), so each, a string or an object written as JSON text, is cleaned as the
    description is, markup inert (:mod:`.composed_text`), not as a value a call sends.

    :param tool: the model tool.
    :return: AgentSkill JSON (examples as JSON text).
    """
    name = sanitise_name(tool.name, MCP_RULE)
    shown = tool_for_model(tool)
    tags = [SKILL_TAG, "typed" if tool.arguments else "free-text"]
    if tool.kind:
        tags.append(f"kind:{tool.kind}")
    if tool.provenance.mech is not None:
        tags.append(f"eip155:{tool.provenance.mech.chain_id}")
    input_modes = (
        ["application/json"] if tool.arguments else ["text/plain", "application/json"]
    )
    skill: Dict[str, Any] = {
        "id": tool.name,
        "name": name,
        "description": composed_for_model(shown.description or f"Mech tool {name}."),
        "tags": tags,
        "inputModes": input_modes,
        "outputModes": ["application/json"],
    }
    examples = [
        composed_for_model(e if isinstance(e, str) else json.dumps(e, sort_keys=True))
        for e in shown.examples
    ]
    if examples:
        skill["examples"] = examples
    return skill


def to_agent_card(  # pylint: disable=too-many-arguments
    mech: Mech,
    url: str,
    *,
    version: str = "1.0.0",
    organization: Optional[str] = None,
    provider_url: Optional[str] = None,
    documentation_url: Optional[str] = None,
) -> Dict[str, Any]:
    """Build the AgentCard JSON for one mech, one skill per tool.

    :param mech: the mech (name/description from its manifest).
    :param url: the endpoint agents use to reach it (required by A2A).
    :param version: the card's version string.
    :param organization: provider organization (provider is emitted only with both
        organization and provider_url, as the proto requires both).
    :param provider_url: provider URL.
    :param documentation_url: optional documentation link.
    :return: the card JSON (the mech's name and description cleaned and capped).

    Raises :class:`.erc8004.RegistrationError` when ``url`` holds a template (``{...}``),
    or a URL holds an invisible or control character or is over
    :data:`.erc8004.MAX_URI_CHARS` (:func:`.erc8004.checked_uri`).
    """
    url = expand_templates(checked_uri(url, "the card's URL"), None)
    for given, what in (
        (provider_url, "the provider URL"),
        (documentation_url, "the documentation URL"),
    ):
        if given:
            checked_uri(given, what)
    known = mech.ref != UNKNOWN_REF
    skills: List[Dict[str, Any]] = []
    seen = set()
    for tool in mech.tools:
        if tool.name not in seen:
            seen.add(tool.name)
            skills.append(to_agent_skill(tool))
    card: Dict[str, Any] = {
        "name": label_for_model(mech.name)
        or (f"Mech {mech.ref.mech_id}" if known else "Olas mech"),
        "description": prose_for_model(mech.description)
        or (f"Olas mech {mech.ref.key}." if known else "Olas mech tools."),
        "supportedInterfaces": [
            {
                "url": url,
                "protocolBinding": A2A_BINDING_JSONRPC,
                "protocolVersion": A2A_PROTOCOL_VERSION,
            }
        ],
        "version": version,
        "capabilities": {"streaming": False, "pushNotifications": False},
        "defaultInputModes": ["application/json", "text/plain"],
        "defaultOutputModes": ["application/json"],
        "skills": skills,
    }
    if organization and provider_url:
        card["provider"] = {"organization": organization, "url": provider_url}
    if documentation_url:
        card["documentationUrl"] = documentation_url
    return card
