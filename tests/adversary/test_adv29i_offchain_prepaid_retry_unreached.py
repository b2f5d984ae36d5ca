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

"""A 402, a deposit, then a retry that cannot connect: "nothing was sent" (adv29i).

Severity: MEDIUM (a false statement about money to a person and a model: the mech
holds the whole signed request, posted before the deposit, and may settle it, which
charges the prepaid balance the deposit just filled; the call says nothing was sent and
never that the mech may still charge it).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint of :mod:`scripts.devnet.offchain_responder`) with the MCP SDK's client
launching ``mech-catalogue mcp --offchain only --auto-prepay native=2P --max-spend
native=10P`` over stdio, one agent; nothing prepaid.

The mech's endpoint receives the signed request and answers a true 402 (the balance
is short); as it answers, it stops listening (its listening socket shut down: a
connection to it is refused). ``--auto-prepay`` deposits (the opt-in) and posts the
same signed request once more (``AutoPrepayer.prepay_and_retry``); that post cannot
connect (``NotConnected``), so its refusal ends "the endpoint could not be reached,
nothing was sent". The refusal then carries ``deposited``, and
``OffchainRefusal.said(held=True)`` returns a deposited refusal as it is, assuming the
deposit text says the request is held: it does not. The person reads "... 2P wei
deposited ..., then the same signed request was posted once more and refused: ...
could not be reached, nothing was sent. Nothing more is deposited ...". The journal,
rightly, keeps the request held and counted (it was not marked unsent). The mech then
settles the request it received first: the balance is charged one price.

faults.md (auto-prepay's "402 again after the deposit" row) already requires of a
refusal after a deposit: never "nothing was sent".

Expected: the refusal never says "nothing was sent" once any post of the signed request
reached the endpoint; it says the signed request was posted and that the mech may still
settle it (``outstanding``'s HELD_REFUSAL sentence, as a refusal without a deposit
says).
"""

import socket
import threading
from pathlib import Path
from typing import Any

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import price_of
from tests.devnet.test_mcp_offchain import calls, declare_url, native_mech, prepaid


def _stop_listening_after_this_answer(endpoint: OffchainResponder) -> None:
    """Make the endpoint refuse every connection once it answered its first 402.

    :param endpoint: the stand-in (its 402 answer wrapped).
    """
    challenge = endpoint._challenge  # pylint: disable=protected-access

    def then_gone(*args: Any) -> None:
        # the listening socket is shut down before the 402 is written on the open
        # connection: the client's next connect is refused (nothing can reach it)
        endpoint.server.socket.shutdown(socket.SHUT_RDWR)
        threading.Thread(target=endpoint.server.shutdown, daemon=True).start()
        challenge(*args)

    # pylint: disable-next=protected-access
    endpoint._challenge = then_gone  # type: ignore[method-assign,assignment]


def test_a_refusal_after_a_deposit_never_says_nothing_was_sent(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """402 received and answered, deposit, retry unreached: held, said held.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    options = (
        "--mech",
        mech,
        "--offchain",
        "only",
        "--auto-prepay",
        f"native={2 * price}",
        "--max-spend",
        f"native={10 * price}",
        "--timeout",
        "10",
    )
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        _stop_listening_after_this_answer(endpoint)
        (refused,) = calls(devnet, tmp_path, 1, *options)
        text = str(refused.content[0].text)
        assert refused.is_error and len(endpoint.posts) == 1, text
        deposited = prepaid(devnet)
        # the mech settles the signed request it received with the first post
        form = endpoint.posts[0]
        # pylint: disable-next=protected-access
        settled_mech, sender, rid, _ = endpoint._checked(form)
        # pylint: disable-next=protected-access
        endpoint._settle(settled_mech, sender, rid, form)
    charged = deposited - prepaid(devnet)
    observed = f"{text[:700]!r}; deposited {deposited}, then charged {charged}"
    assert deposited == 2 * price and "deposited to tracker" in text, observed
    assert charged == price, observed  # the request the call called unsent was paid
    # observed on main: "... then the same signed request was posted once more and
    # refused: mech 0x...'s endpoint http://127.0.0.1:... could not be reached
    # (ConnectionError: no address accepted a connection): the endpoint could not be
    # reached, nothing was sent. Nothing more is deposited for this call ..."
    assert "nothing was sent" not in text, observed
    assert "may still settle it" in text, observed
