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


"""A mech is tried last only when it had its whole bound to settle and did not (adv29j).

Pure decisions (``unsettled.given_up_mechs``, ``unsettled.settled_requests``) on
records written here, and on real journal files read by ``spending.journal_records``.
"""

import time
from pathlib import Path
from typing import Any, Dict, Optional

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.outstanding import (
    ATTEMPTS_KEY,
    BOUND_KEY,
    PASSED_SEEN_KEY,
    Hold,
)
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord
from mech_catalogue_cli.mcp_server.spending import journal_records
from mech_catalogue_cli.mcp_server.unsettled import given_up_mechs, settled_requests
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

PRICE = 5 * 10**15
HOSTILE = "0x" + "11" * 20
HONEST = "0x" + "22" * 20
ACCEPTED_AT = 1000.0
BOUND = 30.0
WINDOW = 3600.0
OWNER = "0x" + "aa" * 20 + "@100"


def _hold(
    key: str, mech: str, since: float, nonce: int = 5, owner: str = OWNER
) -> Hold:
    return Hold(key, "0x" + key, nonce, mech, True, since, PRICE, owner, BOUND)


def _given_up(
    seen_at: Optional[float] = None, settled: tuple = (), nonce: int = 5
) -> PaidRecord:
    """The honest mech's acceptance at ``nonce``, given up at ACCEPTED_AT + BOUND."""
    return PaidRecord(
        "0x" + "bb" * 32,
        PRICE,
        ACCEPTED_AT,
        key="bb" * 32,
        acceptances=(_hold("bb" * 32, HONEST, ACCEPTED_AT, nonce),),
        passed_seen_at=seen_at,
        passed_settled=False,
        settled=settled,
    )


def _settled(since: float, nonce: int = 5, owner: str = OWNER) -> PaidRecord:
    """Another call's request at ``nonce``, accepted at ``since``, seen settled."""
    return PaidRecord(
        "0x" + "aa" * 32,
        PRICE,
        since,
        key="aa" * 32,
        settled=(_hold("aa" * 32, HOSTILE, since, nonce, owner),),
    )


NOW = ACCEPTED_AT + 10 * BOUND


@pytest.mark.parametrize(
    "seen_at, remembered",
    [
        (ACCEPTED_AT + 1.0, False),  # taken a second after its acceptance
        (ACCEPTED_AT + BOUND, False),  # at its bound's end: it had no more
        (ACCEPTED_AT + BOUND + 1.0, True),  # after: it had the whole bound
        (None, True),  # never seen passed: still not settled
    ],
    ids=["within", "at-end", "after", "unseen"],
)
def test_a_nonce_seen_passed_within_the_bound_is_not_held_against_its_mech(
    seen_at: Optional[float], remembered: bool
) -> None:
    """Its own entry's nonce_passed time decides whether it had its whole bound."""
    found = given_up_mechs([_given_up(seen_at)], NOW, 300.0, WINDOW)
    assert (HONEST.lower() in found) is remembered


@pytest.mark.parametrize(
    "other, remembered",
    [
        (_settled(ACCEPTED_AT - 60.0), False),  # an earlier given-up one, settled late
        (_settled(ACCEPTED_AT + BOUND - 1.0), False),  # signed within its bound
        (_settled(ACCEPTED_AT + BOUND + 1.0), True),  # signed after: adv29g's next call
        (_settled(ACCEPTED_AT - 60.0, nonce=6), True),  # another nonce
        (_settled(ACCEPTED_AT - 60.0, owner="0x" + "cc" * 20 + "@100"), True),
        (_settled(ACCEPTED_AT - 60.0, owner=""), False),  # owner unknown: ours
    ],
    ids=["earlier", "within", "after", "other-nonce", "other-owner", "unknown-owner"],
)
def test_another_calls_settlement_at_the_nonce_excuses_it_only_when_it_could_take_it(
    other: PaidRecord, remembered: bool
) -> None:
    """Another call's settled request at its nonce, signed before its bound ended."""
    found = given_up_mechs([_given_up(), other], NOW, 300.0, WINDOW)
    assert (HONEST.lower() in found) is remembered


def test_its_own_calls_settled_request_does_not_excuse_it() -> None:
    """The settled request of the same call (another attempt) excuses nothing."""
    own = _hold("bb" * 32, HOSTILE, ACCEPTED_AT - 60.0)
    found = given_up_mechs([_given_up(settled=(own,))], NOW, 300.0, WINDOW)
    assert HONEST.lower() in found


def _entry(offchain: Dict[str, Any], status: str = CallStatus.SENT) -> Any:
    written = offchain_entry(dict(OFFCHAIN, **offchain), status=status)
    written.paid_at = ACCEPTED_AT
    return written


def test_which_requests_a_settled_call_names() -> None:
    """Delivered: its current request; seen settled: every request; else none."""
    attempt = {
        "0x"
        + "77"
        * 32: {
            "nonce": 3,
            "price": PRICE,
            "mech": HONEST,
            "payment_type": "0x" + "00" * 32,
            "from_block": 9,
            "accepted": True,
            "since": ACCEPTED_AT - 5.0,
        }
    }
    seen = {PASSED_SEEN_KEY: {"at": ACCEPTED_AT + 1.0, "settled": True}}
    delivered = _entry({"accepted": True}, CallStatus.DELIVERED)
    delivered.extra[ATTEMPTS_KEY] = dict(attempt)
    assert [h.request_id for h in settled_requests(delivered)] == [delivered.request_id]
    both = _entry(dict(seen, accepted=True))
    both.extra[ATTEMPTS_KEY] = dict(attempt)
    assert [h.request_id for h in settled_requests(both)] == [
        both.request_id,
        "0x" + "77" * 32,
    ]
    unsettled = {PASSED_SEEN_KEY: {"at": ACCEPTED_AT + 1.0, "settled": False}}
    assert not settled_requests(_entry(dict(unsettled, accepted=True)))
    assert not settled_requests(_entry({"accepted": True}))
    onchain = _entry({})
    onchain.extra = {}
    assert not settled_requests(onchain)


def test_the_journal_keeps_the_adv29g_memory_and_drops_the_adv29j_one(
    tmp_path: Path,
) -> None:
    """Real entries: a hostile mech that held its nonce past its bound stays last."""
    now = time.time()
    journal = Journal(tmp_path)
    # the hostile mech's X: accepted, never settled, given up at its bound
    x = _entry({"accepted": True, BOUND_KEY: BOUND})
    x.key, x.paid_at = "aa" * 32, now - 300.0
    # the honest mech's Y at the same nonce after X's bound: settled and read
    y = _entry({"accepted": True, BOUND_KEY: BOUND}, CallStatus.DELIVERED)
    y.key, y.paid_at, y.mech = "bb" * 32, now - 300.0 + BOUND + 5.0, HONEST
    y.request_id = "0x" + "66" * 32
    journal.save(x)
    journal.save(y)
    found = given_up_mechs(journal_records(journal.folder), now, BOUND, WINDOW)
    assert sorted(found) == [HOSTILE.lower()]
