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

"""Off-chain refusals told as they are: never sent, or a 402 the chain contradicts (adv29g).

A signed request that never left this host holds no nonce; one that may have, does.

Real sockets on loopback: a closed port (connection refused: nothing sent), a listener
that accepts and closes (a reset after connecting: the request may have been sent) and
one that accepts and never answers (a timeout after connecting). The marketplace is the
stand-in of ``tests/test_mcp_offchain_release.py`` (a chain id and a requester only: the
post reads nothing else of the chain when nothing is answered). The devnet run is
``tests/adversary/test_adv29g_offchain_never_reached.py``.
"""

import socket
import threading
from typing import Iterator, List, Tuple

import pytest
from mech_catalogue_core.model.payment import Funds
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.adapters.http import AnswerError, pinned_session, post_form_json
from mech_catalogue_cli.mcp_server.journal import JournalEntry
from mech_catalogue_cli.mcp_server.offchain import (
    HELD_REFUSAL,
    OffchainPoster,
    OffchainRefusal,
)
from mech_catalogue_cli.mcp_server.outstanding import (
    counted_price,
    holds_of,
    mark_unsent,
    never_posted_before,
)
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry
from tests.test_mcp_offchain_release import Chain

WAIT = 2.0  # seconds a post may take here


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(name="listener", params=["reset", "silent"])
def _listener(request: pytest.FixtureRequest) -> Iterator[int]:
    """A loopback port that accepts connections, then closes them or never answers."""
    # :param request: which behaviour.
    # :yield: the port.
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held: List[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # closed at the end of the test
            if request.param == "reset":
                conn.recv(65536)
                conn.close()
            else:
                held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    yield int(server.getsockname()[1])
    server.close()
    for conn in held:
        conn.close()


def _post(port: int, addresses: List[str]) -> str:
    with pinned_session(addresses) as session:
        try:
            post_form_json(
                session, f"http://127.0.0.1:{port}/x", {"a": "1"}, WAIT, 1024, 4
            )
        except AnswerError as exc:
            return exc.kind
    return "answered"


def test_no_address_accepting_a_connection_is_not_connected() -> None:
    """Every checked address refuses the connection: kind not_connected."""
    assert _post(_closed_port(), ["127.0.0.1"]) == "not_connected"
    assert _post(_closed_port(), ["127.0.0.1", "127.0.0.2"]) == "not_connected"


def test_a_failure_after_connecting_is_not_said_unsent(listener: int) -> None:
    """Connected, then reset or silent: the request may have been sent."""
    assert _post(listener, ["127.0.0.1"]) in ("transport", "deadline")


def _poster(chain_id: int = 31337) -> OffchainPoster:
    chain = Chain(50, {50: 3})
    chain.w3.eth.chain_id = chain_id
    return OffchainPoster(chain, None)  # type: ignore[arg-type]


def _entry(port: int) -> JournalEntry:
    return offchain_entry(
        dict(OFFCHAIN, endpoint=f"http://127.0.0.1:{port}", accepted=False),
        status=CallStatus.PREPARED,
    )


def test_a_post_never_connected_says_nothing_was_sent() -> None:
    """Connection refused: unsent, and the text says so."""
    refusal = _poster().post(_entry(_closed_port()), {"prompt": "p"}, WAIT)
    assert refusal is not None and refusal.unsent
    assert "could not be reached" in refusal and "nothing was sent" in refusal


def test_a_post_to_an_address_refused_by_the_check_is_unsent() -> None:
    """Off the devnet a loopback address is not posted to: nothing sent either."""
    refusal = _poster(chain_id=100).post(_entry(_closed_port()), {}, WAIT)
    assert refusal is not None and refusal.unsent and "nothing was sent" in refusal


def test_a_post_that_connected_is_held(listener: int) -> None:
    """Reset or timed out after connecting: not unsent (the mech may hold it)."""
    refusal = _poster().post(_entry(listener), {"prompt": "p"}, WAIT)
    assert refusal is not None and not refusal.unsent
    assert "nothing was sent" not in refusal


def test_an_unsent_request_holds_no_nonce_and_counts_nothing() -> None:
    """Marked unsent: no hold, price 0."""
    written = _entry(_closed_port())
    assert holds_of(written) and counted_price(written) == written.price
    mark_unsent(written)
    assert not holds_of(written) and counted_price(written) == 0


@pytest.mark.parametrize("status", [CallStatus.SENT, CallStatus.DELIVERED])
def test_an_unsent_mark_on_a_paid_request_is_ignored(status: str) -> None:
    """A mark on an accepted or sent request (not one this server writes) hides nothing."""
    written = offchain_entry(dict(OFFCHAIN, accepted=True, unsent=True), status=status)
    assert holds_of(written) and counted_price(written) == written.price


def test_a_retry_of_a_request_posted_before_is_not_unsent() -> None:
    """The same id signed again, its earlier copy posted: the mech may hold it."""
    previous = _entry(_closed_port())
    again = _entry(_closed_port())
    assert never_posted_before(again, None)
    assert not never_posted_before(again, previous)  # same id, posted (402, ...)
    mark_unsent(previous)
    assert never_posted_before(again, previous)  # same id, never sent either
    other = _entry(_closed_port())
    other.request_id = "0x" + "99" * 32
    assert never_posted_before(other, previous)  # a new id, never posted
    previous.extra["offchain_attempts"] = {
        other.request_id: {
            "nonce": 3,
            "price": 1,
            "mech": "0x" + "11" * 20,
            "payment_type": "0x" + "00" * 32,
            "from_block": 10,
        }
    }
    assert not never_posted_before(other, previous)  # an earlier attempt had its id


class _Payer:
    """Reads a fixed prepaid balance on one tracker (the chain's fact, set by the test)."""

    tracker = "0x" + "55" * 20

    def __init__(self, prepaid: int) -> None:
        """Hold the balance.

        :param prepaid: ``mapRequesterBalances(requester)``, wei.
        """
        self.prepaid = prepaid

    def funds(self, payment_type: str) -> Funds:
        """The requester's native funds.

        :param payment_type: ignored (native).
        :return: the funds.
        """
        del payment_type
        return Funds(self.tracker, "", 18, 10**18, 0, self.prepaid)


def _challenged(prepaid: int) -> Tuple[str, bool]:
    chain = Chain(77, {77: 3})
    chain.w3.eth.chain_id = 31337
    poster = OffchainPoster(chain, _Payer(prepaid))  # type: ignore[arg-type]
    written = _entry(_closed_port())
    body = {
        "scheme": "olas-prepay",
        "payTo": _Payer.tracker,
        "asset": "0x" + "00" * 20,
        "chainId": 31337,
        "required": written.price,
    }
    # pylint: disable-next=protected-access
    return poster._challenge_text(written, body, "mech M's endpoint E")


@pytest.mark.parametrize("over", [0, 1, 10**18])
def test_a_402_the_chain_contradicts_advises_no_prepay(over: int) -> None:
    """The balance covers the price: the text says the chain contradicts the 402."""
    price = _entry(_closed_port()).price
    text, _ = _challenged(price + over)
    assert "which the chain contradicts" in text and "try another mech" in text
    assert "block 77" in text and ">=" in text
    assert "mech-catalogue prepay" not in text and "--auto-prepay" not in text
    assert "needs a prepaid balance" not in text


def test_a_402_the_chain_agrees_with_is_a_shortfall() -> None:
    """Short by one wei: the shortfall and the prepay advice, as before."""
    price = _entry(_closed_port()).price
    text, believed = _challenged(price - 1)
    assert believed and "needs a prepaid balance" in text
    assert "mech-catalogue prepay" in text and "--amount 0.000000000000000001" in text


def _refusal(text: str, **flags: bool) -> OffchainRefusal:
    refusal = OffchainRefusal(text)
    for name, value in flags.items():
        setattr(refusal, name, value)
    return refusal


@pytest.mark.parametrize(
    "refusal, held, says_held",
    [
        (_refusal("answered 402", challenged=True), True, True),
        (_refusal("answered 200 for another request id"), True, True),
        (_refusal("timed out after the body was sent"), True, True),
        # unsent now, but an earlier attempt posted the same id: still held
        (_refusal("could not be reached: nothing was sent", unsent=True), True, True),
        (_refusal("could not be reached: nothing was sent", unsent=True), False, False),
        (_refusal("deposited 5 wei, then refused again", deposited=True), True, False),
    ],
)
def test_a_refusal_says_whether_its_mech_may_hold_the_signed_request(
    refusal: OffchainRefusal, held: bool, says_held: bool
) -> None:
    """Held: the text says the mech may still settle it; its flags are kept (adv29h).

    :param refusal: the poster's refusal.
    :param held: whether the request holds its nonce after it.
    :param says_held: whether the call's text must say so.
    """
    said = refusal.said(held=held)
    assert isinstance(said, OffchainRefusal) and said.startswith(refusal)
    assert (HELD_REFUSAL in said) is says_held
    assert (said.challenged, said.unsent) == (refusal.challenged, refusal.unsent)
    if says_held:
        assert not said.endswith("nothing was sent")
