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

"""A request mined and reverted is taken as final at once: the next offer paid (adv29u F6).

Severity: MEDIUM (a call pays two mechs: the first request's price and the second's).

A mech front-runs a request with a price raise: the request is mined and reverts (only
gas spent). The call at once tries its next offer: ``RequestSender.not_final`` returns
"" for a request whose own receipt reverted, so the next offer is paid while the
reverted request's block is one block deep. A reorg the node may still make (an
uncle, a late fork) that puts the request before the price raise mines it paid, at
the same account nonce: the old price paid to the first mech, the second mech paid too.

Observed on main (without a chain: a stand-in chain whose request reverts when mined
at block 100, the account nonce it took not final at head 100): the second offer's
``ensure_sent`` with the same call key signs and broadcasts a second request
(two broadcasts).

Expected: a mined revert is treated as a taken nonce: no other offer is paid for the
call key until the revert's block is final (``final_depth`` deep); meanwhile the call
ends (or waits within its deadline) saying why and until which block, and a later
call with the same arguments, once the block is final, pays the next offer.
"""

from pathlib import Path
from typing import Any, Dict, List, Optional

import anyio
import pytest

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
from mech_catalogue_cli.mcp_server.finality import FinalBlock, final_block
from mech_catalogue_cli.mcp_server.journal import JournalEntry
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DOES_NOT_EXIST,
    RequestReverted,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.refused_offers import RevertRefusal
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    PRICE,
    _Market,
    _no_upload,
    _sender,
    _tool,
)

KEY = "0" * 64
HEAD = 100
#: the account's transactions mined and final before the call
EARLIER = 3


class FrontRunChain(_Market):
    """A chain on which every request is mined at the head and reverts (a price raise).

    The account's count at the final block counts the transactions mined at or below
    it: ``depth`` blocks below the head, or ``finalized`` when the node answers that
    tag (read by the server's own :func:`.finality.final_block`, which disbelieves an
    answer past the head); every depth asked is kept in ``depths``.
    """

    def __init__(self) -> None:
        """At block ``HEAD``, nothing of the call mined."""
        super().__init__(None, [PRICE])
        self.head_block = HEAD
        self.mined_at: Dict[str, int] = {}  # tx hash -> block
        self.depths: List[int] = []
        #: blocks of the account's other transactions (no receipt read here)
        self.others: List[int] = []
        #: the node's "finalized" block (None: it answers no such tag)
        self.finalized: Optional[int] = None

    def head(self) -> int:
        """The head block."""
        return self.head_block

    def sign(self, _transaction: Dict[str, Any]) -> SignedRequest:
        """Sign at the account's next nonce."""
        self.signed += 1
        nonce = self.confirmed_nonce()
        return SignedRequest(f"0x0{nonce}", "0x" + f"{nonce:02x}" * 32, nonce)

    def broadcast(self, signed: SignedRequest, _wait: float) -> str:
        """Mined at the head, reverted."""
        self.broadcasts.append(signed.raw_tx)
        self.mined_at[signed.tx_hash] = self.head_block
        raise RequestReverted(f"the request transaction {signed.tx_hash} reverted")

    def status(self, _request_id: str, _block: Optional[int] = None) -> int:
        """No request is ever held (each reverted)."""
        return STATUS_DOES_NOT_EXIST

    def mined_request_id(self, _tx_hash: str, _data: str) -> Optional[str]:
        """No other id."""
        return None

    def confirmed_nonce(self) -> int:
        """Earlier transactions, the reverted requests and the others."""
        return EARLIER + len(self.mined_at) + len(self.others)

    def final_block(self, depth: int) -> FinalBlock:
        """The node's ``finalized`` block, else ``depth`` below the head."""
        return final_block(self.finalized, self.head(), depth)

    def final_nonce(self, depth: int) -> int:
        """The count at the final block."""
        self.depths.append(depth)
        final = self.final_block(depth).number
        mined = [*self.mined_at.values(), *self.others]
        return EARLIER + sum(1 for block in mined if block <= final)

    def transaction_reverted(self, tx_hash: str) -> Optional[bool]:
        """Every mined request reverted."""
        return True if tx_hash in self.mined_at else None

    def mined_block(self, tx_hash: str) -> Optional[int]:
        """Its block, if mined."""
        return self.mined_at.get(tx_hash)


def sent_to(sender: RequestSender, mech: str) -> Any:
    """``ensure_sent`` of the call ``KEY`` to ``mech``.

    :param sender: the sender.
    :param mech: the offer's mech.
    :return: what it returned.
    """
    return anyio.run(
        sender.ensure_sent,
        _tool(),
        offer(mech, 1, price=PRICE),
        {},
        KEY,
        PhaseTimer(),
        [offer(MECH, 1, price=PRICE), offer(HONEST, 2, price=PRICE)],
    )


@pytest.mark.usefixtures("no_upload")
def test_a_mined_revert_holds_the_call_until_its_block_is_final(
    tmp_path: Path,
) -> None:
    """Reverted when mined at block 100: the next offer waits for block 100 + depth.

    :param tmp_path: the journal folder.
    """
    chain = FrontRunChain()
    sender = _sender(tmp_path, chain)
    first = sent_to(sender, MECH)
    assert isinstance(first, RevertRefusal) and first.mined, first  # premise
    second = sent_to(sender, HONEST)
    assert not isinstance(second, JournalEntry), second
    assert chain.broadcasts == ["0x03"], chain.broadcasts  # nothing else was sent
    assert f"until block {HEAD + FINAL_DEPTH}" in second, second
    chain.head_block = HEAD + FINAL_DEPTH  # the revert final: the call resumes
    sent_to(sender, HONEST)
    assert chain.broadcasts == ["0x03", "0x04"], chain.broadcasts
