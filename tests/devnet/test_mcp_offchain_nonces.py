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

"""Outstanding off-chain requests on the devnet: nonces held, never doubled nor stranded.

Anvil with the real MechMarketplace bytecode, kubo, the stand-in endpoint
(:mod:`scripts.devnet.offchain_responder`, its own settlement code), and the MCP SDK's
client launching ``mech-catalogue mcp`` over stdio on one state folder: two servers at
once, a server stopped during its post, on-chain calls in between, and a nonce taken
from under an accepted request (an on-chain request of the same account sent by other
means). Nothing is mocked.
"""

import json
from pathlib import Path
from typing import Any, List

import anyio
from web3 import Web3

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import market_nonce, requester, stdio_client
from tests.devnet.test_mcp_offchain import (
    ARGUMENTS,
    TOOL,
    calls,
    declare_url,
    native_mech,
    prepaid,
    prepay,
)

ONLY = ("--offchain", "only", "--timeout", "3")
#: a call whose post's answer is asserted: on an idle machine 1.5 s of a call goes to
#: its checks before the send, and a loaded one spent 3 s before the endpoint (whose
#: checks read the chain) answered, leaving the post its last second (fix29zzc)
POSTED = ("--offchain", "only", "--timeout", "6")


def _text(result: Any) -> str:
    return str(result.content[0].text)


def _settle(endpoint: OffchainResponder, mech: str, form: dict) -> None:
    """Settle one posted request with the stand-in's own code (as its mech would)."""
    # :param endpoint: the stand-in.
    # :param mech: the mech.
    # :param form: the posted form.
    rid = int(form["request_id"]).to_bytes(32, "big")
    sender = Web3.to_checksum_address(form["sender"])
    endpoint._settle(  # pylint: disable=protected-access
        Web3.to_checksum_address(mech), sender, rid, form
    )


def test_two_servers_at_once_sign_one_request_at_a_time(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Two processes, one state folder, a call in each: one nonce signed at a time."""
    # the first request is accepted and not settled while the second call waits: the
    # second is not signed behind it (fix29g); once the first is settled the second
    # is signed at the next nonce, and both are charged once. The first request holds
    # the nonce for its call's --timeout (its bound, fix29i): 24 s, so that the second
    # call, 8 s long and made once the first is posted, ends well inside it however
    # slowly the two servers started on a loaded machine (since fix29zp every node read
    # of a call ends within its --timeout: 3 s left the second's price unread at load 16)
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    results: List[Any] = []
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        start = market_nonce(devnet)
        held = ("--offchain", "only", "--timeout", "24")
        waiting = ("--offchain", "only", "--timeout", "8")

        async def main() -> None:
            async with (
                stdio_client(devnet, tmp_path, "--mech", mech, *held) as first,
                stdio_client(devnet, tmp_path, "--mech", mech, *waiting) as second,
            ):

                async def call(client: Any, prompt: str) -> None:
                    arguments = dict(ARGUMENTS, prompt=prompt)
                    results.append(await client.call_tool(TOOL, arguments))

                async with anyio.create_task_group() as group:
                    group.start_soon(call, first, "first of two")
                    with anyio.fail_after(30):
                        while not endpoint.posts:
                            await anyio.sleep(0.1)
                    group.start_soon(call, second, "second of two")

        anyio.run(main)
        texts = sorted((_text(r) for r in results), key=lambda t: "behind" in t)
        assert "accepted" in texts[0], texts
        assert "no request is signed behind it" in texts[1], texts
        assert [int(form["nonce"]) for form in endpoint.posts] == [start]
        _settle(endpoint, mech, endpoint.posts[0])

        async def one(prompt: str) -> None:
            async with stdio_client(devnet, tmp_path, "--mech", mech, *ONLY) as client:
                results.append(
                    await client.call_tool(TOOL, dict(ARGUMENTS, prompt=prompt))
                )

        assert "first of two" in endpoint.posts[0]["ipfs_data"]
        results.clear()
        anyio.run(one, "second of two")
        assert "accepted" in _text(results[0]), _text(results[0])
        assert int(endpoint.posts[-1]["nonce"]) == start + 1
        _settle(endpoint, mech, endpoint.posts[-1])
    assert not endpoint.errors, endpoint.errors
    assert market_nonce(devnet) == start + 2
    assert prepaid(devnet) == price  # two prices charged, both answers on chain


def test_a_server_stopped_during_its_post_holds_the_nonce_until_the_call_retries(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Signed, journalled, the server gone mid-post: no other call signs behind it."""
    # The call's retry posts the same request (same id, same nonce) and returns its answer.
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(
        devnet.info, [mech], behaviour="slow", slow_seconds=30.0
    ) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        start = market_nonce(devnet)

        async def stopped() -> None:
            async with stdio_client(devnet, tmp_path, "--mech", mech, *ONLY) as client:
                with anyio.move_on_after(4):
                    await client.call_tool(TOOL, ARGUMENTS)

        anyio.run(stopped)  # the client leaves mid-post: its server is stopped
        assert len(endpoint.posts) == 1
        endpoint.behaviour = "honest"
        (other,) = calls(devnet, tmp_path, 1, "--mech", mech, *ONLY, prompt="other")
        text = _text(other)
        assert other.is_error and f"outstanding at nonce {start}" in text, text
        assert len(endpoint.posts) == 1  # nothing signed behind it
        (again,) = calls(devnet, tmp_path, 1, "--mech", mech, "--offchain", "only")
        assert not again.is_error, _text(again)
        assert endpoint.posts[-1]["request_id"] == endpoint.posts[0]["request_id"]
    assert not endpoint.errors, endpoint.errors
    assert prepaid(devnet) == 2 * price  # charged once
    assert market_nonce(devnet) == start + 1


def test_an_onchain_call_waits_for_an_accepted_request_and_retires_a_refused_one(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """On chain in between: never over an accepted request; over a refused one, it says so."""
    # A (off-chain, accepted, unsettled) holds nonce N: B on chain waits, naming A's
    # nonce, and sends nothing until A is settled. C (refused) holds N + 2: D under
    # ``--offchain auto`` goes on chain and takes it; C's retry signs anew at N + 3 and
    # is answered, charged once.
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    never = ("--mech", mech, "--offchain", "never", "--timeout", "3")
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 5 * price)
        start = market_nonce(devnet)
        (a,) = calls(devnet, tmp_path, 1, "--mech", mech, *POSTED, prompt="A")
        assert "accepted" in _text(a)
        # A's bound (its call's --timeout, 6 s) made longer in its entry: past it B
        # would take the nonce (fix29i, tests/adversary/test_adv29g_offchain_one_*)
        (path,) = (tmp_path / "calls").glob("*.json")
        entry = json.loads(path.read_text())
        entry["extra"]["offchain"]["give_up_after"] = 600
        path.write_text(json.dumps(entry))
        (b,) = calls(devnet, tmp_path, 1, *never, prompt="B")
        text = _text(b)
        assert b.is_error and f"outstanding at nonce {start}" in text, text
        assert f"would take nonce {start}" in text and "nothing was sent" in text
        assert market_nonce(devnet) == start
        _settle(endpoint, mech, endpoint.posts[0])
        (b,) = calls(devnet, tmp_path, 1, *never, prompt="B")
        assert "tx 0x" in _text(b), _text(b)  # sent on chain now (no one answers it)
        assert market_nonce(devnet) == start + 2
        endpoint.behaviour = "wrong_id"
        (c,) = calls(devnet, tmp_path, 1, "--mech", mech, *POSTED, prompt="C")
        assert "without accepting request" in _text(c)
        assert int(endpoint.posts[-1]["nonce"]) == start + 2
        auto = ("--mech", mech, "--offchain", "auto", "--timeout", "3")
        (d,) = calls(devnet, tmp_path, 1, *auto, prompt="D")
        assert "tx 0x" in _text(d), _text(d)  # on chain: C's nonce taken
        assert market_nonce(devnet) == start + 3
        before = prepaid(devnet)
        endpoint.behaviour = "honest"
        (c,) = calls(
            devnet, tmp_path, 1, "--mech", mech, "--offchain", "only", prompt="C"
        )
        assert not c.is_error, _text(c)
        assert int(endpoint.posts[-1]["nonce"]) == start + 3
    assert not endpoint.errors, endpoint.errors
    assert before - prepaid(devnet) == price  # C charged once, at its new request


def test_an_accepted_request_whose_nonce_was_taken_says_so_and_signs_anew(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Another client of the same account takes the nonce: the call says so, once."""
    # Its price no longer counts against ``--max-spend`` (one price: the next call fits),
    # and calling again signs a new request at the next nonce and returns its answer.
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    options = ("--mech", mech, "--offchain", "only", "--max-spend", str(price))
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        start = market_nonce(devnet)
        (first,) = calls(devnet, tmp_path, 1, *options, "--timeout", "3")
        assert "accepted" in _text(first) and f"nonce {start}" in _text(first)
        devnet.request_mech(mech, b"\x77" * 32, requester(devnet))  # takes nonce N
        (said,) = calls(devnet, tmp_path, 1, *options, "--timeout", "3")
        text = _text(said)
        assert said.is_error and "can never be settled" in text, text
        assert f"0x{int(endpoint.posts[0]['request_id']):064x} (nonce {start})" in text
        endpoint.behaviour = "honest"
        (answered,) = calls(devnet, tmp_path, 1, *options, "--timeout", "20")
        assert not answered.is_error, _text(answered)
        assert int(endpoint.posts[-1]["nonce"]) == start + 1
    assert not endpoint.errors, endpoint.errors
    assert prepaid(devnet) == 2 * price  # only the new request was charged
