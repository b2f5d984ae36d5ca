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

"""A retry gives a refused off-chain request's price back to the cap; the mech settles it (adv29d).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint) with the MCP SDK's client launching ``mech-catalogue mcp --offchain only``:
one server process, one agent, ``--max-spend`` of one price.

adv29c's fix keeps a refused off-chain request counted ("the mech holds the signed
request and can settle it"). A retry of that call undoes it in the running process:
``Sender._offchain_again`` calls ``ledger.refund`` for a request not yet on chain and
not accepted, which also puts its id among the ledger's ``refunded``, and
``SpendLedger.count_journal`` leaves every id of ``refunded`` out of the journal's
count. When the retry then stops before signing again (here the mech raised its price
over ``--max-price``: "raised its price", nothing sent), the refused request is counted
nowhere. The mech puts its price back and settles the refused request (the stand-in's
own settlement code, on the form the server posted): one price charged. A call of
other arguments is then paid too: two prices in a window capped at one.

Expected: the second call is refused "over --max-spend" (a signed request that left
the process counts until the chain says it can no longer be settled).
"""

from pathlib import Path
from typing import Any

import anyio

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import stdio_client
from tests.devnet.test_mcp_offchain import (
    ARGUMENTS,
    TOOL,
    declare_url,
    native_mech,
    prepaid,
    prepay,
)


def _text(result: Any) -> str:
    return str(result.content[0].text)


def test_a_retried_refused_request_still_counts_when_its_mech_settles_it(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Refused, retried (price raised), settled: a second call is over the cap."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    options = (
        "--mech",
        mech,
        "--offchain",
        "only",
        "--max-price",
        str(price),
        "--max-spend",
        str(price),
        "--timeout",
        "20",
    )
    texts = []

    with OffchainResponder(devnet.info, [mech], behaviour="wrong_id") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)

        async def main() -> Any:
            async with stdio_client(devnet, tmp_path, *options) as client:
                first = await client.call_tool(TOOL, ARGUMENTS)
                texts.append(_text(first))
                assert first.is_error and "without accepting request" in texts[-1]
                devnet.change_max_delivery_rate(mech, price + 1)  # over --max-price
                retry = await client.call_tool(TOOL, ARGUMENTS)
                texts.append(_text(retry))
                assert retry.is_error and "price" in texts[-1], texts[-1]
                assert len(endpoint.posts) == 1  # nothing new was signed or posted
                # the mech puts its price back and settles the "refused" request
                devnet.change_max_delivery_rate(mech, price)
                form = endpoint.posts[0]
                # pylint: disable=protected-access
                settled_mech, sender, rid, _ = endpoint._checked(form)
                endpoint._settle(settled_mech, sender, rid, form)
                assert not endpoint.errors, endpoint.errors
                assert prepaid(devnet) == 2 * price  # one price charged
                endpoint.behaviour = "honest"
                other = dict(ARGUMENTS, prompt="Is the bridge open?")
                return await client.call_tool(TOOL, other)

        second = anyio.run(main)
        spent = 3 * price - prepaid(devnet)
    text = _text(second)
    # observed on main: the second call is paid: two prices charged under a cap of one
    assert second.is_error and "over --max-spend" in text, (text, spent, texts)
    assert spent == price
