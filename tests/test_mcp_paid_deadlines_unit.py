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


"""The paid path's last waits share the call's deadline: a node or gateway that hangs.

A dropped request's broadcast again, a stale request's cancellation and a delivered
answer's fetch waited ``--io-timeout`` (default 30 s) whatever was left of the call's
``--timeout``, and a broadcast's own JSON-RPC request waited the node's timeout on top
of the receipt wait. Here the node (``eth_sendRawTransaction``) or the gateway is a
loopback socket that accepts and never answers; ``--io-timeout`` is 30 s and
``--timeout`` :data:`TIMEOUT` s: each call must end within :data:`TIMEOUT` s plus a
small margin, say which request it is about, and leave it counted (journalled as
signed or paid) with how to resume. The marketplace's other reads are the stand-in of
``test_mcp_dropped_request_unit``; the broadcast is the real ``Marketplace.broadcast``
and the fetch the real ``fetch_response``.
"""

import socket
import threading
import time
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import anyio
import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server import delivery as delivery_module
from mech_catalogue_cli.mcp_server import ipfs as server_ipfs
from mech_catalogue_cli.mcp_server.cancel import CANCEL_KEY
from mech_catalogue_cli.mcp_server.dropped import DROPPED_KEY
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace, SignedRequest
from mech_catalogue_cli.mcp_server.results import error_result
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.test_mcp_dropped_request_unit import ReorgedMarket, _gone
from tests.test_mcp_paid_answer_unit import KEY, REQUEST_ID, OneTool

#: the call's --timeout, seconds
TIMEOUT = 2.0
#: how late after it the call may end (the deadline's watchdog, the thread's wake)
MARGIN = 1.5
#: --io-timeout: what the waits took before, whatever the call's time
IO_TIMEOUT = 30.0


@pytest.fixture(name="silent_url")
def _silent_url() -> Iterator[str]:
    """A loopback server that accepts every connection and never answers.

    :yield: its ``http://127.0.0.1:<port>`` URL.
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: List[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not done.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        thread.join(2)
        for sock in held:
            sock.close()
        listener.close()


class HangingBroadcast(ReorgedMarket):
    """The stand-in marketplace, its broadcasts sent to a node that never answers.

    :param node: the silent node's URL.
    """

    def __init__(self, node: str, **facts: Any) -> None:
        """Keep a real marketplace on the silent node for the broadcasts."""
        super().__init__(**facts)
        self.real = Marketplace(node, "0x" + "84" * 20, "0x" + "01" * 32)
        self.waits: List[float] = []

    @staticmethod
    def sign_cancel(pending: SignedRequest) -> SignedRequest:
        """Sign a cancellation (bytes the node is sent: hex)."""
        return SignedRequest("0x02f9", "0x" + "cc" * 32, pending.account_nonce)

    def broadcast(self, signed: SignedRequest, wait: float = 60.0) -> str:
        """Broadcast through the real marketplace (it hangs until its deadline)."""
        self.waits.append(wait)
        return self.real.broadcast(signed, wait)


def _server(tmp_path: Path, market: Any, **settings: Any) -> MechToolServer:
    """A server whose call's journal holds its dropped request (``_gone``)."""
    call_settings = CallSettings(
        gateway_url=settings.pop("gateway_url", ""),
        ipfs_api_url="",
        timeout=TIMEOUT,
        io_timeout=IO_TIMEOUT,
        delivery_poll=0.05,
        **settings,
    )
    market.journal = Journal(tmp_path)
    market.journal.save(_gone())
    app = MechToolServer(OneTool(), call_settings, market, market.journal)
    app.refresh()
    return app


def _records(tmp_path: Path) -> Any:
    index = JournalIndex(Journal(tmp_path).folder)
    index.prime()
    return index.records()


def _timed_call(app: MechToolServer) -> Tuple[Any, float]:
    began = time.monotonic()
    try:
        result = anyio.run(app.call, "t", {"prompt": "x"})
    except MarketError as exc:  # as call_tool says it
        result = error_result(f"t: {exc}")
    return result, time.monotonic() - began


def test_a_dropped_request_sent_again_to_a_silent_node_ends_by_the_call_s_deadline(
    tmp_path: Path, silent_url: str
) -> None:
    """Dropped, sent again, the node never answers: the call ends by --timeout.

    :param tmp_path: the state folder.
    :param silent_url: the node.
    """
    market = HangingBroadcast(silent_url)
    app = _server(tmp_path, market)
    result, seconds = _timed_call(app)
    text = result.content[0].text
    assert seconds < TIMEOUT + MARGIN, (seconds, text)
    assert market.waits and max(market.waits) <= TIMEOUT, market.waits
    assert result.is_error and REQUEST_ID in text, text
    assert "not mined within" in text and "call again with the same arguments" in text
    # journalled signed and dropped: the next call sends the same bytes, counted once
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and entry.status == CallStatus.PREPARED
    assert DROPPED_KEY in entry.extra and entry.raw_tx == "0x02f8"
    ledger = SpendLedger(15)
    ledger.count_journal(_records(tmp_path), entry.paid_at + 1)
    assert ledger.earlier + ledger.spent == 10


def test_a_cancellation_sent_to_a_silent_node_ends_by_the_call_s_deadline(
    tmp_path: Path, silent_url: str
) -> None:
    """Dropped, its mech over --max-price now: the cancellation hangs, the call ends.

    :param tmp_path: the state folder.
    :param silent_url: the node.
    """
    market = HangingBroadcast(silent_url, price=50)
    app = _server(tmp_path, market, max_price=20)
    result, seconds = _timed_call(app)
    text = result.content[0].text
    assert seconds < TIMEOUT + MARGIN, (seconds, text)
    assert market.waits and max(market.waits) <= TIMEOUT, market.waits
    assert result.is_error and "is being cancelled" in text, text
    assert "Call again with the same arguments" in text
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and CANCEL_KEY in entry.extra  # sent again next call


def test_a_paid_answer_from_a_silent_gateway_is_said_paid_with_how_to_read_it(
    tmp_path: Path, silent_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Delivered, the gateway never answers: the call ends by --timeout, paid, resumable.

    :param tmp_path: the state folder.
    :param silent_url: the gateway.
    :param monkeypatch: pytest's monkeypatch (the real fetch, not the module's stand-in).
    """
    monkeypatch.setattr(delivery_module, "fetch_response", server_ipfs.fetch_response)
    market = ReorgedMarket(status=1)  # on chain: delivered at once
    app = _server(tmp_path, market, gateway_url=silent_url)
    result, seconds = _timed_call(app)
    text = result.content[0].text
    assert seconds < TIMEOUT + MARGIN, (seconds, text)
    assert result.is_error, text
    assert f"request {REQUEST_ID}" in text and "is paid" in text, text
    assert "Call again with the same arguments to read it" in text
    assert "will not pay again" in text
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and entry.status == CallStatus.SENT  # still counted
    ledger = SpendLedger(15)
    ledger.count_journal(_records(tmp_path), entry.paid_at + 1)
    assert ledger.earlier + ledger.spent == 10
