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

"""adv29zw2 R2: a token approval alone holds a call for ever once its tool left.

Severity: LOW (kind (e) for one call: nothing is paid, but the call, name and
arguments, is refused at every retry, each time told to "call again with the same
arguments"; clients that send no idempotency key can never ask that question of the
tool the name stands for now).

fix29zzg resumes a call whose earlier attempt signed anything by its remembered key
(:func:`.recall.recall_signed`), an approval included. A stranger's token-priced tool
gets the call's approval signed (exact amount to the balance tracker), its request
refused before signing (its price moved, its estimate reverted), and the stranger then
drops the tool; the name stands for another mech tool after the next read. The
approval pays no one: no request was signed.

Observed on main (the stand-ins of ``tests/test_mcp_recall_signed.py``, the entry
``prepared`` with a well-formed approval record and no request, mech tool "t" not
served, the name standing for "u"): each of three calls answers ``isError`` "its mech
tool "t" is not served now; no other tool is paid for this call: the request itself
was not signed, but this call's token approval (tx 0xa1..) was signed ...: call again
with the same arguments to reuse it"; nothing ends it but "t" coming back or the
entry moved away by hand.

Expected: a call whose earlier attempt signed an approval alone and whose tool is not
served is resolved anew (the approval reused only by its own tool), or its words give
a way out that works (another idempotency key), not "call again with the same
arguments".
"""

from pathlib import Path
from typing import Any, Dict

import anyio

from mech_catalogue_cli.mcp_server.market_errors import MarketError
from mech_catalogue_cli.mcp_server.payment import APPROVAL_KEY
from tests.test_mcp_paid_answer_unit import (  # noqa: F401  # pylint: disable=unused-import
    _entry,
    no_child_processes,
)
from tests.test_mcp_recall_signed import ARGUMENTS, NAME, UnminedMarket, _app

RECORD = {
    "token": "0x" + "cc" * 20,
    "tracker": "0x" + "dd" * 20,
    "amount": 10,
    "raw_tx": "0x02f8",
    "tx_hash": "0x" + "a1" * 32,
    "account_nonce": 4,
}


class NoSigning(UnminedMarket):
    """Nothing on chain; a new payment is refused as a node error (said, not raised)."""

    def sign(self, transaction: Dict[str, Any]) -> None:
        """Refuse.

        :param transaction: the transaction.
        :raises MarketError: always.
        """
        raise MarketError(f"signing refused in this test: {transaction}")

    market_nonce = sign


def test_an_approval_alone_does_not_hold_the_call_for_ever(tmp_path: Path) -> None:
    """Not the same refusal again, told to call again with the same arguments."""
    entry = _entry(status="prepared", raw_tx="", extra={APPROVAL_KEY: RECORD})
    app = _app(tmp_path, NoSigning(), entry)
    texts = [anyio.run(app.call, NAME, ARGUMENTS).content[0].text for _ in range(3)]
    assert "approve exactly 10" in texts[0]
    # observed on main: three times '"t" is not served now; ... call again with the
    # same arguments to reuse it'
    assert not all(
        '"t" is not served now' in text and "call again with the same arguments" in text
        for text in texts
    ), texts
