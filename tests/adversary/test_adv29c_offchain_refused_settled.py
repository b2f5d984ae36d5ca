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

"""A mech that answers an off-chain post badly still holds the signed request (adv29c).

On the devnet (anvil with the real MechMarketplace, kubo, the devnet's stand-in
endpoint) with the MCP SDK's client launching ``mech-catalogue mcp --offchain only``.

Once the server has posted its signed request, the mech can settle it on chain
(``deliverMarketplaceWithSignatures``) whatever it answered over HTTP. A hostile mech
answers ``200`` naming another request id (or answers after 10 s, or 2 MiB): the server
says the call failed, marks the entry ``refused``, gives its price back to
``--max-spend`` and the journal index stops counting it ("nothing paid"). The mech then
settles the request it was given: the prepaid balance is charged, and the cap no longer
knows. Here the test plays the mech's settlement with the stand-in's own settling code
(``OffchainResponder._settle``, the honest path's), on the form the server posted.

Expected: a request that left this process signed counts against ``--max-spend`` until
the chain says it can no longer be settled (its nonce used by another request), and its
error does not say nothing was paid. Observed now: a second call under
``--max-spend <one price>`` is paid too, two prices charged in one window.
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


def test_a_refused_offchain_post_the_mech_settles_still_counts_against_the_cap(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The mech settles the 'refused' request; the cap of one price then refuses more."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    cap = ("--max-spend", str(price), "--mech", mech, "--offchain", "only")
    with OffchainResponder(devnet.info, [mech], behaviour="wrong_id") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        (first,) = calls(devnet, tmp_path, 1, *cap)
        first_text = first.content[0].text
        assert first.is_error and "without accepting request" in first_text
        # the mech keeps the signed request and settles it anyway
        form = endpoint.posts[0]
        # pylint: disable=protected-access
        settled_mech, sender, rid, _ = endpoint._checked(form)
        endpoint._settle(settled_mech, sender, rid, form)
        assert not endpoint.errors, endpoint.errors
        assert prepaid(devnet) == 2 * price  # the "refused" call was charged

        endpoint.behaviour = "honest"
        (second,) = calls(devnet, tmp_path, 1, *cap, prompt="Is the bridge open?")
    second_text = second.content[0].text
    # observed now: second is paid (prepaid 1 price left), two prices in one window
    assert second.is_error and "over --max-spend" in second_text, (
        second_text,
        prepaid(devnet),
    )
    assert prepaid(devnet) == 2 * price
    assert "nothing was paid" not in first_text.lower(), first_text
