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

"""A late settlement pushes an honest mech to "tried last" and lifts its own mech (adv29j).

Severity: LOW (offer choice bought: an honest mech is tried after the others for
``--spend-window`` (24 h by default) and said not to have settled a request it could
never settle; the hostile mech is chosen first again; no money redirected, lost or
doubled).

The history, as the server writes it (fix29i, ``outstanding.given_up``; two off-chain
mechs offering one tool, one requester, one state folder):

1. call A posts request X at nonce N to the hostile mech H; H's endpoint accepts it and
   H does not settle it; A's ``--timeout`` (X's bound) passes: X is given up and H is
   remembered (``unsettled.given_up_mechs``);
2. call B (another prompt) is signed at nonce N, as designed, and posted to the honest
   mech G (H is tried last); G's endpoint accepts Y;
3. H, which still holds X signed at nonce N, settles it now, before G's batch: the
   marketplace charges X (once; A reads its answer when called again) and moves the
   nonce to N + 1, so Y can never be settled;
4. B finds its nonce passed unsettled (``mark_passed``; ``record_passed`` writes
   ``nonce_passed.settled`` false for B's entry and true for A's).

``outstanding.acceptances_of`` now gives nothing for A (a settlement was seen) and Y
for B (accepted, passed, not delivered); once Y's bound is over,
``unsettled.given_up_mechs`` remembers G, not H: G is tried after H, and its ``why``
says G "did not settle it within its bound", although the requester's own request at
that nonce was settled by H a second after G accepted Y. Every late settlement of a
given-up request does this to whichever mech took its nonce.

Pure decisions on real journal files (``Journal.save``, ``JournalIndex.records``) and
the server's own listing helper (``MechToolServer._given_up_mechs``); the devnet run
would need two off-chain mechs of one tool, which the devnet helpers do not set up.

Expected: an acceptance whose nonce another of the requester's requests took (settled
at that nonce) is not held against its mech; the mech whose late settlement took it is
not lifted over the others by it.
"""

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict

import anyio
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.outstanding import BOUND_KEY, PASSED_SEEN_KEY
from mech_catalogue_cli.mcp_server.server import MechToolServer
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from mech_catalogue_cli.mcp_server.unsettled import tried_last
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

HOSTILE = "0x" + "11" * 20  # the mech of tests.test_mcp_offchain_journal.entry
HONEST = "0x" + "22" * 20
BOUND = 5.0  # both calls' --timeout
PRICE = 5 * 10**15


def _offer(address: str, key: str) -> Offer:
    return Offer(
        mech_key=key,
        address=address,
        price=PRICE,
        payment_type=NATIVE_PAYMENT_TYPE,
        requests=None,
        deliveries=None,
        karma=None,
        confirmed=True,
    )


def test_a_late_settlement_does_not_push_the_honest_mech_last(tmp_path: Path) -> None:
    """H settles its given-up X after G accepted Y at the same nonce: G is not blamed.

    :param tmp_path: the journal's folder.
    """
    now = time.time()
    a_accepted = now - 30.0  # X accepted; given up at a_accepted + BOUND
    b_accepted = a_accepted + BOUND + 1.0  # Y signed at X's nonce after that
    settled_seen = b_accepted + 1.0  # H settled X: the nonce passed, Y never settled
    journal = Journal(tmp_path)
    # call A: X to H, accepted, its settlement seen (the call's answer not read yet)
    a = offchain_entry(
        dict(
            OFFCHAIN,
            accepted=True,
            **{
                BOUND_KEY: BOUND,
                PASSED_SEEN_KEY: {
                    "at": settled_seen,
                    "block": 40,
                    "market_nonce": 4,
                    "settled": True,
                },
            },
        )
    )
    a.key, a.paid_at = "aa" * 32, a_accepted
    journal.save(a)
    # call B: Y to G at the same nonce, accepted, found passed unsettled
    b = offchain_entry(
        dict(
            OFFCHAIN,
            accepted=True,
            passed=True,
            **{
                BOUND_KEY: BOUND,
                PASSED_SEEN_KEY: {
                    "at": settled_seen,
                    "block": 40,
                    "market_nonce": 4,
                    "settled": False,
                },
            },
        ),
        status=CallStatus.PREPARED,
    )
    b.key, b.paid_at, b.mech = "bb" * 32, b_accepted, HONEST
    b.request_id = "0x" + "66" * 32
    journal.save(b)
    index = JournalIndex(journal.folder)
    server = SimpleNamespace(
        sender=SimpleNamespace(index=index),
        settings=SimpleNamespace(timeout=BOUND, spend_window=3600.0),
    )

    async def remembered() -> Dict[str, Any]:
        return await MechToolServer._given_up_mechs(  # pylint: disable=protected-access
            server  # type: ignore[arg-type]
        )

    found = anyio.run(remembered)
    ranked = [_offer(HONEST, "honest"), _offer(HOSTILE, "hostile")]
    order, why = tried_last(ranked, found, BOUND)
    observed = (
        f"remembered {sorted(found)}; order {[o.mech_key for o in order]}; why {why}"
    )
    # observed on main: remembered [HONEST]; order ['hostile', 'honest']; why: the
    # honest mech "did not settle it within its bound of 5 s: tried after the tool's
    # other offers"
    assert HONEST.lower() not in found, observed
    assert [o.mech_key for o in order][0] == "honest", observed
