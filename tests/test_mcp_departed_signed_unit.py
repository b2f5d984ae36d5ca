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

"""A call's earlier attempt, each kind it signed, read whether its tool is served or not.

adv29zw2 R1 and R2: a call whose journal entry holds a signed request (on chain, off
chain accepted or not) is resumed to its answer, its status read as a served tool's is
(:meth:`.sending.RequestSender.journalled_now`, the reading ``ensure_sent`` makes); one
that holds only an approval, or requests that can never be paid, is resolved by its
name now and says once what it signed. The stand-ins of
``tests/test_mcp_recall_signed.py`` (``sign`` raises: nothing may be paid again; a
price is never read: an offer paid anew is refused before signing).
"""

from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest

from mech_catalogue_cli.mcp_server.market import STATUS_DOES_NOT_EXIST, Delivered
from mech_catalogue_cli.mcp_server.payment import APPROVAL_KEY
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY
from tests.adversary.test_adv29zw2_approval_holds_name import RECORD
from tests.test_mcp_paid_answer_unit import (  # noqa: F401  # pylint: disable=unused-import
    PAID,
    REQUEST_ID,
    _entry,
    no_child_processes,
)
from tests.test_mcp_recall_paid import ANSWER, Served
from tests.test_mcp_recall_signed import (
    ARGUMENTS,
    MOVED,
    NAME,
    UnminedMarket,
    _app,
    _tool,
)


def _offchain(accepted: bool) -> Dict[str, Any]:
    """An off-chain request signed at the entry's marketplace nonce (3)."""
    record: Dict[str, Any] = {"signature": "0x" + "5a" * 65}
    if accepted:
        record["accepted"] = True
    return {"raw_tx": "", "tx_hash": "", "extra": {"offchain": record}}


#: each kind of earlier attempt: the entry's changes
ATTEMPTS: Dict[str, Dict[str, Any]] = {
    "offchain-unaccepted": {"status": "prepared", **_offchain(False)},
    "offchain-accepted": {"status": "sent", **_offchain(True)},
    "transaction": {"status": "prepared"},
    "approval": {"status": "prepared", "raw_tx": "", "extra": {APPROVAL_KEY: RECORD}},
}


class Chain(UnminedMarket):
    """The call's request settled or not; the requester's nonce; its answer or none."""

    def __init__(self, settled: bool, nonce: int = 3) -> None:
        """The request's status and the requester's marketplace and account nonces.

        :param settled: whether the call's request is delivered on chain.
        :param nonce: ``mapNonces(requester)`` (its account nonce taken at 5, final).
        """
        super().__init__()
        self.settled, self.nonce = settled, nonce

    def status(  # type: ignore[override]  # pylint: disable=arguments-differ,arguments-renamed
        self, request_id: str, block: Optional[int] = None
    ) -> int:
        """Delivered when settled.

        :param request_id: the id.
        :param block: ignored.
        :return: the status.
        """
        del block
        if self.settled:
            return UnminedMarket.status(request_id)
        return STATUS_DOES_NOT_EXIST

    def market_nonce(  # type: ignore[override]  # pylint: disable=arguments-differ
        self, block: Optional[int] = None
    ) -> int:
        """The requester's marketplace nonce.

        :param block: ignored.
        :return: it.
        """
        del block
        return self.nonce

    def delivery(  # type: ignore[override]
        self, request_id: str, from_block: int
    ) -> Optional[Delivered]:
        """Its answer once settled, else none.

        :param request_id: the id.
        :param from_block: ignored.
        :return: the delivery or None.
        """
        return super().delivery(request_id, from_block) if self.settled else None

    @staticmethod
    def mined_request_id(tx_hash: str, data: str) -> None:
        """No request mined by the transaction.

        :param tx_hash: its hash.
        :param data: the request data.
        """
        del tx_hash, data

    @staticmethod
    def confirmed_nonce() -> int:
        """The account's nonce: past the request's (4), taken by another transaction.

        :return: 5.
        """
        return 5

    final_nonce = staticmethod(lambda depth: 5)
    transaction_reverted = staticmethod(lambda tx_hash: None)


def _called(tmp_path: Path, chain: Chain, attempt: str, calls: int = 1) -> Any:
    app = _app(tmp_path, chain, _entry(**ATTEMPTS[attempt]))
    return [anyio.run(app.call, NAME, ARGUMENTS) for _ in range(calls)]


@pytest.mark.parametrize("attempt", ["offchain-unaccepted", "offchain-accepted"])
@pytest.mark.parametrize("served", [False, True])
def test_a_settled_offchain_request_is_answered_served_or_not(
    tmp_path: Path, attempt: str, served: bool
) -> None:
    """Accepted or not, its tool served under another name or departed: the answer."""
    app = _app(tmp_path, Chain(settled=True), _entry(**ATTEMPTS[attempt]))
    if served:  # mech tool "t" served again, under another name
        app.source = Served(*MOVED.tools, _tool("t-2", "t", PAID))
        assert app.refresh()
    for _ in range(2):
        result = anyio.run(app.call, NAME, ARGUMENTS)
        text = result.content[0].text
        assert not result.is_error and ANSWER in text, text
        assert result.meta[REQUEST_META_KEY]["request_id"] == REQUEST_ID


def test_an_unsettled_unaccepted_offchain_request_of_a_departed_tool_is_said(
    tmp_path: Path,
) -> None:
    """Its nonce not passed: its mech may settle it; not signed again, no other paid."""
    for result in _called(tmp_path, Chain(settled=False), "offchain-unaccepted", 2):
        text = result.content[0].text
        assert result.is_error and 'mech tool "t" is not served now' in text, text
        assert "no other tool is paid for this call" in text
        assert f"off-chain request {REQUEST_ID} to mech {PAID}" in text
        assert "may hold it and still settle it" in text


def test_an_accepted_unsettled_offchain_request_of_a_departed_tool_is_waited_for(
    tmp_path: Path,
) -> None:
    """Accepted, its nonce not passed: waited for as a paid request, never paid again."""
    (result,) = _called(tmp_path, Chain(settled=False), "offchain-accepted")
    text = result.content[0].text
    assert result.is_error and "was not delivered within" in text, text
    assert "will not pay again" in text and REQUEST_ID in text


@pytest.mark.parametrize("attempt", ["offchain-unaccepted", "offchain-accepted"])
def test_a_passed_offchain_request_of_a_departed_tool_frees_its_name(
    tmp_path: Path, attempt: str
) -> None:
    """The requester's nonce past it unsettled: never paid; the name resolved anew."""
    results = _called(tmp_path, Chain(settled=False, nonce=4), attempt, 2)
    texts = [result.content[0].text for result in results]
    if attempt == "offchain-accepted":  # a paid call's wait learns it, and says so
        assert "moved past them" in texts[0] and "nothing is paid" in texts[0]
    else:  # the earlier attempt read, never paid: said once, the name resolved anew
        assert "can never be paid now" in texts[0], texts[0]
        assert 'to mech tool "t", which is not served now' in texts[0]
    # then the name stands for the stranger's tool "u": its offer is refused here
    # (the price unread), and the passed request is said no more
    assert "no offer could be paid now" in texts[1], texts[1]
    assert "can never be paid now" not in texts[1]
    assert all("no other tool is paid" not in text for text in texts)


def test_an_onchain_request_on_chain_of_a_departed_tool_is_answered(
    tmp_path: Path,
) -> None:
    """Its status read (delivered) though no ``MarketplaceRequest`` of it is found."""
    (result,) = _called(tmp_path, Chain(settled=True), "transaction")
    assert not result.is_error and ANSWER in result.content[0].text


def test_an_onchain_request_never_mined_of_a_departed_tool_frees_its_name(
    tmp_path: Path,
) -> None:
    """Its nonce taken by another transaction, final: never paid; said once."""
    first, second = _called(tmp_path, Chain(settled=False), "transaction", 2)
    text = first.content[0].text
    assert first.is_error and "can never be paid now" in text, text
    assert 'to mech tool "t", which is not served now' in text
    assert "no offer could be paid now" in text  # the stranger's tool, refused here
    assert "can never be paid now" not in second.content[0].text


def test_an_approval_alone_of_a_departed_tool_frees_its_name(tmp_path: Path) -> None:
    """Said once, with its amount; never "call again with the same arguments"."""
    results = _called(tmp_path, Chain(settled=False), "approval", 3)
    texts = [result.content[0].text for result in results]
    assert "approve exactly 10 of token" in texts[0], texts[0]
    assert "moves no funds to any mech" in texts[0]
    assert all("approve exactly" not in text for text in texts[1:]), texts
    assert all("not served now; no other tool" not in text for text in texts)
    meta = results[0].meta[REQUEST_META_KEY]
    assert "approve exactly 10" in meta["earlier_attempt"]


def test_an_approval_alone_whose_name_serves_nothing_says_so(tmp_path: Path) -> None:
    """No tool under the name: "no tool named", the approval said, no same-arguments loop."""
    app = _app(tmp_path, Chain(settled=False), _entry(**ATTEMPTS["approval"]))
    app.source = Served()
    app.refresh()
    for _ in range(2):
        result = anyio.run(app.call, NAME, ARGUMENTS)
        text = result.content[0].text
        assert result.is_error and "no tool named" in text, text
        assert "approve exactly 10" in text and "moves no funds to any mech" in text
        assert "call again with the same arguments" not in text


def test_an_approval_alone_of_a_served_tool_is_resumed_by_it(tmp_path: Path) -> None:
    """Its own tool served (under another name): resumed there, not resolved anew."""
    app = _app(tmp_path, Chain(settled=False), _entry(**ATTEMPTS["approval"]))
    app.source = Served(*MOVED.tools, _tool("t-2", "t", PAID))
    assert app.refresh()
    result = anyio.run(app.call, NAME, ARGUMENTS)
    text = result.content[0].text
    assert result.is_error and "earlier attempt" not in text, text
    assert PAID in text and "0x" + "44" * 20 not in text  # t's mech, never u's
