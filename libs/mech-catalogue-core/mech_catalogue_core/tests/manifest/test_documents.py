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

"""One notion of a readable manifest (issue #34 item 4).

What the parser reads (``show``, ``export``, the agents) is what ``validate`` and
``publish`` accept: a document whose tools are only in its description JSON, or that is
one tool object, is checked as what it is, never failed for lacking ``tools``; what the
parser cannot read still fails. Inputs written here.
"""

import json
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.manifest.documents import (
    check_document,
    document_kind,
    validate_document,
)
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.vocabulary import (
    DocumentKind,
)
from mech_catalogue_core.publish.publish import (
    PublishError,
    prepare_manifest,
)

SUMMARY = {
    "name": "summarise",
    "description": "Summarise a web page.",
    "arguments": [
        {"identifier": "url", "type": "str", "description": "The page."},
        {"identifier": "words", "type": "int", "required": False, "default": 100},
    ],
}
TRANSLATE = {
    "name": "translate",
    "kwargs": [
        {"identifier": "text", "type": "str"},
        {"identifier": "to", "type": "str"},
    ],
}


def _described(description: str, **fields: Any) -> Dict[str, Any]:
    return {"name": "page tools", "description": description, **fields}


READABLE = [
    (
        "tools object after text",
        _described("Page tools. " + json.dumps({"tools": [SUMMARY, TRANSLATE]})),
        DocumentKind.DESCRIBED_TOOLS,
        ["summarise", "translate"],
    ),
    (
        "an array of tool objects",
        _described(json.dumps([TRANSLATE]), url="https://example.org"),
        DocumentKind.DESCRIBED_TOOLS,
        ["translate"],
    ),
    (
        "one described tool object, no name",
        {"description": json.dumps(SUMMARY)},
        DocumentKind.DESCRIBED_TOOLS,
        ["summarise"],
    ),
    ("a single tool object", dict(TRANSLATE), DocumentKind.SINGLE_TOOL, ["translate"]),
    (
        "a single v1 tool with extra fields",
        {**SUMMARY, "x-pricing": {"per_call": 1}},
        DocumentKind.SINGLE_TOOL,
        ["summarise"],
    ),
    (
        "a v1 manifest",
        {"tools": ["summarise"], "toolMetadata": {"summarise": SUMMARY}},
        DocumentKind.MANIFEST,
        ["summarise"],
    ),
]


@pytest.mark.parametrize(
    "document,kind,tools",
    [c[1:] for c in READABLE],
    ids=[c[0] for c in READABLE],
)
def test_what_readers_read_validates(
    document: Dict[str, Any], kind: DocumentKind, tools: List[str]
) -> None:
    """No schema problem for a document the parser reads without error."""
    parsed = parse_document(document)
    assert parsed.manifest is not None and not parsed.errors
    assert list(parsed.manifest.tool_names) == tools
    assert validate_document(document) == (kind, ())
    checked = check_document(document)
    assert checked.kind == kind and not [p for p in checked.problems if p.is_error]


def test_publish_accepts_what_validate_accepts() -> None:
    """prepare_manifest checks the same way: a described-tools document is prepared."""
    prepared = prepare_manifest(READABLE[0][1])
    assert prepared.tools == ("summarise", "translate")


BAD_TOOLS = [
    (
        "a list as a type",
        {"name": "t", "kwargs": [{"identifier": "x", "type": ["int"]}]},
    ),
    ("a number as description", {"name": "t", "description": 5, "kwargs": []}),
    ("an argument without identifier", {"name": "t", "arguments": [{"type": "str"}]}),
    ("a name of 200 characters", {"name": "t" * 200, "arguments": []}),
]


#: about the document, not the tool (a single tool's description is also the manifest's)
_DOCUMENT_NOTES = (
    P.DESCRIPTION_JSON_PARSED,
    P.EMPTY_MANIFEST_NAME,
    P.EMPTY_MANIFEST_DESCRIPTION,
    P.ANY_TYPED_ARGUMENT,  # its path is `/toolMetadata/<name>` whatever the shape
    P.NO_TOOLS,
)


def _relative(problems: Any, prefix: str) -> List[Any]:
    return sorted(
        (p.code, p.severity, p.path[len(prefix) :])
        for p in problems
        if p.path.startswith(prefix) and p.code not in _DOCUMENT_NOTES
    )


@pytest.mark.parametrize(
    "tool", [c[1] for c in BAD_TOOLS], ids=[c[0] for c in BAD_TOOLS]
)
def test_a_described_tool_is_judged_as_the_same_tool_in_tools(tool: Any) -> None:
    """Its problems (codes, severities, pointers inside the tool) are a v1 tool's."""
    in_tools = check_document({"name": "m", "description": "d", "tools": [tool]})
    described = check_document({"name": "m", "description": json.dumps([tool])})
    assert _relative(described.problems, "/description/0") == _relative(
        in_tools.problems, "/tools/0"
    )
    assert _relative(in_tools.problems, "/tools/0")  # each is a fault
    single = check_document(dict(tool))
    assert _relative(single.problems, "") == _relative(in_tools.problems, "/tools/0")
    for checked in (described, single):
        assert not any(
            "`tools`" in p.message and p.path == "" for p in checked.problems
        )


def test_a_fault_beside_described_tools_is_reported_at_its_field() -> None:
    """The document's own fields are checked as a manifest's: a list as `name` fails."""
    document = _described(json.dumps([TRANSLATE]), name=["page", "tools"])
    assert ("/name", True) in [
        (p.path, p.is_error) for p in check_document(document).problems
    ]


UNREADABLE = [
    ("plain text description", _described("Summarises pages.")),
    ("description JSON that is no tool", _described(json.dumps({"version": 2}))),
    ("a number", 7),
]


@pytest.mark.parametrize(
    "document", [c[1] for c in UNREADABLE], ids=[c[0] for c in UNREADABLE]
)
def test_what_readers_cannot_read_still_fails(document: Any) -> None:
    """No tools for the parser: no tools for validate, and publish refuses it."""
    checked = check_document(document)
    assert document_kind(document) == DocumentKind.MANIFEST
    assert checked.manifest is None or not checked.manifest.tools
    assert [p for p in checked.problems if p.is_error]
    with pytest.raises(PublishError):
        prepare_manifest(document)


def test_nft_metadata_keeps_its_own_check() -> None:
    """code_uri makes it NFT metadata: its fields are checked, the tools as before."""
    document = _described(json.dumps([TRANSLATE]), code_uri="ipfs:/nope", attributes=[])
    kind, problems = validate_document(document)
    assert kind == DocumentKind.NFT_METADATA
    assert [p.path for p in problems] == ["/code_uri"]
    assert P.DESCRIPTION_JSON_PARSED not in [
        p.code for p in check_document(document).problems
    ]
