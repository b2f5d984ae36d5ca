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

"""A request never seen mined is passed by a new request at once (adv29u F7).

Severity: LOW-MEDIUM (a call pays two requests: its first one, mined in a fork the node
returns to, and the one sent after it).

A request broadcast, then no receipt within ``--io-timeout`` (or a crash after the
broadcast), stays ``prepared`` in the journal. It may have been mined in a block the
node then left for another fork. The next call with the same arguments finds its
account nonce taken (by its cancellation, or by another transaction of the account)
and pays anew at once: ``RequestSender.not_final`` waits for finality only for a
request journalled as seen mined and dropped (``extra.dropped``). A reorg back to the
fork that held the request mines it paid too.

Observed on main (without a chain: the request's nonce taken at block 100, head 100,
not final): ``not_final`` returns "" for such an entry, and ``ensure_sent`` signs and
broadcasts a new request for the call key.

Expected: nothing else is paid for the call key until the taken nonce is final
(``final_depth`` deep); the call says why and until which block.
"""

from pathlib import Path

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.cancel import CANCEL_KEY
from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from tests.adversary.test_adv29u_mined_revert_not_final import (
    HEAD,
    KEY,
    FrontRunChain,
    sent_to,
)
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    PRICE,
    _no_upload,
    _sender,
)

UNSEEN_TX = "0x" + "55" * 32


def _unseen(**extra: object) -> JournalEntry:
    """A request signed and broadcast at nonce 3, never seen mined (``prepared``)."""
    return JournalEntry(
        key=KEY,
        tool="tool",
        mech=MECH,
        price=PRICE,
        payment_type=offer(MECH, 1, price=PRICE).payment_type,
        cid="Qm" + "1" * 44,
        data="0x" + "12" * 32,
        market_nonce=7,
        request_id="0x" + "77" * 32,
        from_block=HEAD - 2,
        tx_hash=UNSEEN_TX,
        status=CallStatus.PREPARED,
        raw_tx="0x03",
        account_nonce=3,
        extra=dict(extra),
    )


@pytest.mark.usefixtures("no_upload")
@pytest.mark.parametrize(
    "extra",
    [
        {},  # its nonce taken by another transaction of the account
        {CANCEL_KEY: {"tx_hash": "0x" + "cc" * 32, "raw_tx": "0xcc", "reason": "x"}},
    ],
)
def test_a_request_never_seen_mined_holds_the_call_until_its_nonce_is_final(
    tmp_path: Path, extra: dict
) -> None:
    """No receipt, its nonce taken at the head: no new request until it is final.

    :param tmp_path: the journal folder.
    :param extra: the entry's extra (a cancellation, or none).
    """
    chain = FrontRunChain()
    chain.others.append(HEAD)  # nonce 3 taken at the head: no receipt of it read here
    sender = _sender(tmp_path, chain)
    Journal(tmp_path).save(_unseen(**extra))
    said = sent_to(sender, HONEST)
    assert not isinstance(said, JournalEntry), said
    assert not chain.broadcasts and chain.signed == 0, chain.broadcasts
    assert f"until block {HEAD + FINAL_DEPTH}" in said, said
    chain.head_block = HEAD + FINAL_DEPTH  # final: the call resumes, paying anew
    sent_to(sender, HONEST)
    assert chain.broadcasts == ["0x04"], chain.broadcasts
