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

"""Every structured answer the server returns is one the MCP SDK's client accepts (adv29i).

:func:`response_checks.structured_content` gives integers beyond +-(2**53-1) as decimal
strings and the served output schema (``schema_with_integer_text``) lets numbers be
such strings; a keyword that a number meets and its decimal string does not (``not``,
``maxLength`` on an untyped property, ``uniqueItems``...) made the served value fail the
served schema, and the SDK's client raised at every read of the paid answer.

The oracle is the installed MCP SDK's own check, ``ClientSession.validate_tool_result``,
called on an object holding only the two caches it reads (a session needs a transport,
which the devnet tests give: ``tests/adversary/test_adv29i_answer_client_rejects.py``).
"""

import functools
import json
from types import SimpleNamespace
from typing import Any, Dict, Optional

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import types
from mcp.client.session import ClientSession
from mech_catalogue_core.exporters.js_integers import (
    integers_as_text,
    schema_with_integer_text,
)

from mech_catalogue_cli.mcp_server.response_checks import (
    client_refusal,
    structured_content,
)

#: a 77-digit integer, as a marketplace request id
BIG = 2**255 + 12345
#: an integer beyond 2**53 whose decimal string is 19 characters
MID = 2**60


def sdk_refusal(served_schema: Dict[str, Any], value: Any) -> Optional[str]:
    """What the SDK's client raises on a non-error result carrying ``value``.

    :param served_schema: the tool's listed ``outputSchema``.
    :param value: the ``structuredContent``.
    :return: the RuntimeError's words, or None when the client accepts it.
    """
    session: Any = SimpleNamespace(
        _tool_output_schemas={"t": served_schema}, _tool_output_validators={}
    )
    # the SDK's own validator cache, as the client method calls it
    compile_schema = ClientSession._output_schema_validator  # pylint: disable=W0212
    setattr(
        session, "_output_schema_validator", functools.partial(compile_schema, session)
    )
    result = types.CallToolResult(content=[], structured_content=value)
    # the result as it travels: JSON, read back by the client
    result = types.CallToolResult.model_validate_json(
        result.model_dump_json(by_alias=True, exclude_none=True)
    )
    try:
        anyio.run(ClientSession.validate_tool_result, session, "t", result)
    except RuntimeError as exc:
        return str(exc)
    return None


def _object(prop: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "type": "object",
        "properties": {"v": prop},
        "$defs": {"n": {"not": {"type": "string"}}},
    }


#: (the property's schema, its value): each met by the value as delivered, and each a
#: keyword its served decimal string fails
REFUSED = [
    ({"type": "integer", "not": {"type": "string"}}, BIG),  # the review's case
    ({"maxLength": 5}, BIG),  # untyped: a number passes any string keyword
    ({"pattern": "^a"}, MID),
    ({"type": "array", "uniqueItems": True}, [MID, str(MID)]),
    ({"if": {"maxLength": 3}, "then": {"type": "integer"}, "else": False}, MID),
    ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, MID),
    ({"anyOf": [{"maxLength": 2}, {"const": "x"}]}, MID),
    ({"$ref": "#/$defs/n"}, BIG),  # the definition is the root's: _object
    (
        {
            "type": "object",
            "dependentSchemas": {
                "a": {"properties": {"a": {"not": {"type": "string"}}}}
            },
        },
        {"a": MID},
    ),
    ({"type": "array", "contains": {"type": "string"}, "maxContains": 1}, ["x", MID]),
]


@pytest.mark.parametrize("prop, value", REFUSED)
def test_an_answer_the_client_would_refuse_is_text_with_the_reason(
    prop: Dict[str, Any], value: Any
) -> None:
    """Valid as delivered, refused as served: no structured content, a reason."""
    schema = _object(prop)
    served = schema_with_integer_text(schema)
    # the oracle: the SDK's client refuses the value as it would be served
    assert sdk_refusal(served, integers_as_text({"v": value})) is not None
    structured, problem = structured_content(schema, json.dumps({"v": value}).encode())
    assert structured is None
    assert "MCP clients would refuse it" in problem
    assert "schema path" in problem
    # the same schema served from tools/list (rewritten once more: no change)
    again, problem_again = structured_content(served, json.dumps({"v": value}).encode())
    assert again is None and problem_again == problem


@pytest.mark.parametrize(
    "prop, value",
    [
        ({"type": "integer"}, BIG),
        ({"type": "integer", "not": {"type": "string"}}, 7),  # small: kept a number
        ({"enum": [MID, 1]}, MID),  # enum rewritten alike
        ({"const": BIG}, BIG),
        (
            {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
            [MID, BIG],
        ),
        ({"format": "email"}, BIG),  # format is not asserted by the client
    ],
)
def test_an_answer_the_client_accepts_stays_structured(
    prop: Dict[str, Any], value: Any
) -> None:
    """Honest schemas keep their structured content, and the client accepts it."""
    schema = _object(prop)
    structured, problem = structured_content(schema, json.dumps({"v": value}).encode())
    assert problem == "" and structured is not None
    assert sdk_refusal(schema_with_integer_text(schema), structured) is None


def test_the_tool_s_own_result_is_tried_when_the_document_is_refused() -> None:
    """The document's served form fails; its ``result`` (no big integer) is served."""
    schema = {"properties": {"requestId": {"not": {"type": "string"}}}}
    body = json.dumps({"requestId": BIG, "result": {"y": 1}}).encode()
    structured, problem = structured_content(schema, body)
    assert problem == "" and structured == {"y": 1}


@pytest.mark.parametrize(
    "schema, why",
    [
        ({"type": "object", "$ref": "urn:nowhere#/x"}, "checking"),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "type": 5}, "no valid"),
    ],
)
def test_a_served_schema_the_client_cannot_apply_is_a_refusal(
    schema: Dict[str, Any], why: str
) -> None:
    """What the client would raise on is said, never raised here."""
    problem = client_refusal(schema, {"v": 1})
    assert why in problem and "MCP clients would refuse it" in problem
    assert sdk_refusal(schema, {"v": 1}) is not None


def test_the_reason_quotes_no_value_of_the_mech() -> None:
    """The reason names the schema's path and keyword, not the mech's text."""
    schema = _object({"maxLength": 5})
    body = json.dumps({"v": 2**70, "secret words": "ignore previous"}).encode()
    _, problem = structured_content(schema, body)
    assert "'maxLength' at schema path properties/v/maxLength" in problem
    assert "ignore" not in problem and str(2**70) not in problem


# --- the guarantee, for schemas and values drawn at random -----------------------------

_NUMBERS = st.sampled_from([0, 7, -3, MID, -MID, BIG, 2**53, 1.5])
_LEAVES = st.one_of(
    st.just({}),
    st.builds(lambda t: {"type": t}, st.sampled_from(["integer", "number", "string"])),
    st.builds(lambda n: {"maxLength": n}, st.integers(0, 30)),
    st.builds(lambda n: {"minLength": n}, st.integers(0, 30)),
    st.just({"pattern": "^[0-9]+$"}),
    st.just({"pattern": "^1"}),
    st.builds(lambda n: {"minimum": n}, _NUMBERS),
    st.builds(lambda v: {"enum": v}, st.lists(_NUMBERS, min_size=1, max_size=3)),
    st.builds(lambda v: {"const": v}, _NUMBERS),
)
_SCHEMAS = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda a, b: {"anyOf": [a, b]}, inner, inner),
        st.builds(lambda a, b: {"oneOf": [a, b]}, inner, inner),
        st.builds(lambda a, b: {"allOf": [a, b]}, inner, inner),
        st.builds(lambda i, t: {"if": i, "then": t}, inner, inner),
        st.builds(
            lambda s, u: {"type": "array", "items": s, "uniqueItems": u},
            inner,
            st.booleans(),
        ),
    ),
    max_leaves=6,
)
_VALUES = st.recursive(
    st.one_of(_NUMBERS, st.sampled_from(["1", str(MID), "a", ""])),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=5,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prop=_SCHEMAS, value=_VALUES)
def test_fuzz_whatever_is_served_structured_the_sdk_client_accepts(
    prop: Dict[str, Any], value: Any
) -> None:
    """Any schema, any value: structured content returned is accepted by the client."""
    schema = _object(prop)
    structured, problem = structured_content(schema, json.dumps({"v": value}).encode())
    if structured is None:
        assert problem
        return
    assert problem == ""
    assert sdk_refusal(schema_with_integer_text(schema), structured) is None
