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

"""What a delivering mech or its RPC sends back is a MarketError or ignored, never a crash.

Before, web3 7's ``Web3RPCError`` (an RPC refusing a log range a mech flooded) and a
malformed ``Deliver`` event (``DecodingError``) escaped :meth:`Marketplace.delivery`
(adversary review). The RPC here is a stand-in on the ``Marketplace`` object: no chain is
needed to shape its answers.
"""

from typing import Any, List

import pytest
from eth_abi import encode
from web3.exceptions import Web3RPCError

from mech_catalogue_cli.mcp_server.market import (
    DELIVER_TOPICS,
    STATUS_DELIVERED,
    MarketError,
    Marketplace,
)

KEY = "0x" + "42" * 32
REQUEST = "0x" + "ab" * 32
SHORT_TOPIC = next(t for t, types in DELIVER_TOPICS.items() if len(types) == 2)


def market(monkeypatch: pytest.MonkeyPatch, logs: Any) -> Marketplace:
    """A marketplace whose request is delivered and whose mech's logs are ``logs``.

    :param monkeypatch: pytest's monkeypatch.
    :param logs: the logs, or an exception to raise when they are asked for.
    :return: the marketplace.
    """
    chosen = Marketplace("http://127.0.0.1:9", "0x" + "11" * 20, KEY)
    monkeypatch.setattr(chosen, "status", lambda request_id: STATUS_DELIVERED)
    monkeypatch.setattr(
        chosen,
        "_call",
        lambda name, *a: (None, "0x" + "22" * 20, "0x" + "33" * 20, 0, 1, b"\0" * 32),
    )
    monkeypatch.setattr(chosen, "head", lambda: 9)

    def get_logs(_: Any) -> List[Any]:
        if isinstance(logs, Exception):
            raise logs
        return list(logs)

    monkeypatch.setattr(chosen.w3.eth, "get_logs", get_logs)
    return chosen


def test_an_rpc_refusing_the_logs_is_a_market_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Web3RPCError (not a ValueError in web3 7) becomes MarketError naming the mech."""
    refusing = market(
        monkeypatch, Web3RPCError("query returned more than 10000 results")
    )
    with pytest.raises(MarketError, match="events of 0x2222"):
        refusing.delivery(REQUEST, 1)


def test_a_malformed_deliver_event_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Deliver event whose data does not decode is not the answer; the good one is."""
    topic = bytes.fromhex(SHORT_TOPIC[2:])
    good = encode(["bytes32", "bytes"], [bytes.fromhex(REQUEST[2:]), b"answer"])
    logs = [
        {"topics": [topic], "data": b"\x01", "blockNumber": 2},
        {"topics": [topic], "data": good, "blockNumber": 3},
    ]
    delivered = market(monkeypatch, logs).delivery(REQUEST, 1)
    assert delivered is not None and delivered.data == b"answer"
