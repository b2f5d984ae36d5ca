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

"""Every problem a mech author reads is one actionable sentence (issue #12, item 2).

Rules checked on the parser's problems plus the schema problems the CLI adds
(:func:`.validation.unreported`): no Python repr (``{'``), no JSON Schema keyword or
validator jargon, at most 240 characters, the JSON Pointer named, no fault reported twice.
"""

import copy
import json
import re
from typing import Any, Dict, Iterable, List, Tuple

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mech_catalogue_core.manifest.parsing import (
    parse_document,
    parse_manifest,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
    unreported,
    validate_manifest,
)
from mech_catalogue_core.model import problems as P

from ..hostile_corpus import Case, build_corpus

CORPUS = build_corpus()
MAX_MESSAGE = 240
JARGON = re.compile(
    r"\{'[^']*':|\['[^']*', '|\(\{|valid under|is not of type|does not match '|False schema|\boneOf\b|\banyOf\b"
    r"|\ballOf\b|`not`|'not'|\$ref|\$defs|propertyNames|additionalProperties|\bif\b.*\bthen\b"
)
TYPED: Dict[str, Any] = {
    "tools": [
        {
            "name": "sell-tx-omen",
            "kwargs": [
                {"identifier": "sender", "type": "hexAddress"},
                {"identifier": "amount", "type": "int"},
            ],
        }
    ]
}


def problems_shown(data: bytes) -> Tuple[P.Problem, ...]:
    """What ``validate`` shows for some bytes: decoding or parser problems, then the rest.

    :param data: manifest bytes.
    :return: the problems, as the CLI combines them.
    """
    decoded = decode_json(data)
    if not decoded.ok:
        return tuple(decoded.problems)
    parsed = parse_document(decoded.value)
    schema = validate_manifest(decoded.value) if isinstance(decoded.value, dict) else ()
    return tuple(parsed.problems) + unreported(parsed.problems, schema)


def strings_in(value: Any) -> List[str]:
    """Every string of a JSON value, keys included (the author's own words).

    :param value: a decoded JSON value.
    :return: its strings.
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [w for k, v in value.items() for w in [k, *strings_in(v)]]
    if isinstance(value, list):
        return [w for item in value for w in strings_in(item)]
    return []


def assert_actionable(
    problems: Tuple[P.Problem, ...], authored: Iterable[str] = ()
) -> None:
    """Check every message against the rules of this module.

    :param problems: problems of one manifest.
    :param authored: strings of the manifest itself: quoted back to the author (a tool
        named ``not`` is named so), they are not validator jargon.
    """
    messages = [p.message for p in problems]
    assert len(messages) == len(set(messages)), messages
    schema_paths = [p.path for p in problems if p.code == P.SCHEMA_VIOLATION]
    assert len(schema_paths) == len(set(schema_paths)), messages
    other_paths = {p.path for p in problems if p.code != P.SCHEMA_VIOLATION and p.path}
    for path in schema_paths:
        assert not any(
            path == o or path.startswith(o + "/") for o in other_paths
        ), messages
    for problem in problems:
        message = problem.message
        assert len(message) <= MAX_MESSAGE, message
        if problem.path:
            shown = problem.path[:60]
            assert shown in message or problem.code in _UNLOCATED, message
            message = message.replace(problem.path, "")
        for word in authored:
            message = message.replace(repr(word), "").replace(f"'{word}'", "")
        assert not JARGON.search(message), message


#: codes whose message names the tool or key instead of repeating the pointer
_UNLOCATED = frozenset({P.EMPTY_MANIFEST_NAME, P.EMPTY_MANIFEST_DESCRIPTION})


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_hostile_corpus_messages_are_actionable(case: Case) -> None:
    """Every case of the hostile corpus yields messages a mech author can act on."""
    shown = problems_shown(case.data)
    assert shown, case.name
    assert_actionable(shown)


def test_typed_kwargs_shape_is_valid_v1() -> None:
    """The seed's typed-kwargs shape in `tools` passes the published v1 schema as is."""
    assert not validate_manifest(TYPED)
    document = copy.deepcopy(TYPED)  # the module's example stays as the issue wrote it
    document.update({"name": "omen seller", "description": "Sells on Omen."})
    for kwarg in document["tools"][0]["kwargs"]:
        kwarg.update({"description": "d", "required": True})
    document["tools"][0]["kwargs"].append(
        {"identifier": "side", "type": "str", "enum": ["yes", "no"], "default": "yes"}
    )
    assert not validate_manifest(document)
    assert not parse_manifest(json.dumps(document).encode()).problems


@pytest.mark.parametrize(
    "document, path, words",
    [
        ({"tools": [{"name": "a", "kwargs": "x"}]}, "/tools/0/kwargs", "an array or"),
        ({"tools": [{"kwargs": []}]}, "/tools/0", "`name`"),
        ({"tools": [3]}, "/tools/0", "a string or an object, not an integer"),
        ({"tools": ["a\n"]}, "/tools/0", "tool name"),
        (
            {"tools": [{"name": "a", "kwargs": [{"identifier": "9x"}]}]},
            "/tools/0/kwargs/0/identifier",
            "keyword name",
        ),
        (
            {"tools": [{"name": "a", "kwargs": {"x": {"identifier": "y"}}}]},
            "/tools/0/kwargs/x/identifier",
            "remove it",
        ),
        ({"tools": ["a"], "specVersion": "2"}, "/specVersion", 'should be "1"'),
        (
            {
                "tools": ["a"],
                "toolMetadata": {"a": {"arguments": [{"identifier": "q"}]}},
            },
            "/toolMetadata/a/arguments/0",
            "`type`",
        ),
        (
            {"tools": ["a"], "toolMetadata": {"a": {"input": {"schema": {"type": 1}}}}},
            "/toolMetadata/a/input/schema/type",
            "should be",
        ),
        (
            {"tools": ["a"], "toolMetadata": {"a\u0007": {}}},
            "/toolMetadata/a\\u0007",
            "tool name",
        ),
    ],
)
def test_schema_messages_name_pointer_and_change(
    document: Any, path: str, words: str
) -> None:
    """Each kind of schema fault gives one sentence at its pointer saying what to change."""
    found = [p for p in validate_manifest(document) if p.path == path]
    assert len(found) == 1, validate_manifest(document)
    assert words in found[0].message and path in found[0].message
    assert_actionable(tuple(found))


def test_fault_seen_by_parser_and_schema_is_reported_once() -> None:
    """A number as tool name is the parser's problem; the schema's is not repeated."""
    shown = problems_shown(json.dumps({"tools": [7, "ok"]}).encode())
    assert [p.path for p in shown if p.path.startswith("/tools/0")] == ["/tools/0"]
    assert shown[0].code == P.INVALID_TOOL_NAME


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
_KWARG = st.fixed_dictionaries(
    {},
    optional={
        "identifier": _JSON | st.sampled_from(["x", "9", "a b", ""]),
        "type": _JSON | st.sampled_from(["int", "hexAddress", "list[str]", ""]),
        "required": _JSON,
        "default": _JSON,
        "enum": _JSON,
        "description": _JSON,
    },
)
_TOOL = st.fixed_dictionaries(
    {},
    optional={
        "name": _JSON | st.sampled_from(["t", "", " ", "t\x01"]),
        "kwargs": st.lists(_KWARG, max_size=3)
        | st.dictionaries(st.text(max_size=4), _JSON, max_size=2)
        | _JSON,
        "arguments": st.lists(_KWARG, max_size=3) | _JSON,
        "description": _JSON,
        "input": _JSON,
        "output": _JSON,
    },
)
_MANIFEST = st.fixed_dictionaries(
    {},
    optional={
        "tools": st.lists(_TOOL | st.text(max_size=6) | _JSON, max_size=4) | _JSON,
        "toolMetadata": st.dictionaries(st.text(max_size=6), _TOOL | _JSON, max_size=3)
        | _JSON,
        "name": _JSON,
        "description": _JSON | st.builds(json.dumps, _TOOL),
        "specVersion": _JSON,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_MANIFEST)
@example({"tools": ["not"], "toolMetadata": {}})  # a tool named like a keyword
def test_malformed_manifests_get_actionable_messages(document: Any) -> None:
    """Generated malformed manifests: never a repr, a keyword, a long or repeated message."""
    assert_actionable(
        problems_shown(json.dumps(document).encode()), set(strings_in(document))
    )
