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

"""What withholds a tool and what is only dropped (issue #34 items 2 and 3).

docs/manifest-spec.md section 9 has the table, field by field: a field of a tool object
with the wrong JSON type is dropped with a ``wrong_type`` error that says "it was
ignored", and the tool is offered without it; only faults that leave the tool's call
ambiguous withhold it. An output schema that cannot be made self-contained (a reference
that resolves nowhere) is dropped whole, reported at the schema's own pointer, never
served with the broken part patched. Inputs written here, one per field.
"""

import json
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.manifest.parsing import (
    ParseResult,
    parse_manifest,
)
from mech_catalogue_core.model import problems as P

GOOD_ARGUMENTS = [
    {"identifier": "city", "type": "str", "description": "City to forecast."},
    {"identifier": "days", "type": "int", "required": False, "default": 3},
]


def _forecast(**fields: Any) -> Dict[str, Any]:
    """A tool object written for these tests; ``fields`` replace or add its fields."""
    tool: Dict[str, Any] = {
        "name": "forecast",
        "description": "Weather forecast for a city.",
        "input": {"type": "text", "description": "The request"},
        "output": {"type": "object", "description": "The forecast"},
        "arguments": GOOD_ARGUMENTS,
    }
    tool.update(fields)
    return tool


def _parse(meta: Any, other: bool = True) -> ParseResult:
    metadata: Dict[str, Any] = {"forecast": meta}
    if other:
        metadata["echo"] = {"description": "Echo.", "arguments": GOOD_ARGUMENTS[:1]}
    document = {
        "name": "weather mech",
        "description": "Forecasts.",
        "tools": list(metadata),
        "toolMetadata": metadata,
    }
    return parse_manifest(json.dumps(document).encode())


def _offered(result: ParseResult) -> List[str]:
    assert result.manifest is not None
    return [t.name for t in result.manifest.tools]


# (case, tool object, pointer of the dropped field)
DROPPED_FIELDS = [
    ("description null", _forecast(description=None), "/description"),
    ("description a number", _forecast(description=12.5), "/description"),
    (
        "description an array",
        _forecast(description=["Weather", "forecast"]),
        "/description",
    ),
    ("input a string", _forecast(input="text"), "/input"),
    ("input.type null", _forecast(input={"type": None}), "/input/type"),
    (
        "input.description an object",
        _forecast(input={"description": {"en": "x"}}),
        "/input/description",
    ),
    ("output an array", _forecast(output=["object"]), "/output"),
    ("output.type a boolean", _forecast(output={"type": True}), "/output/type"),
    (
        "output.description null",
        _forecast(output={"description": None}),
        "/output/description",
    ),
    ("examples an object", _forecast(examples={"city": "Oslo"}), "/examples"),
    ("arguments a string", _forecast(arguments="city: str, days: int"), "/arguments"),
    ("kwargs a number", {"description": "Forecast.", "kwargs": 7}, "/kwargs"),
    (
        "required a string",
        _forecast(arguments=[{"identifier": "city", "type": "str", "required": "yes"}]),
        "/arguments/0/required",
    ),
    (
        "argument description null",
        _forecast(
            arguments=[{"identifier": "city", "type": "str", "description": None}]
        ),
        "/arguments/0/description",
    ),
]


@pytest.mark.parametrize(
    "meta,where", [c[1:] for c in DROPPED_FIELDS], ids=[c[0] for c in DROPPED_FIELDS]
)
def test_a_wrong_typed_optional_field_is_dropped_not_the_tool(
    meta: Dict[str, Any], where: str
) -> None:
    """The field is ignored, as the message says, and the tool is still offered."""
    result = _parse(meta)
    pointer = "/toolMetadata/forecast" + where
    wrong = [p for p in result.problems if p.code == P.WRONG_TYPE]
    assert [p.path for p in wrong] == [pointer]
    assert wrong[0].is_error  # the author must fix it: validate fails, publish refuses
    assert "ignored" in wrong[0].message or "taken as" in wrong[0].message
    assert _offered(result) == ["forecast", "echo"]
    assert P.TOOL_WITHHELD not in result.codes


def test_the_tool_keeps_its_other_fields_when_one_is_dropped() -> None:
    """A null description leaves the arguments, output and examples as declared."""
    result = _parse(_forecast(description=None, examples=[{"city": "Oslo"}]))
    assert result.manifest is not None
    tool = result.manifest.tools[0]
    assert tool.description == ""
    assert [a.identifier for a in tool.arguments] == ["city", "days"]
    assert tool.output_type == "object" and len(tool.examples_json) == 1


def test_metadata_that_is_not_an_object_leaves_the_name() -> None:
    """``toolMetadata[name]`` null: the tool is offered by name only, as its message says."""
    result = _parse(None)
    assert _offered(result) == ["forecast", "echo"]
    invalid = [p for p in result.problems if p.code == P.INVALID_TOOL]
    assert len(invalid) == 1 and "only the name is kept" in invalid[0].message


def test_an_argument_declared_twice_still_withholds_and_says_so() -> None:
    """Which declaration the mech reads is unknown: the tool is withheld, in those words."""
    twice = [
        {"identifier": "days", "type": "int"},
        {"identifier": "days", "type": "str"},
    ]
    result = _parse(_forecast(arguments=twice))
    assert _offered(result) == ["echo"]
    duplicate = [p for p in result.problems if p.code == P.DUPLICATE_ARGUMENT]
    assert "not offered" in duplicate[0].message
    assert "dropped" not in duplicate[0].message


def test_message_and_fate_agree_for_every_problem() -> None:
    """No problem of an offered tool says it is withheld; every withheld tool is told why."""
    cases = [meta for _, meta, _ in DROPPED_FIELDS] + [
        None,
        _forecast(arguments=[{"identifier": "a"}, {"identifier": "a"}]),
    ]
    for meta in cases:
        result = _parse(meta, other=False)
        assert result.manifest is not None
        offered = bool(result.manifest.tools)
        withholding = [p for p in result.problems if P.withholds(p)]
        assert offered == (not withholding), (meta, result.problems)
        for problem in result.problems:
            if offered:
                assert "not offered" not in problem.message, problem
            if P.withholds(problem):  # a withholding error never claims a mere drop
                for words in ("ignored", "was dropped", "is kept", "taken as"):
                    assert words not in problem.message, problem


# --- item 3: an output schema that does not resolve is dropped whole ---------------------

DANGLING_OUTPUTS = [
    (
        "missing $defs entry",
        {
            "type": "object",
            "properties": {"temp": {"$ref": "#/$defs/Celsius"}},
            "$defs": {"Kelvin": {"type": "number"}},
        },
    ),
    (
        "remote reference",
        {
            "type": "object",
            "properties": {
                "days": {
                    "type": "array",
                    "items": {"$ref": "https://example.org/day.json"},
                }
            },
        },
    ),
    (
        "anchor that does not exist",
        {"type": "object", "properties": {"wind": {"$ref": "#speed"}}},
    ),
]


@pytest.mark.parametrize(
    "schema", [c[1] for c in DANGLING_OUTPUTS], ids=[c[0] for c in DANGLING_OUTPUTS]
)
def test_an_output_schema_with_a_dangling_reference_is_dropped(schema: Any) -> None:
    """No output schema is served; the problem sits at the schema's own pointer."""
    result = _parse(_forecast(output={"type": "object", "schema": schema}))
    assert result.manifest is not None
    tool = result.manifest.tools[0]
    assert tool.name == "forecast" and tool.output_schema_json is None
    where = "/toolMetadata/forecast/output/schema"
    found = [p for p in result.problems if p.code == P.INVALID_OUTPUT_SCHEMA]
    assert [(p.path, p.severity) for p in found] == [(where, P.SEVERITY_ERROR)]
    assert "dropped" in found[0].message and "does not resolve" in found[0].message


def test_a_resolving_output_schema_is_kept_inlined() -> None:
    """The happy path: a reference into the schema's own $defs is inlined and served."""
    schema = {
        "type": "object",
        "properties": {"temp": {"$ref": "#/$defs/Celsius"}},
        "$defs": {"Celsius": {"type": "number"}},
    }
    result = _parse(_forecast(output={"type": "object", "schema": schema}))
    assert result.manifest is not None and not result.errors
    served = json.loads(result.manifest.tools[0].output_schema_json or "null")
    assert served["properties"]["temp"] == {"type": "number"}
