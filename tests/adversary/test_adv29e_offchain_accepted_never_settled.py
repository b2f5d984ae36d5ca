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

"""A mech that accepts a request and never settles it freezes every later one (adv29e).

On the devnet (anvil with the real MechMarketplace bytecode, kubo) with the MCP SDK's
client launching ``mech-catalogue mcp --offchain only`` over stdio, one agent, one
state folder.

Since adv29d a new off-chain request is signed at the first nonce no outstanding
request holds: *behind* every accepted one (``outstanding.next_nonce``), and the
marketplace can settle a request signed at ``N + 1`` only once the requester's nonce
is ``N + 1`` (``_deliverMarketplaceWithSignatures`` recomputes the id at the nonce
then). So an endpoint that answers 200 to the request at ``N`` and never settles it
makes every later off-chain request of this requester, to *any* mech, unsettleable
while ``N`` stands:

- call A: accepted at ``N``, never settled (the stand-in's ``no_settle``);
- call B (other arguments; the endpoint now honest, as another mech's would be): signed
  at ``N + 1``, accepted and counted against ``--max-spend``; its settlement waits for
  the nonce to reach ``N + 1`` and fails; B "waits";
- call C: refused by ``--max-spend`` (two prices of 2), nothing answered at all.

With ``--offchain only`` nothing ever moves ``N`` (no on-chain request is sent), so
this lasts for as long as the server runs; with ``auto`` an on-chain request is not
sent either, for the marketplace's ``maxResponseTimeout`` (3,600 s on the devnet,
docs/mcp.md), while A "holds the nonce". One hostile acceptance costs the user every
paid off-chain call and the spending cap, with no answer.

Expected: another call is not signed behind an accepted request its mech has not
settled (or not after a stated, short bound), so B is answered or refused with nothing
posted and nothing counted; a hostile endpoint's acceptance never makes other calls
unsettleable nor uses up ``--max-spend`` with them.
"""

from pathlib import Path

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import market_nonce
from tests.devnet.test_mcp_offchain import calls, declare_url, native_mech, prepay


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


def test_an_accepted_request_never_settled_does_not_freeze_later_calls(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """After A is accepted and never settled, B is answered or not posted at all.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    options = ("--mech", mech, "--offchain", "only", "--timeout", "8")
    capped = (*options, "--max-spend", str(2 * price))
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 5 * price)
        start = market_nonce(devnet)
        (a,) = calls(devnet, tmp_path, 1, *capped, prompt="A: accepted, never settled")
        assert "accepted" in _text(a), _text(a)
        endpoint.behaviour = "honest"  # every later request is settled when it can be
        (b,) = calls(devnet, tmp_path, 1, *capped, prompt="B: an honest request")
        posted_b = [int(form["nonce"]) for form in endpoint.posts[1:]]
        (c,) = calls(devnet, tmp_path, 1, *capped, prompt="C: a third one")
        observed = (
            f"B: {_text(b)[:300]!r}; B posted at nonces {posted_b} (A at {start}); "
            f"C: {_text(c)[:300]!r}; marketplace nonce now {market_nonce(devnet)}"
        )
        # observed on main: B posted at nonce N + 1 and accepted, waiting (its
        # settlement can never verify while N stands); C refused: over --max-spend
        assert not b.is_error or not posted_b, observed
        assert not (c.is_error and "max-spend" in _text(c)), observed
