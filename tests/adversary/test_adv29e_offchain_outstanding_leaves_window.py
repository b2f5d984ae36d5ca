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

"""An outstanding off-chain request stops counting once it is older than the window (adv29e).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint) with the MCP SDK's client launching ``mech-catalogue mcp --offchain only``
over stdio, one agent.

docs/mcp.md ("Outstanding requests and the marketplace nonce") says a signed off-chain
request "is outstanding while ``mapNonces(requester)`` is at most its nonce. Until then
it **counts against ``--max-spend``** and is never given back in a running process".
But the count is dated: an accepted request counts from its acceptance (``paid_at``)
and only within ``--spend-window`` (``SpendLedger.count_journal``), while its mech may
settle, and charge, it at any later time. So a mech that holds an accepted request past
the window makes room for more:

- ``--max-spend`` of one price, ``--spend-window 15``; call A accepted (``no_settle``);
- 16 s later, call B (other arguments) is signed, at the nonce after A's, and accepted:
  A no longer counts although it is still outstanding;
- the mech then settles A and B one after the other: two prices leave the prepaid
  balance within a second, under a cap of one price per 15 s.

Expected: an outstanding request counts against ``--max-spend`` until the chain shows
it settled (then from its settlement) or never settleable, whatever its age: B is
refused by the cap while A is outstanding, and nothing more than the cap is charged in
any window.
"""

import time
from pathlib import Path

from web3 import Web3

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import market_nonce
from tests.devnet.test_mcp_offchain import (
    calls,
    declare_url,
    native_mech,
    prepaid,
    prepay,
)

WINDOW = 15


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


def test_an_outstanding_request_counts_whatever_its_age(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A accepted and held past the window: B is refused by the cap.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    options = (
        *("--mech", mech, "--offchain", "only", "--timeout", "3"),
        *("--max-spend", str(price), "--spend-window", str(WINDOW)),
    )
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 5 * price)
        start = market_nonce(devnet)
        (a,) = calls(devnet, tmp_path, 1, *options, prompt="A: held by its mech")
        assert "accepted" in _text(a), _text(a)
        time.sleep(WINDOW + 1)  # A's acceptance leaves the window; A is outstanding
        assert market_nonce(devnet) == start
        endpoint.behaviour = "honest"  # B is settled as soon as A is
        (b,) = calls(devnet, tmp_path, 1, *options, prompt="B: after the window")
        before = prepaid(devnet)
        form = endpoint.posts[0]
        settled_at = time.monotonic()
        endpoint._settle(  # pylint: disable=protected-access
            Web3.to_checksum_address(mech),
            Web3.to_checksum_address(form["sender"]),
            int(form["request_id"]).to_bytes(32, "big"),
            form,
        )
    # leaving the stand-in waited for B's settlement, queued behind A's
    charged = before - prepaid(devnet)
    observed = (
        f"B: {_text(b)[:200]!r}; posts {len(endpoint.posts)}; charged {charged} wei "
        f"({charged // price} prices) within {time.monotonic() - settled_at:.1f} s, "
        f"--max-spend {price} per {WINDOW} s"
    )
    # observed on main: B posted and accepted; A and B both settled, two prices
    # charged within seconds
    assert len(endpoint.posts) == 1 and "max-spend" in _text(b), observed
