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

"""``mech-catalogue mcp`` on the devnet, driven by the ``mcp`` SDK's own client.

Over stdio (the client launches the server) and Streamable HTTP (the server runs as a
process): tools/list, paid calls that land on chain, refusals that send nothing, a
delivery timeout whose retry does not pay again, and a catalogue change announced by
``list_changed``. Deliveries come from ``scripts/devnet/responder.py``, a stand-in for
a mech operator (no mech server runs here).
"""

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, List, Optional, Tuple

import anyio
import mcp_types as types
import pytest
import requests
from mcp import Client
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.exporters.js_integers import integers_as_text
from mech_catalogue_core.tests.js_engine import survives_javascript

from mech_catalogue_cli.mcp_server.offers import (
    NATIVE_PAYMENT_TYPE,
    Offer,
    choose_offer,
)
from mech_catalogue_cli.mcp_server.source import AgentSource, served_from_catalogue
from scripts.devnet import Devnet
from scripts.devnet.marketplace import SEED_MECHS
from tests.answer_shape import answer_of, listed_mech_properties
from tests.devnet.mcp_helpers import (
    agent_api,
    checksum,
    delivery_of,
    direct_source,
    framed_answer,
    http_server,
    market_nonce,
    request_info,
    requester,
    responder,
    stdio_client,
)

TOOL = "prediction-online"  # offered by the three devnet marketplace mechs
REQUEST_META = "io.olas/mech-request"
TRANSPORTS = ("stdio", "http")


def run(
    devnet: Devnet,
    state: Path,
    transport: str,
    extra: Tuple[str, ...],
    body: Callable[[Client], Any],
) -> Any:
    """Start the server on a transport, connect the SDK client, run ``body(client)``."""

    async def main() -> Any:
        if transport == "stdio":
            async with stdio_client(devnet, state, *extra) as client:
                return await body(client)
        with http_server(devnet, state, *extra) as url:
            async with Client(url) as client:
                return await body(client)

    return anyio.run(main)


#: seed services whose manifest gives TOOL the served (typed) input schema; "template"
#: registers it with a free-text input only, so it is never an offer (schema squatting)
SAME_SCHEMA_SERVICES = ("market", "deployed")


def chain_offers(devnet: Devnet) -> List[Offer]:
    """The devnet mechs offering TOOL with the served arguments, read one web3 call per value.

    :param devnet: the devnet.
    :return: the offers (not read through the server).
    """
    offers = []
    karma = devnet.contract("FixtureKarma")
    marketplace_mechs = [m for m in devnet.info.mechs if m["kind"] == "marketplace"]
    keys = {m["service_id"]: key for m, (key, _) in zip(marketplace_mechs, SEED_MECHS)}
    for mech in marketplace_mechs:  # the token-priced mechs of a service too
        if keys.get(mech["service_id"]) not in SAME_SCHEMA_SERVICES:
            continue
        contract = devnet.mech(mech["address"])
        offers.append(
            Offer(
                mech_key=str(mech["service_id"]),
                address=mech["address"].lower(),
                price=contract.functions.maxDeliveryRate().call(),
                payment_type="0x" + contract.functions.paymentType().call().hex(),
                requests=contract.functions.numTotalRequests().call(),
                deliveries=contract.functions.numTotalDeliveries().call(),
                karma=karma.functions.mapMechKarma(mech["address"]).call(),
                confirmed=True,
            )
        )
    return offers


async def list_all(client: Client) -> List[Any]:
    """Every tool, page by page."""
    tools, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_list_pages_every_tool_with_offers(
    chain_snapshot: Devnet, tmp_path: Path, transport: str
) -> None:
    """tools/list: every payable tool once, name order, checked schemas, on-chain prices."""
    # the seed's other tools (token-paid, legacy, free text) need --all-tools
    # (tests/test_mcp_source.py); each listed description says what a call costs
    devnet = chain_snapshot
    tools = run(devnet, tmp_path, transport, ("--page-size", "3"), list_all)
    names = [t.name for t in tools]
    assert names == sorted(set(names)) and len(names) > 3  # several pages, stable order
    for listed in tools:
        offers = listed.meta["io.olas/mech-tool"]["offers"]
        assert any(
            o["payment_type"] == NATIVE_PAYMENT_TYPE for o in offers
        ), listed.name
        assert "Paid call: " in (listed.description or ""), listed.name
    by_name = {t.name: t for t in tools}
    tool = by_name[TOOL]
    assert tool.input_schema["required"] == ["prompt"]
    assert tool.input_schema["properties"]["temperature"]["type"] == "number"
    request_id = listed_mech_properties(tool.output_schema)["requestId"]
    # a 77-digit id is text to JavaScript; the server's decimal pattern is not listed
    # (Python's `$` and ECMA-262's differ: portable_schema) but checked by the server
    assert request_id["type"] == ["integer", "string"] and "pattern" not in request_id
    offers = tool.meta["io.olas/mech-tool"]["offers"]
    on_chain = {o.address: o.price for o in chain_offers(devnet)}
    assert {o["address"]: int(o["price_wei"]) for o in offers} == on_chain
    conflicting = tool.meta["io.olas/mech-tool"]["conflicting_mechs"]
    # the template service (free-text input) is named, not offered
    assert [k for k in conflicting if ":complementary_service_metadata:" in k] != []
    assert {o["payment"]["asset"] for o in offers} == {
        "native",
        "olas",
        "usdc",
        "credits",  # the seeded subscription mech
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_valid_call_pays_the_chosen_mech_and_returns_the_delivery(
    chain_snapshot: Devnet, tmp_path: Path, transport: str
) -> None:
    """The request lands on the ranked mech with its price; typed args in the payload; result back."""
    devnet = chain_snapshot
    expected = choose_offer(chain_offers(devnet))
    nonce_before = market_nonce(devnet)
    mech_requests = devnet.mech(expected.address).functions.numTotalRequests().call()
    arguments = {
        "prompt": "Will it rain in Lisbon tomorrow?",
        "temperature": 0.25,
        "max_tokens": 64,
    }
    reported: List[float] = []

    async def body(client: Client) -> Any:
        async def on_progress(
            progress: float, total: Optional[float], message: Optional[str]
        ) -> None:
            del total, message
            reported.append(progress)

        return await client.call_tool(TOOL, arguments, progress_callback=on_progress)

    with responder(devnet) as answering:
        result = run(devnet, tmp_path, transport, ("--timeout", "60"), body)
    assert not result.is_error, result.content[0].text
    meta = result.meta[REQUEST_META]
    info = request_info(devnet, meta["request_id"])
    assert info["priorityMech"] == checksum(expected.address)
    assert info["requester"] == checksum(requester(devnet))
    assert info["deliveryRate"] == expected.price == int(meta["price_wei"])
    assert market_nonce(devnet) == nonce_before + 1
    assert (
        devnet.mech(expected.address).functions.numTotalRequests().call()
        == mech_requests + 1
    )
    delivery = delivery_of(answering, meta["request_id"])
    gateway = devnet.info.ipfs_gateway_url
    payload = requests.get(f"{gateway}/ipfs/{delivery.request_cid}", timeout=10).json()
    assert payload["tool"] == TOOL and payload["prompt"] == arguments["prompt"]
    assert (
        payload["temperature"] == 0.25 and payload["max_tokens"] == 64
    )  # typed, top level
    assert delivery.response["arguments"] == {"temperature": 0.25, "max_tokens": 64}
    # framed as every paid answer is (adv29zt Z6): the server's line, then the answer
    assert result.content[0].text.startswith(f"{TOOL}: request ")
    assert json.loads(framed_answer(result.content[0].text)) == delivery.response
    # validated against the listed output schema; the 77-digit requestId is a decimal
    # string there, so a JavaScript client (Node's JSON.parse) keeps its digits
    assert answer_of(result) == integers_as_text(delivery.response)
    assert answer_of(result)["requestId"] == str(delivery.response["requestId"])
    assert survives_javascript(result.structured_content)
    assert meta["response_cid"] and reported  # verified fetch; progress was reported
    assert set(meta["seconds"]) >= {
        "validation",
        "ipfs_upload",
        "transaction",
        "delivery_wait",
        "fetch",
    }


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_invalid_arguments_send_nothing(
    chain_snapshot: Devnet, tmp_path: Path, transport: str
) -> None:
    """Wrong types, a missing argument, an unknown one: isError naming each; no transaction."""
    devnet = chain_snapshot
    nonce, balance = market_nonce(devnet), devnet.w3.eth.get_balance(
        checksum(requester(devnet))
    )

    async def body(client: Client) -> Any:
        await client.list_tools()
        return [
            await client.call_tool(TOOL, {"prompt": "q", "temperature": "hot"}),
            await client.call_tool(TOOL, {"temperature": 0.1}),
            await client.call_tool(TOOL, {"prompt": "q", "colour": "red"}),
            await client.call_tool(TOOL, {"prompt": "q", "max_tokens": 0}),
        ]

    results = run(devnet, tmp_path, transport, (), body)
    texts = [r.content[0].text for r in results]
    assert all(r.is_error for r in results)
    assert "argument 'temperature'" in texts[0]
    assert "missing required argument 'prompt'" in texts[1]
    assert "argument 'colour' is not accepted" in texts[2]
    assert "argument 'max_tokens'" in texts[3]
    assert all("nothing was sent" in t for t in texts)
    assert market_nonce(devnet) == nonce
    assert devnet.w3.eth.get_balance(checksum(requester(devnet))) == balance


def test_price_over_the_cap_is_refused(chain_snapshot: Devnet, tmp_path: Path) -> None:
    """--max-price below every mech's price: refused, each price named, nothing sent."""
    devnet = chain_snapshot
    cheapest = min(int(o.price or 0) for o in chain_offers(devnet))
    nonce = market_nonce(devnet)

    async def body(client: Client) -> Any:
        return await client.call_tool(TOOL, {"prompt": "q"})

    result = run(devnet, tmp_path, "stdio", ("--max-price", str(cheapest - 1)), body)
    assert result.is_error
    assert f"over --max-price {cheapest - 1} wei" in result.content[0].text
    assert market_nonce(devnet) == nonce


def test_run_spending_cap(chain_snapshot: Devnet, tmp_path: Path) -> None:
    """--max-spend: the first paid call fits, the second (other arguments) is refused."""
    devnet = chain_snapshot
    price = int(choose_offer(chain_offers(devnet)).price or 0)
    nonce = market_nonce(devnet)

    async def body(client: Client) -> Any:
        first = await client.call_tool(TOOL, {"prompt": "one"})
        second = await client.call_tool(TOOL, {"prompt": "two"})
        return first, second

    first, second = run(
        devnet, tmp_path, "stdio", ("--max-spend", str(price), "--timeout", "1"), body
    )
    assert "was not delivered within" in first.content[0].text  # paid, undelivered
    assert second.is_error and "over --max-spend" in second.content[0].text
    assert market_nonce(devnet) == nonce + 1


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_timeout_names_the_request_and_a_retry_does_not_pay_again(
    chain_snapshot: Devnet, tmp_path: Path, transport: str
) -> None:
    """No delivery: isError naming the request id; a retry pays nothing more.

    The retry runs in a new server process with the same journal and a --max-price no
    mech meets (a paid request is awaited, not chosen again), and returns the delivery
    once the responder answers.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    :param transport: stdio or http.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    arguments = {"prompt": "Will the retry pay twice?"}

    async def call(client: Client) -> Any:
        return await client.call_tool(TOOL, arguments)

    first = run(devnet, tmp_path, transport, ("--timeout", "2"), call)
    assert first.is_error
    request_id = first.meta[REQUEST_META]["request_id"]
    assert f"request {request_id}" in first.content[0].text
    assert market_nonce(devnet) == nonce + 1
    balance = devnet.w3.eth.get_balance(checksum(requester(devnet)))
    with responder(
        devnet
    ):  # a cap every offer breaks: the paid request is only awaited
        second = run(
            devnet, tmp_path, transport, ("--timeout", "60", "--max-price", "1"), call
        )
    assert not second.is_error, second.content[0].text
    assert second.meta[REQUEST_META]["request_id"] == request_id
    assert market_nonce(devnet) == nonce + 1
    assert (
        devnet.w3.eth.get_balance(checksum(requester(devnet))) == balance
    )  # not even gas


def test_dry_run_returns_the_transaction_and_payload(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """--dry-run: the request transaction (to the marketplace, value = price) and payload; no tx."""
    devnet = chain_snapshot
    expected = choose_offer(chain_offers(devnet))
    nonce = market_nonce(devnet)

    async def body(client: Client) -> Any:
        return await client.call_tool(TOOL, {"prompt": "dry", "temperature": 1.5})

    result = run(devnet, tmp_path, "stdio", ("--dry-run",), body)
    plan = result.meta[REQUEST_META]
    assert result.is_error and result.content[0].text.startswith("dry run: nothing")
    assert plan["dry_run"] and plan["mech"]["address"] == expected.address
    assert plan["payload"]["temperature"] == 1.5 and plan["payload"]["tool"] == TOOL
    assert int(plan["transaction"]["value"], 16) == expected.price
    assert plan["transaction"]["to"] == checksum(
        devnet.info.contracts["MechMarketplace"]
    )
    assert market_nonce(devnet) == nonce


def test_catalogue_change_is_announced(chain_snapshot: Devnet, tmp_path: Path) -> None:
    """A mech registered while the server runs: list_changed arrives, then the new tool is listed."""
    devnet = chain_snapshot
    new_tool = "mcp-test-new-tool"

    async def body(client: Client) -> Any:
        before = [t.name for t in await list_all(client)]
        async with client.listen(tools_list_changed=True) as subscription:
            manifest = {
                "name": "New",
                "description": "added during the test",
                "tools": [new_tool],
            }
            _, digest = devnet.add_manifest(json.dumps(manifest).encode())
            await anyio.to_thread.run_sync(
                devnet.register_legacy_mech, devnet.address("owner_1"), digest
            )
            with anyio.fail_after(60):
                async for _event in subscription:
                    break
        return before, [t.name for t in await list_all(client)]

    # a new legacy mech's tool has no payable offer: listed with --all-tools only
    before, after = run(devnet, tmp_path, "stdio", ("--poll", "1", "--all-tools"), body)
    assert new_tool not in before and new_tool in after


def test_key_is_never_logged_or_returned(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A key from --key-file: absent from the server's stderr and from every result."""
    devnet = chain_snapshot
    key = str(devnet.info.accounts["owner_3"]["private_key"])
    key_file = tmp_path / "key.txt"
    key_file.write_text(key)
    log = tmp_path / "stderr.log"

    async def main() -> List[str]:
        with http_server(
            devnet, tmp_path, "--key-file", str(key_file), "--timeout", "1", stderr=log
        ) as url:
            async with Client(url) as client:
                texts = [t.model_dump_json() for t in await list_all(client)]
                for args in ({"prompt": "q"}, {"prompt": 1}):
                    texts.append((await client.call_tool(TOOL, args)).model_dump_json())
                texts.append(
                    (await client.call_tool("no-such-tool", {})).model_dump_json()
                )
                return texts

    texts = anyio.run(main)
    secret = key.removeprefix("0x").lower()
    assert "was not delivered" in texts[-3]  # the call really ran with that key
    for text in texts + [log.read_text(errors="replace")]:
        assert secret not in text.lower()


def test_agent_source_serves_what_a_direct_read_serves(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """--agent: the skill's HTTP routes over the devnet catalogue give the same MCP tools.

    The agent's HTTP API is the skill's own ``http_api.routes.route`` over the catalogue a
    direct read builds, served by a local HTTP server (an agent process is not started).

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    direct = direct_source(devnet)
    try:
        catalogue = direct.catalogue()
    finally:
        direct.close()
    exposed = ExposedCatalogue(
        catalogue, catalogue.digest(), "snapshot", 1, time.time(), 1
    )
    with agent_api(exposed) as url:
        served = AgentSource(url).read()

        async def body(client: Client) -> Any:
            return await list_all(client)

        listed = run(devnet, tmp_path, "stdio", ("--agent", url), body)
    expected = served_from_catalogue(catalogue)
    assert served.digest == catalogue.digest()
    assert [t.name for t in served.tools] == [t.name for t in expected.tools]
    for got, want in zip(served.tools, expected.tools):
        # the agent's API serves no off-chain endpoint: everything else is the same
        assert [replace(o, endpoint="") for o in got.offers] == [
            replace(o, endpoint="") for o in want.offers
        ]
        assert got.mech_tool == want.mech_tool
        assert got.tool["inputSchema"] == want.tool["inputSchema"]
    assert [t.name for t in listed] == [t.name for t in expected.payable_only().tools]


def test_identical_calls_at_once_pay_once(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Two identical calls sent together on one connection: one request, one payment.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    arguments = {"prompt": "Asked twice at once?"}

    async def body(client: Client) -> Any:
        results: List[Any] = []

        async def one() -> None:
            results.append(await client.call_tool(TOOL, arguments))

        async with anyio.create_task_group() as group:
            group.start_soon(one)
            group.start_soon(one)
        return results

    with responder(devnet):
        results = run(devnet, tmp_path, "http", ("--timeout", "60"), body)
    assert not any(r.is_error for r in results), [r.content for r in results]
    ids = {r.meta[REQUEST_META]["request_id"] for r in results}
    assert len(ids) == 1
    assert market_nonce(devnet) == nonce + 1


def test_a_cancelled_call_keeps_its_request(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The client goes away while the server waits: the request stays journaled.

    The same call, from a new server process, returns its delivery without paying again.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    arguments = {"prompt": "Cancelled, then asked again?"}

    async def call(client: Client) -> None:
        await client.call_tool(TOOL, arguments)
        raise AssertionError("the call should still be waiting")

    async def body(client: Client) -> Any:
        async with anyio.create_task_group() as group:
            group.start_soon(call, client)
            with anyio.fail_after(60):  # the client leaves once the request is mined
                while market_nonce(devnet) == nonce:
                    await anyio.sleep(0.1)
            group.cancel_scope.cancel()
        return None

    run(devnet, tmp_path, "stdio", ("--timeout", "60"), body)
    assert market_nonce(devnet) == nonce + 1
    assert len(list((tmp_path / "calls").glob("*.json"))) == 1

    async def again(client: Client) -> Any:
        return await client.call_tool(TOOL, arguments)

    with responder(devnet):
        result = run(devnet, tmp_path, "stdio", ("--timeout", "60"), again)
    assert not result.is_error, result.content
    assert market_nonce(devnet) == nonce + 1


def test_handshake_era_client_gets_list_changed(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A client on the initialize handshake (mode="legacy") gets the plain notification.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    new_tool = "mcp-test-handshake-tool"
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async def main() -> Tuple[List[str], List[str]]:
        client = stdio_client(
            devnet,
            tmp_path,
            "--poll",
            "1",
            "--all-tools",
            mode="legacy",
            message_handler=on_message,
        )
        async with client:
            before = [t.name for t in await list_all(client)]
            manifest = {"name": "H", "description": "handshake", "tools": [new_tool]}
            _, digest = devnet.add_manifest(json.dumps(manifest).encode())
            await anyio.to_thread.run_sync(
                devnet.register_legacy_mech, devnet.address("owner_2"), digest
            )
            with anyio.fail_after(60):
                await changed.wait()
            return before, [t.name for t in await list_all(client)]

    before, after = anyio.run(main)
    assert new_tool not in before and new_tool in after
