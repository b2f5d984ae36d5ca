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

"""A paid call is always readable again: found by its call key before anything else.

A call's journal entry is keyed by the mech tool name, the arguments, the requester and
the idempotency key (:func:`.call_identity.call_key`). Validating the arguments against the
schema served now, or resolving the MCP name in the catalogue served now, before looking
in the journal lost paid answers: a changed schema refused the same arguments, a tool
that left the catalogue was "no tool named ...". :func:`recall_paid` looks first.

The MCP name of a tool that left no longer says its mech tool name, and a name may
stand for another mech tool after a restart, so :class:`NameIndex` remembers, per call,
which key the MCP name and arguments stood for (``<state>/names/<sha256>``: the call
key, 64 hex characters), written before anything of the call is signed. The key
remembered is looked at first: a call whose earlier attempt signed anything (an
approval, a transaction, an off-chain request: :func:`.signed_parts.signed_parts`) is
resumed by that key (:func:`recall_signed`, :func:`resumed_tool`), never resolved again
to the mech tool its name stands for now (adversarial review adv29zt2: a broadcast cut
by the call's end, retried after a restart that moved the name, paid a second mech).
"""

import logging
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from mech_catalogue_core.ipfs.cid import DAG_PB, digest_to_cid
from mech_catalogue_core.ipfs.unixfs import root_digest
from mech_catalogue_core.model.vocabulary import CallStatus

from .call_identity import call_key, payload_nonce, request_payload
from .ipfs import payload_bytes
from .journal import Journal, JournalEntry
from .market import Marketplace
from .mined_reverts import never_paid
from .signed_parts import signed_parts
from .source import ServedCatalogue, ServedTool
from .whole_file import write_whole

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: statuses of an entry whose request is on chain (paid): only waited for
PAID_STATUSES = (CallStatus.SENT, CallStatus.DELIVERED)
_KEY_CHARS = frozenset("0123456789abcdef")


class NameIndex:
    """MCP name + arguments + requester + idempotency key -> the call key, on disk."""

    def __init__(self, journal: Journal) -> None:
        """Keep the index next to the journal (``<state>/names``).

        :param journal: the call journal.
        """
        self.folder = journal.folder.parent / "names"

    def _path(
        self, name: str, arguments: Dict[str, Any], requester: str, idempotency: str
    ) -> Path:
        # the same hash as a call key, of the MCP name in a namespace of its own
        alias = call_key("mcp-name:" + name, arguments, requester, idempotency)
        return self.folder / alias

    def remember(  # pylint: disable=too-many-arguments
        self,
        name: str,
        arguments: Dict[str, Any],
        requester: str,
        idempotency: str,
        key: str,
    ) -> None:
        """Write which call key this MCP call stands for now (atomically).

        Called before the call signs anything: a key remembered before is replaced
        (its call was looked up first, :func:`recall_paid` and :func:`recall_signed`,
        and found neither paid nor signed, or resumed under this same key).

        :param name: the MCP tool name.
        :param arguments: the arguments.
        :param requester: the paying account.
        :param idempotency: the client's idempotency key.
        :param key: the call key.
        """
        if self.recall(name, arguments, requester, idempotency) == key:
            return
        write_whole(self._path(name, arguments, requester, idempotency), key)

    def recall(
        self, name: str, arguments: Dict[str, Any], requester: str, idempotency: str
    ) -> Optional[str]:
        """Return the call key remembered for this MCP call.

        :param name: the MCP tool name.
        :param arguments: the arguments.
        :param requester: the paying account.
        :param idempotency: the client's idempotency key.
        :return: the key, or None when none (or the file is not a key).
        """
        path = self._path(name, arguments, requester, idempotency)
        try:
            text = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return text if len(text) == 64 and set(text) <= _KEY_CHARS else None


def departed_tool(name: str, entry: JournalEntry) -> ServedTool:
    """A stand-in for a paid tool no longer served: its name, no schema, no offers.

    Without an output schema its answer is returned as text; with no offers only the
    paid mech's delivery is trusted (:func:`.offers.check_delivery`).

    :param name: the MCP name called.
    :param entry: the journal entry of the paid request.
    :return: the tool.
    """
    return ServedTool(name, entry.tool, {"name": name, "inputSchema": {}}, ())


def _call_keys(  # pylint: disable=too-many-arguments,too-many-positional-arguments
    names: NameIndex,
    tool: Optional[ServedTool],
    name: str,
    arguments: Dict[str, Any],
    requester: str,
    idempotency: str,
) -> List[str]:
    """The keys a call may have been journalled under: the remembered one first.

    :param names: the name index.
    :param tool: the tool the name stands for now (None: none).
    :param name: the MCP name called.
    :param arguments: the arguments as sent.
    :param requester: the paying account.
    :param idempotency: the client's idempotency key.
    :return: distinct call keys, the one the name stood for when last called first.
    """
    keys: List[str] = []
    remembered = names.recall(name, arguments, requester, idempotency)
    if remembered:
        keys.append(remembered)
    if tool is not None:
        keys.append(call_key(tool.mech_tool, arguments, requester, idempotency))
    return list(dict.fromkeys(keys))


def recall_paid(  # pylint: disable=too-many-arguments,too-many-positional-arguments
    journal: Journal,
    names: NameIndex,
    catalogue: ServedCatalogue,
    name: str,
    arguments: Dict[str, Any],
    requester: str,
    idempotency: str,
) -> Optional[Tuple[ServedTool, JournalEntry]]:
    """Find a paid call's entry before the arguments or the tool are checked again.

    :param journal: the call journal.
    :param names: the name index.
    :param catalogue: every tool served now.
    :param name: the MCP name called.
    :param arguments: the arguments as sent (not yet validated).
    :param requester: the paying account.
    :param idempotency: the client's idempotency key.
    :return: the tool (as served now, else :func:`departed_tool`) and the entry of a
        request on chain, or None. A tampered entry raises the journal's
        ``JournalError`` (a ``MarketError``), as a later lookup would.
    """
    tool = catalogue.named(name)
    for key in _call_keys(names, tool, name, arguments, requester, idempotency):
        entry = journal.load(key)
        if entry is not None and entry.status in PAID_STATUSES:
            same = tool is not None and tool.mech_tool == entry.tool
            return (tool if same and tool else departed_tool(name, entry)), entry
    return None


def recall_signed(  # pylint: disable=too-many-arguments,too-many-positional-arguments
    journal: Journal,
    names: NameIndex,
    catalogue: ServedCatalogue,
    name: str,
    arguments: Dict[str, Any],
    requester: str,
    idempotency: str,
) -> Optional[JournalEntry]:
    """Find the entry of an earlier attempt of this call that signed anything.

    Its request may be on chain, on its way there (a node holding the broadcast) or
    held by its mech (off chain), or its approval spent: the call goes on under that
    entry's key (:func:`resumed_tool`), whatever its name stands for now.

    :param journal: the call journal.
    :param names: the name index.
    :param catalogue: every tool served now.
    :param name: the MCP name called.
    :param arguments: the arguments as sent (not yet validated).
    :param requester: the paying account.
    :param idempotency: the client's idempotency key.
    :return: the entry (any status) whose request may still pay
        (:func:`request_may_pay`) or that holds a token approval, the remembered key's
        first; None when no attempt signed anything, or only requests the journal says
        can never pay (a transaction :func:`.mined_reverts.never_paid`, off-chain
        requests the requester's nonce passed).
        A tampered entry raises the journal's ``JournalError`` (a ``MarketError``).
    """
    tool = catalogue.named(name)
    for key in _call_keys(names, tool, name, arguments, requester, idempotency):
        entry = journal.load(key)
        if entry is not None and (
            request_may_pay(entry) or signed_parts(entry).approval
        ):
            return entry
    return None


def request_may_pay(entry: JournalEntry) -> bool:
    """Whether a call's signed request may still pay its mech, as journalled (pure).

    :param entry: the call's entry.
    :return: True for a signed transaction not journalled as never paid
        (:func:`.mined_reverts.never_paid`), or an off-chain request its mech may still
        settle (:attr:`.signed_parts.SignedParts.settleable`: the requester's nonce not
        known to have passed it); False when nothing but an approval (or nothing) was
        signed, or every request signed can never pay.
    """
    signed = signed_parts(entry)
    return (signed.transaction and not never_paid(entry)) or bool(signed.settleable)


def resumed_tool(
    catalogue: ServedCatalogue, entry: JournalEntry
) -> Optional[ServedTool]:
    """The tool served now for a signed entry's mech tool, under whatever name.

    :param catalogue: every tool served now.
    :param entry: the call's signed entry (:func:`recall_signed`).
    :return: the served tool whose mech tool is the entry's (its call key is the
        entry's), or None when that mech tool is not served now.
    """
    return next((t for t in catalogue.tools if t.mech_tool == entry.tool), None)


def resume_from_chain(  # pylint: disable=too-many-arguments
    market: Marketplace,
    journal: Journal,
    tool: ServedTool,
    arguments: Dict[str, Any],
    key: str,
) -> Optional[JournalEntry]:
    """Find a call with no journal entry on chain; journal it as sent when found (blocking).

    The payload (whose nonce derives from the call key) gives the request data before
    anything is uploaded; this requester's request with that data is the call's
    (:meth:`.market.Marketplace.own_request`). A chain that cannot be read raises
    ``MarketError`` (nothing is paid then).

    :param market: the marketplace.
    :param journal: the journal the resumed entry is written to.
    :param tool: the tool called.
    :param arguments: the validated arguments.
    :param key: the call key.
    :return: the resumed entry, or None when the chain has no such request.
    """
    payload = request_payload(tool.mech_tool, arguments, payload_nonce(key))
    _, digest = root_digest(payload_bytes(payload), raw_leaves=False, cid_version=0)
    data = "0x" + bytes(digest).hex()
    found = market.own_request(data)
    if found is None:
        return None
    info = market.request_info(found.request_id)
    entry = JournalEntry(
        key=key,
        tool=tool.mech_tool,
        mech=info["priority_mech"],
        price=int(info["delivery_rate"]),
        payment_type=str(info["payment_type"]),
        cid=digest_to_cid(bytes(digest), DAG_PB),
        data=data,
        market_nonce=-1,  # not needed once sent: the id is known
        request_id=found.request_id,
        from_block=found.block,
        tx_hash=found.tx_hash,
        status=CallStatus.SENT,
        extra={"resumed_from_chain": True},
    )
    journal.save(entry)
    LOGGER.warning(
        "call %s had no journal entry; its request %s (block %d) was found on chain "
        "and is resumed, not paid again",
        key,
        found.request_id,
        found.block,
    )
    return entry
