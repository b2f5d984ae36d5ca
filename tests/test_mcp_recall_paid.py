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

"""A paid, journalled call stays readable when its tool changes or leaves (issue #29).

:meth:`MechToolServer.call` from a journalled, paid request, with the in-process
stand-ins of ``tests/test_mcp_paid_answer_unit.py`` for the chain and IPFS (the
delivery's bytes and the catalogue served are what is varied); ``sign`` raises there,
so any payment fails the test.
"""

import json
from pathlib import Path
from typing import Any, Dict, Tuple

import anyio
import pytest

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.recall import NameIndex
from mech_catalogue_cli.mcp_server.served_names import ServedNames
from mech_catalogue_cli.mcp_server.server import MechToolServer
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool
from tests.answer_shape import enveloped
from tests.test_mcp_paid_answer_unit import (  # noqa: F401  # pylint: disable=unused-import
    PAID,
    REQUEST_ID,
    REQUESTER,
    SAME,
    STRANGER,
    DeliveredMarket,
    _offer,
    _server,
    no_child_processes,
)

ANSWER = "the market resolves NO (paid answer)"
BODY = json.dumps({"requestId": int(REQUEST_ID, 16), "result": ANSWER}).encode()


class Served:  # pylint: disable=too-few-public-methods
    """A catalogue source whose tools the test replaces between calls."""

    def __init__(self, *tools: ServedTool) -> None:
        """Serve these tools.

        :param tools: the tools.
        """
        self.tools: Tuple[ServedTool, ...] = tools

    def read(self) -> ServedCatalogue:
        """Return the tools now.

        :return: the catalogue.
        """
        digest = json.dumps([t.tool for t in self.tools], sort_keys=True)
        return ServedCatalogue(digest, self.tools)


def _tool(
    name: str, schema: Dict[str, Any], output: Any = None, mech_tool: str = "t"
) -> ServedTool:
    entry: Dict[str, Any] = {"name": name, "inputSchema": schema}
    if output is not None:
        entry["outputSchema"] = output
    return ServedTool(name, mech_tool, entry, (_offer(PAID), _offer(SAME)))


def _app(tmp_path: Path, market: DeliveredMarket, *tools: ServedTool) -> Any:
    app = _server(tmp_path, market, BODY)
    app.source = Served(*tools)
    app._read_once = False  # pylint: disable=protected-access
    app.served_names = ServedNames()  # a first catalogue: no name served before
    app.refresh()
    return app


def _serve_now(app: MechToolServer, *tools: ServedTool) -> None:
    app.source = Served(*tools)
    assert app.refresh()


NEW_SCHEMAS = [
    # a required argument added
    {
        "type": "object",
        "properties": {"prompt": {"type": "string"}, "horizon": {"type": "integer"}},
        "required": ["prompt", "horizon"],
    },
    # the argument's type changed
    {"type": "object", "properties": {"prompt": {"type": "integer"}}},
    # no argument allowed at all
    {"type": "object", "additionalProperties": False, "properties": {}},
]


@pytest.mark.parametrize("schema", NEW_SCHEMAS)
def test_a_paid_answer_survives_a_schema_change(tmp_path: Path, schema: Any) -> None:
    """The same arguments no longer validate: the paid answer is still returned."""
    market = DeliveredMarket()
    app = _app(tmp_path, market, _tool("predict-x", {"type": "object"}))
    first = anyio.run(app.call, "predict-x", {"prompt": "x"})
    _serve_now(app, _tool("predict-x", schema))
    again = anyio.run(app.call, "predict-x", {"prompt": "x"})
    for result in (first, again):
        assert not result.is_error and ANSWER in result.content[0].text
    assert not market.paid


def test_a_paid_answer_survives_the_tool_leaving(tmp_path: Path) -> None:
    """Served as "predict-x" (mech tool "t"), then gone: the answer, by the name index."""
    market = DeliveredMarket()
    app = _app(tmp_path, market, _tool("predict-x", {"type": "object"}))
    first = anyio.run(app.call, "predict-x", {"prompt": "x"})
    # another mech tool: "t" under another name would still be "predict-x" (adv29v)
    _serve_now(app, _tool("other", {"type": "object"}, mech_tool="u"))
    again = anyio.run(app.call, "predict-x", {"prompt": "x"})
    gone = anyio.run(app.call, "predict-x", {"prompt": "never asked"})
    assert not first.is_error and not again.is_error, again.content[0].text
    assert ANSWER in again.content[0].text
    assert gone.is_error and "no tool named" in gone.content[0].text
    assert not market.paid


@pytest.mark.parametrize("delivering, trusted", [(PAID, True), (SAME, False)])
def test_a_departed_tools_answer_is_trusted_only_from_the_paid_mech(
    tmp_path: Path, delivering: str, trusted: bool
) -> None:
    """With the tool gone its offers are unknown: another mech's delivery is untrusted."""
    market = DeliveredMarket(delivering)
    app = _app(tmp_path, market, _tool("predict-x", {"type": "object"}))
    anyio.run(app.call, "predict-x", {"prompt": "x"})
    _serve_now(app)
    again = anyio.run(app.call, "predict-x", {"prompt": "x"})
    # delivered and paid: never a failed call (adv29zu C3); untrusted, and said so
    assert not again.is_error and ANSWER in again.content[0].text
    assert ("UNTRUSTED" in again.content[0].text) is not trusted
    assert ("UNTRUSTED" in enveloped(again)["server_note"]) is not trusted


def test_a_name_index_file_that_is_not_a_key_is_ignored(tmp_path: Path) -> None:
    """A truncated or foreign index file recalls nothing (no crash, nothing paid)."""
    names = NameIndex(Journal(tmp_path))
    names.remember("predict-x", {"prompt": "x"}, REQUESTER, "", "ab" * 32)
    assert names.recall("predict-x", {"prompt": "x"}, REQUESTER, "") == "ab" * 32
    for path in names.folder.iterdir():
        path.write_text("../../etc/passwd")
    assert names.recall("predict-x", {"prompt": "x"}, REQUESTER, "") is None
    assert names.recall("predict-x", {"prompt": "y"}, STRANGER, "") is None
