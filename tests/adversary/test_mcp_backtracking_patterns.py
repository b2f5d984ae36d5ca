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

"""A stranger's ``pattern`` plus an LLM's argument must not stall the MCP server.

JSON Schema patterns are Python ``re`` searches; ``^(a+)+$`` against ``"a" * 40 + "!"``
backtracks ~2^40 steps, and ``re`` holds the GIL while it does. Before the fix the
arguments (and a mech's response, against the output schema) were checked on the event
loop: one call froze every client for good. These tests run the server in-process with
a dry run (no chain, no IPFS: only validation is under test).
"""

import threading
import time
from typing import Any, Dict, List

import anyio
import pytest

from mech_catalogue_cli.mcp_server.bounded import CheckTimeout, run_bounded
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.results import structured_or_why
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool

EVIL = "^(a+)+$"
SLOW_TEXT = "a" * 40 + "!"  # ~2^40 backtracking steps: days of CPU


def _tool(input_schema: Dict[str, Any], output_schema: Any = None) -> ServedTool:
    entry: Dict[str, Any] = {"name": "squat", "inputSchema": input_schema}
    if output_schema is not None:
        entry["outputSchema"] = output_schema
    offer = Offer("k", "0x" + "11" * 20, 10, NATIVE_PAYMENT_TYPE, 1, 1, 1, True)
    return ServedTool("squat", "squat", entry, (offer,))


class _Source:  # pylint: disable=too-few-public-methods
    def __init__(self, tool: ServedTool) -> None:
        self.served = ServedCatalogue("d", (tool,))

    def read(self) -> ServedCatalogue:
        """:return: the one-tool catalogue."""
        return self.served


def _text(result: Any) -> str:
    """The text of a tools/call result's first content item.

    :param result: a ``CallToolResult``.
    :return: its text.
    """
    return str(result.content[0].text)


def _server(tool: ServedTool) -> MechToolServer:
    settings = CallSettings(
        gateway_url="http://127.0.0.1:9", ipfs_api_url="", dry_run=True
    )
    server = MechToolServer(_Source(tool), settings, None, None)
    server.refresh()
    return server


def _in_thread(function: Any, limit: float = 60.0) -> Any:
    """Run ``function``; fail (not hang) when it does not return within ``limit`` s."""
    box: List[Any] = []
    worker = threading.Thread(target=lambda: box.append(function()), daemon=True)
    worker.start()
    worker.join(limit)
    assert box, "the server is stuck in a backtracking regular expression"
    return box[0]


def test_a_backtracking_pattern_in_the_input_schema_is_refused_and_nothing_sent() -> (
    None
):
    """The call ends with an isError result naming the check; the loop kept running."""
    server = _server(
        _tool(
            {"type": "object", "properties": {"q": {"type": "string", "pattern": EVIL}}}
        )
    )
    ticks: List[int] = []

    async def main() -> Any:
        async def ticker() -> None:
            while True:
                ticks.append(1)
                await anyio.sleep(0.05)

        async with anyio.create_task_group() as group:
            group.start_soon(ticker)
            result = await server.call("squat", {"q": SLOW_TEXT})
            group.cancel_scope.cancel()
        return result

    result = _in_thread(lambda: anyio.run(main))
    assert result.is_error
    assert "could not be checked" in result.content[0].text
    assert "nothing was sent" in result.content[0].text
    assert len(ticks) > 1, "other tasks were starved while the arguments were checked"


def test_backtracking_property_names_are_bounded_too() -> None:
    """Argument names matched by patternProperties: a slow name is refused the same way."""
    server = _server(
        _tool(
            {
                "type": "object",
                "patternProperties": {EVIL: {"type": "string"}},
                "additionalProperties": False,
            }
        )
    )
    result = _in_thread(lambda: anyio.run(server.call, "squat", {SLOW_TEXT: "x"}))
    assert result.is_error and "could not be checked" in result.content[0].text


def test_safe_patterns_still_validate_normally() -> None:
    """Control: a fine pattern passes valid text and names the argument for bad text."""
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string", "pattern": "^a+$"}},
    }
    server = _server(_tool(schema))
    good = anyio.run(server.call, "squat", {"q": "aaa"})
    bad = anyio.run(server.call, "squat", {"q": "ab"})
    assert good.is_error and "dry run" in _text(good)
    assert bad.is_error and "argument 'q'" in _text(bad)


def test_a_mechs_response_against_a_backtracking_output_schema_is_bounded() -> None:
    """A squatter controls both the output schema and its response: bounded, reported."""
    tool = _tool(
        {"type": "object"},
        {
            "type": "object",
            "properties": {"result": {"type": "string", "pattern": EVIL}},
        },
    )
    body = ('{"result": "' + SLOW_TEXT + '"}').encode()
    structured, problem = _in_thread(lambda: anyio.run(structured_or_why, tool, body))
    assert structured is None and "output schema took over" in problem


def test_run_bounded_returns_values_and_reraises_errors() -> None:
    """The child's value comes back; its exception is raised here; a hang times out."""
    assert run_bounded(sorted, ([3, 1, 2],)) == [1, 2, 3]
    with pytest.raises(ValueError):
        run_bounded(int, ("x",))
    with pytest.raises(CheckTimeout):
        run_bounded(time.sleep, (60,), 0.5)


def _deep(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_deeply_nested_argument_is_refused_not_raised() -> None:
    """A RecursionError in validation (or in its error's repr) becomes an isError result."""
    server = _server(_tool({"type": "object", "properties": {"q": {"type": "string"}}}))
    result = anyio.run(server.call, "squat", {"q": _deep(3000)})
    assert result.is_error and "nested too deeply" in _text(result)


def test_a_deeply_nested_response_is_reported_not_raised() -> None:
    """A mech's 200,000-deep JSON response: the paid result still comes back as text."""
    tool = _tool({"type": "object"}, {"type": "object"})
    structured, problem = anyio.run(structured_or_why, tool, b"[" * 200_000)
    assert structured is None and "nested too deeply" in problem
