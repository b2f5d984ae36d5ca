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

"""Canonical JSON (RFC 8785, JSON Canonicalization Scheme) and digests over it.

Numbers are written by the ``rfc8785`` package (PyPI, pinned in requirements.txt), strings
by ``json.dumps`` (RFC 8785 escapes exactly what it escapes), objects with their keys in
UTF-16 order, so that every agent produces the same bytes for the same value. Inputs must
be I-JSON (RFC 7493): integers within +-(2**53-1), finite floats, no lone surrogates;
:mod:`..manifest.validation` rejects anything else before it reaches here. A
:class:`CanonicalText` inside a value (JSON text the model already holds in canonical
form) is written as it is rather than decoded and serialised again: the bytes are the
same, the work is not.
"""

import hashlib
import json
from typing import Any

import rfc8785
from mech_catalogue_core.model.memo import (
    BoundedMemo,
)

MAX_SAFE_INTEGER = 2**53 - 1


class CanonicalizationError(ValueError):
    """Raised when a value cannot be put in RFC 8785 canonical form (not I-JSON)."""


class CanonicalText(str):
    """JSON text already in RFC 8785 form (from :func:`canonical_text`), spliced as it is.

    Only for text this module produced: :func:`canonical_bytes` trusts it and writes it
    unchanged where a decoded value would have been serialised again (the same bytes).
    """

    __slots__ = ()


def canonical_bytes(value: Any) -> bytes:
    """Serialise a JSON value in RFC 8785 canonical form.

    :param value: dicts (str keys), lists/tuples, str, int, float, bool, None, and
        :class:`CanonicalText` (written as it is).
    :return: the canonical UTF-8 bytes (what ``rfc8785.dumps`` gives for the decoded value).
    :raises CanonicalizationError: if the value is not I-JSON (a key that is not a
        string, an integer beyond +-(2**53-1), NaN or an infinity, a lone surrogate, a
        type JSON does not have, or nesting too deep).
    """
    parts: "list[str]" = []
    try:
        _write(value, parts)
        return "".join(parts).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CanonicalizationError("input contains non-UTF-8 codepoints") from exc
    except (
        rfc8785.CanonicalizationError,
        rfc8785.IntegerDomainError,
        RecursionError,
    ) as exc:
        raise CanonicalizationError(str(exc)) from exc


#: a JSON string literal as RFC 8785 writes it (quote, backslash and controls escaped):
#: the C function ``json.dumps(ensure_ascii=False)`` writes a ``str`` with, called
#: directly (through ``JSONEncoder.encode`` it cost twice as much, millions of calls a
#: catalogue digest)
_string = json.encoder.encode_basestring


def json_string(text: str) -> str:
    """Write a string as an RFC 8785 JSON string literal (s3.2.2.2).

    :param text: the string (a ``str``: anything else raises ``TypeError``).
    :return: the quoted literal; a lone surrogate stays in it, so encoding the literal to
        UTF-8 fails (RFC 8785 rejects it).
    """
    return _string(text)


def _utf16(item: "tuple[str, Any]") -> bytes:
    return item[0].encode("utf-16be", "surrogatepass")


def _write(value: Any, parts: "list[str]") -> None:
    """Append the RFC 8785 text of ``value`` to ``parts`` (as ``rfc8785.dump`` orders it).

    :param value: a JSON value, possibly holding :class:`CanonicalText`.
    :param parts: the text so far.
    :raises CanonicalizationError: on a key that is not a string or a type JSON lacks.
    """
    if isinstance(value, str):
        # CanonicalText is already canonical; json.dumps(ensure_ascii=False) escapes
        # exactly what RFC 8785 s3.2.2.2 escapes (a lone surrogate fails the final encode)
        parts.append(value if isinstance(value, CanonicalText) else _string(value))
    elif isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise CanonicalizationError("object keys must be strings")
        parts.append("{")
        for index, (key, item) in enumerate(sorted(value.items(), key=_utf16)):
            if index:
                parts.append(",")
            parts.append(_string(key))
            parts.append(":")
            _write(item, parts)
        parts.append("}")
    elif isinstance(value, (list, tuple)):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    elif value is None or isinstance(value, (bool, int, float)):
        parts.append(rfc8785.dumps(value).decode("ascii"))
    else:
        raise CanonicalizationError(f"unsupported type: {type(value)}")


def canonical_text(value: Any) -> str:
    """RFC 8785 form of a value, memoised: manifests repeat the same schemas many times.

    The memo key is ``repr(value)``: C speed, and for JSON values (str keys; str, int,
    float, bool, None, list, dict) equal reprs mean equal values, since every part's repr
    is exact and unambiguous (float repr round-trips). Key order only costs a miss. The
    canonical text is computed by ``rfc8785`` on a miss.

    :param value: a JSON value.
    :return: its RFC 8785 form as str.
    :raises CanonicalizationError: if not I-JSON.
    """
    if value is None or value == {}:
        return "null" if value is None else "{}"
    if isinstance(value, str):
        # RFC 8785 s3.2.2.2 escapes exactly what json.dumps(ensure_ascii=False) escapes:
        # quote, backslash, U+0000-U+001F (short forms for b f n r t, else lowercase u00xx);
        # lone surrogates, which RFC 8785 rejects, go through rfc8785 to raise.
        if value.isascii() or not _has_surrogate(value):
            return _string(value)
    try:
        key = repr(value)
    except RecursionError as exc:
        raise CanonicalizationError(str(exc)) from exc
    return _canonical_memo(key, value)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


#: entries of the :func:`canonical_text` memo (emptied when full: a miss only costs time)
CANONICAL_MEMO_ENTRIES = 8192
#: a value whose ``repr`` and canonical text hold more characters is not memoised
CANONICAL_MEMO_CHARS = 1 << 16
#: characters the memo holds at most (keys and texts of manifest values)
CANONICAL_MEMO_TOTAL = 1 << 23

_MEMO = BoundedMemo(CANONICAL_MEMO_ENTRIES, CANONICAL_MEMO_CHARS, CANONICAL_MEMO_TOTAL)


def _canonical_memo(key: str, value: Any) -> str:
    text: "str | None" = _MEMO.store.get(key)
    if text is None:
        text = canonical_bytes(value).decode("utf-8")
        _MEMO.put(key, text, len(key) + len(text))
    return text


def sha256_hex(data: bytes) -> str:
    """Return lowercase hex sha2-256, 64 characters, no prefix.

    :param data: bytes.
    :return: lowercase hex sha2-256, 64 characters, no prefix.
    """
    return hashlib.sha256(data).hexdigest()


def decode(text: str) -> Any:
    """Decode canonical JSON stored in the model (trusted: it was produced by this module).

    :param text: canonical JSON text.
    :return: a fresh, mutable copy of the value (callers may change it freely).
    """
    return json.loads(text, parse_int=_int_or_double)


def _int_or_double(text: str) -> "int | float":
    # RFC 8785 writes an integral double such as 1e16 without exponent; beyond 2**53-1 it
    # must come back as the double it was, or re-canonicalising would fail.
    value = int(text)
    return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else float(value)
