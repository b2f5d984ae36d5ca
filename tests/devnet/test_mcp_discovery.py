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

"""``mech-catalogue mcp --discovery search`` on the devnet, with the ``mcp`` SDK's client.

The server runs over stdio against the devnet (anvil with the real MechMarketplace
bytecode, kubo); deliveries come from ``scripts/devnet/responder.py``, a stand-in for a
mech operator (no mech server runs here).
"""

from pathlib import Path
from typing import Any

from mcp import Client

from mech_catalogue_cli.mcp_server.discovery import (
    CALL_TOOL,
    DESCRIBE_TOOL,
    SEARCH_TOOLS,
)
from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import market_nonce, request_info, responder
from tests.devnet.test_mcp_server import REQUEST_META, TOOL, chain_offers, run


def test_call_tool_pays_as_tools_call_and_a_direct_call_does_not_pay_again(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Search finds TOOL; call_tool sends one request; tools/call of it then pays nothing."""
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    arguments = {"prompt": "Will the discovery call pay once?", "temperature": 0.5}

    async def body(client: Client) -> Any:
        listed = [t.name for t in (await client.list_tools()).tools]
        found = await client.call_tool(SEARCH_TOOLS, {"query": "prediction online"})
        described = await client.call_tool(DESCRIBE_TOOL, {"name": TOOL})
        through = await client.call_tool(
            CALL_TOOL, {"name": TOOL, "arguments": arguments}
        )
        paid_nonce = market_nonce(devnet)
        direct = await client.call_tool(TOOL, arguments)
        return listed, found, described, through, paid_nonce, direct

    with responder(devnet):
        listed, found, described, through, paid_nonce, direct = run(
            devnet,
            tmp_path,
            "stdio",
            ("--discovery", "search", "--timeout", "60"),
            body,
        )
    assert listed == [SEARCH_TOOLS, DESCRIBE_TOOL, CALL_TOOL]
    assert found.structured_content["matches"][0]["name"] == TOOL
    on_chain = {o.address: o.price for o in chain_offers(devnet)}
    offers = described.structured_content["offers"]
    assert {o["address"]: int(o["price_wei"]) for o in offers} == on_chain
    assert not through.is_error, through.content[0].text
    request_id = through.meta[REQUEST_META]["request_id"]
    assert request_info(devnet, request_id)["deliveryRate"] == int(
        through.meta[REQUEST_META]["price_wei"]
    )
    assert paid_nonce == nonce + 1  # one request on chain
    assert not direct.is_error, direct.content[0].text
    assert direct.meta[REQUEST_META]["request_id"] == request_id  # the journal's
    assert market_nonce(devnet) == nonce + 1  # not paid again
    assert through.structured_content == direct.structured_content


def test_a_tool_over_the_cap_cannot_be_called_through_call_tool(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """--max-price below TOOL's every offer: not found, not callable; nothing sent."""
    devnet = chain_snapshot
    cheapest = min(int(o.price or 0) for o in chain_offers(devnet))
    nonce = market_nonce(devnet)

    async def body(client: Client) -> Any:
        found = await client.call_tool(SEARCH_TOOLS, {"query": TOOL})
        called = await client.call_tool(
            CALL_TOOL, {"name": TOOL, "arguments": {"prompt": "q"}}
        )
        return found, called

    found, called = run(
        devnet,
        tmp_path,
        "stdio",
        # below every native offer; the token mechs offering TOOL are capped at 0
        (
            "--discovery",
            "search",
            "--max-price",
            str(cheapest - 1),
            "--max-price",
            "olas=1",
            "--max-price",
            "usdc=1",
        ),
        body,
    )
    assert TOOL not in [m["name"] for m in found.structured_content["matches"]]
    assert called.is_error and "nothing was sent" in called.content[0].text
    assert SEARCH_TOOLS in called.content[0].text
    assert market_nonce(devnet) == nonce


def test_a_paid_call_stays_readable_through_call_tool_when_no_longer_listed(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A paid call stays readable through call_tool when its tool is listed no more.

    Paid through call_tool, then the server restarted with an allow-list that leaves the
    tool out: call_tool still returns the paid answer (as tools/call does), paying
    nothing more.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    arguments = {"prompt": "Paid once, still readable?", "temperature": 0.75}

    async def call(client: Client) -> Any:
        return await client.call_tool(CALL_TOOL, {"name": TOOL, "arguments": arguments})

    with responder(devnet):
        paid = run(
            devnet,
            tmp_path,
            "stdio",
            ("--discovery", "search", "--timeout", "60"),
            call,
        )
    assert not paid.is_error, paid.content[0].text
    request_id = paid.meta[REQUEST_META]["request_id"]
    elsewhere = ("--allow-mech", "0x" + "11" * 20)  # no offer of TOOL is allowed now
    again = run(
        devnet,
        tmp_path,
        "stdio",
        ("--discovery", "search", "--timeout", "20", *elsewhere),
        call,
    )
    assert not again.is_error, again.content[0].text
    assert again.meta[REQUEST_META]["request_id"] == request_id
    assert market_nonce(devnet) == nonce + 1
