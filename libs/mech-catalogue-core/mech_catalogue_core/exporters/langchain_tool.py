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

"""LangChain ``StructuredTool`` objects (optional dependency ``langchain-core``).

The tool's ``func`` never runs mech tool code: it calls the ``call`` you pass (for example
one that sends a mech request) with the mech tool name and the keyword arguments, or raises
``NotImplementedError`` when none is given.

A mech tool name LangChain cannot use is renamed as for OpenAI (:mod:`.names`); as the
OpenAI, Anthropic and MCP exports do, a renamed tool's description names the mech tool,
and every tool's ``metadata[MECH_TOOL_NAME]`` maps it back (issue #34 item 5).
"""

from typing import Any, Callable, Iterable, List, Optional

from mech_catalogue_core.exporters.composed_text import (
    composed_for_model,
    schema_prose_for_model,
)
from mech_catalogue_core.exporters.names import (
    OPENAI_RULE,
    described,
    export_names,
    named_once,
)
from mech_catalogue_core.exporters.schemas import (
    call_schema,
)
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import (
    tool_for_model,
)

MechCall = Callable[[str, dict], Any]
#: the ``metadata`` key holding the mech tool name a LangChain tool stands for (the MCP
#: export's ``_meta`` key has the same name)
MECH_TOOL_NAME = "mechToolName"


class MissingDependency(ImportError):
    """Raised when an optional exporter dependency is not installed."""


def to_langchain_tool(
    tool: Tool, call: Optional[MechCall] = None, name: Optional[str] = None
) -> Any:
    """Build a ``langchain_core.tools.StructuredTool``.

    :param tool: the model tool.
    :param call: ``call(mech_tool_name, kwargs)`` invoked by the LangChain tool; None
        makes invoking it raise ``NotImplementedError``.
    :param name: exported name (default: the OpenAI-safe name, as LangChain tools are
        usually bound to chat models with that rule).
    :return: the StructuredTool (its ``args_schema`` is the call's JSON Schema dict;
        description and schema text cleaned and capped, :mod:`..model.untrusted_text`;
        the description names the mech tool when the tool was renamed;
        ``metadata[MECH_TOOL_NAME]`` is the mech tool name).
    :raises MissingDependency: when langchain-core is not installed.
    """
    try:
        from langchain_core.tools import (  # pylint: disable=import-outside-toplevel
            StructuredTool,
        )
    except ImportError as exc:
        raise MissingDependency(
            "the LangChain export needs langchain-core: pip install langchain-core"
        ) from exc
    mech_name = tool.name

    def _invoke(**kwargs: Any) -> Any:
        if call is None:
            raise NotImplementedError(
                f"no call was given for mech tool {mech_name!r}; pass call= to "
                "to_langchain_tool to send the request"
            )
        return call(mech_name, dict(kwargs))

    exported = name or export_names([tool.name], OPENAI_RULE)[tool.name]
    return StructuredTool(
        name=exported,
        description=composed_for_model(described(tool, exported)),
        args_schema=schema_prose_for_model(call_schema(tool_for_model(tool))),
        func=_invoke,
        metadata={MECH_TOOL_NAME: mech_name},
    )


def to_langchain_tools(
    tools: Iterable[Tool], call: Optional[MechCall] = None
) -> List[Any]:
    """Build one StructuredTool per tool name, names unique (first of a repeated name wins).

    :param tools: model tools (e.g. one mech's).
    :param call: as for :func:`to_langchain_tool`.
    :return: the StructuredTools, named as :func:`.names.named_once` names them for OpenAI
        (``MissingDependency`` when langchain-core is not installed).
    """
    return [
        to_langchain_tool(t, call, name) for t, name in named_once(tools, OPENAI_RULE)
    ]
