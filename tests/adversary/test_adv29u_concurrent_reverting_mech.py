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

"""Concurrent calls each spend gas on the same mech reverting when mined (adv29u F8).

Severity: LOW-MEDIUM (gas no cap counts, once per concurrent call instead of once per
mech; nothing is paid to a mech).

A mech whose request was mined and reverted is not sent another request while it is
remembered (adv29t). The check runs once per call, when the call ranks its offers,
before it waits for the send lock: calls started together all rank the mech first,
then each takes the lock in turn and sends it a request, each mined and reverted.

Observed on main (without a chain: the sender with a stand-in marketplace whose
requests revert when mined; two calls with different arguments started together,
each given the mech as its offer, as both ranked it before either sent): two
requests broadcast to the mech, two reverts' gas.

Expected: the memory is read again under the send lock right before each send: the
second call skips the mech (a refusal saying why; the server then tries its next
offer), so one request at most is mined per reverting mech.
"""

from pathlib import Path
from typing import Any, List

import anyio
import pytest

from mech_catalogue_cli.mcp_server.offchain_sending import PriceRefusal
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    MECH,
    PRICE,
    _Market,
    _no_upload,
    _sender,
    _tool,
)


@pytest.mark.usefixtures("no_upload")
def test_calls_started_together_send_one_request_to_a_mech_reverting_when_mined(
    tmp_path: Path,
) -> None:
    """Two calls, both ranking the mech before either sent: one request broadcast.

    :param tmp_path: the journal folder.
    """
    market = _Market(None, [PRICE])
    sender = _sender(tmp_path, market)
    said: List[Any] = []

    async def call(key: str) -> None:
        said.append(
            await sender.ensure_sent(
                _tool(), offer(MECH, 1, price=PRICE), {}, key, PhaseTimer()
            )
        )

    async def together() -> None:
        async with anyio.create_task_group() as group:
            for key in ("1" * 64, "2" * 64):
                group.start_soon(call, key)

    anyio.run(together)
    assert len(market.broadcasts) == 1, market.broadcasts
    assert all(isinstance(one, PriceRefusal) for one in said), said
    assert any("not sent another request" in one for one in said), said
