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

"""The fast construction path of parse_tool builds the same values as the dataclass does."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mech_catalogue_core.manifest import parse_tool as pt
from mech_catalogue_core.model.limits import (
    Limits,
)
from mech_catalogue_core.model.tool import (
    Argument,
    Tool,
)


def test_new_argument_sets_every_field_in_order() -> None:
    """new_argument must list every Argument field: a new field would be left unset."""
    names = [f.name for f in dataclasses.fields(Argument)]
    assert names == [
        "identifier",
        "type",
        "schema_json",
        "required",
        "default_json",
        "description",
    ]
    built = pt.new_argument("a", "int", '{"type":"integer"}', False, "1", "d")
    assert built == Argument("a", "int", '{"type":"integer"}', False, "1", "d")


@given(
    ident=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True),
    term=st.sampled_from(["int", "str", "hexAddress", "list[str]", "any"]),
    required=st.booleans(),
    default=st.none() | st.text(max_size=5),
    description=st.text(max_size=10),
)
def test_new_argument_equals_dataclass(
    ident: str, term: str, required: bool, default: object, description: str
) -> None:
    """Equal, same hash, same repr, and still frozen, as the dataclass constructor gives."""
    fast = pt.new_argument(
        ident, term, "{}", required, default, description  # type: ignore[arg-type]
    )
    slow = Argument(ident, term, "{}", required, default, description)  # type: ignore[arg-type]
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.type = "str"  # type: ignore[misc]


def test_parse_argument_result_is_a_plain_argument() -> None:
    """A parsed argument with a default and an enum matches one built field by field."""
    found: list = []
    item = {
        "identifier": "mode",
        "type": "enum",
        "enum": ["fast", "slow"],
        "default": "fast",
    }
    arg = pt.parse_argument(item, "/t/arguments/0", Limits(), found)
    assert not found and arg is not None
    assert arg == Argument("mode", arg.type, arg.schema_json, False, '"fast"', "")
    assert arg.required is False and arg.default_json == '"fast"'


def test_tool_fields_list_every_tool_field_in_order() -> None:
    """new_tool sets slots by TOOL_FIELDS: a field added to Tool must be added there."""
    assert pt.TOOL_FIELDS == tuple(f.name for f in dataclasses.fields(Tool))


def test_parsed_tool_equals_one_built_by_the_dataclass() -> None:
    """Every field of a parsed tool, problems included, as the dataclass would hold them."""
    meta = {
        "name": "t",
        "description": "Does t.",
        "input": {"type": "text", "description": "The prompt", "extra_key": 1},
        "output": {"type": "object", "description": "The answer"},
        "arguments": [{"identifier": "n", "type": "int"}],
        "examples": [{"n": 1}],
        "unknown_field": True,
    }
    tool, found = pt.parse_tool("t", meta, "/toolMetadata/t", Limits())
    rebuilt = Tool(**{f: getattr(tool, f) for f in pt.TOOL_FIELDS})
    assert (
        tool == rebuilt and hash(tool) == hash(rebuilt) and repr(tool) == repr(rebuilt)
    )
    assert tool.input_type == "text" and tool.output_description == "The answer"
    assert tool.arguments[0].identifier == "n" and tool.arguments[0].type == "int"
    assert '"unknown_field":true' in tool.extra_json and tool.examples_json
    assert all(p.code != "INVALID_TOOL" for p in found)
    with pytest.raises(dataclasses.FrozenInstanceError):
        tool.name = "u"  # type: ignore[misc]
