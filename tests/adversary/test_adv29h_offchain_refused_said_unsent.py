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

"""A signed request the mech received is refused with "nothing was sent" (adv29h).

Severity: MEDIUM (a false statement about money to a person and a model: the mech
holds the signed request and may settle it, which charges the prepaid balance, while
the call says nothing was sent; the cap, rightly, keeps counting it).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint of :mod:`scripts.devnet.offchain_responder`) with the MCP SDK's client
launching ``mech-catalogue mcp --offchain only`` over stdio, one agent. The requester
prepaid three prices.

The mech's endpoint receives the whole signed request (``endpoint.posts``) and then
refuses it: a 402 the chain contradicts (fix29h's new sentence, "the mech refused a
request the balance covers: try another mech (no prepayment is needed)"), or a 200
naming another request id. ``OffchainSender`` keeps the request counted and holding its
nonce, as it must (the mech can settle it on chain whatever it answered: adv29g's
refused-then-settled). But ``MechToolServer`` appends "; nothing was sent" to every
refusal that is a plain string (``server.py``: ``isinstance(sent, str)``), an
``OffchainRefusal`` included, so the person reads that nothing left, and may well
follow the advice to try another mech while this one can still charge the balance.
(faults.md already requires "never 'nothing was sent'" for the refusal after an
automatic deposit; a refusal without a deposit is the same request, as sent.)

Expected: a refusal of a request the endpoint received never says "nothing was sent";
it says the signed request was posted and that the mech may still settle (charge) it.
The ``unsent`` refusals (fix29h: no connection, or the address check) may keep it.
"""

from pathlib import Path

import pytest

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


@pytest.mark.parametrize("behaviour", ["always_402", "wrong_id"])
def test_a_refused_request_the_mech_received_is_not_said_unsent(
    chain_snapshot: Devnet, tmp_path: Path, behaviour: str
) -> None:
    """The endpoint got the signed request, then refused it: never "nothing was sent".

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param behaviour: how the stand-in refuses what it received.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(devnet.info, [mech], behaviour=behaviour) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        assert prepaid(devnet) >= price
        (refused,) = calls(
            devnet, tmp_path, 1, "--mech", mech, "--offchain", "only", "--timeout", "5"
        )
    text = _text(refused)
    # the endpoint holds the whole signed request: it may settle it on chain
    assert refused.is_error and len(endpoint.posts) == 1, text
    assert "signature" in endpoint.posts[0], endpoint.posts[0]
    # observed on main: "... try another mech (no prepayment is needed); nothing was
    # sent" and "... answered 200 without accepting request ...; nothing was sent"
    assert "nothing was sent" not in text, text
