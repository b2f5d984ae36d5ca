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

"""A refused off-chain request, re-signed on retry, is settled: its answer is lost (adv29d).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint) with the MCP SDK's client launching ``mech-catalogue mcp --offchain only``,
one agent.

adv29c's fix keeps a refused off-chain request counted against ``--max-spend`` (the mech
holds the signed request and can settle it). But a retry of the call
(``Sender._offchain_again``: never accepted, not on chain) prepares the call anew and
``Journal.save`` *overwrites* the call's entry with the new request. When anything of
the id moved in between (here the mech's price, lowered by 1 wei, within
``--max-price``), the new request is another id at the same marketplace nonce. The
mech, which answered the first post with another request id (stand-in ``wrong_id``),
accepts the second and then settles the *first* one (price back, its own settlement
code): the prepaid balance is charged the first request's price, its answer is on chain
and IPFS, and the server no longer knows that request: it waits for the second, which
can never settle (the nonce moved), on every retry.

Expected: an answer the user paid for is returned (the call's retry finds the settled
first request: every id signed for the call stays watched until its nonce is used), or
at least the result names the settled request and its charge; never a wait for ever.
"""

from pathlib import Path

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.test_mcp_offchain import (
    calls,
    declare_url,
    native_mech,
    prepaid,
    prepay,
)

META = "io.olas/mech-request"


def test_a_settled_first_request_is_not_lost_when_the_call_was_resigned(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The mech settles the first, 'refused' request: the retry returns its answer."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    options = ("--mech", mech, "--offchain", "only", "--max-price", str(price))
    with OffchainResponder(devnet.info, [mech], behaviour="wrong_id") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        (first,) = calls(devnet, tmp_path, 1, *options, "--timeout", "3")
        assert first.is_error and "without accepting request" in first.content[0].text
        # the mech lowers its price by 1 wei, accepts the retry's new request and
        # settles neither yet
        devnet.change_max_delivery_rate(mech, price - 1)
        endpoint.behaviour = "no_settle"
        (second,) = calls(devnet, tmp_path, 1, *options, "--timeout", "3")
        assert second.is_error and "accepted" in second.content[0].text, second
        assert len(endpoint.posts) == 2
        old, new = endpoint.posts[0], endpoint.posts[1]
        assert old["request_id"] != new["request_id"] and old["nonce"] == new["nonce"]
        # then it settles the first request, at the price it was signed for
        devnet.change_max_delivery_rate(mech, price)
        # pylint: disable=protected-access
        settled_mech, sender, rid, _ = endpoint._checked(old)
        endpoint._settle(settled_mech, sender, rid, old)
        assert not endpoint.errors, endpoint.errors
        assert prepaid(devnet) == 2 * price  # the first request was charged
        (third,) = calls(devnet, tmp_path, 1, *options, "--timeout", "10")
    text = third.content[0].text
    request = (third.meta or {}).get(META, {})
    # observed on main: third waits for the second request (never settled: the nonce
    # moved) and times out again; the paid first answer is never shown
    assert not third.is_error or old["request_id"] in text, (
        text,
        request.get("request_id_decimal"),
        old["request_id"],
    )
