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

"""Another key's request, journalled without its owner, recorded never settled (adv29h).

Severity: LOW-MEDIUM (a request another key signed, which its mech may still settle and
the marketplace then charges, stops counting against ``--max-spend``, in every server
on the state folder and after restarts; it needs a journal entry written before
``extra.offchain`` named its requester and chain).

Real journal files; the marketplace is the stand-in of
``tests/test_mcp_offchain_release.py`` (``mapNonces`` and statuses per block set by the
test): the devnet's server writes every entry with its owner, so it cannot make an
entry from before that.

An entry that does not name its requester and chain is read as this requester's
(``outstanding.Hold.held_by``): the safe reading only while it makes the cap count
more. ``release_unsettleable`` (via ``OffchainPoster.never_settleable``) therefore skips
an entry whose request id is not this requester's (``own_request_id``): "a journal of
another key is left counted". ``record_passed`` (fix29h) has no such check: this
requester's nonce (4) past the other key's request (signed at that key's nonce 3) and
its status ``DoesNotExist`` are recorded as ``nonce_passed.settled = False``, and the
cap counts it 0 from then on (it is older than ``--spend-window``). Yet the other key's
nonce may still be 3: its mech settles it later, the marketplace charges it, and it is
never counted again.

Expected: an entry whose request id is not this requester's gets no ``nonce_passed``
record (it keeps counting, as ``never_settleable`` leaves it), or one that does not
stop it counting.
"""

import os
import time
from pathlib import Path

from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.offchain import OffchainPoster, record_passed
from mech_catalogue_cli.mcp_server.outstanding import PASSED_SEEN_KEY
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry
from tests.test_mcp_offchain_release import Chain

WINDOW = 10.0
PRICE = 5 * 10**15  # the price of tests.test_mcp_offchain_journal.entry


def _counted(journal: Journal, now: float, chain_nonce: int) -> int:
    ledger = SpendLedger(max_spend=PRICE, window=WINDOW)
    ledger.count_journal(journal_records(journal.folder), now, chain_nonce)
    return ledger.earlier


def test_another_keys_ownerless_request_is_not_recorded_never_settled(
    tmp_path: Path,
) -> None:
    """Another key's accepted request, from before owners were recorded, keeps counting."""
    chain = Chain(50, {50: 4})  # this requester's nonce: past 3
    poster = OffchainPoster(chain, None)  # type: ignore[arg-type]
    journal = Journal(tmp_path)
    # accepted long ago, no requester/chain_id recorded, its id another key's
    theirs = offchain_entry(dict(OFFCHAIN, accepted=True), status=CallStatus.SENT)
    theirs.paid_at = 1000.0
    assert theirs.request_id != poster.own_request_id(theirs)
    journal.save(theirs)
    os.utime(journal.folder / f"{theirs.key}.json", (1000.0, 1000.0))
    now = time.time()
    assert _counted(journal, now, 4) == PRICE  # may still be settled: counted
    record_passed(poster, journal, journal_records(journal.folder))
    loaded = journal.load(theirs.key)
    assert loaded is not None
    assert PASSED_SEEN_KEY not in loaded.extra["offchain"], (
        "another key's request was recorded as never settled by this requester's "
        f"nonce: {loaded.extra['offchain'].get(PASSED_SEEN_KEY)}"
    )
    assert _counted(journal, time.time(), 4) == PRICE
