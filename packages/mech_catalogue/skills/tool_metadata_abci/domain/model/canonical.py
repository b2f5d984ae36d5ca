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

Uses the ``rfc8785`` package (PyPI, pinned in requirements.txt) rather than hand-written
serialisation, so that every agent produces the same bytes for the same value. Inputs must
be I-JSON (RFC 7493): integers within +-(2**53-1), finite floats, no lone surrogates;
:mod:`..manifest.validation` rejects anything else before it reaches here.
"""

import hashlib
import json
from typing import Any

import rfc8785

MAX_SAFE_INTEGER = 2**53 - 1


class CanonicalizationError(ValueError):
    """Raised when a value cannot be put in RFC 8785 canonical form (not I-JSON)."""


def canonical_bytes(value: Any) -> bytes:
    """Serialise a JSON value in RFC 8785 canonical form.

    :param value: dicts (str keys), lists/tuples, str, int, float, bool, None.
    :return: the canonical UTF-8 bytes.
    :raises CanonicalizationError: if the value is not I-JSON.
    """
    try:
        return rfc8785.dumps(value)
    except (
        rfc8785.CanonicalizationError,
        rfc8785.IntegerDomainError,
        RecursionError,
    ) as exc:
        raise CanonicalizationError(str(exc)) from exc


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
            return json.dumps(value, ensure_ascii=False)
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


_MEMO: "dict[str, str]" = {}
_MEMO_SIZE = 8192


def _canonical_memo(key: str, value: Any) -> str:
    text = _MEMO.get(key)
    if text is None:
        text = canonical_bytes(value).decode("utf-8")
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()  # bounded; a cleared memo only costs speed, never correctness
        _MEMO[key] = text
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
