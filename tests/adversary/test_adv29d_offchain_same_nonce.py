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

"""Two off-chain calls before the first settles: the second can never be delivered (adv29d).

On the devnet (anvil with the real MechMarketplace bytecode, kubo) with the MCP SDK's
client launching ``mech-catalogue mcp --offchain only`` over stdio, one agent, one
honest mech whose endpoint (the devnet stand-in) accepts a request and settles it
*later*, as the real mech does (its deliveries run in periods, in batches per requester).

The server signs every off-chain request at ``mapNonces(requester)`` read now
(``OffchainPoster.prepare``). That nonce moves only when a request is settled, so two
calls made before the mech settles the first are both signed at the same nonce ``N``.
``MechMarketplace._deliverMarketplaceWithSignatures`` recomputes each id at the
requester's current nonce (``N``, then ``N + 1`` within a batch), so once the first is
settled the second's signature can never verify again (and a batch of both reverts
whole). The second call was accepted, so it is counted against ``--max-spend`` and
every retry "only waits": it never returns its answer, and nothing says why.

Here both calls are accepted (the stand-in's ``no_settle``), then the test settles the
two posted requests in order from the mech's Safe with the stand-in's own settlement
code (``deliverMarketplaceWithSignatures``), then calls the second again.

Expected: every request a mech accepted can be settled in the order posted (the second
signed at ``N + 1``, or not signed while the first is pending), so the retry returns the
second call's answer; or the server sees that its nonce passed unsettled and says so
(never waiting for ever on a request that cannot be delivered).
"""

import json
from pathlib import Path

from web3 import Web3

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import market_nonce
from tests.devnet.test_mcp_offchain import calls, declare_url, native_mech, prepay

OPTIONS = ("--offchain", "only", "--timeout", "3")


def test_two_offchain_calls_in_a_row_can_both_be_settled(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Both accepted requests settle in order; the retry returns the second's answer."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 4 * price)
        start = market_nonce(devnet)
        for prompt in ("first", "second"):  # two calls, the mech settles neither yet
            (result,) = calls(
                devnet, tmp_path, 1, "--mech", mech, *OPTIONS, prompt=prompt
            )
            text = result.content[0].text
            # since fix29g the second is not signed while the first is pending (the
            # docstring's other expected way): it says so, nothing posted
            said = (
                "posted to its endpoint and accepted"
                if prompt == "first"
                else ("no request is signed behind it")
            )
            assert result.is_error and said in text, text
            if prompt == "first":
                # a mech settling within the first's bound (made longer in its entry:
                # its call's --timeout, 3 s, is shorter than this mech's periods); past
                # it the second is signed at the same nonce and the first of the two
                # settled wins (fix29i: tests/test_mcp_offchain_given_up.py)
                (path,) = (tmp_path / "calls").glob("*.json")
                entry = json.loads(path.read_text())
                entry["extra"]["offchain"]["give_up_after"] = 600
                path.write_text(json.dumps(entry))
        assert len(endpoint.posts) == 1
        nonces = [int(form["nonce"]) for form in endpoint.posts]
        # the mech settles what it accepted, in the order posted (as it would, later)
        for form in list(endpoint.posts):
            rid = int(form["request_id"]).to_bytes(32, "big")
            sender = Web3.to_checksum_address(form["sender"])
            endpoint._settle(  # pylint: disable=protected-access
                Web3.to_checksum_address(mech), sender, rid, form
            )
        endpoint.behaviour = "honest"  # the second, signed now, is settled at once
        settled_to = market_nonce(devnet)
        (again,) = calls(
            devnet,
            tmp_path,
            1,
            "--mech",
            mech,
            "--offchain",
            "only",
            "--timeout",
            "10",
            prompt="second",
        )
    # observed on main: nonces [N, N]; the second settlement reverts (the signature is
    # for nonce N, the marketplace is at N + 1); the retry waits and times out again
    assert not endpoint.errors and not again.is_error, (
        nonces,
        start,
        settled_to,
        endpoint.errors,
        again.content[0].text,
    )
