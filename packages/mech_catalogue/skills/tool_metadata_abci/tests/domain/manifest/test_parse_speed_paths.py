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

from packages.mech_catalogue.skills.tool_metadata_abci.domain.manifest import (
    parse_tool as pt,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.limits import (
    Limits,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.tool import (
    Argument,
)


def test_new_argument_sets_every_field_in_order() -> None:
    """_new_argument must list every Argument field: a new field would be left unset."""
    names = [f.name for f in dataclasses.fields(Argument)]
    assert names == [
        "identifier",
        "type",
        "schema_json",
        "required",
        "default_json",
        "description",
    ]
    built = pt._new_argument(  # pylint: disable=protected-access
        "a", "int", '{"type":"integer"}', False, "1", "d"
    )
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
    fast = pt._new_argument(  # pylint: disable=protected-access
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
