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

"""docs/manifest-spec.md stays true: its examples parse and validate, its tables match the code."""

import json
import re
from pathlib import Path

import pytest
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.types import (
    ALIASES,
    SCALAR_SCHEMAS,
    type_schema,
)

DOC = (Path(__file__).resolve().parent.parent / "docs" / "manifest-spec.md").read_text()
EXAMPLES = re.findall(r"```json\n(.*?)```", DOC, re.DOTALL)


def _first(pattern: str, text: str) -> str:
    match = re.match(pattern, text)
    assert match is not None, text
    return match.group(1)


def _table_rows(heading: str) -> list:
    section = DOC.split(heading, 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| `")]


def test_doc_has_examples() -> None:
    """Both examples are present."""
    assert len(EXAMPLES) == 2


@pytest.mark.parametrize("index", [0, 1])
def test_examples_parse_and_validate(index: int) -> None:
    """The examples are valid v1 manifests; the typed one has no problem at all."""
    data = EXAMPLES[index].encode()
    assert not validate_manifest(decode_json(data).value)
    result = parse_manifest(data)
    assert not result.errors
    expected = () if index == 1 else (P.UNTYPED_INPUT,)
    assert result.codes == expected


def test_every_problem_code_is_documented() -> None:
    """The problem table is the registry: every code of mech_catalogue_core/model/problems.py, its sentence, in order."""
    documented = [
        (_first(r"\| `([a-z0-9_]+)`", row), row.split(" | ", 1)[1][: -len(" |")])
        for row in _table_rows("## 9. Problems")
    ]
    assert documented == list(P.CODE_DESCRIPTIONS.items())


def test_vocabulary_table_matches_types() -> None:
    """Each documented term exists, with the documented JSON Schema and aliases."""
    rows = _table_rows("## 6. Type vocabulary")
    terms = {_first(r"\| `([^`]+)`", row) for row in rows}
    assert set(SCALAR_SCHEMAS) <= terms
    for row in rows:
        term = _first(r"\| `([^`]+)`", row)
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        if term in SCALAR_SCHEMAS and term != "enum":
            schema_text = _first(r"`([^`]+)`", cells[1]).replace("\\|", "|")
            assert json.loads(schema_text) == type_schema(term), term
        for alias in re.findall(r"`([^`]+)`", cells[2]):
            assert ALIASES[alias] in (term, "list[any]"), alias
