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

"""Anthropic Messages API tools.

Shape (Anthropic Messages API reference, ``tools``): ``{"name", "description",
"input_schema"}``; ``name`` matches ``^[a-zA-Z0-9_-]{1,64}$``; ``input_schema`` is an
object schema whose property keys match ``^[a-zA-Z0-9_.-]{1,64}$``. A key outside that
rule (an argument name of 65-128 characters, or a nested key such as ``page[size]``) is
renamed by :func:`.names.export_names` under :data:`.names.ANTHROPIC_KEY_RULE` (cut +
hash tag, deterministic); the renamed property's description names the mech's key, and
:func:`argument_names` gives the map back for the top-level arguments.
"""

from typing import Any, Dict, Iterable, List, Optional, Tuple

from mech_catalogue_core.exporters.composed_text import (
    composed_for_model,
    schema_prose_for_model,
)
from mech_catalogue_core.exporters.names import (
    ANTHROPIC_KEY_RULE,
    ANTHROPIC_RULE,
    described,
    export_names,
    named_once,
)
from mech_catalogue_core.exporters.schemas import (
    call_schema,
    rename_keys,
)
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import (
    tool_for_model,
)


def _input_schema(tool: Tool) -> Tuple[Dict[str, Any], Dict[str, str]]:
    schema, renamed = rename_keys(
        call_schema(tool_for_model(tool)),
        ANTHROPIC_KEY_RULE.accepts,
        lambda keys: export_names(keys, ANTHROPIC_KEY_RULE),
    )
    return schema_prose_for_model(schema), renamed


def argument_names(tool: Tool) -> Dict[str, str]:
    """Exported argument key -> the mech's argument name, for renamed arguments only.

    :param tool: the model tool.
    :return: the map to apply to a model's ``tool_use.input`` before calling the mech.
    """
    return _input_schema(tool)[1]


def to_anthropic_tool(tool: Tool, name: Optional[str] = None) -> Dict[str, Any]:
    """Return the tool JSON.

    :param tool: the model tool.
    :param name: exported name (default: sanitised).
    :return: the tool JSON, its text cleaned and capped
        (:mod:`..model.untrusted_text`; a renamed key's description, which names the
        mech's key, cleaned as that description, :mod:`.composed_text`).
    """
    exported = name or export_names([tool.name], ANTHROPIC_RULE)[tool.name]
    return {
        "name": exported,
        "description": composed_for_model(described(tool, exported)),
        "input_schema": _input_schema(tool)[0],
    }


def to_anthropic_tools(tools: Iterable[Tool]) -> List[Dict[str, Any]]:
    """Return Anthropic tools, names unique (first of a repeated name wins).

    :param tools: model tools.
    :return: Anthropic tools, names unique (first of a repeated name wins).
    """
    return [to_anthropic_tool(t, name) for t, name in named_once(tools, ANTHROPIC_RULE)]
