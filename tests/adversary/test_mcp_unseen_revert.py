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

"""A request whose receipt was not seen in time, then never paid, gives its cap back.

Issue #29, second review: the server counts a request against ``--max-spend`` before
broadcasting it; when the receipt is not seen within the I/O timeout the call ends and
the request stays counted. If the request then reverts (its mech front-ran it with a
price raise) or its nonce goes to another transaction, nothing was paid, yet the retry
was refused "over --max-spend". On the session devnet (anvil with the marketplace's
real bytecode, automine switched off to hold the receipt back), through the MCP SDK's
own client.
"""

import json
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict

import anyio
import pytest
from web3.types import RPCEndpoint, Wei

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import market_nonce, requester, stdio_client
from tests.devnet.test_mcp_server import TOOL

#: seconds the server waits for a receipt (``--io-timeout``, default 30), within what is
#: left of the call's ``--timeout`` (fix29yb): the first call of each test waits for the
#: rest of its 3 s, the request being held back; also each IPFS upload's bound (kubo's
#: add under load has taken 10 s, docs/testing.md)
IO_TIMEOUT = "12"


def _rpc(devnet: Devnet, method: str, *params: Any) -> Any:
    return devnet.w3.provider.make_request(RPCEndpoint(method), list(params))


def _mined(devnet: Devnet, action: Callable[[], Any]) -> None:
    """Run a helper that waits for its own receipt while automine is off; mine it."""
    worker = threading.Thread(target=action)
    worker.start()
    time.sleep(1.0)
    _rpc(devnet, "evm_mine")
    worker.join(30)


def _front_run(devnet: Devnet, mech: str, price: int, entry: Dict[str, Any]) -> None:
    """The mech triples its price before the request is mined; the request reverts."""
    _rpc(devnet, "anvil_dropTransaction", entry["tx_hash"])
    _mined(devnet, lambda: devnet.change_max_delivery_rate(mech, price * 3))
    _rpc(devnet, "eth_sendRawTransaction", entry["raw_tx"])
    _rpc(devnet, "evm_mine")
    assert devnet.w3.eth.get_transaction_receipt(entry["tx_hash"])["status"] == 0
    _mined(devnet, lambda: devnet.change_max_delivery_rate(mech, price))


def _replaced(devnet: Devnet, mech: str, price: int, entry: Dict[str, Any]) -> None:
    """The requester's account spends the request's nonce on a plain transfer."""
    del mech, price
    _rpc(devnet, "anvil_dropTransaction", entry["tx_hash"])
    account = devnet.w3.to_checksum_address(requester(devnet))
    devnet.w3.eth.send_transaction(
        {
            "from": account,
            "to": account,
            "value": Wei(0),
            "nonce": entry["account_nonce"],
        }
    )
    _rpc(devnet, "evm_mine")


@pytest.mark.parametrize("fate", [_front_run, _replaced], ids=["reverted", "replaced"])
def test_a_request_that_never_paid_does_not_hold_the_cap(
    chain_snapshot: Devnet, tmp_path: Path, fate: Callable[..., None]
) -> None:
    """--max-spend fits one request; the first never pays; the retry is not over the cap.

    After a plain transfer took the nonce, the retry pays once; after the mech front-ran
    the request, the call sends that mech nothing more (kept off the call once its
    request reverted when mined), and says so rather than "over --max-spend".

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param fate: what becomes of the first request.
    """
    devnet = chain_snapshot
    mech = _paid_mechs(devnet)[0]
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    arguments = {"prompt": "will the receipt be seen?"}
    out: Dict[str, Any] = {}

    async def main() -> None:
        options = ["--mech", mech, "--timeout", "3", "--max-price", str(price * 4)]
        options += ["--io-timeout", IO_TIMEOUT]  # the first call waits out its 3 s
        async with stdio_client(
            devnet, tmp_path, *options, "--max-spend", str(price)
        ) as client:
            _rpc(devnet, "evm_setAutomine", False)
            try:
                out["first"] = await client.call_tool(TOOL, arguments)
                path = next((tmp_path / "calls").glob("*.json"))
                fate(devnet, mech, price, json.loads(path.read_text()))
            finally:
                _rpc(devnet, "evm_setAutomine", True)
            _rpc(devnet, "anvil_mine", FINAL_DEPTH)  # the first request's fate is final
            out["nonce"] = market_nonce(devnet)
            out["again"] = await client.call_tool(TOOL, arguments)

    anyio.run(main)
    first, again = out["first"].content[0].text, out["again"].content[0].text
    assert out["first"].is_error, first[:300]
    assert "not mined within" in first and "was signed" in first, first[:300]
    assert "max-spend" not in again, again[:400]
    if fate is _replaced:
        assert "was not delivered" in again, again[:400]  # sent and paid this time
        assert market_nonce(devnet) == out["nonce"] + 1
    else:  # a mech that front-ran this call's request gets no second one (adv29x P1)
        assert "was mined and reverted" in again, again[:400]
        assert market_nonce(devnet) == out["nonce"]
