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
from mech_catalogue_cli.mcp_server.offchain_refusals import said
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
    """Connection refused: unsent; the call, holding nothing, says nothing was sent."""
    written = _entry(_closed_port())
    refusal = _poster().post(written, {"prompt": "p"}, WAIT)
    assert refusal is not None and refusal.unsent
    assert "could not be reached" in refusal and "nothing was sent" not in refusal
    mark_unsent(written)
    assert said(refusal, written).endswith("; nothing was sent")


def test_a_post_to_an_address_refused_by_the_check_is_unsent() -> None:
    """Off the devnet a loopback address is not posted to: nothing sent either."""
    written = _entry(_closed_port())
    refusal = _poster(chain_id=100).post(written, {}, WAIT)
    assert refusal is not None and refusal.unsent and "is not posted to" in refusal
    mark_unsent(written)
    assert said(refusal, written).endswith("; nothing was sent")


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


#: the call's entry as saved after the post: which of its requests may be settled
ENTRY_STATES = ("current held", "earlier held", "none held", "earlier passed")
#: the poster's refusal: (text, unsent, deposited)
REFUSALS = (
    ("answered 402", False, False),
    ("answered 200 for another request id", False, False),
    ("could not be reached (ConnectionError: no address accepted)", True, False),
    ("7 wei deposited ..., then posted once more and refused: timed out", False, True),
    (
        "7 wei deposited ..., then posted once more and refused: could not be reached",
        True,
        True,
    ),
)


def _saved_entry(state: str, deposit: bool) -> JournalEntry:
    """The call's entry as ``_send_offchain`` saves it before saying the refusal.

    :param state: one of :data:`ENTRY_STATES`.
    :param deposit: whether the call made an automatic deposit (``extra.auto_prepay``).
    :return: the entry.
    """
    saved = _entry(_closed_port())
    if state != "current held":
        mark_unsent(saved)  # this post never connected and no attempt posted its id
    if state in ("earlier held", "earlier passed"):
        saved.extra["offchain_attempts"] = {
            "0x"
            + "99"
            * 32: {
                "nonce": saved.market_nonce,
                "price": saved.price - 1,
                "mech": saved.mech,
                "payment_type": saved.payment_type,
                "from_block": 10,
                "accepted": False,
                "passed": state == "earlier passed",
            }
        }
    if deposit:
        saved.extra["auto_prepay"] = {"amount": "7", "status": "deposited"}
    return saved


@pytest.mark.parametrize(
    "state, deposit, text, unsent, deposited",
    [
        (state, deposit, text, unsent, deposited)
        for state in ENTRY_STATES
        for deposit in (False, True)
        for text, unsent, deposited in REFUSALS
        if deposit or not deposited  # a refusal after a deposit has its record
    ],
)
def test_a_refusal_is_worded_from_the_call_s_journal_entry(  # pylint: disable=too-many-arguments
    state: str, deposit: bool, text: str, unsent: bool, deposited: bool
) -> None:
    """Held by any request of the call: said held; a deposit: said; else unsent.

    Every combination of the call's requests (adv29h, adv29i), its deposit and how the
    post failed: "nothing was sent" only when no request of the call may be settled,
    this post never connected and nothing was deposited.

    :param state: which of the call's requests may still be settled.
    :param deposit: whether the call made an automatic deposit.
    :param text: the poster's text.
    :param unsent: whether this post never connected.
    :param deposited: whether the refusal's own text says the deposit.
    """
    refusal = _refusal(text, unsent=unsent, deposited=deposited, challenged=unsent)
    entry = _saved_entry(state, deposit)
    words = said(refusal, entry)
    held = state in ("current held", "earlier held")
    assert isinstance(words, OffchainRefusal) and words.startswith(refusal)
    assert (words.challenged, words.unsent) == (refusal.challenged, refusal.unsent)
    assert words.deposited is refusal.deposited
    assert (HELD_REFUSAL in words) is held and ("may still settle it" in words) is held
    assert ("nothing was sent" in words) is (not held and unsent and not deposit)
    assert ("deposit" in words) is deposit
    if deposit and not deposited:
        assert "automatic deposit of 7 wei was made for this call" in words
    if not held and unsent and deposit:
        assert "never reached its mech" in words


def test_an_unreadable_deposit_record_is_still_said() -> None:
    """A deposit record this server did not write: said, its amount not trusted."""
    entry = _saved_entry("none held", deposit=True)
    entry.extra["auto_prepay"] = {"amount": "-1"}
    words = said(_refusal("could not be reached", unsent=True), entry)
    assert "does not say readably" in words and "nothing was sent" not in words
