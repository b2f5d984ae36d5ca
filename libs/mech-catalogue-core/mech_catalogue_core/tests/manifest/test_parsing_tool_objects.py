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

"""The seed's typed kwargs shape: tool objects in `tools`, and a single tool document."""

from typing import Any, Dict, List

from mech_catalogue_core.manifest.parsing import (
    ParseResult,
    parse_document,
    parse_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Manifest,
)
from mech_catalogue_core.model.tool import (
    SHAPE_ARGUMENTS_V1,
    SHAPE_KWARGS,
    SHAPE_NAME_ONLY,
    SHAPE_TOOL_METADATA,
)
from mech_catalogue_core.tests.manifest_shapes import (
    encode,
)

ADDRESS_SCHEMA = {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$"}


def _kwargs(*pairs: str) -> List[Dict[str, str]]:
    return [
        {"identifier": ident, "type": kind}
        for ident, kind in zip(pairs[::2], pairs[1::2])
    ]


def _manifest(result: ParseResult) -> Manifest:
    assert result.manifest is not None, result.problems
    return result.manifest


SEED_STYLE: Dict[str, Any] = {
    "name": "Omen Trading Mech",
    "description": "Prepares market transactions.",
    "inputFormat": "ipfs-v0.1",
    "tools": [
        {
            "name": "sell-outcome",
            "kwargs": _kwargs("sender", "hexAddress", "amount", "int"),
        },
        {
            "name": "buy-outcome",
            "description": "Buys outcome tokens.",
            "kwargs": _kwargs("sender", "hexAddress", "outcome", "int"),
        },
    ],
}


def test_tool_objects_in_tools_are_typed_tools() -> None:
    """`tools: [{name, kwargs}]` gives typed tools of shape kwargs, with no problem."""
    result = parse_manifest(encode(SEED_STYLE))
    assert result.problems == ()
    manifest = _manifest(result)
    assert manifest.tool_names == ("sell-outcome", "buy-outcome")
    assert {t.provenance.shape for t in manifest.tools} == {SHAPE_KWARGS}
    sell, buy = manifest.tools
    assert [(a.identifier, a.type, a.required) for a in sell.arguments] == [
        ("sender", "hexAddress", True),
        ("amount", "int", True),
    ]
    assert sell.arguments[0].schema == ADDRESS_SCHEMA
    assert buy.description == "Buys outcome tokens."
    assert manifest.name == "Omen Trading Mech"
    assert manifest.extra == {"inputFormat": "ipfs-v0.1"}


def test_names_and_objects_mixed() -> None:
    """Names, tool objects and toolMetadata entries combine; each keeps its own shape."""
    doc = {
        "tools": [
            "plain",
            {"name": "typed", "kwargs": _kwargs("x", "int")},
            "described",
            {"name": "v1", "arguments": _kwargs("y", "str")},
        ],
        "toolMetadata": {"described": {"description": "Has metadata."}},
    }
    result = parse_document(doc)
    manifest = _manifest(result)
    assert [(t.name, t.provenance.shape) for t in manifest.tools] == [
        ("plain", SHAPE_NAME_ONLY),
        ("typed", SHAPE_KWARGS),
        ("described", SHAPE_TOOL_METADATA),
        ("v1", SHAPE_ARGUMENTS_V1),
    ]
    # only the bare name lacks metadata; tool objects carry their own
    assert [(p.code, p.path) for p in result.problems] == [
        (P.TOOL_WITHOUT_METADATA, "/tools/0"),
        (P.UNTYPED_INPUT, "/toolMetadata/described"),
    ]


def test_tool_object_and_metadata_entry_merge() -> None:
    """A tool object also described in toolMetadata: fields merge, toolMetadata wins."""
    doc = {
        "tools": [
            {"name": "t", "description": "inline", "kwargs": _kwargs("a", "int")}
        ],
        "toolMetadata": {"t": {"description": "from metadata"}},
    }
    result = parse_document(doc)
    (tool,) = _manifest(result).tools
    assert tool.description == "from metadata"
    assert [a.identifier for a in tool.arguments] == ["a"]
    assert result.problems == ()


def test_bad_tool_objects_never_discard_good_ones() -> None:
    """Nameless, badly named, repeated, or badly typed objects: problems, good tools kept.

    A dropped part (an argument with a bad identifier, a ``kwargs`` that is not a list)
    is reported and the tool is offered without it.
    """
    doc = {
        "tools": [
            {"kwargs": _kwargs("a", "int")},
            {"name": "", "kwargs": []},
            {"name": "good", "kwargs": _kwargs("a", "int", "1bad", "int")},
            {"name": "good", "kwargs": _kwargs("b", "int")},
            {"name": "kw-not-list", "kwargs": "sender:hexAddress"},
            {"name": "odd-type", "kwargs": _kwargs("z", "quaternion")},
            ["not", "a", "tool"],
        ]
    }
    result = parse_document(doc)
    manifest = _manifest(result)
    assert manifest.tool_names == ("good", "kw-not-list", "odd-type")
    good, kw_not_list, odd_type = manifest.tools
    assert not manifest.withheld
    assert [a.identifier for a in good.arguments] == ["a"]
    assert kw_not_list.arguments == ()
    assert kw_not_list.provenance.shape == SHAPE_TOOL_METADATA
    assert odd_type.arguments[0].type == "any"
    assert [(p.code, p.path) for p in result.problems] == [
        (P.INVALID_TOOL_NAME, "/tools/0/name"),
        (P.INVALID_TOOL_NAME, "/tools/1/name"),
        (P.INVALID_ARGUMENT, "/tools/2/kwargs/1"),
        (P.DUPLICATE_TOOL, "/tools/3"),
        (P.WRONG_TYPE, "/tools/4/kwargs"),
        (P.UNTYPED_INPUT, "/tools/4"),
        (P.UNKNOWN_ARGUMENT_TYPE, "/tools/5/kwargs/0/type"),
        (P.INVALID_TOOL_NAME, "/tools/6"),
    ]


def test_only_bad_tool_objects_yield_an_empty_manifest() -> None:
    """Every object bad: a manifest without tools and the no_tools warning, never a crash."""
    result = parse_document({"tools": [{"name": 5}, {}]})
    assert _manifest(result).tools == ()
    assert result.codes == (P.INVALID_TOOL_NAME, P.INVALID_TOOL_NAME, P.NO_TOOLS)


def test_tool_objects_count_against_the_tool_cap() -> None:
    """Objects count like names: over the cap, the document is rejected."""
    doc = {"tools": [{"name": f"t{i}", "kwargs": []} for i in range(1001)]}
    result = parse_document(doc)
    assert result.manifest is None and result.codes == (P.TOO_MANY_TOOLS,)


def test_single_tool_document_is_a_one_tool_manifest() -> None:
    """`{name, kwargs}` alone (the seed's per-tool proposal) reads as one typed tool."""
    doc = {
        "name": "sell-outcome",
        "description": "Sells outcome tokens.",
        "kwargs": _kwargs("sender", "hexAddress", "recipient", "hexAddress"),
        "x-note": "kept",
    }
    result = parse_manifest(encode(doc))
    assert result.problems == ()
    manifest = _manifest(result)
    assert (manifest.name, manifest.description) == (
        "sell-outcome",
        "Sells outcome tokens.",
    )
    (tool,) = manifest.tools
    assert tool.provenance.shape == SHAPE_KWARGS
    assert [a.identifier for a in tool.arguments] == ["sender", "recipient"]
    assert tool.extra == {"x-note": "kept"}
    assert manifest.extra == {}


def test_single_tool_document_with_bad_parts() -> None:
    """A single tool with a bad name is an empty manifest; bad kwargs are dropped alone.

    When every declared argument is dropped the tool is still offered, untyped, and an
    ``untyped_input`` warning says why.
    """
    nameless = parse_document({"name": 12, "kwargs": _kwargs("a", "int")})
    assert _manifest(nameless).tools == ()
    assert [(p.code, p.path) for p in nameless.problems] == [
        (P.INVALID_TOOL_NAME, "/name"),
        (P.NO_TOOLS, ""),
    ]
    partial = parse_document({"name": "t", "kwargs": [{"type": "int"}, 3]})
    assert _manifest(partial).withheld == ()
    (tool,) = _manifest(partial).tools
    assert tool.arguments == () and _manifest(partial).name == "t"
    assert [(p.code, p.path, p.severity) for p in partial.problems] == [
        (P.INVALID_ARGUMENT, "/kwargs/0", P.SEVERITY_ERROR),
        (P.INVALID_ARGUMENT, "/kwargs/1", P.SEVERITY_ERROR),
        (P.UNTYPED_INPUT, "", P.SEVERITY_WARNING),
    ]
    assert "was dropped" in partial.problems[-1].message


def test_name_without_tools_or_kwargs_is_still_rejected() -> None:
    """A document with a name but no tools, toolMetadata, kwargs or arguments is no manifest."""
    result = parse_document({"name": "x", "description": "not a mech"})
    assert result.manifest is None and result.codes == (P.NO_TOOLS,)
    wrong = parse_document({"name": "x", "tools": "x", "kwargs": []})
    assert wrong.manifest is None
    assert wrong.codes == (P.WRONG_TYPE, P.NO_TOOLS)
