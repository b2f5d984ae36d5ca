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

"""A refused off-chain request counts while it may be settled, and no longer after.

On the devnet (anvil with the real MechMarketplace, kubo, the devnet's stand-in endpoint
settling with ``deliverMarketplaceWithSignatures``) with the MCP SDK's client launching
``mech-catalogue mcp --offchain only``, one server process per step on one
``--state-dir``.

A hostile mech answers the post badly (``200`` naming another request id): the call
fails and the signed request keeps counting against ``--max-spend``, since the mech
holds it and may settle it (``test_adv29c_offchain_refused_settled.py``). Before this
fix it counted for the whole ``--spend-window`` even once it could never be settled.
The marketplace settles a signed request only at the requester's current
``mapNonces``; once another request of the requester moved that nonce past the one
signed (here an honest off-chain call settled by the mech), the refused one can never
be settled, and its price is given back.
"""

import json
from pathlib import Path

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


def _entries(state: Path) -> list:
    return [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((state / "calls").glob("*.json"))
    ]


def test_a_refused_request_counts_until_its_nonce_is_used_then_is_released(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Refused at nonce n: counted; the nonce moves past n unsettled: released."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    one = ("--max-spend", str(price), "--mech", mech, "--offchain", "only")
    two = ("--max-spend", str(2 * price), "--mech", mech, "--offchain", "only")
    state = tmp_path / "state"
    with OffchainResponder(devnet.info, [mech], behaviour="wrong_id") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        signed_at = market_nonce(devnet)
        (refused,) = calls(devnet, state, 1, *one)
        assert (
            refused.is_error and "without accepting request" in refused.content[0].text
        )

        # the nonce has not moved: the mech may still settle it, so it counts
        (capped,) = calls(devnet, state, 1, *one, prompt="Is the bridge open?")
        assert capped.is_error and "over --max-spend" in capped.content[0].text
        assert market_nonce(devnet) == signed_at

        # an honest call is signed at the same nonce, accepted and settled: the
        # requester's nonce moves past the refused request's
        endpoint.behaviour = "honest"
        (paid,) = calls(devnet, state, 1, *two, prompt="Is the bridge open?")
        assert not paid.is_error, paid.content[0].text
        assert market_nonce(devnet) == signed_at + 1
        assert prepaid(devnet) == 2 * price

        # the refused request can never be settled now: released, this call is paid
        (third,) = calls(devnet, state, 1, *two, prompt="Will it rain tomorrow?")
    assert not third.is_error, third.content[0].text
    assert prepaid(devnet) == price  # two calls charged; the refused one never
    released = [
        entry["extra"]["offchain"]["released"]
        for entry in _entries(state)
        if "released" in entry["extra"].get("offchain", {})
    ]
    assert len(released) == 1 and released[0]["market_nonce"] == signed_at + 1


def test_a_refused_request_the_mech_settles_after_the_nonce_moved_is_not_released(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Settled by the mech (so the nonce moved by its own settlement): it stays counted."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    two = ("--max-spend", str(2 * price), "--mech", mech, "--offchain", "only")
    state = tmp_path / "state"
    with OffchainResponder(devnet.info, [mech], behaviour="wrong_id") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        (refused,) = calls(devnet, state, 1, *two)
        assert refused.is_error
        form = endpoint.posts[0]
        # pylint: disable=protected-access
        settled_mech, sender, rid, _ = endpoint._checked(form)
        endpoint._settle(settled_mech, sender, rid, form)  # the mech settles it anyway
        assert not endpoint.errors, endpoint.errors
        endpoint.behaviour = "honest"
        (second,) = calls(devnet, state, 1, *two, prompt="Is the bridge open?")
        assert not second.is_error, second.content[0].text
        (third,) = calls(devnet, state, 1, *two, prompt="Will it rain tomorrow?")
    assert third.is_error and "over --max-spend" in third.content[0].text
    assert prepaid(devnet) == price  # the settled "refused" call and the second
    assert not any(
        "released" in entry["extra"].get("offchain", {}) for entry in _entries(state)
    )
