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

"""adv29zq2 W3: an off-chain request signed and posted, its retry cut: "nothing was signed".

Severity: LOW-MEDIUM (issue #29 (d): false words after a cut; nothing is paid twice:
the retry signs again at the same marketplace nonce).

An off-chain call signs its request (``extra.offchain.signature``) and posts it to the
mech's endpoint; the entry has no ``raw_tx`` (no transaction). "The mech holds the
signed request and can settle it on chain whatever it answered" (``_send_offchain``).
A call again looks every signed request up on chain first
(``RequestSender._offchain_again``: the head, the marketplace nonce, each status);
when the call's end cuts those reads, ``MechToolServer._sent`` adds
:func:`.call_end_words.cut_words`, which looks at ``raw_tx`` alone and says
``NOTHING_SIGNED``: "nothing was signed nor sent for this call", though a request the
mech can still settle (charged to the user's prepaid balance) was signed and posted.

Observed on lead29zz 02021e43 (a loopback node holding every method 3 s, the real
``Marketplace`` and ``RequestSender``, the entry as ``OffchainPoster.prepare`` writes
it, posted and refused): ``_offchain_again`` raises "the latest block number could not
be read ...: this call's --timeout (1.5 s) ended before the node answered" after 1.5 s,
and ``cut_words`` adds exactly "nothing was signed nor sent for this call: call again
with the same arguments".

Expected: the words name the signed off-chain request (its id, the mech) and that a
call again looks it up first; never ``NOTHING_SIGNED`` for an entry holding one.
"""

import time
from pathlib import Path
from typing import Any, Callable

import anyio

from mech_catalogue_cli.mcp_server.call_end_words import NOTHING_SIGNED, cut_words
from mech_catalogue_cli.mcp_server.market import MarketError
from mech_catalogue_cli.mcp_server.node_deadline import reads_until, time_spent
from tests.test_mcp_call_node_deadline_unit import (  # noqa: F401 # pylint: disable=unused-import
    TIMEOUT,
    SlowNode,
    _sender,
    _start_node,
)
from tests.test_mcp_paid_answer_unit import KEY, _entry


def test_a_cut_retry_of_a_signed_offchain_request_never_says_nothing_was_signed(
    tmp_path: Path, start_node: Callable[..., SlowNode]
) -> None:
    """The retry's look-up cut by the call's end: the words must not deny the request.

    :param tmp_path: the state folder.
    :param start_node: starts the loopback node (every method held).
    """
    market = start_node().market()
    sender = _sender(tmp_path, market)
    assert sender.journal is not None
    entry = _entry(raw_tx="", tx_hash="", status="prepared", account_nonce=-1)
    entry.extra["offchain"] = {
        "endpoint": "http://127.0.0.1:9/",
        "signature": "0x" + "5a" * 65,
        "accepted": False,
        "requester": market.requester,
        "chain_id": 1,
        "refused": "the mech answered 503",
    }
    sender.journal.save(entry)

    async def retry() -> Any:
        with reads_until(time.monotonic(), TIMEOUT):
            try:
                return await sender._offchain_again(  # pylint: disable=protected-access
                    entry
                )
            except MarketError as exc:
                return exc

    error = anyio.run(retry)
    assert isinstance(error, MarketError) and time_spent(error), error
    words = anyio.run(cut_words, error, sender.journal, KEY)
    assert words != NOTHING_SIGNED, f"{error}; {words}"
    assert words is None or entry.request_id in words, words
