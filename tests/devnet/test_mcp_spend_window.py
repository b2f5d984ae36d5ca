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

"""``--max-spend`` holds across restarts within ``--spend-window`` (issue #29), on the devnet.

Through the ``mcp`` SDK's own client, each call in a new server process on the same
``--state-dir``: the first pays the incumbent (``deployed``, 5e15 wei) under a 6e15 cap;
after a restart a second question is refused by the cap (nothing sent, the balance and
the marketplace nonce unchanged); with a one-second window, once it has passed, it is
paid. The same holds for a token's cap (``--max-spend olas=...``): the OLAS-priced mech
paid by a first process counts against the cap of the second.
"""

import time
from pathlib import Path
from typing import Any, Tuple

import anyio

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import (
    checksum,
    market_nonce,
    marketplace_mech_of,
    price_of,
    requester,
    stdio_client,
)
from tests.devnet.test_mcp_token_payments import holdings

TOOL = "prediction-online"
CAP = ("--max-spend", str(6 * 10**15), "--timeout", "2")


def _call_in_new_process(
    devnet: Devnet, state: Path, prompt: str, extra: Tuple[str, ...] = ()
) -> Any:
    async def main() -> Any:
        async with stdio_client(devnet, state, *CAP, *extra) as client:
            await client.list_tools()
            return await client.call_tool(TOOL, {"prompt": prompt})

    return anyio.run(main)


def test_a_restart_does_not_reset_the_spending_cap(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Paid, restarted, refused by the cap; with a window that has passed, paid.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder shared by the server processes.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    first = _call_in_new_process(devnet, tmp_path, "Rain in Oslo on Monday?")
    assert "was not delivered within" in first.content[0].text  # sent, paid
    assert market_nonce(devnet) == nonce + 1

    balance = devnet.w3.eth.get_balance(checksum(requester(devnet)))
    second = _call_in_new_process(devnet, tmp_path, "Rain in Lima on Monday?")
    text = second.content[0].text
    assert second.is_error and "over --max-spend" in text, text
    assert "on 1 journalled request(s) of earlier or other runs" in text
    assert "nothing was sent" in text
    assert market_nonce(devnet) == nonce + 1
    assert devnet.w3.eth.get_balance(checksum(requester(devnet))) == balance

    time.sleep(1.5)
    third = _call_in_new_process(
        devnet, tmp_path, "Rain in Lima on Monday?", ("--spend-window", "1s")
    )
    assert "was not delivered within" in third.content[0].text, third.content[0].text
    assert market_nonce(devnet) == nonce + 2


def test_a_restart_does_not_reset_a_tokens_spending_cap(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """OLAS paid by one process counts in the next one's ``--max-spend olas=``.

    The cap is 1.5 prices: the first process approves and pays one price; the second,
    on the same ``--state-dir``, is refused naming the asset in its units, nothing
    approved or sent; with a one-second window, once it has passed, it pays.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder shared by the server processes.
    """
    devnet = chain_snapshot
    mech = marketplace_mech_of(devnet, "olas")
    price = price_of(devnet, mech)
    cap = ("--mech", mech, "--max-spend", f"olas={price * 3 // 2}")
    nonce = market_nonce(devnet)
    first = _call_in_new_process(devnet, tmp_path, "Snow in Bern on Friday?", cap)
    assert "was not delivered within" in first.content[0].text, first.content[0].text
    assert market_nonce(devnet) == nonce + 1

    before = holdings(devnet, "olas")
    second = _call_in_new_process(devnet, tmp_path, "Snow in Graz on Friday?", cap)
    text = second.content[0].text
    assert second.is_error and f"over --max-spend olas={price * 3 // 2}" in text, text
    assert "OLAS" in text and "1 journalled request(s) of earlier or other runs" in text
    assert "nothing was sent" in text
    assert holdings(devnet, "olas") == before and market_nonce(devnet) == nonce + 1

    time.sleep(1.5)
    third = _call_in_new_process(
        devnet, tmp_path, "Snow in Graz on Friday?", (*cap, "--spend-window", "1s")
    )
    assert "was not delivered within" in third.content[0].text, third.content[0].text
    assert market_nonce(devnet) == nonce + 2
