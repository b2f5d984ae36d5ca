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

"""A call pays no other request while its own could still be mined (issue #29, adv29t).

Without a chain: the stand-in marketplace of :mod:`tests.test_mcp_dropped_request_unit`
whose ``final`` fact is the account's transaction count ``FINAL_DEPTH`` blocks deep.
"""

from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.cancel import CANCEL_KEY
from mech_catalogue_cli.mcp_server.dropped import (
    DROPPED_KEY,
    FINAL_DEPTH,
    NEVER_MINED_KEY,
    NeverMined,
    NotFinal,
    chain_fate,
    held_until_final,
    never_mined,
)
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import MarketError, RequestReverted
from mech_catalogue_cli.mcp_server.refused_offers import RevertingMechs, revert_refusal
from mech_catalogue_cli.mcp_server.settings import PhaseTimer

# the delivery's body without IPFS (a fixture, used by name)
from tests.test_mcp_dropped_request_unit import (  # noqa: F401 # pylint: disable=unused-import
    CANCEL_HASH,
    KEY,
    SENT_AT,
    ReorgedMarket,
    _call,
    _gone,
    _server,
    delivered_body,
)
from tests.test_mcp_offer_choice import offer

HEAD = SENT_AT + 3  # ReorgedMarket's head


def held(app: Any, entry: JournalEntry) -> str:
    """:func:`.dropped.held_until_final` as the server's sender asks it.

    :param app: the server.
    :param entry: the call's entry.
    :return: its answer.
    """
    settings = app.sender.settings
    return held_until_final(
        app.sender.market, entry, settings.final_depth, settings.block_seconds
    )


@pytest.mark.parametrize(
    ("facts", "fate"),
    [
        ({}, (DROPPED_KEY, HEAD)),  # its nonce free: the same bytes again
        ({"confirmed": 5}, (NEVER_MINED_KEY, HEAD)),  # taken, final
        ({"confirmed": 5, "final": 4}, None),  # taken, not final: wait
        ({"confirmed": 5, "final": 5, "receipt": True}, None),  # its own receipt
        ({"confirmed": 5, "head": SENT_AT}, None),  # a lagging node
        ({"confirmed": 5, "fails": MarketError("rpc down")}, None),
    ],
)
def test_a_request_whose_nonce_was_taken_is_never_mined_only_once_final(
    facts: Dict[str, Any], fate: Optional[Any]
) -> None:
    """Taken and final: never mined; taken and not final, or unsure: neither outcome.

    :param facts: the stand-in chain's facts.
    :param fate: :func:`chain_fate`'s answer expected.
    """
    market: Any = ReorgedMarket(**facts)
    assert chain_fate(market, _gone()) == fate
    assert never_mined(market, _gone()) == (
        fate[1] if fate and fate[0] == NEVER_MINED_KEY else None
    )


def test_a_failing_final_count_read_keeps_waiting() -> None:
    """The count FINAL_DEPTH blocks deep unread: not "never mined" (never raises)."""
    market: Any = ReorgedMarket(confirmed=5)

    def unread(depth: int) -> int:
        raise MarketError(f"no state {depth} blocks deep (a pruned node)")

    market.final_nonce = unread
    assert chain_fate(market, _gone()) is None


def test_a_request_never_mined_frees_the_call_key_journalled_first(
    tmp_path: Path,
) -> None:
    """Its nonce taken and final: journalled prepared first, then a new request tried.

    :param tmp_path: the state folder.
    """
    market = ReorgedMarket(confirmed=5)
    app = _server(tmp_path, market)
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None
    said = anyio.run(app.sender.sent_again_if_dropped, entry, (), PhaseTimer())
    assert isinstance(said, NeverMined) and "can never be mined" in said
    assert str(FINAL_DEPTH) in said
    kept = Journal(tmp_path).load(KEY)
    assert kept is not None and kept.status == CallStatus.PREPARED
    assert kept.extra[NEVER_MINED_KEY]["block"] == HEAD
    assert not market.broadcasts  # nothing re-sent: its nonce is someone else's


def test_a_call_whose_request_was_never_mined_sends_anew(tmp_path: Path) -> None:
    """The call goes on to a new request (here stopped at the upload: no IPFS).

    :param tmp_path: the state folder.
    """
    market = ReorgedMarket(confirmed=5)
    app = _server(tmp_path, market)
    text = str(_call(app).content[0].text)
    assert "stays paid" not in text and "IPFS" in text, text
    assert not market.broadcasts


def test_no_other_request_is_paid_until_a_cancellation_is_final(
    tmp_path: Path,
) -> None:
    """Dropped, cancelled (over --max-price), then: wait until final, then send anew.

    :param tmp_path: the state folder.
    """
    market = ReorgedMarket(price=50)
    app = _server(tmp_path, market, max_price=20)
    assert CANCEL_HASH in str(_call(app).content[0].text)  # premise: cancelled
    market.price = 10  # payable again: the call would pay a new request
    market.receipt = None  # the request's: none (the cancellation took its nonce)
    market.final = 4  # the cancellation (nonce 4) mined, not final
    for _ in range(2):
        waiting = _call(app)
        text = str(waiting.content[0].text)
        assert waiting.is_error and "not final" in text and CANCEL_HASH in text, text
    assert len(market.broadcasts) == 1  # the cancellation only
    market.final = 5  # final: a new request is prepared (stopped at the upload here)
    text = str(_call(app).content[0].text)
    assert "not final" not in text and "IPFS" in text, text
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and CANCEL_KEY in entry.extra


def test_a_dropped_request_whose_bytes_revert_when_mined_refuses_its_mech(
    tmp_path: Path,
) -> None:
    """Dropped, its bytes sent again revert when mined: the next offer tried.

    The refusal is the fresh send's (one handling of "mined and reverted"): the mech
    remembered as reverting when mined and skipped, the tool's other offer tried.

    :param tmp_path: the state folder.
    """
    market = ReorgedMarket()
    app = _server(tmp_path, market)

    def reverted(*_args: Any) -> str:
        market.confirmed, market.receipt = 5, True
        raise RequestReverted("the request transaction reverted")

    market.broadcast = reverted  # type: ignore[method-assign,assignment]
    result = _call(app)  # the tool's other offer tried: stopped at the upload here
    text = str(result.content[0].text)
    assert result.is_error and "IPFS" in text, text
    assert list(app.reverting.remembered()) == [_gone().mech.lower()]
    tool = app.catalogue.named("t")
    assert tool is not None
    left, skipped = app.reverting.skipped(tool.offers)
    assert [o.address.lower() for o in left] != [_gone().mech.lower()]
    assert [o.address.lower() for o, _ in skipped] == [_gone().mech.lower()]
    assert "not sent another request" in skipped[0][1]
    kept = Journal(tmp_path).load(KEY)
    assert kept is not None and kept.status == CallStatus.PREPARED
    assert held(app, kept) == ""  # its revert final (here at once)


def _offers() -> Any:
    return [offer("0x" + "aa" * 20, 1), offer("0x" + "bb" * 20, 2)]


@pytest.mark.parametrize(
    ("mined", "skipped_count"),
    [(True, 1), (False, 0)],  # gas spent: skipped; estimate only: tried last
)
def test_a_mech_reverting_when_mined_is_skipped_for_the_window(
    mined: bool, skipped_count: int
) -> None:
    """Mined revert: not tried within the window; estimate revert: tried last only.

    :param mined: whether the revert was mined.
    :param skipped_count: offers taken out expected.
    """
    first, second = _offers()
    memory = RevertingMechs(period=100)
    when = "when mined (only gas was spent)" if mined else "at its gas estimate"
    memory.remember(revert_refusal(first.address, when, "x", mined=mined), now=1000)
    left, skipped = memory.skipped([first, second], now=1050)
    assert len(skipped) == skipped_count
    assert [o.address for o in left] == (
        [second.address] if mined else [first.address, second.address]
    )
    ordered, moved = memory.tried_last(left, now=1050)
    assert [o.address for o in ordered][-1] == (
        second.address if mined else first.address
    )
    assert bool(moved) is not mined
    listed = memory.listed([first, second], now=1050)
    assert len(listed) == 1 and ("not sent another" in listed[0]["why"]) is mined
    # the window passed: tried again; a mech paid since: forgotten at once
    assert memory.skipped([first, second], now=1101) == ([first, second], [])
    memory.remember(revert_refusal(first.address, when, "x", mined=mined), now=1000)
    memory.forget(first.address.upper())
    assert memory.skipped([first, second], now=1001) == ([first, second], [])


@pytest.mark.parametrize(
    ("extra", "receipt", "taken_by"),
    [
        ({}, None, "another transaction"),  # never seen mined (adv29u F7)
        ({DROPPED_KEY: {}}, None, "another transaction"),  # seen mined, dropped
        ({}, True, "the request itself, mined and reverted"),  # adv29u F6
        ({CANCEL_KEY: {"tx_hash": CANCEL_HASH}}, None, "its cancellation"),
    ],
)
def test_a_request_whose_nonce_was_taken_waits_for_finality_whatever_took_it(
    tmp_path: Path, extra: Dict[str, Any], receipt: Optional[bool], taken_by: str
) -> None:
    """Not on chain, its nonce taken, not final: a wait saying why and until when.

    :param tmp_path: the state folder.
    :param extra: the entry's extra.
    :param receipt: its own receipt (None: none; True: reverted).
    :param taken_by: what the sentence says took the nonce.
    """
    market: Any = ReorgedMarket(confirmed=5, final=4, receipt=receipt)
    app = _server(tmp_path, market)
    entry = _gone(status=CallStatus.PREPARED, extra=dict(extra))
    said = held(app, entry)
    assert isinstance(said, NotFinal) and taken_by in said, said
    assert said.final_at == HEAD + FINAL_DEPTH and "at the latest" in said, said
    assert said.progress.startswith(f"waiting for block {HEAD + FINAL_DEPTH}")
    market.blocks = {entry.tx_hash: HEAD - 1, CANCEL_HASH: HEAD - 2}
    known = held(app, entry)
    if receipt or CANCEL_KEY in extra:  # the block it was taken in, read: exact
        assert isinstance(known, NotFinal) and "at the latest" not in known
        assert known.final_at < HEAD + FINAL_DEPTH
    market.final = 5  # final: nothing holds the call any more
    assert held(app, entry) == ""
