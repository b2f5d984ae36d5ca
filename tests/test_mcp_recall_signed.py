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

"""A call whose earlier attempt signed anything goes on under its key (adv29zt2).

Its MCP name may stand for another mech tool now (a restart, a ground tag): the call is
never resolved again to that tool. :func:`.recall.recall_signed` finds the entry by the
key remembered for the name and arguments (before anything was signed), whatever
signed part it holds (a transaction, an off-chain request, an approval); the server
then resumes it (the stand-ins of ``tests/test_mcp_paid_answer_unit.py``: ``sign``
raises, so any new payment fails the test).
"""

from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest
from mech_catalogue_core.ipfs.unixfs import root_digest

from mech_catalogue_cli.mcp_server.call_identity import (
    call_key,
    payload_nonce,
    request_payload,
)
from mech_catalogue_cli.mcp_server.dropped import NEVER_MINED_KEY
from mech_catalogue_cli.mcp_server.ipfs import payload_bytes
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import OwnRequest
from mech_catalogue_cli.mcp_server.payment import APPROVAL_KEY
from mech_catalogue_cli.mcp_server.recall import (
    NameIndex,
    recall_signed,
    resumed_tool,
)
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY
from mech_catalogue_cli.mcp_server.signed_parts import signed_parts
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool
from tests.test_mcp_paid_answer_unit import (  # noqa: F401  # pylint: disable=unused-import
    KEY,
    PAID,
    REQUEST_ID,
    REQUESTER,
    STRANGER,
    ResumingMarket,
    _entry,
    _offer,
    _server,
    no_child_processes,
)
from tests.test_mcp_recall_paid import BODY, Served

NAME = "predict-x"
ARGUMENTS = {"prompt": "x"}

#: entries of an earlier attempt of the call (mech tool "t"), one per signed part
SIGNED: Dict[str, Dict[str, Any]] = {
    "transaction": {"status": "prepared"},
    "offchain": {
        "status": "prepared",
        "raw_tx": "",
        "extra": {"offchain": {"signature": "0x" + "5a" * 65}},
    },
    "approval": {
        "status": "prepared",
        "raw_tx": "",
        "extra": {APPROVAL_KEY: {"tx_hash": "0x" + "a1" * 32}},
    },
}


def _tool(name: str, mech_tool: str, mech: str) -> ServedTool:
    entry = {"name": name, "inputSchema": {"type": "object"}}
    return ServedTool(name, mech_tool, entry, (_offer(mech),))


#: the name now stands for a stranger's mech tool "u"; "t" is not served
MOVED = ServedCatalogue("moved", (_tool(NAME, "u", STRANGER),))


def _journal(tmp_path: Path, entry: JournalEntry) -> Journal:
    journal = Journal(tmp_path)
    journal.save(entry)
    NameIndex(journal).remember(NAME, ARGUMENTS, REQUESTER, "", KEY)
    return journal


def _recalled(journal: Journal, catalogue: ServedCatalogue) -> Optional[JournalEntry]:
    return recall_signed(
        journal, NameIndex(journal), catalogue, NAME, ARGUMENTS, REQUESTER, ""
    )


@pytest.mark.parametrize("part", sorted(SIGNED))
def test_a_signed_entry_is_found_by_its_remembered_key_after_the_name_moved(
    tmp_path: Path, part: str
) -> None:
    """Each signed part: the entry of mech tool "t", not the stranger's "u" the name is now."""
    entry = _entry(**SIGNED[part])
    assert getattr(signed_parts(entry), part)
    found = _recalled(_journal(tmp_path, entry), MOVED)
    assert found is not None and found.key == KEY and found.tool == "t"
    assert resumed_tool(MOVED, found) is None  # "t" not served: no tool stands in
    renamed = ServedCatalogue("renamed", MOVED.tools + (_tool("t-2", "t", PAID),))
    tool = resumed_tool(renamed, found)
    assert tool is not None and tool.name == "t-2"  # "t" under its name now


@pytest.mark.parametrize(
    "changes",
    [
        # nothing signed: a prepared entry without bytes
        {"status": "prepared", "raw_tx": ""},
        # its one transaction can never be mined (its nonce taken, final)
        {
            "status": "prepared",
            "extra": {NEVER_MINED_KEY: {"tx_hash": "0x" + "ef" * 32}},
        },
    ],
)
def test_an_entry_that_holds_no_live_signature_is_not_resumed(
    tmp_path: Path, changes: Dict[str, Any]
) -> None:
    """The name is resolved anew: nothing of the earlier attempt can be paid."""
    assert _recalled(_journal(tmp_path, _entry(**changes)), MOVED) is None


def test_no_entry_and_no_remembered_key_recall_nothing(tmp_path: Path) -> None:
    """A first call: nothing recalled (and a key of another requester is not read)."""
    journal = Journal(tmp_path)
    assert _recalled(journal, MOVED) is None
    journal.save(_entry(key=call_key("u", ARGUMENTS, STRANGER)))
    assert _recalled(journal, MOVED) is None


def test_a_remembered_key_is_replaced_when_the_call_signs_under_another(
    tmp_path: Path,
) -> None:
    """Remembered before each attempt signs: the last attempt's key is the one read."""
    names = NameIndex(Journal(tmp_path))
    names.remember(NAME, ARGUMENTS, REQUESTER, "", "ab" * 32)
    names.remember(NAME, ARGUMENTS, REQUESTER, "", "cd" * 32)
    assert names.recall(NAME, ARGUMENTS, REQUESTER, "") == "cd" * 32


class UnminedMarket(ResumingMarket):
    """No ``MarketplaceRequest`` of the call (a node still holds it, or it is off chain).

    The request's status is :class:`ResumingMarket`'s (its id delivered), read at any
    block; a price is never read (an offer paid anew is refused before signing).
    """

    def own_request(  # type: ignore[override]  # pylint: disable=useless-return
        self, data: str
    ) -> Optional[OwnRequest]:
        """None: not on chain.

        :param data: the request data.
        :return: None.
        """
        del data
        return None

    @staticmethod
    def head() -> int:
        """The chain's head.

        :return: a block number.
        """
        return 9

    @staticmethod
    def status(  # type: ignore[override]
        request_id: str, block: Optional[int] = None
    ) -> int:
        """:class:`ResumingMarket`'s status, at any block.

        :param request_id: the id.
        :param block: ignored.
        :return: the status.
        """
        del block
        return ResumingMarket.status(request_id)

    @staticmethod
    def mech_price(mech: str) -> Optional[int]:  # pylint: disable=useless-return
        """Unread: an offer paid anew is refused before anything is signed.

        :param mech: the mech.
        :return: None.
        """
        del mech
        return None


def _app(tmp_path: Path, market: Any, entry: JournalEntry) -> Any:
    app = _server(tmp_path, market, BODY)
    assert app.journal is not None
    app.journal.save(entry)
    NameIndex(app.journal).remember(NAME, ARGUMENTS, REQUESTER, "", KEY)
    app.source = Served(*MOVED.tools)
    assert app.refresh()
    return app


def _request_data(mech_tool: str, key: str) -> str:
    """The request data a call of ``mech_tool`` under ``key`` puts on chain."""
    payload = request_payload(mech_tool, ARGUMENTS, payload_nonce(key))
    _, digest = root_digest(payload_bytes(payload), raw_leaves=False, cid_version=0)
    return "0x" + bytes(digest).hex()


class OneRequestMarket(ResumingMarket):
    """Only the call's request of mech tool "t" is on chain."""

    def own_request(self, data: str) -> Optional[OwnRequest]:  # type: ignore[override]
        """The request when ``data`` is the "t" call's.

        :param data: the request data.
        :return: it, or None.
        """
        return super().own_request(data) if data == _request_data("t", KEY) else None


def test_a_prepared_signed_call_retried_by_its_moved_name_is_resumed_not_paid(
    tmp_path: Path,
) -> None:
    """Its request found on chain: the answer, paid once, the stranger's tool untouched."""
    app = _app(tmp_path, OneRequestMarket(), _entry(status="prepared"))
    result = anyio.run(app.call, NAME, ARGUMENTS)
    assert not result.is_error, result.content[0].text
    paid = result.meta[REQUEST_META_KEY]
    assert paid["request_id"] == REQUEST_ID and paid["mech"].lower() == PAID.lower()


# each signed kind not on chain, its tool departed: tests/test_mcp_departed_signed_unit.py


class Reading:  # pylint: disable=too-few-public-methods
    """A first catalogue read still running (``--start-wait`` passed)."""

    done = False
    error = None


def test_a_signed_call_in_the_start_wait_window_is_told_the_catalogue_is_read(
    tmp_path: Path,
) -> None:
    """Nothing listed yet, its request not on chain: words, never "no tool named"."""
    app = _app(tmp_path, UnminedMarket(), _entry(status="prepared"))
    app.source = Served()
    app.refresh()
    app.first_read = Reading()  # type: ignore[assignment]
    result = anyio.run(app.call, NAME, ARGUMENTS)
    text = result.content[0].text
    assert result.is_error and "catalogue is still being read" in text, text
    assert "was signed and journalled" in text
    resumed = _app(tmp_path / "b", OneRequestMarket(), _entry(status="prepared"))
    resumed.source = Served()
    resumed.refresh()
    resumed.first_read = Reading()  # type: ignore[assignment]
    answered = anyio.run(resumed.call, NAME, ARGUMENTS)
    assert not answered.is_error, answered.content[0].text
