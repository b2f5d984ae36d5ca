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

"""A 402 that lies about the balance is repeated to the user as a shortfall (adv29g).

Severity: LOW (no money moves by itself: the text tells a person and a model to
prepay, and a false inequality is shown as the chain's fact).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint answering ``always_402``: the real tracker as ``payTo``, this chain's id,
whatever the balance) with the MCP SDK's client launching ``mech-catalogue mcp
--offchain only`` over stdio, one agent.

The requester prepaid three prices, so the tracker covers the price (read on chain).
The mech answers 402 anyway. ``OffchainPoster._challenge_text`` believes any challenge
whose ``payTo`` and ``chainId`` are right, and words it from the chain's balance
without comparing it with the price:

    mech 0x...'s endpoint ... needs a prepaid balance: prepaid 0.015 native < 0.005
    native required on tracker 0x...; run `mech-catalogue prepay --mech 0x...
    --amount 0` (or serve with --auto-prepay, or without --offchain only); nothing
    was sent

A false inequality stated as a fact, and advice to prepay (a zero amount here; the
model may well deposit a round sum) and to opt in to automatic deposits, for a mech
whose demand the chain contradicts. (``--auto-prepay`` itself then refuses: "the chain
says the prepaid balance covers the price, yet the mech answered 402".)

Expected: a 402 while the chain says the prepaid balance covers the signed price is
not worded as a shortfall: the refusal says the mech asked for a prepayment the chain
shows is not needed, advises no deposit, and names the mech.
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


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


def test_a_402_the_chain_contradicts_is_not_a_shortfall(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The prepaid balance covers the price; the mech says 402; no prepay advice.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(devnet.info, [mech], behaviour="always_402") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        assert prepaid(devnet) >= price
        (refused,) = calls(
            devnet, tmp_path, 1, "--mech", mech, "--offchain", "only", "--timeout", "5"
        )
    text = _text(refused)
    assert refused.is_error and len(endpoint.posts) == 1, text
    # observed on adv29f: "needs a prepaid balance: prepaid ... < ... required on
    # tracker ...; run `mech-catalogue prepay --mech ... --amount 0`"
    assert "needs a prepaid balance" not in text, text
    assert "mech-catalogue prepay" not in text, text
