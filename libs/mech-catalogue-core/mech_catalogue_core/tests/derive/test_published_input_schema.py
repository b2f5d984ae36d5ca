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

"""What we publish, today's readers can read (issue #34 item 9).

mech-client's ``mechx tool schema``, the marketplace front end and the trader read a
tool's keyword arguments from ``input.schema``; ``generate`` writes it beside our own
``arguments``, describing the same arguments. An overrides text cut at a comma by YAML
is an error naming the stray field, and ``validate --strict`` warns about such a field
in a manifest. Tool packages and overrides written here.
"""

import copy
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive.generate import (
    GenerateError,
    generate_manifest,
)
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.manifest.validation import (
    quality_problems,
)
from mech_catalogue_core.model import problems as P

COMPONENT = (
    "name: weather\nauthor: test\nversion: 0.1.0\ntype: custom\n"
    "description: weather tools\nentry_point: weather.py\ncallable: run\n"
)
SOURCE = '''
ALLOWED_TOOLS = ["forecast-days"]


def run(**kwargs):
    """Forecast.

    :param city: the city to forecast.
    :param days: how many days ahead.
    """
    city = kwargs.get("city")
    if city is None:
        return "Error: no city.", None, None, None
    days: int = kwargs.get("days", 3)
    units = kwargs.get("units", "metric")
    return f"{city} {days} {units}", None, None, None
'''


@pytest.fixture(name="package")
def _package(tmp_path: Path) -> Any:
    (tmp_path / "component.yaml").write_text(COMPONENT)
    (tmp_path / "weather.py").write_text(SOURCE)
    return derive_package(tmp_path)


OVERRIDES = yaml.safe_load("""
name: Weather mech
description: Forecasts.
tools:
  forecast-days:
    arguments:
      units: {type: enum, enum: [metric, imperial], description: "Units, metric or imperial"}
""")


def _arguments(document: Dict[str, Any]) -> Dict[str, Any]:
    parsed = parse_document(document)
    assert parsed.manifest is not None and not parsed.errors
    return {
        t.name: [
            (a.identifier, a.type, a.required, a.default_json) for a in t.arguments
        ]
        for t in parsed.manifest.tools
    }


def test_input_schema_describes_the_same_arguments(package: Any) -> None:
    """A reader of ``input.schema`` alone gets our arguments: names, types, required, defaults."""
    document, _ = generate_manifest([package], OVERRIDES)
    forecast = document["toolMetadata"]["forecast-days"]
    schema = forecast["input"]["schema"]
    assert schema["type"] == "object" and "additionalProperties" not in schema
    assert set(schema["properties"]) == {"city", "days", "units"}
    assert schema["required"] == ["city"]
    assert schema["properties"]["units"]["enum"] == ["metric", "imperial"]
    assert schema["properties"]["days"]["default"] == 3
    assert schema["properties"]["city"]["description"] == "the city to forecast."
    only_schema = copy.deepcopy(document)
    for entry in only_schema["toolMetadata"].values():
        entry.pop("arguments")
    by_schema, by_arguments = _arguments(only_schema), _arguments(document)
    assert by_schema["forecast-days"] == by_arguments["forecast-days"]


def test_readers_of_arguments_read_what_they_read_before(package: Any) -> None:
    """``arguments`` comes first: the schema beside it changes nothing parsed."""
    document, _ = generate_manifest([package], OVERRIDES)
    without = copy.deepcopy(document)
    for entry in without["toolMetadata"].values():
        entry["input"].pop("schema", None)
    assert parse_document(document) == parse_document(without)


def test_an_untyped_tool_gets_no_input_schema(package: Any) -> None:
    """Every argument excluded: free text only, so no ``input.schema`` is written."""
    excluded = yaml.safe_load(
        "tools:\n  forecast-days:\n    arguments:\n"
        "      city: {exclude: true}\n      days: {exclude: true}\n"
        "      units: {exclude: true}\n"
    )
    document, _ = generate_manifest([package], excluded)
    assert "schema" not in document["toolMetadata"]["forecast-days"]["input"]


@pytest.mark.parametrize(
    "text,where",
    [
        (
            "defaults:\n  output: {type: object, description: The forecast, as JSON}\n",
            "/defaults/output/as JSON",
        ),
        (
            "tools:\n  forecast-days:\n    input: {description: A city, a country}\n",
            "/tools/forecast-days/input/a country",
        ),
        (
            "tools:\n  forecast-days:\n    output: {type: object, shema: {}}\n",
            "/tools/forecast-days/output/shema",
        ),
    ],
)
def test_a_stray_input_or_output_field_is_an_override_error(
    package: Any, text: str, where: str
) -> None:
    """Text cut at a comma (no value: the hint to quote it) or a misspelt field."""
    with pytest.raises(GenerateError) as raised:
        generate_manifest([package], yaml.safe_load(text))
    (problem,) = raised.value.problems
    assert (problem.code, problem.path) == (P.INVALID_OVERRIDES, where)
    expected = "quote it" if "description" in text else "Did you mean 'schema'?"
    assert expected in problem.message


def test_validate_strict_warns_about_a_stray_io_field() -> None:
    """A published manifest carrying the stray key: a warning at its pointer, nothing dropped."""
    document: Dict[str, Any] = {
        "name": "m",
        "description": "d",
        "tools": ["t"],
        "toolMetadata": {
            "t": {
                "description": "T.",
                "output": {
                    "type": "object",
                    "description": "The answer",
                    "as JSON": None,
                },
                "arguments": [{"identifier": "q", "type": "str"}],
            }
        },
    }
    parsed = parse_document(document)
    assert parsed.manifest is not None and not parsed.problems
    warned = [
        p for p in quality_problems(parsed.manifest) if p.code == P.UNKNOWN_IO_FIELD
    ]
    assert [p.path for p in warned] == ["/toolMetadata/t/output/as JSON"]
    assert "Quote the text" in warned[0].message
    document["toolMetadata"]["t"]["output"].pop("as JSON")
    assert not quality_problems(parse_document(document).manifest)  # type: ignore[arg-type]
