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

"""One deadline per paid call: its ``--timeout`` covers every wait, not each one.

A call held until an earlier request's nonce is final (adv29u), then paying, used to
wait a whole ``--timeout`` more for the delivery: twice its timeout in all. Without a
chain here: a stand-in marketplace that never delivers, the sender answering "not
final" for part of the call; the call's duration is measured against its timeout. The
devnet test (the MCP SDK's client, a mech reverting when mined) is
``tests/devnet/test_mcp_call_deadline.py``.
"""

import re
import time
from pathlib import Path
from typing import Any, List, Optional, Tuple

import anyio
import pytest

from mech_catalogue_cli.mcp_server.dropped import NotFinal
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import (
    STATUS_REQUESTED_PRIORITY,
    Delivered,
    MarketError,
)
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY as REQUEST_META
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from tests.adversary import test_mcp_pending_retry as pending
from tests.adversary.test_mcp_pending_retry import (  # noqa: F401 # pylint: disable=unused-import
    no_ipfs,
)
from tests.test_mcp_dropped_request_unit import (  # noqa: F401 # pylint: disable=unused-import
    ReorgedMarket,
    delivered_body,
)
from tests.test_mcp_paid_answer_unit import (  # noqa: F401 # pylint: disable=unused-import
    PAID,
    REQUEST_ID,
    REQUESTER,
    OneTool,
    _entry,
    no_child_processes,
)

#: the call's --timeout in these tests, seconds
TIMEOUT = 3.0
#: seconds after the first send attempt when the held nonce becomes final and the
#: request is paid
FINAL_AFTER = 1.0
#: what a loaded 2-CPU machine may add to a call beyond its timeout (thread hops,
#: one delivery read after the time is up)
SLACK = 0.5


class UndeliveredMarket(ReorgedMarket):
    """The call's request on chain and never delivered, until ``answered``."""

    def __init__(self) -> None:
        """The request known to the marketplace, no delivery yet."""
        super().__init__(status=STATUS_REQUESTED_PRIORITY)
        self.answered = False

    def delivery(self, request_id: str, from_block: int) -> Optional[Delivered]:
        """Read the delivery.

        :param request_id: ignored.
        :param from_block: ignored.
        :return: none until ``answered``.
        """
        del request_id, from_block
        return (
            Delivered(b"\x01" * 32, PAID, 9, REQUESTER.lower())
            if self.answered
            else None
        )


def _held_then_paid(journal: Journal, final_after: float) -> Tuple[Any, List[float]]:
    """A stand-in ``ensure_sent``: "not final" until ``final_after`` s, then paid once.

    :param journal: where the paid request is journalled (a call again finds it).
    :param final_after: seconds after its first use when the nonce is final.
    :return: the coroutine function and the times it was asked (since its first use).
    """
    asked: List[float] = []

    async def ensure_sent(*_args: Any) -> Any:
        now = time.monotonic()
        asked.append(now)
        if now - asked[0] < final_after:
            held = NotFinal("request 0x01 ... not final yet; until block 164")
            held.final_at, held.progress = 164, "waiting for block 164"
            return held
        entry = _entry()
        journal.save(entry)
        return entry

    return ensure_sent, asked


def _text(result: Any) -> str:
    """A call result's first text."""
    return str(getattr(result.content[0], "text", ""))


def _server(tmp_path: Path, timeout: float = TIMEOUT) -> MechToolServer:
    journal = Journal(tmp_path)
    app = MechToolServer(
        OneTool(),
        CallSettings(
            gateway_url="", ipfs_api_url="", timeout=timeout, delivery_poll=0.05
        ),
        UndeliveredMarket(),  # type: ignore[arg-type]
        journal,
    )
    app.refresh()

    async def nowhere(*_args: Any) -> None:
        return None  # the chain holds no earlier request of this call

    app.sender.resumed_from_chain = nowhere  # type: ignore[method-assign,assignment]
    return app


def test_a_payment_after_a_finality_wait_is_waited_for_only_the_rest(
    tmp_path: Path,
) -> None:
    """Held 1 s, then paid: the call ends by its 3 s, saying what was paid and where.

    Before: the hold, then three whole seconds for the delivery (4 s at least).

    :param tmp_path: the journal folder.
    """
    app = _server(tmp_path)
    ensure_sent, asked = _held_then_paid(app.reader.journal, FINAL_AFTER)  # type: ignore[union-attr]
    app.sender.ensure_sent = ensure_sent  # type: ignore[method-assign]
    progress: List[Tuple[float, float]] = []

    async def noted(_session: Any, done: float, total: float, _said: str) -> None:
        progress.append((done, total))

    app.reader.progress = noted  # type: ignore[union-attr,method-assign]
    started = time.monotonic()
    result = anyio.run(app.call, "t", {"prompt": "x"})
    took = time.monotonic() - started
    text = _text(result)
    assert result.is_error and FINAL_AFTER <= took < TIMEOUT + SLACK, (took, text)
    assert asked[-1] - asked[0] >= FINAL_AFTER, (asked, text)  # paid after the hold
    assert f"request {REQUEST_ID} to mech {PAID} (10 wei)" in text, text
    assert "was not delivered within 3 s, this call's --timeout" in text, text
    assert "it stays paid on chain" in text and "tx 0x" in text, text
    assert "Call again with the same arguments" in text, text
    assert "(that will not pay again)" in text, text
    # one clock for the whole call: progress never goes back, against one total
    dones = [done for done, _ in progress]
    assert dones == sorted(dones) and {total for _, total in progress} == {TIMEOUT}
    assert len(progress) > 2  # both waits reported
    app.market.answered = True  # type: ignore[union-attr]
    sends = len(asked)
    again = anyio.run(app.call, "t", {"prompt": "x"})
    assert not again.is_error, _text(again)
    assert len(asked) == sends  # the paid answer read, nothing sent


def test_a_call_held_for_its_whole_time_sends_nothing_and_ends_on_time(
    tmp_path: Path,
) -> None:
    """Never final within the call: the hold's sentence by its timeout, nothing paid."""
    app = _server(tmp_path, timeout=1.5)
    ensure_sent, asked = _held_then_paid(app.reader.journal, 60.0)  # type: ignore[union-attr]
    app.sender.ensure_sent = ensure_sent  # type: ignore[method-assign]
    started = time.monotonic()
    result = anyio.run(app.call, "t", {"prompt": "x"})
    took = time.monotonic() - started
    text = _text(result)
    assert result.is_error and 1.5 <= took < 1.5 + SLACK, (took, text)
    meta = result.meta or {}
    assert "until block 164" in text and meta[REQUEST_META]["final_at"] == 164
    assert len(asked) > 2 and app.reader.journal.load(_entry().key) is None  # type: ignore[union-attr]


def test_a_call_whose_time_is_spent_before_the_send_still_sends_once(
    tmp_path: Path,
) -> None:
    """What a call does before its send is work, not a wait: asked once, read once.

    A call whose time went to its checks and reads (a loaded machine, a short
    ``--timeout``) would otherwise never pay: every call again would run out alike.

    :param tmp_path: the journal folder.
    """
    app = _server(tmp_path, timeout=0.0)
    ensure_sent, asked = _held_then_paid(app.reader.journal, 0.0)  # type: ignore[union-attr]
    app.sender.ensure_sent = ensure_sent  # type: ignore[method-assign]
    started = time.monotonic()
    result = anyio.run(app.call, "t", {"prompt": "x"})
    text = _text(result)
    assert result.is_error and len(asked) == 1, text
    assert time.monotonic() - started < SLACK + 1.0, text
    assert "was not delivered within 0 s, this call's --timeout" in text, text
    assert "Call again with the same arguments" in text, text


def test_a_hold_met_when_the_time_is_spent_is_still_said_once(tmp_path: Path) -> None:
    """No time left at the first "not final": one progress, within its total, then the end.

    A client extends its own timeout on progress; the hold is named at least once.

    :param tmp_path: the journal folder.
    """
    app = _server(tmp_path, timeout=0.0)
    ensure_sent, asked = _held_then_paid(app.reader.journal, 60.0)  # type: ignore[union-attr]
    app.sender.ensure_sent = ensure_sent  # type: ignore[method-assign]
    progress: List[Tuple[float, float, str]] = []

    async def noted(_session: Any, done: float, total: float, said: str) -> None:
        progress.append((done, total, said))

    app.reader.progress = noted  # type: ignore[union-attr,method-assign]
    result = anyio.run(app.call, "t", {"prompt": "x"})
    assert result.is_error and "until block 164" in _text(result)
    assert len(asked) == 1 and progress == [(0.0, 0.0, "waiting for block 164")]


@pytest.mark.parametrize(
    ("timeout", "spent", "io_timeout", "wait"),
    [
        (300.0, 1.0, 30.0, 30.0),  # plenty left: --io-timeout
        (10.0, 4.0, 30.0, 6.0),  # the rest of the call
        (10.0, 9.8, 30.0, 1.0),  # at least a second for a send begun
        (10.0, 12.0, 30.0, 1.0),
        (10.0, 9.8, 0.5, 0.5),  # never more than --io-timeout
    ],
)
def test_a_receipt_is_waited_for_within_the_call(
    timeout: float, spent: float, io_timeout: float, wait: float
) -> None:
    """``receipt_wait``: ``--io-timeout``, or the call's time left, a second at least.

    :param timeout: the call's --timeout.
    :param spent: seconds of the call already spent.
    :param io_timeout: --io-timeout.
    :param wait: the receipt wait expected.
    """
    app = MechToolServer(
        OneTool(),
        CallSettings("", "", timeout=timeout, io_timeout=io_timeout),
        UndeliveredMarket(),  # type: ignore[arg-type]
        None,
    )
    timer = PhaseTimer(began=time.monotonic() - spent)
    assert app.sender.receipt_wait(timer) == pytest.approx(wait, abs=0.11)


def test_a_receipt_not_seen_in_the_call_says_which_request_was_signed(
    tmp_path: Path,
) -> None:
    """Broadcast, no receipt within the call's time: the request, mech and price said."""
    chain = pending.PendingChain()
    app = pending._server(tmp_path, chain)  # pylint: disable=protected-access
    app.settings.timeout, app.settings.io_timeout = 2.0, 30.0
    started = time.monotonic()
    with pytest.raises(MarketError) as raised:
        anyio.run(app.call, "t", {"prompt": "same"})
    said = str(raised.value)
    waited = float(re.search(r"not mined within ([0-9.]+) s", said).group(1))  # type: ignore[union-attr]
    assert waited <= 2.0 and time.monotonic() - started < 2.0 + SLACK, said
    assert re.search(r"request 0x[0-9a-f]{64} to mech 0x", said), said
    assert "was signed and journalled before its broadcast, which ended" in said
