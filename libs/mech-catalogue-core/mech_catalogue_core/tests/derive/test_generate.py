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

"""Tests for domain.generate: manifest v1 from derived tool packages plus overrides."""

from pathlib import Path
from typing import Any, Dict

import pytest
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive import generate
from mech_catalogue_core.derive.generate import (
    GenerateError,
    generate_manifest,
)
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.manifest.validation import (
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
                    "style": {"type": "enum", "enum": ["plain", "loud"], "new": True},
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


def _refused(overrides: Any) -> Any:
    with pytest.raises(GenerateError) as raised:
        generate_manifest([_echo(), derive_package(PACKAGES / "typed_tool")], overrides)
    return raised.value.problems


@pytest.mark.parametrize(
    "overrides,code,path,named,suggested",
    [
        (  # a misspelt tool: nothing else in the file matters
            {"tools": {"echo-smal": {"description": "x"}}},
            generate.UNKNOWN_OVERRIDE_TOOL,
            "/tools/echo-smal",
            "echo-smal",
            "echo-small",
        ),
        (  # a misspelt argument of a known tool
            {"tools": {"transfer-erc20": {"arguments": {"ammount": {"type": "int"}}}}},
            generate.UNKNOWN_OVERRIDE_ARGUMENT,
            "/tools/transfer-erc20/arguments/ammount",
            "ammount",
            "amount",
        ),
        (  # excluding an argument that does not exist is a typo too
            {"tools": {"echo-large": {"arguments": {"temprature": {"exclude": True}}}}},
            generate.UNKNOWN_OVERRIDE_ARGUMENT,
            "/tools/echo-large/arguments/temprature",
            "temprature",
            "temperature",
        ),
        (  # `defaults` arguments must exist in some tool
            {"defaults": {"arguments": {"max_token": {"description": "x"}}}},
            generate.UNKNOWN_OVERRIDE_ARGUMENT,
            "/defaults/arguments/max_token",
            "max_token",
            "max_tokens",
        ),
        (  # a misspelt field of a tool entry
            {"tools": {"echo-small": {"descripton": "x"}}},
            generate.INVALID_OVERRIDES,
            "/tools/echo-small/descripton",
            "descripton",
            "description",
        ),
        (  # a misspelt field of an argument entry
            {"tools": {"echo-small": {"arguments": {"model": {"requird": True}}}}},
            generate.INVALID_OVERRIDES,
            "/tools/echo-small/arguments/model/requird",
            "requird",
            "required",
        ),
        (  # a misspelt top-level field
            {"nmae": "My Mech"},
            generate.INVALID_OVERRIDES,
            "/nmae",
            "nmae",
            "name",
        ),
    ],
)
def test_unknown_names_in_overrides_are_errors_with_the_closest_name(
    overrides: Any, code: str, path: str, named: str, suggested: str
) -> None:
    """A typo in an overrides file never reaches the manifest: one error names it and the fix."""
    problems = _refused(overrides)
    assert [(p.code, p.path) for p in problems] == [(code, path)]
    assert f"{named!r}" in problems[0].message
    assert f"Did you mean {suggested!r}?" in problems[0].message


def test_unknown_name_far_from_any_lists_the_known_ones() -> None:
    """No close match: the message lists what exists instead of guessing."""
    (problem,) = _refused({"tools": {"zzz": {}}})
    assert "Did you mean" not in problem.message
    assert "'echo-small'" in problem.message and "'transfer-erc20'" in problem.message


def test_every_unknown_name_is_reported_at_once() -> None:
    """Two typos, two errors: the author fixes the file in one go."""
    problems = _refused(
        {
            "tools": {
                "echo-smal": {},
                "echo-large": {"arguments": {"max_tokns": {"default": 1}}},
            }
        }
    )
    assert {p.path for p in problems} == {
        "/tools/echo-smal",
        "/tools/echo-large/arguments/max_tokns",
    }


def test_new_argument_is_added_only_when_declared_new() -> None:
    """`new: true` declares an argument derivation cannot see; it is typed as given."""
    document, _ = generate_manifest(
        [_echo()],
        {
            "tools": {
                "echo-small": {"arguments": {"seed": {"type": "int", "new": True}}}
            }
        },
    )
    small = {
        a["identifier"]: a for a in document["toolMetadata"]["echo-small"]["arguments"]
    }
    large = {
        a["identifier"] for a in document["toolMetadata"]["echo-large"]["arguments"]
    }
    assert small["seed"] == {"identifier": "seed", "type": "int", "required": False}
    assert "seed" not in large


def test_generate_warns_about_weak_manifests() -> None:
    """No name, no description and an `any` argument are warnings of the generated manifest."""
    _, warnings = generate_manifest(
        [_echo()],
        {"tools": {"echo-small": {"arguments": {"model": {"type": "any"}}}}},
    )
    codes = [(w.code, w.path) for w in warnings if w.code in WEAK]
    assert codes == [
        ("empty_manifest_name", "/name"),
        ("empty_manifest_description", "/description"),
        ("any_typed_argument", "/toolMetadata/echo-small"),
    ]
    _, named = generate_manifest(
        [_echo()], {"name": "Echo Mech", "description": "Echoes prompts."}
    )
    assert not [w for w in named if w.code in WEAK]


WEAK = {"empty_manifest_name", "empty_manifest_description", "any_typed_argument"}
