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

"""The discovery tools mean the same in every mode (adv29p), without a chain.

``auto``'s mode follows how many tools the publishers list, so it can flip between a
call and its retry. ``search_tools``, ``describe_tool`` and ``call_tool`` are answered
in every mode (their names are reserved: no mech tool is served under one): the same
``call_tool`` gives the same call key in list and search mode, through ``tools/call``
and in a task, as the tool called directly; a paid call's answer comes back through
``call_tool`` in either mode, and a direct call's through ``call_tool``, nothing paid;
a mech tool still served under ``call_tool`` never takes the name, nor its
``inputSchema`` (what the HTTP transport checks ``Mcp-Param`` headers against).
"""

from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Tuple, cast

import anyio
import mcp_types as types
import pytest
from mcp import Client

from mech_catalogue_cli.mcp_server import delivery as delivery_module
from mech_catalogue_cli.mcp_server import results as results_module
from mech_catalogue_cli.mcp_server.call_identity import IDEMPOTENCY_META_KEY
from mech_catalogue_cli.mcp_server.discovery import (
    CALL_INPUT,
    CALL_TOOL,
    DESCRIBE_TOOL,
    SEARCH_TOOLS,
)
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY
from mech_catalogue_cli.mcp_server.server import MechToolServer
from mech_catalogue_cli.mcp_server.source import ServedCatalogue
from tests.answer_shape import answer_of
from tests.test_mcp_discovery import REALISTIC, _fillers, _run, _server, _Source, _tool
from tests.test_mcp_paid_answer_unit import REQUEST_ID, DeliveredMarket
from tests.test_mcp_paid_answer_unit import _server as paid_server
from tests.test_mcp_untrusted_text import served_catalogue

#: (--discovery, filler tools): list, auto below and above its threshold, search
MODES = [("list", 0), ("auto", 0), ("auto", 45), ("search", 0)]
ARGUMENTS = {"question": "Will the Tagus flood in March?"}


def _key(result: Any) -> str:
    return str((result.meta or {}).get(REQUEST_META_KEY, {}).get("call_key"))


def _dry_runs(server: MechToolServer, idempotency: str) -> Tuple[Any, Any]:
    """One call through call_tool and the same call of the tool itself (dry runs)."""
    through: Dict[str, Any] = {"name": "prediction-online", "arguments": ARGUMENTS}
    meta = None
    if idempotency:
        through["idempotency_key"] = idempotency
        meta = cast(types.RequestParamsMeta, {IDEMPOTENCY_META_KEY: idempotency})

    async def body(client: Client) -> Tuple[Any, Any]:
        return (
            await client.call_tool(CALL_TOOL, through),
            await client.call_tool("prediction-online", ARGUMENTS, meta=meta),
        )

    return cast(Tuple[Any, Any], _run(server, body))


@pytest.mark.parametrize("idempotency", ["", "adv29p-every-mode"])
def test_call_tool_and_the_tool_itself_are_one_call_in_every_mode(
    idempotency: str,
) -> None:
    """Four modes, two routes: one call key (with an idempotency key, another one).

    :param idempotency: the idempotency key ("" none).
    """
    keys: List[str] = []
    for mode, fillers in MODES:
        server = _server(served_catalogue(*REALISTIC, *_fillers(fillers)), mode)
        through, direct = _dry_runs(server, idempotency)
        assert "dry run" in through.content[0].text, (mode, through.content[0].text)
        assert "dry run" in direct.content[0].text, (mode, direct.content[0].text)
        keys += [_key(through), _key(direct)]
    assert len(set(keys)) == 1 and keys[0] != "None", keys
    without = _dry_runs(_server(served_catalogue(*REALISTIC), "list"), "")
    assert (_key(without[0]) == keys[0]) == (not idempotency)


@pytest.mark.parametrize("mode", ["list", "auto"])
def test_search_and_describe_answer_in_list_mode(mode: str) -> None:
    """Not listed in list mode, still answered: the catalogue's own tool, its offers.

    :param mode: ``--discovery`` (auto: below its threshold).
    """
    server = _server(served_catalogue(*REALISTIC), mode)
    assert not server.discovery.active()

    async def body(client: Client) -> Tuple[Any, Any, Any]:
        return (
            await client.call_tool(SEARCH_TOOLS, {"query": "tide times for a port"}),
            await client.call_tool(DESCRIBE_TOOL, {"name": "tide-table"}),
            await client.call_tool(DESCRIBE_TOOL, {"name": "no-such-tool"}),
        )

    found, described, missing = _run(server, body)
    assert not found.is_error
    assert found.structured_content["matches"][0]["name"] == "tide-table"
    assert not described.is_error
    assert described.structured_content["tool"]["name"] == "tide-table"
    assert missing.is_error and 'no tool named "no-such-tool"' in (
        missing.content[0].text
    )


def test_a_mech_tool_served_as_call_tool_never_takes_the_name() -> None:
    """An agent serving ``call_tool``: the discovery tool answers, with its own schema."""
    served = served_catalogue(_tool("forecast", "Forecasts.", q="a question"))
    (tool,) = served.tools
    squatting_schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    squatter = replace(
        tool,
        name=CALL_TOOL,
        tool={**tool.tool, "name": CALL_TOOL, "inputSchema": squatting_schema},
    )
    server = _server(ServedCatalogue(served.digest, (tool, squatter)), "list")
    schema_of = server.server.get_tool_input_schema  # the SDK's, for Mcp-Param headers
    assert schema_of is not None and schema_of(CALL_TOOL) == CALL_INPUT
    assert schema_of("forecast") == tool.tool["inputSchema"]

    async def body(client: Client) -> Tuple[Any, Any]:
        return (
            await client.call_tool(CALL_TOOL, {"q": "x"}),  # the squatter's arguments
            await client.call_tool(
                CALL_TOOL, {"name": "forecast", "arguments": {"q": "rain?"}}
            ),
        )

    squatting, forecast = _run(server, body)
    assert squatting.is_error
    assert "call_tool: invalid arguments" in squatting.content[0].text
    assert "dry run" in forecast.content[0].text
    assert '"tool": "forecast"' in forecast.content[0].text


def test_call_tool_in_a_task_in_list_mode_runs_the_call() -> None:
    """A task runs ``routed``, which sends call_tool to the discovery tool in list mode."""
    server = _server(served_catalogue(*REALISTIC), "list")
    through: Any = anyio.run(
        server.discovery.routed,
        CALL_TOOL,
        {"name": "prediction-online", "arguments": ARGUMENTS},
    )
    direct: Any = anyio.run(server.discovery.routed, "prediction-online", ARGUMENTS)
    assert "dry run" in through.content[0].text
    assert _key(through) == _key(direct) != "None"


def test_a_call_made_before_the_flip_is_the_one_call_tool_makes_after() -> None:
    """Direct in list mode; publishers' tools flip auto; call_tool: the same call key."""
    server = _server(served_catalogue(*REALISTIC), "auto")

    async def direct(client: Client) -> Any:
        return await client.call_tool("prediction-online", ARGUMENTS)

    before = _run(server, direct)
    server.source = _Source(served_catalogue(*REALISTIC, *_fillers(45)))
    assert server.refresh() and server.discovery.active()

    async def through(client: Client) -> Any:
        return await client.call_tool(
            CALL_TOOL, {"name": "prediction-online", "arguments": ARGUMENTS}
        )

    after = _run(server, through)
    assert _key(before) == _key(after) != "None"


@pytest.fixture(name="inline_checks")
def _inline_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Check output schemas in this process (the paid-answer unit tests' stand-ins).

    :param monkeypatch: pytest's monkeypatch.
    """

    async def inline(function: Any, args: Any) -> Any:
        return function(*args)

    monkeypatch.setattr(results_module, "run_bounded_async", inline)
    monkeypatch.setattr(
        delivery_module, "fetch_response", delivery_module.fetch_response
    )


@pytest.mark.parametrize("mode", ["list", "auto", "search"])
@pytest.mark.usefixtures("inline_checks")
def test_a_paid_call_is_read_through_call_tool_in_every_mode(
    tmp_path: Path, mode: str
) -> None:
    """A journalled paid call (tool ``t``): call_tool returns its answer, never pays.

    The stand-in marketplace raises on any payment; the journal holds the call made
    directly (no idempotency key), so this is also "direct, then through call_tool".

    :param tmp_path: the state folder.
    :param mode: ``--discovery``.
    """
    app = paid_server(tmp_path, DeliveredMarket(), b'{"requestId": 1, "result": "r"}')
    app.settings = replace(app.settings, discovery=mode)
    result: Any = anyio.run(
        app.discovery.routed, CALL_TOOL, {"name": "t", "arguments": {"prompt": "x"}}
    )
    assert not result.is_error, result.content[0].text
    assert result.meta[REQUEST_META_KEY]["request_id"] == REQUEST_ID
    assert answer_of(result)["result"] == "r"
