"""Tests for domain.generate: manifest v1 from derived tool packages plus overrides."""

from pathlib import Path
from typing import Any, Dict

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.domain import generate
from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive import (
    derive_package,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.generate import (
    GenerateError,
    generate_manifest,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.parsing import (
    parse_document,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.validation import (
    validate_manifest,
)

PACKAGES = Path(__file__).resolve().parents[1] / "fixtures" / "tool_packages"


def _echo() -> Any:
    return derive_package(PACKAGES / "echo_tool")


def test_generated_manifest_round_trips_through_the_parser() -> None:
    """Typed arguments written by generate are read back identically by the parser."""
    package = _echo()
    document, warnings = generate_manifest([package])
    assert not validate_manifest(document)
    assert not [w for w in warnings if w.is_error]
    parsed = parse_document(document)
    assert parsed.manifest is not None
    tool = parsed.manifest.tools[0]
    expected = package.to_tools()[0]
    assert [a.to_dict() for a in tool.arguments] == [
        {**a.to_dict(), "schema": tool.arguments[i].schema}
        for i, a in enumerate(expected.arguments)
    ]
    assert document["tools"] == ["echo-small", "echo-large", "echo-legacy"]


def test_defaults_then_tool_overrides_apply_in_order() -> None:
    """`defaults` applies to every tool; a tool's own entry wins over it."""
    output: Dict[str, Any] = {
        "type": "object",
        "description": "The echo",
        "schema": {"type": "object", "properties": {"result": {"type": "string"}}},
    }
    overrides = {
        "defaults": {"output": output, "description": "Default text."},
        "tools": {
            "echo-small": {
                "description": "Small echo.",
                "arguments": {
                    "style": {"type": "enum", "enum": ["plain", "loud"]},
                    "temperature": {"description": "Overridden."},
                },
            }
        },
    }
    document, _ = generate_manifest([_echo()], overrides)
    small = document["toolMetadata"]["echo-small"]
    assert small["description"] == "Small echo."
    assert document["toolMetadata"]["echo-large"]["description"] == "Default text."
    assert small["output"]["schema"] == output["schema"]
    arguments = {a["identifier"]: a for a in small["arguments"]}
    assert arguments["style"] == {
        "identifier": "style",
        "type": "enum",
        "required": False,
        "enum": ["plain", "loud"],
    }
    assert arguments["temperature"]["description"] == "Overridden."
    assert arguments["temperature"]["default"] == 0.7  # untouched fields stay


@pytest.mark.parametrize(
    "overrides,code",
    [
        ([1], generate.INVALID_OVERRIDES),
        ({"tools": {"echo-small": "x"}}, generate.INVALID_OVERRIDES),
        ({"tools": {"echo-small": {"arguments": [1]}}}, generate.INVALID_OVERRIDES),
        (
            {"tools": {"echo-small": {"arguments": {"x": 1}}}},
            generate.INVALID_OVERRIDES,
        ),
        ({"name": 5}, "schema_violation"),
        ({"tools": {"echo-small": {"output": {"schema": "no"}}}}, "schema_violation"),
    ],
)
def test_invalid_results_raise_with_problems(overrides: Any, code: str) -> None:
    """Nothing invalid comes out: bad overrides or a schema-violating result raise."""
    with pytest.raises(GenerateError) as raised:
        generate_manifest([_echo()], overrides)
    assert code in {p.code for p in raised.value.problems}


def test_same_tool_in_two_packages_is_refused() -> None:
    """Two packages serving one name: an error naming both packages."""
    with pytest.raises(GenerateError) as raised:
        generate_manifest([_echo(), _echo()])
    problem = raised.value.problems[0]
    assert problem.code == generate.DUPLICATE_TOOL_ACROSS_PACKAGES
    assert "echo_tool" in problem.message and problem.path == "/toolMetadata/echo-small"


def test_excluding_every_tool_leaves_a_warning_not_a_crash() -> None:
    """An empty tool list is still a valid document; the parser warns about it."""
    excluded = {name: {"exclude": True} for name in _echo().tool_names}
    document, warnings = generate_manifest([_echo()], {"tools": excluded})
    assert not document["tools"] and "no_tools" in {w.code for w in warnings}
