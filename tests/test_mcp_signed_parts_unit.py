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

"""What an entry signed, read once (``signed_parts``), and the words of a call cut short.

Every sentence saying "nothing was signed" of a call reads one predicate of its entry:
an on-chain transaction (``raw_tx``), an approval, an off-chain request (its signature
and whether its mech may still settle it). A cut off-chain retry names the request the
mech holds; one the requester's nonce passed is said to be unsettleable.
"""

from pathlib import Path
from typing import Any, Dict

import anyio
import pytest

from mech_catalogue_cli.mcp_server.call_end_words import (
    NOTHING_SIGNED,
    cut_words,
    nothing_new_words,
    unresumed_words,
)
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market_errors import MarketError
from mech_catalogue_cli.mcp_server.node_deadline import CallTimeSpent
from mech_catalogue_cli.mcp_server.outstanding import remember_attempt
from mech_catalogue_cli.mcp_server.signed_parts import signed_parts
from mech_catalogue_cli.mcp_server.unmined import never_signed
from tests.test_mcp_paid_answer_unit import KEY, REQUEST_ID, _entry

OTHER_ID = "0x" + "7e" * 32


def _offchain(**fields: Any) -> Dict[str, Any]:
    record: Dict[str, Any] = {
        "endpoint": "http://127.0.0.1:9/",
        "signature": "0x" + "5a" * 65,
        "accepted": False,
        "requester": "0x" + "11" * 20,
        "chain_id": 1,
    }
    record.update(fields)
    return record


def _offchain_entry(**fields: Any) -> JournalEntry:
    entry = _entry(raw_tx="", tx_hash="", status="prepared", account_nonce=-1)
    entry.extra["offchain"] = _offchain(**fields)
    return entry


def _cut(said: str = "") -> MarketError:
    error = MarketError(f"the head could not be read: {CallTimeSpent(1.5)}{said}")
    error.__cause__ = CallTimeSpent(1.5)
    return error


def test_no_entry_signed_nothing() -> None:
    """No entry: nothing signed, and said so."""
    assert not signed_parts(None).anything
    assert unresumed_words(None) == NOTHING_SIGNED


def test_an_on_chain_request_is_a_transaction_signed() -> None:
    """``raw_tx``: the request signed on chain, named with its transaction."""
    entry = _entry(status="prepared")
    parts = signed_parts(entry)
    assert parts.transaction and parts.request and not parts.offchain
    words = unresumed_words(entry)
    assert REQUEST_ID in words and entry.tx_hash in words
    assert not never_signed(entry)


def test_an_approval_alone_signs_no_request() -> None:
    """An approval journalled, no request: signed, but no request of the call."""
    entry = _entry(raw_tx="", tx_hash="", status="prepared", account_nonce=-1)
    entry.extra["approval"] = {"tx_hash": "0x" + "ab" * 32}
    parts = signed_parts(entry)
    assert parts.approval and parts.anything and not parts.request
    assert never_signed(entry)


def test_a_signed_offchain_request_is_named_with_its_mech_and_nonce() -> None:
    """Off-chain, not passed: the request, its mech and nonce, the mech may settle it."""
    entry = _offchain_entry()
    parts = signed_parts(entry)
    assert parts.offchain and parts.request and not parts.transaction
    assert [hold.request_id for hold in parts.settleable] == [REQUEST_ID]
    words = unresumed_words(entry)
    assert words != NOTHING_SIGNED and "nothing was signed nor sent" not in words
    assert REQUEST_ID in words and entry.mech in words
    assert "marketplace nonce 3" in words and "will not pay twice" in words
    assert not never_signed(entry)


def test_every_settleable_request_of_a_call_is_named() -> None:
    """A retried call: its earlier request (same nonce) named with its current one."""
    earlier = _offchain_entry()
    entry = _offchain_entry()
    entry.request_id = OTHER_ID
    remember_attempt(entry, earlier)
    words = unresumed_words(entry)
    assert REQUEST_ID in words and OTHER_ID in words and "were signed" in words


@pytest.mark.parametrize("mark", ["passed", "released"])
def test_a_request_the_nonce_passed_is_said_unsettleable(mark: str) -> None:
    """Signed, but its nonce passed: no mech can settle it, said so (not "may")."""
    entry = _offchain_entry(**{mark: True})
    parts = signed_parts(entry)
    assert parts.offchain and not parts.settleable
    words = unresumed_words(entry)
    assert "can no longer be settled" in words and "may hold" not in words


@pytest.mark.parametrize(
    "signature", ["", None, 5, ["0x5a"]], ids=["empty", "none", "int", "list"]
)
def test_an_offchain_record_without_a_signature_signed_nothing(signature: Any) -> None:
    """A record this server did not write signed nothing off chain."""
    entry = _offchain_entry(signature=signature)
    assert not signed_parts(entry).offchain
    assert unresumed_words(entry) == NOTHING_SIGNED


def test_a_non_dict_offchain_record_signed_nothing() -> None:
    """``extra.offchain`` not a record: nothing signed off chain, nothing raised."""
    entry = _entry(raw_tx="", tx_hash="", status="prepared", account_nonce=-1)
    entry.extra["offchain"] = "0x5a"
    assert not signed_parts(entry).offchain


def test_a_cut_call_names_the_offchain_request_it_signed(tmp_path: Path) -> None:
    """``cut_words`` of a cut call whose entry holds an off-chain request: that request."""
    journal = Journal(tmp_path / "journal")
    journal.save(_offchain_entry())
    words = anyio.run(cut_words, _cut(), journal, KEY)
    assert words is not None and REQUEST_ID in words, words
    assert NOTHING_SIGNED not in words


def test_a_cut_error_naming_its_request_is_kept_as_it_is(tmp_path: Path) -> None:
    """The error names the request already (the retry's own words): nothing added."""
    journal = Journal(tmp_path / "journal")
    journal.save(_offchain_entry())
    named = _cut(f"; off-chain request {REQUEST_ID} was signed")
    assert anyio.run(cut_words, named, journal, KEY) is None


def test_a_failure_before_a_new_request_names_the_earlier_settleable_one() -> None:
    """Nothing new signed: said so, unless an earlier off-chain request may settle."""
    assert nothing_new_words(None) == NOTHING_SIGNED
    assert nothing_new_words(_entry(status="prepared")) == NOTHING_SIGNED
    assert nothing_new_words(_offchain_entry(passed=True)) == NOTHING_SIGNED
    words = nothing_new_words(_offchain_entry())
    assert REQUEST_ID in words and "Nothing more was signed now" in words
