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

"""adv29zp C3: a run request counts again once its call's entry is paid in another asset.

Severity: LOW (denial of paid calls, not overpaying: one price of the user's native
``--max-spend`` held for ``--spend-window`` (24 h by default) in the process that sent
a request which a stranger's mech made revert, though every process agrees it was
never paid; a restart pays).

fix29yk counts this run's calls by their journal entries, "a call whose entry is found
(by its call key, or by a request id it counted)"; a call whose entry is not found is
taken as moved away and counts the run's own count again while that is within the
window (``SpendLedger._reconcile``). But each ledger reads only the records of its own
asset (``count_journal``: ``r.asset == self.asset``). When the call's entry is rewritten
for a request in another asset, the native ledger no longer finds it, and the sending
process counts its reverted native request again. This follows adv29yq C2's path: the
stranger's native mech reverts process 1's request for call A; process 2 (a second
stdio session on the same state folder), once the revert is final, skips the mech
(journalled revert) and pays call A's next offer, an OLAS one: the entry of call A now
names an OLAS request (its native revert carried in ``extra.reverted``, not its own).
Process 1 never refunds its native request either: ``_reverts_released`` selects records
whose own request reverted, and the native ledger sees no record of call A at all.

Observed on main 3f9bf80e, through ``RequestSender.ensure_sent`` (adv29u's stand-in
chain, two senders on one state folder, native cap one price): process 1's call C to the
honest native mech is refused ("... 5000 wei spent on 1 request(s) by this run"), while
a restarted process pays it. The ledger alone, as ``count_journal`` reads the
journal: after process 2 released the revert, process 1 pays a native price (premise);
after process 2's OLAS retry of call A, process 1 refuses it: "paying 5000 wei would
bring the spending of the last 86400 s (--spend-window) to 10000 wei, over --max-spend
5000 wei (5000 wei spent on 1 request(s) by this run ...)", while a restarted ledger
over the same journal pays it.

Expected: the same count as a restart over the same journal (fix29yk's rule): a run
call whose entry names another asset now is counted by that entry (its request in the
other asset's ledger; the native request it replaced was released as never paid).
"""

import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mech_catalogue_core.model.payment import ASSET_OLAS

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH, NotFinal
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.mined_reverts import REVERTED_KEY, MinedRevert
from mech_catalogue_cli.mcp_server.offchain_sending import PriceRefusal
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord, SpendLedger
from tests.adversary.test_adv29u_mined_revert_not_final import HEAD
from tests.adversary.test_adv29yp_revert_memory_restart import _tool
from tests.adversary.test_adv29yq_revert_release_other_process import (
    DistinctRequestsChain,
)
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    _no_upload,
    _sender,
)

PRICE = 5000
CALL_A = "a" * 64
REVERTED = "0x" + "01" * 32  # process 1's native request for call A, reverted
RETRIED = "0x" + "02" * 32  # process 2's OLAS request for call A
STRANGER = "0x" + "0a" * 20
CALL_C = "c" * 64
#: MechFixedPriceToken's PAYMENT_TYPE (OLAS)
OLAS_PAYMENT_TYPE = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"


def _records(now: float, retried: bool) -> list:  # type: ignore[type-arg]
    """Call A's entry as the journal holds it: released (final), then retried in OLAS."""
    final = MinedRevert(STRANGER, now - 60, "0x" + "99" * 32, 100, 164)
    if not retried:  # read_record: a final own revert counts nothing
        return [PaidRecord(REVERTED, 0, now - 60, key=CALL_A, reverted=(final,))]
    return [
        PaidRecord(
            RETRIED, 10**18, now, asset=ASSET_OLAS, key=CALL_A, reverted=(final,)
        )
    ]


def test_a_call_retried_in_another_asset_frees_the_sender_s_native_cap() -> None:
    """Process 1 counts as a restart does, before and after the OLAS retry."""
    now = time.time()
    sender = SpendLedger(max_spend=PRICE)
    sender.record(PRICE, REVERTED, CALL_A)  # process 1 signed it, then it reverted
    sender.count_journal(_records(now, retried=False), now)
    assert sender.refusal(PRICE) is None  # premise: the release counts (fix29yk, C2)
    sender.count_journal(_records(now, retried=True), now)
    restarted = SpendLedger(max_spend=PRICE)
    restarted.count_journal(_records(now, retried=True), now)
    assert restarted.refusal(PRICE) is None  # premise: a restart pays
    refusal = sender.refusal(PRICE)
    assert refusal is None, refusal


def _server_call(sender: RequestSender, key: str, offers: list) -> Any:  # type: ignore[type-arg]
    """What ``MechToolServer.call`` does: skip remembered mechs, try offers in turn."""
    anyio.run(sender.journal_records)  # any process's mined reverts learnt first
    ranked, _ = sender.reverting.skipped(offers)
    said: Any = None
    for choice in ranked:
        said = anyio.run(
            sender.ensure_sent, _tool(), choice, {}, key, PhaseTimer(), ranked
        )
        if isinstance(said, PriceRefusal):
            continue  # nothing paid: the next offer, as the server does
        break
    return said


@pytest.mark.usefixtures("no_upload")
def test_two_processes_a_call_retried_in_olas_frees_the_native_cap(
    tmp_path: Path,
) -> None:
    """Native cap one price: A reverts (process 1), A paid in OLAS by 2, C paid by 1."""
    chain = DistinctRequestsChain()
    first, second = _sender(tmp_path, chain, PRICE), _sender(tmp_path, chain, PRICE)
    offers = [
        offer(MECH, 1, price=PRICE),  # the stranger's native mech: reverts when mined
        offer(HONEST, 2, price=PRICE, payment_type=OLAS_PAYMENT_TYPE),
    ]
    held = _server_call(first, CALL_A, offers)
    assert isinstance(held, NotFinal), held  # premise: A's revert counted, held
    chain.head_block = HEAD + FINAL_DEPTH  # A's revert is final now
    paid_a = _server_call(second, CALL_A, offers)
    assert isinstance(paid_a, JournalEntry) and paid_a.mech == HONEST, paid_a
    entry = Journal(tmp_path).load(CALL_A)  # call A's entry: the OLAS request now
    assert entry is not None and MECH.lower() in entry.extra[REVERTED_KEY]
    said = _server_call(first, CALL_C, [offer(HONEST, 2, price=PRICE)])
    assert isinstance(said, JournalEntry), (
        "process 1 still counts call A's native request, reverted, final and "
        f"replaced by an OLAS request: {said}"
    )


@pytest.mark.usefixtures("no_upload")
def test_control_a_restarted_process_pays_the_native_call(tmp_path: Path) -> None:
    """Control: the same history, then a new process pays call C."""
    chain = DistinctRequestsChain()
    offers = [
        offer(MECH, 1, price=PRICE),
        offer(HONEST, 2, price=PRICE, payment_type=OLAS_PAYMENT_TYPE),
    ]
    held = _server_call(_sender(tmp_path, chain, PRICE), CALL_A, offers)
    assert isinstance(held, NotFinal), held
    chain.head_block = HEAD + FINAL_DEPTH
    paid_a = _server_call(_sender(tmp_path, chain, PRICE), CALL_A, offers)
    assert isinstance(paid_a, JournalEntry) and paid_a.mech == HONEST, paid_a
    restarted = _sender(tmp_path, chain, PRICE)
    said = _server_call(restarted, CALL_C, [offer(HONEST, 2, price=PRICE)])
    assert isinstance(said, JournalEntry), said
