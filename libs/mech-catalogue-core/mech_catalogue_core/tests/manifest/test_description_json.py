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

"""Tool metadata held as JSON in a manifest's top-level description (issue #12, item 1)."""

import json
from typing import Any, Dict

import pytest
from mech_catalogue_core.manifest.parsing import (
    description_json,
    parse_document,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
    Limits,
)
from mech_catalogue_core.model.tool import (
    SHAPE_DESCRIPTION_JSON,
    SHAPE_KWARGS,
)

SELL = {
    "name": "sell-tx-omen",
    "kwargs": [
        {"identifier": "sender", "type": "hexAddress"},
        {"identifier": "amount", "type": "int", "default": 0},
    ],
}
QUOTE = {
    "name": "quote",
    "arguments": [{"identifier": "market", "type": "str", "description": "slug"}],
}
NFT = {  # registry NFT metadata around the description
    "name": "omen mech",
    "code_uri": "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    "image": "ipfs://bafybeiimage",
    "attributes": [{"trait_type": "version", "value": "0.1.0"}],
}


def _signature(document: Dict[str, Any]) -> Any:
    manifest = parse_document(document).manifest
    assert manifest is not None
    return [
        (
            t.name,
            [(a.identifier, a.type, a.required) for a in t.arguments],
            t.provenance.shape,
        )
        for t in manifest.tools
    ]


def test_nft_metadata_with_one_tool_object() -> None:
    """Registry metadata whose description is one typed tool object serves that tool."""
    result = parse_document({**NFT, "description": json.dumps(SELL)})
    assert result.manifest is not None
    assert _signature({**NFT, "description": json.dumps(SELL)}) == [
        (
            "sell-tx-omen",
            [("sender", "hexAddress", True), ("amount", "int", False)],
            SHAPE_DESCRIPTION_JSON,
        )
    ]
    assert result.codes == (P.DESCRIPTION_JSON_PARSED,)
    assert result.problems[0].path == "/description"
    assert json.loads(result.manifest.extra_json)["code_uri"] == NFT["code_uri"]
    assert result.manifest.name == "omen mech"


def test_list_of_tools_after_plain_text_keeps_the_text() -> None:
    """Plain text before the JSON is the manifest's description; every tool is read."""
    document = {**NFT, "description": "Trades on Omen. " + json.dumps([SELL, QUOTE])}
    manifest = parse_document(document).manifest
    assert manifest is not None and manifest.description == "Trades on Omen."
    assert [t.name for t in manifest.tools] == ["sell-tx-omen", "quote"]
    assert manifest.tools[1].arguments[0].description == "slug"


def test_object_with_tools_adds_tools_when_the_list_is_empty() -> None:
    """`tools: []` beside a description holding `{tools: [...]}` serves the described tools."""
    inner = {"description": "A trading mech", "tools": [SELL, QUOTE]}
    document = {**NFT, "tools": [], "description": "Omen. " + json.dumps(inner)}
    result = parse_document(document)
    assert result.manifest is not None
    assert result.manifest.description == "Omen. A trading mech"
    assert [s for _, _, s in _signature(document)] == [SHAPE_DESCRIPTION_JSON] * 2
    assert P.NO_TOOLS not in result.codes


def test_listed_tool_takes_described_arguments_unlisted_is_reported() -> None:
    """`tools: ["quote"]`: quote gets its typed arguments; sell-tx-omen is not offered."""
    document = {
        **NFT,
        "tools": ["quote"],
        "description": json.dumps({"tools": [SELL, {**QUOTE, "description": "d"}]}),
    }
    result = parse_document(document)
    assert _signature(document) == [
        ("quote", [("market", "str", True)], SHAPE_DESCRIPTION_JSON)
    ]
    assert P.UNTYPED_INPUT not in result.codes
    unlisted = [p for p in result.problems if p.code == P.DESCRIPTION_TOOL_NOT_LISTED]
    assert [p.path for p in unlisted] == ["/description/tools/0"]
    assert "sell-tx-omen" in unlisted[0].message and not unlisted[0].is_error


def test_tool_metadata_without_arguments_is_typed_and_loses_its_warnings() -> None:
    """A toolMetadata entry that is text only takes the described arguments; its own text stays."""
    document = {
        "tools": ["quote"],
        "toolMetadata": {
            "quote": {"description": "Quotes a market.", "input": {"type": "text"}}
        },
        "description": json.dumps(QUOTE),
    }
    result = parse_document(document)
    assert result.manifest is not None
    tool = result.manifest.tools[0]
    assert tool.description == "Quotes a market." and tool.input_type == "text"
    assert [a.identifier for a in tool.arguments] == ["market"]
    assert result.codes == (P.DESCRIPTION_JSON_PARSED,)


def test_explicit_arguments_win_over_the_description() -> None:
    """A tool that declares arguments keeps them; the description JSON does not replace them."""
    document = {
        "tools": [{"name": "quote", "kwargs": [{"identifier": "slug", "type": "str"}]}],
        "description": json.dumps(
            {**QUOTE, "arguments": [{"identifier": "x", "type": "int"}]}
        ),
    }
    assert _signature(document) == [("quote", [("slug", "str", True)], SHAPE_KWARGS)]


@pytest.mark.parametrize(
    ("description", "hint_at"),
    [
        ("A mech that predicts.", None),
        (json.dumps({"a": 1}), None),
        (json.dumps(["x", "y"]), None),
        ("Broken: {" + json.dumps(SELL)[:-1], None),
        ("Use {placeholders} in prompts.", None),
        (json.dumps({"tools": ["a", "b"]}), "/description/tools/0"),
        (json.dumps({"name": "a", "description": "no tool fields"}), "/description"),
        (json.dumps([SELL, "not a tool"]), "/description/1"),
        (json.dumps({"tools": []}), "/description/tools"),
        ('{"name": "a", "kwargs": [], "name": "b"}', "/description"),  # duplicate key
    ],
)
def test_json_that_is_not_tool_metadata_stays_text(
    description: str, hint_at: Any
) -> None:
    """Plain text, other JSON and malformed JSON are the description, read as text.

    When the JSON looks like tool metadata (a `tools` array, a `name`, an array of
    objects, a document that starts as JSON and does not decode), one
    ``description_json_not_tools`` warning says why it was not read, at the first bad
    item; other JSON and text stay text silently.

    :param description: the top-level description.
    :param hint_at: the pointer of the expected warning, None when none is expected.
    """
    assert description_json(description, DEFAULT_LIMITS) is None
    result = parse_document({"tools": ["a"], "description": description})
    assert result.manifest is not None and result.manifest.description == description
    assert P.DESCRIPTION_JSON_PARSED not in result.codes
    nft = parse_document({**NFT, "description": description})
    if hint_at is None:
        assert nft.codes == (P.NO_TOOLS,)
        assert P.DESCRIPTION_JSON_NOT_TOOLS not in result.codes
        return
    assert nft.codes == (P.DESCRIPTION_JSON_NOT_TOOLS, P.NO_TOOLS)
    hint = nft.problems[0]
    assert hint.path == hint_at and hint.severity == P.SEVERITY_WARNING
    assert "kept as text" in hint.message and len(hint.message) <= 240
    assert (P.DESCRIPTION_JSON_NOT_TOOLS, hint_at) in [
        (p.code, p.path) for p in result.problems
    ]


@pytest.mark.parametrize(
    ("described", "hint_at", "why"),
    [
        ({"name": "long-maker"}, "/description", "no `kwargs`"),
        ({"kwargs": [{"identifier": "a", "type": "int"}]}, "/description", "`name`"),
        ({"name": 7, "input": {}}, "/description", "no string `name`"),
        ([{"name": "a", "kwargs": []}, {"name": "b"}], "/description/1", "1 of 2"),
        ([{"name": "a", "kwargs": []}, None, 3], "/description/1", "is null"),
        (
            {"tools": [{"name": "a", "kwargs": []}, [1]]},
            "/description/tools/1",
            "array",
        ),
        ({"tools": [{"title": "a"}, {"name": "b"}]}, "/description/tools/0", "2 of 2"),
    ],
)
def test_near_miss_names_the_item_and_what_a_tool_needs(
    described: Any, hint_at: str, why: str
) -> None:
    """Each shape of near miss: the warning names the first bad item and what it lacks."""
    result = parse_document({**NFT, "description": "Mech. " + json.dumps(described)})
    assert result.manifest is None  # nothing else declares tools: still no manifest
    hint, no_tools = result.problems
    assert (hint.code, hint.path) == (P.DESCRIPTION_JSON_NOT_TOOLS, hint_at)
    assert no_tools.code == P.NO_TOOLS
    assert why in hint.message and "a tool needs a string `name`" in hint.message
    assert "{'" not in hint.message and len(hint.message) <= 240
    fixed = parse_document({**NFT, "description": json.dumps(SELL)})
    assert P.DESCRIPTION_JSON_NOT_TOOLS not in fixed.codes and fixed.ok


def test_description_json_past_the_depth_cap_stays_text() -> None:
    """The description's JSON is decoded with the manifest's caps (depth here)."""
    deep = {**SELL, "examples": [[[[[["x"]]]]]]}
    assert description_json(json.dumps(deep), DEFAULT_LIMITS) is not None
    assert description_json(json.dumps(deep), Limits(max_depth=5)) is None


def test_bad_fields_in_described_tools_are_reported_at_description_pointers() -> None:
    """A bad argument inside the description is reported past /description and dropped.

    An argument without a valid identifier is a dropped part: the tool is offered with
    its other arguments, not withheld.
    """
    bad = {
        "name": "t",
        "kwargs": [{"identifier": "9x", "type": "int"}, {"identifier": "ok"}],
    }
    result = parse_document({"description": json.dumps({"tools": [bad]})})
    assert result.manifest is not None
    assert not result.manifest.withheld
    assert [a.identifier for a in result.manifest.tools[0].arguments] == ["ok"]
    invalid = [p for p in result.problems if p.code == P.INVALID_ARGUMENT]
    assert [p.path for p in invalid] == ["/description/tools/0/kwargs/0"]


def test_non_string_description_is_not_read_as_json() -> None:
    """A description that is an object is a wrong type, never tool metadata."""
    result = parse_document({"tools": ["a"], "description": SELL})
    assert (
        P.WRONG_TYPE in result.codes and P.DESCRIPTION_JSON_PARSED not in result.codes
    )
    assert description_json(SELL, DEFAULT_LIMITS) is None
