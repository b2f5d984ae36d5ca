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

"""The argument type vocabulary of manifest v1, and its mapping to JSON Schema 2020-12.

Terms (see docs/manifest-spec.md for the table)::

    int float bool str uint256 hexAddress bytes32 hexBytes url dict enum any
    list[T]  dict[T] (object whose values are T)  optional[T] (T or null)

``hexAddress`` and ``int`` are the names the project's seed document uses in its typed
``kwargs`` proposal; common aliases (``integer``, ``string``, ``address``, ``text``...) are
accepted on input and normalised to the terms above. ``uint256`` is a decimal string,
because I-JSON (RFC 7493) integers stop at 2**53-1 and on-chain amounts do not.
"""

import re
from typing import Any, Dict, List, Optional

from mech_catalogue_core.model.memo import (
    bounded_memo,
)

ANY = "any"
MAX_TYPE_LENGTH = 200
MAX_TYPE_NESTING = 8
#: entries of the normalised-term memo (a term is at most MAX_TYPE_LENGTH characters)
TYPE_MEMO_ENTRIES = 4096
#: characters a memoised term and its normal form may hold together
TYPE_MEMO_CHARS = 1 << 10

_HEX_ADDRESS = "^0x[0-9a-fA-F]{40}$"
_BYTES32 = "^0x[0-9a-fA-F]{64}$"
_HEX_BYTES = "^0x([0-9a-fA-F]{2})*$"
_UINT256 = "^(0|[1-9][0-9]{0,77})$"

#: Scalar terms and their JSON Schema.
SCALAR_SCHEMAS: Dict[str, Dict[str, Any]] = {
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "uint256": {"type": "string", "pattern": _UINT256},
    "hexAddress": {"type": "string", "pattern": _HEX_ADDRESS},
    "bytes32": {"type": "string", "pattern": _BYTES32},
    "hexBytes": {"type": "string", "pattern": _HEX_BYTES},
    "url": {"type": "string", "format": "uri"},
    "dict": {"type": "object"},
    "enum": {},
    ANY: {},
}

#: Accepted spellings and the term they mean.
ALIASES: Dict[str, str] = {
    "integer": "int",
    "number": "float",
    "double": "float",
    "boolean": "bool",
    "string": "str",
    "text": "str",
    "address": "hexAddress",
    "hexaddress": "hexAddress",
    "bytes": "hexBytes",
    "hexbytes": "hexBytes",
    "uri": "url",
    "object": "dict",
    "list": "list[any]",
    "array": "list[any]",
    "uint": "uint256",
}

_GENERIC = re.compile(r"^(list|dict|optional)\[(.+)\]$")


def normalise_type(term: Any) -> Optional[str]:
    """Normalise a type term from a manifest.

    :param term: the manifest's ``type`` value.
    :return: the vocabulary term (e.g. ``"list[hexAddress]"``), or None when unknown.
    """
    if not isinstance(term, str) or len(term) > MAX_TYPE_LENGTH:
        return None
    return _normalise_text(term)


@bounded_memo(TYPE_MEMO_ENTRIES, TYPE_MEMO_CHARS)
def _normalise_text(term: str) -> Optional[str]:
    # manifests repeat a few dozen type terms: each is normalised once
    return _normalise(term.strip(), 0)


def _normalise(term: str, depth: int) -> Optional[str]:
    if depth > MAX_TYPE_NESTING:
        return None
    if term in SCALAR_SCHEMAS:
        return term
    alias = ALIASES.get(term) or ALIASES.get(term.lower())
    if alias is not None:
        return alias
    match = _GENERIC.match(term)
    if match is None:
        return None
    inner = _normalise(match.group(2).strip(), depth + 1)
    return None if inner is None else f"{match.group(1)}[{inner}]"


def type_schema(term: str, enum_values: Optional[List[Any]] = None) -> Dict[str, Any]:
    """JSON Schema (2020-12) for a normalised vocabulary term.

    :param term: a term returned by :func:`normalise_type`.
    :param enum_values: the allowed values, for ``enum``.
    :return: a fresh JSON Schema dict (``{}`` for ``any``).
    :raises ValueError: when ``term`` is not a normalised term.
    """
    if term == "enum":
        return {"enum": list(enum_values)} if enum_values else {}
    if term in SCALAR_SCHEMAS:
        return dict(SCALAR_SCHEMAS[term])
    match = _GENERIC.match(term)
    if match is None:
        raise ValueError(f"{term!r} is not a type of the manifest vocabulary")
    kind, inner = match.group(1), type_schema(match.group(2))
    if kind == "list":
        return {"type": "array", "items": inner}
    if kind == "dict":
        return {"type": "object", "additionalProperties": inner}
    return {"anyOf": [inner, {"type": "null"}]}


_JSON_TYPE_TERMS = {
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "object": "dict",
    "string": "str",
}
_PATTERN_TERMS = {
    _HEX_ADDRESS: "hexAddress",
    _BYTES32: "bytes32",
    _HEX_BYTES: "hexBytes",
    _UINT256: "uint256",
}


def infer_type(schema: Any) -> str:
    """Best vocabulary term for a JSON Schema a manifest gave (e.g. in ``input.schema``).

    :param schema: a JSON Schema (any JSON value; non-objects give ``any``).
    :return: a normalised term; ``any`` when nothing more precise fits.
    """
    return _infer(schema, 0)


def _infer(  # pylint: disable=too-many-return-statements
    schema: Any, depth: int
) -> str:
    if not isinstance(schema, dict) or depth > MAX_TYPE_NESTING:
        return ANY
    if "enum" in schema:
        return "enum"
    json_type = schema.get("type")
    if json_type == "string":
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and pattern in _PATTERN_TERMS:
            return _PATTERN_TERMS[pattern]
        return "url" if schema.get("format") == "uri" else "str"
    if json_type == "array":
        return f"list[{_infer(schema.get('items'), depth + 1)}]"
    if isinstance(json_type, str) and json_type in _JSON_TYPE_TERMS:
        return _JSON_TYPE_TERMS[json_type]
    return ANY
