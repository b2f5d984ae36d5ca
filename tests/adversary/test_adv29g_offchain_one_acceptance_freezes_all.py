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

"""One mech's acceptance, never settled, stops every paid call to every mech (adv29g).

Severity: MEDIUM (a freeze of every paid call, for the marketplace's
``maxResponseTimeout``: 3,600 s on the devnet, and again each time that mech is chosen).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint accepting and never settling: ``no_settle``; the devnet's on-chain responder
for the other mech) with the MCP SDK's client launching ``mech-catalogue mcp`` over
stdio, one agent, one state folder, ``--offchain auto`` (the mode that pays on chain
whatever has no endpoint).

fix29g signs no off-chain request behind an outstanding one, and sends no on-chain
request while an accepted off-chain request holds the nonce, until
``maxResponseTimeout`` passed since its acceptance (``outstanding.onchain_blocker``):
it protects that request's answer from being stranded. The cost is paid by every other
call of the user:

- call A, to the native mech H (its endpoint accepts and never settles): times out;
- call B, to *another* mech (the OLAS-priced one, no endpoint: an on-chain request,
  a responder answering on chain within seconds): waits its ``--timeout`` "for request
  0x... to be settled or to pass", then is refused "an on-chain request now would take
  nonce N ... after 3600 s from its acceptance it no longer holds the nonce".

Nothing of B's mech is at fault, nothing is paid, and it is said in words; but one
endpoint that answers 200 to a request makes the requester unable to pay anybody for
an hour (the marketplace's value on the devnet), and a mech that is a tool's first
offer (``offers.rank_offers``: its incumbent, then the cheaper) is chosen again as soon
as the hour is over (nothing in the choice looks at a request it did not settle). Stranding an accepted request costs only its mech (it can then
never be charged); waiting costs the user every call.

Expected: an accepted request its mech has not settled within a short, stated bound
(the call's ``--timeout``, not the marketplace's ``maxResponseTimeout``) does not stop
calls to other mechs: B is sent on chain and answered, A's request is given up (it can
then never be charged) and A's call says so when called again.

Fixed by fix29i (``outstanding.given_up``): the bound is the ``--timeout`` of the call
that posted the request, recorded in its entry; the mech is then tried after the
tool's other offers (``unsettled.tried_last``).
"""

from pathlib import Path

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import market_nonce, marketplace_mech_of, responder
from tests.devnet.test_mcp_offchain import calls, declare_url, native_mech, prepay


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


def test_one_unsettled_acceptance_does_not_stop_calls_to_other_mechs(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """After H accepted A and never settled, B to another mech is paid on chain.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    hostile, service_id = native_mech(devnet)
    other = marketplace_mech_of(devnet, "olas")
    price = int(devnet.mech(hostile).functions.maxDeliveryRate().call())
    window = int(
        devnet.contract("MechMarketplace").functions.maxResponseTimeout().call()
    )
    with OffchainResponder(devnet.info, [hostile], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        start = market_nonce(devnet)
        (a,) = calls(
            devnet,
            tmp_path,
            1,
            "--mech",
            hostile,
            "--offchain",
            "auto",
            "--timeout",
            "3",
            prompt="A: accepted, never settled",
        )
        assert "accepted" in _text(a) and len(endpoint.posts) == 1, _text(a)
        with responder(devnet):
            (b,) = calls(
                devnet,
                tmp_path,
                1,
                "--mech",
                other,
                "--offchain",
                "auto",
                "--timeout",
                "15",
                prompt="B: another mech, on chain",
            )
        (again,) = calls(  # A again: its nonce was taken by B, never settled
            devnet,
            tmp_path,
            1,
            "--mech",
            hostile,
            "--offchain",
            "auto",
            "--timeout",
            "3",
            prompt="A: accepted, never settled",
        )
        posts = len(endpoint.posts)
    observed = (
        f"B: {_text(b)[:500]!r}; marketplace nonce {start} -> {market_nonce(devnet)}; "
        f"maxResponseTimeout {window} s"
    )
    # observed on adv29f: B refused after its 15 s wait, nothing sent, the nonce
    # unmoved: "... an on-chain request now would take nonce N and that request
    # could no longer be settled ... after 3600 s from its acceptance ..."
    assert not b.is_error, observed
    assert market_nonce(devnet) == start + 1, observed
    # fixed (fix29i): A was given up after its call's --timeout (3 s) from its
    # acceptance; called again it says so, nothing charged, and posts nothing
    said = _text(again)
    assert again.is_error and "given up" in said, said
    assert "can never be settled nor charged" in said and posts == 1, said
