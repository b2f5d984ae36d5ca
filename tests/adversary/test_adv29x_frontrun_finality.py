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

"""adv29x P1: a mech that front-runs with a price raise holds a call forever (MEDIUM).

fix29pa holds a call whose request was mined and reverted until that block is final
(``final_depth``: 96 blocks, ~19 min, on Ethereum; 900 blocks, 30 min, on OP-stack
chains; the call's ``--timeout`` is 300 s, so the call ends "call again at block N").
A revert is remembered (the mech skipped for ``--spend-window``) only when the price
read after the receipt is unchanged; a mech that raises its price over the pending
request (and lowers it again after the receipt was read) gets a plain PriceRefusal,
not remembered. So each time the user calls again after finality, the same mech is
ranked first again, front-runs again (the user pays the gas again), and the call is
held for finality again: the honest second offer is never paid; a stranger's mech
denies the tool at the cost of two price transactions per call.

Observed (stand-in chain of the adv29u F6 reproduction, no node): after the revert's
block is final the server's ranking (``reverting.skipped``) still puts the front-
running mech first, and ``ensure_sent`` to it broadcasts a second reverting request.
Expected: a mech whose mined request reverted is skipped (or tried last) for the
call, whatever its price read afterwards, so the call resumes with the next offer.

(The stand-in chain mines the honest offer's request paid, apart from the reverted
requests it counts: the call resuming with the next offer is a broadcast.)
"""

from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH, NotFinal
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DOES_NOT_EXIST,
    STATUS_REQUESTED_PRIORITY,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.refused_offers import RevertRefusal
from tests.adversary.test_adv29u_mined_revert_not_final import (
    HEAD,
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


class PriceRaiseChain(FrontRunChain):
    """The mech raises its price over each pending request, and lowers it after.

    The honest mech's request is mined paid (in ``paid``, not ``broadcasts``, which
    holds the reverted requests only).
    """

    raised = False

    def __init__(self) -> None:
        """At block ``HEAD``, nothing of the call mined or paid."""
        super().__init__()
        self.requested_mech = ""
        self.paid: List[str] = []

    def request_transaction(self, *args: Any, **value: Any) -> Dict[str, Any]:
        """The request transaction, its mech kept."""
        self.requested_mech = args[0]
        return super().request_transaction(*args, **value)

    def broadcast(self, signed: SignedRequest, wait: float) -> str:
        """The honest mech's request mined paid; any other reverts (a price raise)."""
        if self.requested_mech == HONEST:
            self.paid.append(signed.raw_tx)
            return signed.tx_hash
        self.raised = True
        return super().broadcast(signed, wait)

    def status(self, _request_id: str, _block: Optional[int] = None) -> int:
        """Held once a request was paid."""
        return STATUS_REQUESTED_PRIORITY if self.paid else STATUS_DOES_NOT_EXIST

    def mech_price(self, _mech: str) -> Optional[int]:
        """The raised price once, right after a broadcast; else the listed one."""
        if self.raised:  # the read after the receipt sees the raise
            self.raised = False
            return PRICE + 1
        return PRICE


@pytest.mark.usefixtures("no_upload")
def test_a_front_running_mech_is_tried_first_again_after_finality(
    tmp_path: Path,
) -> None:
    """Once the revert is final, the server's order puts the honest offer first.

    :param tmp_path: the journal folder.
    """
    chain = PriceRaiseChain()
    sender = _sender(tmp_path, chain)
    offers = [offer(MECH, 1, price=PRICE), offer(HONEST, 2, price=PRICE)]
    first = sent_to(sender, MECH)
    assert "changed its price" in first and not isinstance(first, RevertRefusal)
    held = sent_to(sender, HONEST)
    assert isinstance(held, NotFinal), held  # premise: fix29pa holds the call
    chain.head_block = HEAD + FINAL_DEPTH  # final: the user calls again
    ranked, _ = sender.reverting.skipped(offers)  # what the server does first
    assert ranked[0].address != MECH, "the front-running mech is ranked first again"
    sent_to(sender, ranked[0].address)
    assert len(chain.broadcasts) == 1, chain.broadcasts  # no second gas-only revert
    assert len(chain.paid) == 1, "the honest offer is paid"


@pytest.mark.usefixtures("no_upload")
def test_the_honest_offer_is_never_paid_across_finality_periods(tmp_path: Path) -> None:
    """The server's order each time the user calls again: the cycle never ends.

    :param tmp_path: the journal folder.
    """
    chain = PriceRaiseChain()
    sender = _sender(tmp_path, chain)
    offers = [offer(MECH, 1, price=PRICE), offer(HONEST, 2, price=PRICE)]
    for period in range(3):
        chain.head_block = HEAD + period * FINAL_DEPTH
        ranked, _ = sender.reverting.skipped(offers)
        for choice in ranked:
            said = sent_to(sender, choice.address)
            if isinstance(said, NotFinal) or not isinstance(said, str):
                break
    revert_gas_paid = len(chain.broadcasts)
    assert (
        revert_gas_paid == 1
    ), f"{revert_gas_paid} reverted requests, honest never paid"
    assert len(chain.paid) == 1, "the honest offer is paid once"
