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

"""The compiled first decode (orjson) never changes what decode_json gives: values and errors.

``decode_json`` takes orjson's value only when it cannot differ from the strict decode's;
these tests compare the two paths on inputs written to catch each way they could differ
(duplicate keys spelled differently, colons and quotes inside strings, long integers,
non-finite numbers, lone surrogates) and on generated JSON.
"""

import json
from typing import Any, Dict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.manifest import (
    validation,
)
from mech_catalogue_core.manifest.parse_tool import (
    SchemaMemo,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
)
from mech_catalogue_core.model import problems as P


def strict(data: bytes) -> Any:
    """decode_json with the compiled path switched off (the strict decode alone)."""
    with pytest.MonkeyPatch.context() as patch:
        undecided = validation._UNDECIDED  # pylint: disable=protected-access
        patch.setattr(validation, "_fast_decode", lambda _: undecided)
        return decode_json(data)


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": 1, "a": 2}',
        b'{"a": 1, "\\u0061": 2}',  # the same key, once escaped
        b'{"x": {"y": [1, {"k:": 1, "k:": 2}]}}',  # a colon in the duplicated key
        b'{"t": "a:b:c", "q": "say \\"x\\": y", "q": 3}',  # colons and quotes in strings
        b'{"\\\\": 1, "\\\\": 2}',  # escaped backslashes as the key
        b'{"d": {"e": 1}, "d": {"e": 1}}',  # equal values: still a duplicate
        b'[{"tools": ["a"], "toolMetadata": {"a": {}, "a": {"description": "x"}}}]',
    ],
)
def test_duplicate_keys_are_refused_on_the_fast_path_too(text: bytes) -> None:
    """Every spelling of a key written twice in one object is a duplicate_key error."""
    result = decode_json(text)
    assert result.value is None
    assert [p.code for p in result.problems] == [P.DUPLICATE_KEY]
    assert result.problems == strict(text).problems


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}',  # one key per object
        b'{"k": "a:b", "k2": "\\"k\\": 1, \\"k\\": 2"}',  # duplicates only inside a string
        b'{"\\\\": 1, "\\\\\\\\": 2}',  # one and two backslashes: two keys
        b'{"a:": 1, "a": 2}',
    ],
)
def test_objects_without_duplicates_decode_alike(text: bytes) -> None:
    """Keys that only look alike, or repeat across objects, decode as the strict path does."""
    result = decode_json(text)
    assert result.ok and result.value == strict(text).value == json.loads(text)


@pytest.mark.parametrize(
    "text, code",
    [
        (b"[9007199254740993]", P.NUMBER_OUT_OF_RANGE),  # 2**53 + 1: orjson keeps it
        (b"[18446744073709551617]", P.NUMBER_OUT_OF_RANGE),  # past 2**64: a double
        (b"[1e400]", P.NON_FINITE_NUMBER),
        (b"[-1e400]", P.NON_FINITE_NUMBER),
        (b"[NaN]", P.NON_FINITE_NUMBER),
        (b'["\\ud800"]', P.INVALID_STRING),
        (b'{"a": 1} {"b": 2}', P.INVALID_JSON),
        (b'["a\x01"]', P.INVALID_JSON),
    ],
)
def test_what_the_strict_path_refuses_is_refused_alike(text: bytes, code: str) -> None:
    """Numbers and strings I-JSON refuses get the strict path's error, word for word."""
    result = decode_json(text)
    assert [p.code for p in result.problems] == [code]
    assert result.problems == strict(text).problems


@pytest.mark.parametrize(
    "text",
    [b"[10000000000000000]", b"[9007199254740991]", b"[-9007199254740991, 1e16]"],
)
def test_long_integers_keep_the_strict_paths_value(text: bytes) -> None:
    """16 digits and more go to the strict path: exact integers, canonical doubles."""
    result = decode_json(text)
    assert result.ok and result.value == strict(text).value
    assert [type(v) for v in result.value] == [type(v) for v in strict(text).value]


def test_an_ordinary_manifest_takes_the_compiled_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the standard library's decoder made unusable, a manifest still decodes.

    :param monkeypatch: pytest's.
    """
    text = json.dumps(
        {"tools": ["a"], "toolMetadata": {"a": {"description": "x: y", "n": 1.5}}}
    ).encode()

    def unusable(*_: Any, **__: Any) -> Any:
        raise AssertionError("the strict decode ran")

    monkeypatch.setattr(validation.json, "loads", unusable)
    assert decode_json(text).value == {
        "tools": ["a"],
        "toolMetadata": {"a": {"description": "x: y", "n": 1.5}},
    }


KEYS = st.text(alphabet='ab:"\\\u00e9', max_size=4)
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | KEYS,
    lambda inner: st.lists(inner, max_size=3)
    | st.lists(st.tuples(KEYS, inner), max_size=4),  # pairs: keys may repeat
    max_leaves=20,
)


def _write(value: Any) -> str:
    """JSON text of a value whose objects are pair lists (so keys may repeat)."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        pairs = ", ".join(f"{json.dumps(k)}: {_write(v)}" for k, v in value)
        return "{" + pairs + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_write(v) for v in value) + "]"
    return json.dumps(value)


@settings(max_examples=500, deadline=None)
@given(VALUES, st.booleans())
def test_generated_json_decodes_as_the_strict_path_decodes(
    value: Any, ascii_only: bool
) -> None:
    """Generated text, duplicate keys and long integers included: same value, same errors."""
    text = _write(value)
    data = (text if ascii_only else text.replace("\\u00e9", "\u00e9")).encode()
    fast, slow = decode_json(data), strict(data)
    assert fast.problems == slow.problems
    assert fast.value == slow.value
    assert json.dumps(fast.value) == json.dumps(slow.value)  # int vs float too


@pytest.mark.parametrize(
    "first, second",
    [
        ({"minimum": 1}, {"minimum": 1.0}),
        ({"default": True}, {"default": 1}),
        ({"default": None}, {"default": float("nan")}),
        ({"const": None}, {"const": float("inf")}),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
        ({"maximum": 2**70}, {"maximum": float(2**70)}),
    ],
)
def test_schema_memo_keys_tell_distinct_values_apart(
    first: Dict[str, Any], second: Dict[str, Any]
) -> None:
    """The memo key (compact JSON by orjson, else a marked repr) differs for distinct values."""
    key_first, key_second = SchemaMemo.key(first), SchemaMemo.key(second)
    assert key_first is not None and key_second is not None
    assert key_first != key_second
    assert SchemaMemo.key(dict(first)) == key_first  # equal values, equal keys
