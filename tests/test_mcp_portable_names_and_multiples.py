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

"""Readings that hang on JavaScript's object model or number text are not listed (adv29zr2).

Ajv, as both majors of the TypeScript MCP SDK build it, tests a property as
``data[name] !== undefined`` (so every name ``Object.prototype`` has is "present" in
every object) and a multiple as ``q !== parseInt(q)`` (``parseInt`` reads ``1e+21`` as
1). So a property named as an ``Object.prototype`` member (in ``properties`` or
``required``) and ``multipleOf`` are left out of the listed output schema, said in the
server's note; the server still checks the mech's whole schema. Each name, optional and
required, and ``multipleOf`` with big and small numbers, read by the Python SDK's check
and both TypeScript majors (a test skips when a client is missing); honest controls
listed as written.
"""

import json
from typing import Any, Dict, List

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from mech_catalogue_cli.mcp_server import results as results_module
from mech_catalogue_cli.mcp_server.portable_schema import (
    INHERITED_NAMES,
    INHERITED_NAMES_SAID,
    portable_schema,
)
from tests.test_mcp_portable_schema import (
    _clients_accept,
    _delivered,
    _listing,
    _object,
    _structured,
)
from tests.test_mcp_withheld_and_names import _server_part


@pytest.fixture(autouse=True)
def checked_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Check answers in this process (the child-process bound is tested elsewhere).

    :param monkeypatch: pytest's monkeypatch.
    """

    async def inline(function: Any, args: Any) -> Any:
        return function(*args)

    monkeypatch.setattr(results_module, "run_bounded_async", inline)


def _delivered_to_all(output: Dict[str, Any], answer: Any) -> Dict[str, Any]:
    """Listed, answered, and accepted by every client: the ``structuredContent``."""
    tools, tool = _listing(output)
    result = _delivered(tool, answer)
    assert result.is_error is False
    _clients_accept(tools, result)
    return {
        "structured": _structured(result),
        "note": _server_part(tool.tool["description"]),
    }


@pytest.mark.parametrize("name", sorted(INHERITED_NAMES))
def test_an_answer_without_an_optional_inherited_name_is_structured_for_all(
    name: str,
) -> None:
    """``{"port": "Brest"}`` delivered structured, and every client accepts it."""
    output = _object({name: {"type": "string"}, "port": {"type": "string"}})
    output["required"] = ["port"]
    seen = _delivered_to_all(output, {"port": "Brest"})
    assert seen["structured"]["answer"] == {"port": "Brest"}
    assert INHERITED_NAMES_SAID in seen["note"]


@pytest.mark.parametrize("name", sorted(INHERITED_NAMES))
def test_a_required_inherited_name_is_checked_by_the_server(name: str) -> None:
    """Given, it is structured for all; missing or mistyped, the answer is text."""
    output = _object(
        {name: {"type": "string"}, "port": {"type": "string"}},
        required=[name, "port"],
        additionalProperties=False,
    )
    honest = {name: "Nantes", "port": "Brest"}
    seen = _delivered_to_all(output, honest)
    assert seen["structured"]["answer"] == honest
    assert "additionalProperties" in seen["note"]
    for answer, why in (
        ({"port": "Brest"}, "'required'"),
        ({name: 4.2, "port": "Brest"}, "'type'"),
    ):
        missed = _delivered_to_all(output, answer)["structured"]
        assert missed["answer"] == json.dumps(answer)
        assert why in missed["server_note"]


#: (multipleOf, type, answer, delivered structured): big quotients ``parseInt`` misreads,
#: small divisors a double cannot hold, and honest multiples
MULTIPLES: List[Any] = [
    (1, "number", 1e21, True),
    (0.5, "number", 1e21, True),
    (2, "integer", 1e22, True),
    (3, "number", 3e300, True),  # Python's float remainder is 0; parseInt reads 1
    (1e-8, "number", 3e-8, False),  # 3e-8 / 1e-8 is 2.9999999999999996
    (0.01, "number", 0.5, True),
    (2, "integer", 4, True),
    (2, "integer", 2**60, True),  # an unsafe integer: given as a decimal string
    (0.5, "number", 2.5, True),
]


@pytest.mark.parametrize("divisor, kind, value, structured", MULTIPLES)
def test_multiple_of_is_checked_by_the_server_only(
    divisor: Any, kind: str, value: Any, structured: bool
) -> None:
    """Listed without ``multipleOf`` (said); what the server delivers, all accept."""
    output = _object({"x": {"type": kind, "multipleOf": divisor}}, required=["x"])
    seen = _delivered_to_all(output, {"x": value})
    assert "multipleOf" in seen["note"]
    answer = seen["structured"]["answer"]
    if structured:
        assert answer in ({"x": value}, {"x": str(value)}), seen
    else:
        assert answer == json.dumps({"x": value})
        assert "'multipleOf'" in seen["structured"]["server_note"]


def test_a_multiple_missed_is_text_for_all() -> None:
    """3 is no multiple of 2: the server's check of the whole schema says so."""
    output = _object({"x": {"type": "integer", "multipleOf": 2}}, required=["x"])
    seen = _delivered_to_all(output, {"x": 3})
    assert seen["structured"]["answer"] == json.dumps({"x": 3})
    assert "'multipleOf'" in seen["structured"]["server_note"]


@pytest.mark.parametrize(
    "bound, value",
    [
        ({"exclusiveMinimum": 2**53}, 2**53 + 2),  # JavaScript would read 2**53
        ({"maximum": 2**53}, 2**53 + 1),
        ({"minimum": 1e300}, 1.5e300),
    ],
)
def test_a_bound_beyond_safe_integers_reads_the_same_for_all(
    bound: Dict[str, Any], value: Any
) -> None:
    """Unsafe integers reach clients as decimal strings; doubles compare alike."""
    output = _object({"x": {"type": "number", **bound}}, required=["x"])
    _delivered_to_all(output, {"x": value})


@pytest.mark.parametrize(
    "names",
    [
        ["prototype", "port"],
        ["Constructor", "to_string", "__proto", "proto__", "length", "name"],
    ],
)
def test_honest_names_are_listed_as_written(names: List[str]) -> None:
    """Names no ``Object.prototype`` has: nothing left out, nothing said."""
    schema = _object({n: {"type": "string"} for n in names}, required=names)
    assert portable_schema(schema) == (schema, ())
    seen = _delivered_to_all(schema, {n: "Brest" for n in names})
    assert seen["structured"]["answer"] == {n: "Brest" for n in names}
    assert "also asks" not in seen["note"]


def test_only_inherited_names_leave_empty_lists_valid_in_both_drafts() -> None:
    """Every property and required name inherited: listed empty, accepting more."""
    schema = _object(
        {"toString": {"type": "string"}, "valueOf": {"type": "number"}},
        required=["toString", "valueOf"],
    )
    schema["not"] = {"properties": {"constructor": {"const": 1}}}
    listed, said = portable_schema(schema)
    assert listed["properties"] == {} and listed["required"] == []
    assert "not" not in listed  # a looser subschema under "not" would refuse more
    assert said == tuple(sorted({INHERITED_NAMES_SAID, "not"}))
    Draft7Validator.check_schema(listed)
    Draft202012Validator.check_schema(listed)
    for value in ({}, {"toString": 1}, {"constructor": 1}):
        assert Draft202012Validator(listed).is_valid(value)
