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

"""OpenAI function tools, strict when the parameters fit the strict subset.

Shape (OpenAI API reference, Chat Completions ``tools``): ``{"type": "function",
"function": {"name", "description", "parameters", "strict"}}``; ``name`` matches
``^[a-zA-Z0-9_-]{1,64}$``. The parameters are rewritten into the Structured Outputs
strict subset (:func:`.schemas.strict_schema`) and checked
(:func:`.conformance.openai_strict_problems`); when that fails the tool is exported
with ``strict: false`` and the portable, self-contained parameters instead (what
pydantic-ai does for schemas that cannot be made strict).
"""

from typing import Any, Dict, Iterable, List, Optional

from mech_catalogue_core.exporters.composed_text import (
    composed_for_model,
    schema_prose_for_model,
)
from mech_catalogue_core.exporters.conformance import (
    openai_strict_problems,
)
from mech_catalogue_core.exporters.names import (
    OPENAI_RULE,
    described,
    export_names,
    named_once,
)
from mech_catalogue_core.exporters.schemas import (
    NotStrict,
    call_schema,
    strict_schema,
)
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import (
    capped,
    tool_for_model,
)

MAX_DESCRIPTION = 1024  # OpenAI truncates longer function descriptions


def strict_parameters(parameters: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The parameters rewritten into the strict subset, or None when they cannot be.

    :param parameters: a self-contained object schema.
    :return: the strict schema, checked by :func:`.conformance.openai_strict_problems`.
    """
    try:
        rewritten = strict_schema(parameters)
    except (NotStrict, RecursionError):
        return None
    return None if openai_strict_problems(rewritten) else rewritten


def to_openai_tool(tool: Tool, name: Optional[str] = None) -> Dict[str, Any]:
    """Return the tool JSON.

    :param tool: the model tool.
    :param name: exported name (default: sanitised).
    :return: the tool JSON (its text as :func:`.names.described` and
        :func:`..model.untrusted_text.tool_for_model` show it; the notes the strict
        rewrite adds to a description, which quote a ``default``, ``format`` or ``not``,
        cleaned as that description, :mod:`.composed_text`); ``strict`` says which of
        the two forms it is.
    """
    exported = name or export_names([tool.name], OPENAI_RULE)[tool.name]
    description = capped(
        composed_for_model(described(tool, exported, MAX_DESCRIPTION)), MAX_DESCRIPTION
    )
    parameters = call_schema(tool_for_model(tool))
    strict = strict_parameters(parameters)
    return {
        "type": "function",
        "function": {
            "name": exported,
            "description": description,
            "parameters": schema_prose_for_model(
                parameters if strict is None else strict
            ),
            "strict": strict is not None,
        },
    }


def to_openai_tools(tools: Iterable[Tool]) -> List[Dict[str, Any]]:
    """Return OpenAI tools, names unique (first of a repeated name wins).

    :param tools: model tools.
    :return: OpenAI tools, names unique (first of a repeated name wins).
    """
    return [to_openai_tool(t, name) for t, name in named_once(tools, OPENAI_RULE)]
