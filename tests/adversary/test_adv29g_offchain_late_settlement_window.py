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

"""A request settled late is charged now but counted as of its acceptance (adv29g).

Severity: HIGH (two prices charged within one ``--spend-window`` under a
``--max-spend`` of one price).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint of :mod:`scripts.devnet.offchain_responder`) with the MCP SDK's client
launching ``mech-catalogue mcp --offchain only --max-spend P --spend-window W`` over
stdio, one agent, one state folder. The mech's settlement is made by the stand-in's
own settling code, called when the test says (a mech choosing when to settle).

fix29f made an outstanding request older than the window count while its nonce is not
passed (the mech may still settle it, and the marketplace charges it whatever its age).
Once the mech *does* settle it, the nonce has passed, and the journal record is dated
by its acceptance (``paid_at``): ``SpendLedger.count_journal`` then counts it nothing,
although the marketplace charged it a moment ago:

- call A: accepted at ``t0``; the mech waits (its call times out, as said); or A is
  answered 402 (a request refused counts while outstanding, dated by its last write:
  the same then);
- more than ``W`` s later the mech settles A: the prepaid balance is charged one price
  now;
- call B (other arguments), a few seconds later: A is older than the window and its
  nonce passed, so it counts 0; B is signed, accepted and settled: a second price,
  charged seconds after the first, under a cap of one price per ``W`` s.

A mech (or two colluding ones) that holds every accepted request until the window is
over and settles it just before the next call doubles what the cap lets be charged in
a window, every window.

Expected: an off-chain request counts against ``--spend-window`` from when it was
settled (the chain's block of its delivery, or at the latest when the server saw it
settled), not from when it was accepted: B is refused over ``--max-spend``, nothing
posted for it.
"""

import time
from pathlib import Path

import pytest

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

WINDOW = 10  # seconds of --spend-window: A's acceptance leaves it before B is signed


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


@pytest.mark.parametrize("answer", ["no_settle", "always_402"])
def test_a_late_settlement_counts_in_the_window_it_was_charged_in(
    chain_snapshot: Devnet, tmp_path: Path, answer: str
) -> None:
    """A is settled after the window passed its acceptance; B is then over the cap.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param answer: what the endpoint answered A (accepted, or a 402 it did not mean:
        either way the mech holds A signed and settles it when it likes).
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    capped = (
        "--mech",
        mech,
        "--offchain",
        "only",
        "--timeout",
        "2",
        "--max-spend",
        str(price),
        "--spend-window",
        str(WINDOW),
    )
    with OffchainResponder(devnet.info, [mech], behaviour=answer) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        start, before = market_nonce(devnet), prepaid(devnet)
        (a,) = calls(devnet, tmp_path, 1, *capped, prompt="A: settled late")
        assert a.is_error and len(endpoint.posts) == 1, _text(a)
        time.sleep(WINDOW + 1)  # A's acceptance is now older than the window
        form = endpoint.posts[0]
        # the mech settles A now (the stand-in's own settlement, at the time it chose)
        # pylint: disable-next=protected-access
        settled_mech, sender, rid, _ = endpoint._checked(form)
        # pylint: disable-next=protected-access
        endpoint._settle(settled_mech, sender, rid, form)
        charged_a = time.time()
        assert endpoint.settled and before - prepaid(devnet) == price, endpoint.errors
        endpoint.behaviour = "honest"
        (b,) = calls(devnet, tmp_path, 1, *capped, prompt="B: seconds later")
        took = time.time() - charged_a
    observed = (
        f"B: {_text(b)[:300]!r}; charged {before - prepaid(devnet)} (price {price}) "
        f"within {took:.1f} s of A's settlement; --max-spend {price} per {WINDOW} s; "
        f"marketplace nonce {start} -> {market_nonce(devnet)}"
    )
    # observed on adv29f: B posted, accepted and settled: two prices charged within
    # a few seconds under a cap of one per window
    assert took < WINDOW, observed  # both charges fell within one window
    assert before - prepaid(devnet) == price, observed
    assert b.is_error and "max-spend" in _text(b), observed
