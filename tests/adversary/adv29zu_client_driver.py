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

"""What other MCP clients hand their model: a driver run inside a client's own venv.

Not a test module: ``tests/adversary/adv29zu_clients.py`` runs it with the Python of
a venv holding ``openai-agents`` and ``pydantic-ai`` (client ``agents`` or
``pydantic-ai``) or ``langchain-mcp-adapters`` (client ``langchain``). It launches the
server over stdio with the command line given, reads ``tools/list`` and optionally
makes one ``tools/call`` through the client's own conversion, and prints one JSON
object: ``{"tools": {name: {"description": ..., "parameters": ...}}, "call": ...}``,
where ``call`` is what the client's conversion hands the model (a string, or a list or
mapping the client serialises for it), ``{"retry_prompt": "<text>"}`` (pydantic-ai's
``ModelRetry``: what its model reads instead) or ``{"raised": "<message>"}``.

Usage: ``python adv29zu_client_driver.py CLIENT SPEC_JSON`` where SPEC_JSON holds
``command``, ``args``, ``env``, ``cwd``, and optionally ``tool`` and ``arguments``.
"""

import asyncio
import json
import sys
from typing import Any, Dict


async def _agents(spec: Dict[str, Any]) -> Dict[str, Any]:
    # pylint: disable=import-outside-toplevel,import-error
    from agents import RunContextWrapper  # type: ignore
    from agents.mcp import MCPServerStdio, MCPUtil  # type: ignore

    params = {k: spec[k] for k in ("command", "args", "env", "cwd")}
    out: Dict[str, Any] = {"tools": {}}
    use = bool(spec.get("structured"))
    async with MCPServerStdio(
        params=params, client_session_timeout_seconds=240, use_structured_content=use
    ) as server:
        tools = await server.list_tools()
        for tool in tools:
            made = MCPUtil.to_function_tool(tool, server, False)
            out["tools"][tool.name] = {
                "name": made.name,  # the function name sent to the model's API
                "description": made.description,
                "parameters": made.params_json_schema,
            }
        if spec.get("tool"):
            (tool,) = [t for t in tools if t.name == spec["tool"]]
            try:
                out["call"] = await MCPUtil.invoke_mcp_tool(
                    server, tool, RunContextWrapper(None), json.dumps(spec["arguments"])
                )
            except Exception as error:  # pylint: disable=broad-except
                out["call"] = {"raised": str(error)}
    return out


async def _pydantic_ai(spec: Dict[str, Any]) -> Dict[str, Any]:
    # pylint: disable=import-outside-toplevel,import-error
    from fastmcp.client.transports import StdioTransport  # type: ignore
    from pydantic_ai.mcp import MCPToolset  # type: ignore

    transport = StdioTransport(
        command=spec["command"], args=spec["args"], env=spec["env"], cwd=spec["cwd"]
    )
    toolset = MCPToolset(transport, read_timeout=240, init_timeout=240)
    out: Dict[str, Any] = {"tools": {}}
    async with toolset:
        for tool in await toolset.list_tools():
            out["tools"][tool.name] = {
                "description": tool.description,
                "parameters": tool.input_schema,
            }
        if spec.get("tool"):
            # pylint: disable=import-outside-toplevel,import-error
            from pydantic_ai.exceptions import ModelRetry  # type: ignore
            from pydantic_ai.messages import RetryPromptPart  # type: ignore

            try:
                out["call"] = await toolset.direct_call_tool(
                    spec["tool"], spec["arguments"]
                )
            except ModelRetry as retry:  # the agent's model reads a retry prompt
                part = RetryPromptPart(content=retry.message, tool_name=spec["tool"])
                out["call"] = {"retry_prompt": part.model_response()}
            except Exception as error:  # pylint: disable=broad-except
                out["call"] = {"raised": str(error)}
    return out


async def _pydantic_ai_agent(  # pylint: disable=too-many-locals
    spec: Dict[str, Any],
) -> Dict[str, Any]:
    """A pydantic-ai ``Agent`` whose model calls the tool until it reads a return.

    The stand-in model (``FunctionModel``) asks for ``spec["tool"]`` with
    ``spec["arguments"]`` until it has read ``spec["calls"]`` (default 1) results of
    it, then ends with "done"; ``read`` lists what it read of each, as the client
    renders it for a model.

    :param spec: the driver's spec (see the module's doc).
    :return: ``{"tools": {}, "read": [...], "call": <the run's output or "raised">}``.
    """
    # pylint: disable=import-outside-toplevel,import-error
    from fastmcp.client.transports import StdioTransport  # type: ignore
    from pydantic_ai import Agent  # type: ignore
    from pydantic_ai.mcp import MCPToolset  # type: ignore
    from pydantic_ai.messages import (  # type: ignore
        ModelResponse,
        RetryPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import FunctionModel  # type: ignore

    read: list = []

    def model(messages: Any, _info: Any) -> Any:
        last = messages[-1].parts
        for part in last:
            if isinstance(part, (RetryPromptPart, ToolReturnPart)):
                read.append(
                    part.model_response()
                    if isinstance(part, RetryPromptPart)
                    else part.model_response_str()
                )
        if len(read) >= int(spec.get("calls", 1)):
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart(spec["tool"], spec["arguments"])])

    transport = StdioTransport(
        command=spec["command"], args=spec["args"], env=spec["env"], cwd=spec["cwd"]
    )
    toolset = MCPToolset(transport, read_timeout=240, init_timeout=240)
    agent = Agent(FunctionModel(model), toolsets=[toolset])
    out: Dict[str, Any] = {"tools": {}, "read": read}
    try:
        out["call"] = (await agent.run("tides at Brest")).output
    except Exception as error:  # pylint: disable=broad-except
        out["call"] = {"raised": f"{type(error).__name__}: {error}"}
    return out


async def _langchain(spec: Dict[str, Any]) -> Dict[str, Any]:
    # pylint: disable=import-outside-toplevel,import-error
    from langchain_mcp_adapters.client import MultiServerMCPClient  # type: ignore

    connection = {k: spec[k] for k in ("command", "args", "env", "cwd")}
    client = MultiServerMCPClient({"mech": {**connection, "transport": "stdio"}})
    out: Dict[str, Any] = {"tools": {}}
    async with client.session("mech") as session:
        # pylint: disable=import-outside-toplevel,import-error
        from langchain_mcp_adapters.tools import load_mcp_tools  # type: ignore

        tools = await load_mcp_tools(session)
        for tool in tools:
            out["tools"][tool.name] = {
                "description": tool.description,
                "parameters": (
                    tool.args_schema if isinstance(tool.args_schema, dict) else None
                ),
            }
        if spec.get("tool"):
            (tool,) = [t for t in tools if t.name == spec["tool"]]
            call = {
                "name": tool.name,
                "args": spec["arguments"],
                "id": "1",
                "type": "tool_call",
            }
            try:
                message = await tool.ainvoke(call)
                out["call"] = {
                    "content": message.content,
                    "artifact": repr(message.artifact)[:2000],
                    "status": getattr(message, "status", None),
                }
            except Exception as error:  # pylint: disable=broad-except
                out["call"] = {"raised": str(error)}
    return out


def main() -> None:
    """Run one client and print what it hands the model, as JSON."""
    client, spec = sys.argv[1], json.loads(sys.argv[2])
    run = {
        "agents": _agents,
        "pydantic-ai": _pydantic_ai,
        "pydantic-ai-agent": _pydantic_ai_agent,
        "langchain": _langchain,
    }
    print(json.dumps(asyncio.run(run[client](spec)), default=repr))


if __name__ == "__main__":
    main()
