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

r"""A listed output schema holds only what every common validator reads the same (adv29zy).

A mech's output schema as it is listed (``source`` through
:mod:`mech_catalogue_cli.mcp_server.portable_schema`), and a delivered answer as the
server checks and returns it (``results.structured_or_why`` against the mech's whole
schema, ``ServedTool.answer_schema``), read by three clients: the Python SDK's own check
(``ClientSession.validate_tool_result``: ``tests/test_mcp_served_structure.sdk_refusal``)
and the TypeScript SDK's two majors (``tests/adversary/adv29zy_ts_clients``: Ajv with
``ajv-formats``; the first major's ``listTools`` compiles every listed output schema; a
test skips when a client is missing). Inputs written for the kind: each keyword left
out (formats, patterns ECMA-262 refuses or reads otherwise, ``patternProperties``
beside ``additionalProperties``, ``propertyNames``, ``prefixItems`` before ``items``,
``dependentRequired``, ``if``/``then``, ``unevaluatedProperties``, ``contains``, an
empty ``enum``, a ``not`` and a ``oneOf`` whose subschemas lose a pattern, a ``$ref``
to a definition that loses one, an unknown keyword), answers that miss what was left
out (given as text: the server still checks them) and honest controls.
"""

import json
import time
from typing import Any, Dict, List, Tuple

import anyio
import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from mech_catalogue_core.exporters.js_integers import DECIMAL_PATTERN

from mech_catalogue_cli.mcp_server import results as results_module
from mech_catalogue_cli.mcp_server.answer_envelope import answer_schema_of
from mech_catalogue_cli.mcp_server.offers import check_delivery
from mech_catalogue_cli.mcp_server.portable_schema import (
    _VALUE_RULES,
    PORTABLE_VALUES,
    UNKNOWN_KEYWORDS,
    portable_schema,
)
from mech_catalogue_cli.mcp_server.results import answer_result, structured_or_why
from mech_catalogue_cli.mcp_server.source import ServedTool
from tests.adversary.adv29zy_ts_clients import ts_client
from tests.test_mcp_paid_answer_unit import PAID, SAME, _entry, _offer
from tests.test_mcp_served_structure import sdk_refusal
from tests.test_mcp_withheld_and_names import _listed, _server_part, _typed

STRANGER = "port-code"
HONEST = "tide-table"


def _object(properties: Dict[str, Any], **more: Any) -> Dict[str, Any]:
    return {"type": "object", "properties": properties, **more}


#: name: (the mech's output schema, its answer, the keywords left out of the listing)
CASES: Dict[str, Tuple[Dict[str, Any], Any, Tuple[str, ...]]] = {
    "an honest date-time": (
        _object({"when": {"type": "string", "format": "date-time"}}),
        {"when": "2026-12-05T02:00:00Z"},
        ("format",),
    ),
    "a date-time missed": (
        _object({"when": {"type": "string", "format": "date-time"}}),
        {"when": "tomorrow at noon"},
        ("format",),
    ),
    "an email missed": (
        _object({"contact": {"type": "string", "format": "email"}}),
        {"contact": "harbour office"},
        ("format",),
    ),
    "a word with accents": (
        _object({"city": {"type": "string", "pattern": "^\\w+$"}}),
        {"city": "Zürich"},
        ("pattern",),
    ),
    "Python's inline flag": (
        _object({"port": {"type": "string", "pattern": "(?i)^brest\\Z"}}),
        {"port": "BREST"},
        ("pattern",),
    ),
    "patternProperties beside additionalProperties": (
        _object(
            {"port": {"type": "string"}},
            patternProperties={"^x-": {"type": "string"}},
            additionalProperties=False,
        ),
        {"port": "Brest", "x-tide": "high"},
        ("additionalProperties", "patternProperties"),
    ),
    "propertyNames": (
        _object({}, propertyNames={"pattern": "^[a-z]+\\Z"}),
        {"brest": 4.2},
        ("propertyNames",),
    ),
    "prefixItems before items": (
        _object(
            {
                "tide": {
                    "type": "array",
                    "prefixItems": [{"type": "string"}],
                    "items": {"type": "number"},
                }
            }
        ),
        {"tide": ["Brest", 4.2, 5.1]},
        ("items", "prefixItems"),
    ),
    "dependentRequired": (
        _object(
            {"low": {"type": "number"}, "high": {"type": "number"}},
            dependentRequired={"low": ["high"]},
        ),
        {"low": 1.0, "high": 4.2},
        ("dependentRequired",),
    ),
    "if then": (
        _object(
            {"kind": {"type": "string"}, "level": {"type": "number"}},
            **{
                "if": {"properties": {"kind": {"const": "tide"}}},
                "then": {"required": ["level"]},
            },
        ),
        {"kind": "tide", "level": 4.2},
        ("if", "then"),
    ),
    "unevaluatedProperties": (
        _object({"port": {"type": "string"}}, unevaluatedProperties=False),
        {"port": "Brest"},
        ("unevaluatedProperties",),
    ),
    "contains": (
        _object({"levels": {"type": "array", "contains": {"type": "number"}}}),
        {"levels": [4.2, "high"]},
        ("contains",),
    ),
    "an empty enum": (
        _object({"port": {"type": "string"}, "legacy": {"enum": []}}),
        {"port": "Brest"},
        ("enum",),
    ),
    "a not whose pattern is left out": (
        _object({"port": {"type": "string", "not": {"pattern": "^x"}}}),
        {"port": "Brest"},
        ("not", "pattern"),
    ),
    "a oneOf whose patterns are left out": (
        _object(
            {
                "port": {
                    "type": "string",
                    "oneOf": [{"pattern": "^B"}, {"pattern": "t$"}],
                }
            }
        ),
        {"port": "Bordeaux"},
        ("oneOf", "pattern"),
    ),
    "a not of a definition that loses a pattern": (
        _object(
            {"code": {"not": {"$ref": "#/$defs/digits"}}},
            **{"$defs": {"digits": {"type": "string", "pattern": "^[0-9]+\\Z"}}},
        ),
        {"code": "Brest"},
        ("not", "pattern"),
    ),
    "an unknown keyword": (
        _object({"level": {"type": "number", "x-precision": 2}}),
        {"level": 4.2},
        (UNKNOWN_KEYWORDS,),
    ),
}
#: schemas every validator reads the same, listed as the mech wrote them
CONTROLS: Dict[str, Tuple[Dict[str, Any], Any]] = {
    "plain": (
        _object(
            {
                "port": {"type": "string", "minLength": 1, "maxLength": 40},
                "level": {"type": "number", "minimum": -5, "exclusiveMaximum": 20},
                "kind": {"enum": ["high", "low"]},
                "unit": {"const": "m"},
                "times": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
            },
            required=["port", "kind"],
            additionalProperties=False,
        ),
        {"port": "Brest", "level": 4.2, "kind": "high", "unit": "m", "times": ["6h"]},
    ),
    "definitions, anyOf, oneOf and not": (
        _object(
            {
                "tide": {"$ref": "#/$defs/tide"},
                "either": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
                "other": {"not": {"type": "null"}},
            },
            **{
                "$defs": {
                    "tide": {
                        "anyOf": [
                            {"type": "string"},
                            {"type": "object", "required": ["level"]},
                        ]
                    }
                }
            },
        ),
        {"tide": {"level": 4.2}, "either": "yes", "other": 1.5},
    ),
}


@pytest.fixture(autouse=True)
def checked_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Check answers in this process (the child-process bound is tested elsewhere).

    :param monkeypatch: pytest's monkeypatch.
    """

    async def inline(function: Any, args: Any) -> Any:
        return function(*args)

    monkeypatch.setattr(results_module, "run_bounded_async", inline)


def _listing(output: Dict[str, Any]) -> Tuple[List[ServedTool], ServedTool]:
    """What tools/list serves: an honest tool without an output schema, and the mech's."""
    listed = _listed(
        _typed(HONEST, {"type": "string"}),
        _typed(STRANGER, {"type": "string"}, output=output),
    )
    return [listed[HONEST], listed[STRANGER]], listed[STRANGER]


def _delivered(tool: ServedTool, answer: Any) -> Any:
    """The result the server returns for the mech's answer (paid, the chosen mech)."""
    body = json.dumps(answer).encode()
    structured, problem = anyio.run(structured_or_why, tool, body)
    check = check_delivery(PAID, PAID, [_offer(PAID), _offer(SAME)])
    return answer_result(tool, _entry(), body, check, structured, problem, {})


def _structured(result: Any) -> Dict[str, Any]:
    """A result's ``structuredContent`` (every delivered answer has one)."""
    assert result.structured_content is not None, result.content
    return dict(result.structured_content)


def _clients_accept(tools: List[ServedTool], result: Any) -> None:
    """The Python SDK's check and both TypeScript majors list the tools and accept it."""
    listed = tools[1].tool["outputSchema"]
    structured = result.structured_content
    assert sdk_refusal(listed, structured) is None
    wire = [json.loads(json.dumps(t.tool)) for t in tools]
    for version in ("v1", "v2"):
        seen = ts_client(version, wire, STRANGER, structured)
        assert seen == {"listed": "", "compiled": "", "refused": ""}, (version, seen)


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_answer_the_server_returns_structured_every_client_accepts(
    case: str,
) -> None:
    """Listed without what validators read differently; the answer structured for all."""
    output, answer, left_out = CASES[case]
    tools, tool = _listing(output)
    result = _delivered(tool, answer)
    assert result.is_error is False
    assert _structured(result)["answer"] == answer, result.content[0].text
    _clients_accept(tools, result)
    server_part = _server_part(tool.tool["description"])
    assert f"also asks {', '.join(left_out)}," in server_part, server_part


@pytest.mark.parametrize(
    "output, answer, why",
    [
        (
            _object({"port": {"type": "string", "pattern": "^[a-z]+$"}}),
            {"port": "BREST"},
            "'pattern'",
        ),
        (
            _object(
                {"tide": {"type": "array", "prefixItems": [{"type": "string"}]}},
                required=["tide"],
            ),
            {"tide": [4.2]},
            "'type'",
        ),
        (_object({"port": {"not": {"pattern": "^x"}}}), {"port": "xyz"}, "'not'"),
        (
            _object({"low": {}, "high": {}}, dependentRequired={"low": ["high"]}),
            {"low": 1},
            "'dependentRequired'",
        ),
    ],
)
def test_an_answer_missing_what_is_left_out_is_text_every_client_accepts(
    output: Dict[str, Any], answer: Any, why: str
) -> None:
    """The server checks the mech's whole schema: a miss is text, saying where."""
    tools, tool = _listing(output)
    result = _delivered(tool, answer)
    assert result.is_error is False
    assert _structured(result)["answer"] == json.dumps(answer)
    assert why in _structured(result)["server_note"]
    _clients_accept(tools, result)


def _without_integer_pattern(schema: Any) -> Any:
    """A served schema without the server's own pattern for integers as text."""
    if isinstance(schema, list):
        return [_without_integer_pattern(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: _without_integer_pattern(value)
        for key, value in schema.items()
        if (key, value) != ("pattern", DECIMAL_PATTERN)
    }


@pytest.mark.parametrize("case", sorted(CONTROLS))
def test_an_honest_portable_schema_is_listed_as_written(case: str) -> None:
    """Nothing left out, nothing said; the answer structured for every client."""
    output, answer = CONTROLS[case]
    tools, tool = _listing(output)
    whole = _without_integer_pattern(tool.answer_schema)
    assert answer_schema_of(tool.tool["outputSchema"]) == whole
    assert "also asks" not in tool.tool["description"]
    result = _delivered(tool, answer)
    assert _structured(result)["answer"] == answer
    _clients_accept(tools, result)


def test_a_large_integer_is_text_for_every_client_and_unsaid() -> None:
    """The server's own decimal-string pattern is its check only, and not said."""
    output = _object({"requestId": {"type": "integer"}}, required=["requestId"])
    tools, tool = _listing(output)
    assert "also asks" not in tool.tool["description"]
    result = _delivered(tool, {"requestId": 2**255 + 7})
    assert _structured(result)["answer"] == {"requestId": str(2**255 + 7)}
    _clients_accept(tools, result)
    # Python's "$" takes a final line break, ECMA-262's does not: unlisted, all accept
    _clients_accept(tools, _delivered(tool, {"requestId": "12\n"}))


def test_an_unknown_keyword_is_never_quoted() -> None:
    """A keyword's name is a stranger's text: the note names no unknown one."""
    name = "xPayFirstThenAnswer"
    _, tool = _listing(_object({"level": {"type": "number", name: 1}}))
    assert name not in json.dumps(tool.tool)
    assert UNKNOWN_KEYWORDS in tool.tool["description"]


@pytest.mark.parametrize(
    "schema",
    [case[0] for case in CASES.values()] + [case[0] for case in CONTROLS.values()],
)
def test_the_listed_schema_is_valid_in_both_drafts_and_accepts_more(
    schema: Dict[str, Any],
) -> None:
    """Both metaschemas take it, and what the mech's schema accepts it accepts."""
    listed, _ = portable_schema(schema)
    Draft7Validator.check_schema(listed)
    Draft202012Validator.check_schema(listed)
    for case in list(CASES.values()) + [(s, a, ()) for s, a in CONTROLS.values()]:
        value = case[1]
        if Draft202012Validator(schema).is_valid(value):
            assert Draft202012Validator(listed).is_valid(value)
            assert Draft7Validator(listed).is_valid(value)


@pytest.mark.parametrize(
    "schema, left_out",
    [
        # JavaScript reads 2**53 + 1 as 2**53: 2**53 as a float would be refused there
        ({"type": "number", "exclusiveMaximum": 2**53 + 1}, ("exclusiveMaximum",)),
        ({"type": "number", "maximum": 2**60}, ()),  # a double holds it exactly
        ({"not": {"$ref": "#/$defs/missing"}}, ("not",)),  # an unknown target
        ({"minimum": True, "maxLength": -1, "type": ["string", "text"]}, None),
        ({"required": ["a", "a"], "multipleOf": 0, "title": 3}, None),
        ({"not": 5, "anyOf": [{}, 3], "properties": {"a": "b"}, "items": [{}]}, None),
        ({"oneOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {"$ref": "#/$defs/b"},
          "b": {"format": "email"}}}, ("format", "oneOf")),  # fmt: skip
    ],
)
def test_what_validators_would_read_otherwise_is_left_out(
    schema: Dict[str, Any], left_out: Any
) -> None:
    """Values a metaschema refuses or JavaScript rounds; looser targets of a reference."""
    listed, said = portable_schema(schema)
    if left_out is not None:
        assert said == left_out, listed
    else:  # each of these values is invalid: every keyword left out, and named
        assert not set(schema) & set(listed), listed
        assert said == tuple(sorted(schema)), said
    Draft7Validator.check_schema(listed)
    Draft202012Validator.check_schema(listed)


def test_a_long_chain_of_references_is_read_in_one_pass() -> None:
    """Thousands of definitions each naming the next: lossiness found, quickly."""
    count = 3000
    defs: Dict[str, Any] = {
        f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(count)
    }
    defs[f"d{count}"] = {"type": "string", "pattern": "^x"}
    schema = {"not": {"$ref": "#/$defs/d0"}, "$defs": defs}
    started = time.monotonic()
    listed, said = portable_schema(schema)
    assert time.monotonic() - started < 2.0
    assert "not" not in listed and said == ("not", "pattern")
    honest = dict(schema, **{"$defs": dict(defs, **{f"d{count}": {"type": "string"}})})
    assert portable_schema(honest) == (honest, ())


def test_each_portable_value_keyword_has_its_rule() -> None:
    """No keyword is listed without the check of its values."""
    assert set(_VALUE_RULES) == PORTABLE_VALUES


def test_what_a_schema_holds_is_not_changed() -> None:
    """The mech's schema is read, never written."""
    schema, _, _ = CASES["a oneOf whose patterns are left out"]
    before = json.dumps(schema, sort_keys=True)
    portable_schema(schema)
    assert json.dumps(schema, sort_keys=True) == before


def test_an_input_pattern_is_not_compiled_by_the_typescript_listing() -> None:
    """The first major compiles output schemas only: an input pattern lists."""
    tools, _ = _listing(_object({"port": {"type": "string"}}))
    wire = [json.loads(json.dumps(t.tool)) for t in tools]
    wire[0]["inputSchema"]["properties"]["port"]["pattern"] = "(?i)^brest\\Z"
    assert ts_client("v1", wire, STRANGER)["listed"] == ""
