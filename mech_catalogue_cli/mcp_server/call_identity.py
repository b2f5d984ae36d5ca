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

"""The identity of a call and the request a mech reads.

- :func:`normalised_arguments` / :func:`call_key` / :func:`payload_nonce`: the
  deterministic identity of a call, so a retry of the same call (``1`` or ``1.0``, keys
  in any order, a string in either Unicode form) finds the request it already paid for;
- :func:`request_payload`: the JSON a mech tool reads (``prompt``, ``tool``, ``nonce``
  and the typed arguments at top level, as mech-interact's request round builds it).
"""

import hashlib
import json
import unicodedata
import uuid
from decimal import Decimal
from typing import Any, Dict, Mapping

#: keys of the request payload that arguments may not replace
RESERVED_PAYLOAD_KEYS = ("prompt", "tool", "nonce")

#: the ``_meta`` key a client may set on ``tools/call`` to ask for a new request for the
#: same arguments (any string; the same value again means the same call)
IDEMPOTENCY_META_KEY = "io.olas/idempotency-key"


def _canonical(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


def normalised_arguments(value: Any) -> Any:
    """Arguments in one form per meaning: what a call sends and its key is made of.

    JSON Schema's instance equality (Draft 2020-12 core, section 4.2.2: numbers are
    equal when their mathematical values are, object member order is irrelevant), and
    Unicode NFC for strings (UAX #15: canonically equivalent strings are the same text
    to every reader). So ``1`` and ``1.0`` (an integral float becomes an int, ``-0.0``
    becomes ``0``), ``{"a", "b"}`` in any order (the key's JSON sorts them) and ``"é"``
    composed or decomposed are one call, paid once; ``true`` and ``1``, ``"1"`` and
    ``1``, ``1.5`` and ``1``, ``null`` and a missing argument, or list orders are not.
    Object keys are kept as sent (they are the mech's argument names). Numbers that a
    JSON reader already parsed into the same double (``1.00000000000000001`` and ``1``)
    cannot be told apart.

    An integral float becomes the integer its shortest decimal spelling (``repr``, the
    one that reads back as the same double) says, exactly: ``1e23`` is ``10**23``, what
    the client wrote, not ``int(1e23)`` = 99999999999999991611392, the double's binary
    value (every float past 2**53 is integral, and amounts in wei are that large); so
    the payload carries the client's number and ``1e23`` and ``100000000000000000000000``
    are one call.

    :param value: validated arguments (a JSON value).
    :return: a new value in normal form.
    """
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return int(Decimal(repr(value))) if value.is_integer() else value
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, list):
        return [normalised_arguments(item) for item in value]
    if isinstance(value, dict):
        return {key: normalised_arguments(item) for key, item in value.items()}
    return value


def call_key(
    tool: str, arguments: Mapping[str, Any], requester: str, idempotency: str = ""
) -> str:
    """Return the identity of a call (the journal's key).

    The same tool, arguments, paying account and idempotency key give the same key, so
    a retry after a crash finds its journal entry; arguments are taken in
    :func:`normalised_arguments` form, so equivalent ones give the same key.

    :param tool: the mech tool name (not the MCP name).
    :param arguments: the validated arguments.
    :param requester: the paying account address.
    :param idempotency: the client's ``_meta[IDEMPOTENCY_META_KEY]`` ("" when absent).
    :return: 64 lowercase hex characters (sha2-256 of the sorted-key JSON document).
    """
    document = {
        "tool": tool,
        "arguments": normalised_arguments(dict(arguments)),
        "requester": requester.lower(),
        "idempotency": idempotency,
    }
    return hashlib.sha256(_canonical(document)).hexdigest()


def payload_nonce(key: str) -> str:
    """The payload's ``nonce`` (mech-interact sends a UUID there), derived from the call key.

    :param key: from :func:`call_key`.
    :return: a UUID string (version 5 of the key in a fixed namespace).
    """
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"mech-catalogue:mcp:{key}"))


def prompt_of(arguments: Mapping[str, Any]) -> str:
    """The payload's ``prompt``: the ``prompt`` argument when given, else the arguments' JSON.

    :param arguments: the validated arguments.
    :return: the prompt text.
    """
    prompt = arguments.get("prompt")
    if isinstance(prompt, str):
        return prompt
    return _canonical(dict(arguments)).decode("utf-8")


def request_payload(
    tool: str, arguments: Mapping[str, Any], nonce: str
) -> Dict[str, Any]:
    """The request JSON uploaded to IPFS, as mech tools read it.

    mech-interact (``_send_metadata_to_ipfs``) sends ``{"prompt", "tool", "nonce"}`` with
    ``extra_attributes`` merged at top level; a mech passes those keys to the tool's
    ``run(**kwargs)``. Arguments named like a reserved key never replace it.

    :param tool: the mech tool name.
    :param arguments: the validated arguments.
    :param nonce: from :func:`payload_nonce`.
    :return: the payload.
    """
    payload: Dict[str, Any] = {
        key: value
        for key, value in arguments.items()
        if key not in RESERVED_PAYLOAD_KEYS
    }
    payload.update({"prompt": prompt_of(arguments), "tool": tool, "nonce": nonce})
    return payload
