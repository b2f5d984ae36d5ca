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

"""A call journal entry, and how one is read back: strictly, never trusted blindly.

One entry per call (:class:`JournalEntry`) records what a paid call sent before it is
sent. :func:`entry_from_json` reads one back: exactly the fields this server writes,
each of the form it writes; anything else (truncated, extended, altered) is refused, so
a hostile or damaged entry is an error that names the file, never a payment.
"""

import json
import math
import re
from dataclasses import dataclass, field, fields
from typing import Any, Dict

from mech_catalogue_core.manifest.validation import nesting_depth
from mech_catalogue_core.model.vocabulary import CallStatus


@dataclass
class JournalEntry:  # pylint: disable=too-many-instance-attributes
    """One call's record, written before its transaction is sent.

    :param key: the call key (:func:`.call_identity.call_key`).
    :param tool: the mech tool name.
    :param mech: the mech contract paid.
    :param price: wei paid (the mech's price when sent).
    :param payment_type: 0x + 64 hex.
    :param cid: the request payload's CID.
    :param data: the request data (0x + 64 hex digest).
    :param market_nonce: ``mapNonces(requester)`` the request id was derived with.
    :param request_id: 0x + 64 hex.
    :param from_block: the head block before sending (delivery logs are read from it).
    :param tx_hash: the request transaction ("" until signed).
    :param status: ``prepared`` (id derived, not known to be sent), ``sent``, ``delivered``.
    :param response_cid: the verified response's CID ("" until delivered).
    :param raw_tx: the signed request transaction, 0x + hex ("" until signed).
    :param account_nonce: the requester account's nonce it was signed with (-1 until).
    :param paid_at: unix seconds the signed request was journalled, before its broadcast
        (0: not signed yet, or an entry older than this field): what ``--spend-window``
        dates a payment by, so reading an old answer again does not re-date it.
    """

    key: str
    tool: str
    mech: str
    price: int
    payment_type: str
    cid: str
    data: str
    market_nonce: int
    request_id: str
    from_block: int
    tx_hash: str = ""
    status: str = CallStatus.PREPARED
    response_cid: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)
    raw_tx: str = ""
    account_nonce: int = -1
    paid_at: float = 0.0


_HEX32 = re.compile(r"0x[0-9a-f]{64}")
_ADDRESS_TEXT = re.compile(r"0x[0-9a-fA-F]{40}")
_HEX_BYTES = re.compile(r"(0x(?:[0-9a-f]{2})*)?")  # "": not signed yet
_CID_TEXT = re.compile(r"[0-9A-Za-z]{0,128}")
_ENTRY_TYPES = {f.name: f.type for f in fields(JournalEntry)}
#: fields entries written before the signed transaction was journalled lack (their
#: defaults then hold: nothing signed yet)
_LATER_FIELDS = ("raw_tx", "account_nonce", "paid_at")
#: deepest nesting of an entry read: the entry object, its ``extra`` and a little more
_ENTRY_DEPTH = 4


def _journal_field_problem(  # pylint: disable=too-many-return-statements
    name: str, value: Any
) -> str:
    """Say what is wrong with one journal field, or "".

    :param name: a :class:`JournalEntry` field.
    :param value: its value as read.
    :return: the problem, or "".
    """
    ints = {"price": 0, "market_nonce": -1, "from_block": 0, "account_nonce": -1}
    if name in ints:
        if isinstance(value, bool) or not isinstance(value, int) or value < ints[name]:
            return f"{name} is not an integer of at least {ints[name]}"
        return ""
    if name == "paid_at":
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or value < 0:
            return "paid_at is not a time in unix seconds"
        return ""
    if name == "extra":
        return "" if isinstance(value, dict) else "extra is not an object"
    if not isinstance(value, str):
        return f"{name} is not a string"
    patterns: Dict[str, "re.Pattern[str]"] = {
        "key": re.compile(r"[0-9a-f]{64}"),
        "mech": _ADDRESS_TEXT,
        "payment_type": _HEX32,
        "data": _HEX32,
        "request_id": _HEX32,
        "cid": _CID_TEXT,
        "response_cid": _CID_TEXT,
        "raw_tx": _HEX_BYTES,
        "tool": re.compile(r"[^\x00-\x1f]{1,256}"),
        "tx_hash": re.compile(r"(0x[0-9a-f]{64})?"),
    }
    if name == "status":
        return "" if value in set(CallStatus) else f"status {value[:20]!r} is unknown"
    pattern = patterns.get(name)
    if pattern is not None and not pattern.fullmatch(value):
        return f"{name} is not in the form this server writes"
    return ""


def _release_problem(released: Any, signed_nonce: int) -> str:
    """Say what is wrong with an off-chain entry's ``released`` record, or "".

    :param released: ``extra.offchain.released`` as read.
    :param signed_nonce: the entry's ``market_nonce``.
    :return: the problem, or "".
    """
    if not isinstance(released, dict) or set(released) != {"market_nonce", "block"}:
        return "not {market_nonce, block}"
    if not all(
        isinstance(value, int) and not isinstance(value, bool) and value >= 0
        for value in released.values()
    ):
        return "not non-negative integers"
    if released["market_nonce"] <= signed_nonce:
        return "its nonce is not past the one signed"
    return ""


def _passed_problem(document: Dict[str, Any]) -> str:
    """Say what is wrong with an off-chain entry's ``passed`` marks, or "".

    The server marks a call's requests ``passed`` only when the requester's nonce
    moved past them unsettled (``outstanding.mark_passed``, the entry then
    ``prepared``), and an earlier request ``passed`` when another request of its nonce
    was settled (``outstanding.settle_on``, the entry then sent) or when a new request
    was signed after them at a later nonce. A mark anywhere else would hide a paid
    request from ``--max-spend``.

    :param document: the entry as read (its fields checked).
    :return: the problem, or "".
    """
    extra = document["extra"]
    prepared = document["status"] == CallStatus.PREPARED
    offchain = extra.get("offchain")
    if isinstance(offchain, dict) and "passed" in offchain:
        if offchain["passed"] is not True:
            return "its off-chain passed mark is not true"
        if not prepared:
            return f"a {document['status']} request marked passed"
    attempts = extra.get("offchain_attempts")
    for attempt in attempts.values() if isinstance(attempts, dict) else ():
        if not isinstance(attempt, dict) or "passed" not in attempt:
            continue
        nonce = attempt.get("nonce")
        if not isinstance(attempt["passed"], bool) or not isinstance(nonce, int):
            return "an earlier off-chain request's passed mark is not a boolean"
        if attempt["passed"] and not prepared and nonce > document["market_nonce"]:
            return "an earlier request marked passed at a nonce after the current one"
    return ""


def entry_from_json(text: str, key: str) -> JournalEntry:
    """Read one journal entry strictly: exactly the fields this server writes, each checked.

    :param text: the file's text.
    :param key: the call key the file is named by.
    :return: the entry.
    :raises ValueError: saying what is wrong (not JSON, a field missing, unknown, of the
        wrong form, another call's key, or a sent entry without its transaction).
    """
    if nesting_depth(text, _ENTRY_DEPTH) > _ENTRY_DEPTH:
        raise ValueError("it is nested too deeply to be an entry")
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"it is not JSON ({str(exc)[:80]})") from exc
    if not isinstance(document, dict):
        raise ValueError("it is not a JSON object")
    missing = sorted(set(_ENTRY_TYPES) - set(document) - set(_LATER_FIELDS))
    unknown = sorted(set(document) - set(_ENTRY_TYPES))
    if missing or unknown:
        raise ValueError(
            f"fields missing: {missing[:5] or 'none'}; unknown fields: "
            f"{[u[:40] for u in unknown[:5]] or 'none'}"
        )
    for name, value in document.items():
        problem = _journal_field_problem(name, value)
        if problem:
            raise ValueError(problem)
    if document["key"] != key:
        raise ValueError("it records another call (its key is not its file name)")
    offchain = document["extra"].get("offchain")  # off-chain: no transaction of ours
    posted = isinstance(offchain, dict) and offchain.get("accepted") is True
    if document["status"] != CallStatus.PREPARED and not (
        document["tx_hash"] or posted
    ):
        raise ValueError(f"it is {document['status']} but names no transaction")
    if isinstance(offchain, dict) and "released" in offchain:
        problem = _release_problem(offchain["released"], document["market_nonce"])
        if posted or document["status"] != CallStatus.PREPARED or problem:
            raise ValueError(
                "its off-chain release is not one this server writes "
                f"({problem or 'on an accepted or sent request'})"
            )
    problem = _passed_problem(document)
    if problem:
        raise ValueError(
            f"its off-chain passed mark is not one this server writes ({problem})"
        )
    return JournalEntry(**document)
