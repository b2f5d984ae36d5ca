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

"""Registry NFT metadata is validated as what it is (mech_catalogue_core/manifest/nft_metadata.py)."""

import json
from typing import Any, Dict

import pytest
from mech_catalogue_core.manifest.nft_metadata import (
    is_nft_metadata,
    validate_nft_metadata,
)
from mech_catalogue_core.model import problems as P

CID = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"
TOOL = {
    "name": "mint-quote",
    "kwargs": [
        {"identifier": "recipient", "type": "hexAddress"},
        {"identifier": "units", "type": "int", "required": False, "default": 1},
    ],
}


def _nft(description: Any, **fields: Any) -> Dict[str, Any]:
    document = {
        "name": "quote-mech",
        "description": description,
        "code_uri": f"ipfs://{CID}",
        "image": f"ipfs://{CID}",
        "attributes": [{"trait_type": "version", "value": "0.1.0"}],
    }
    document.update(fields)
    return document


@pytest.mark.parametrize(
    "described",
    [TOOL, [TOOL], {"tools": [TOOL]}],
    ids=["object", "list", "tools"],
)
def test_clean_nft_metadata_has_no_problem(described: Any) -> None:
    """Every description-JSON shape of a clean document: no schema problem at all."""
    document = _nft("Quotes mints. " + json.dumps(described))
    assert is_nft_metadata(document)
    assert not validate_nft_metadata(document)


def test_manifests_are_not_nft_metadata() -> None:
    """A document with `tools` or `toolMetadata`, or without NFT-only fields, is not."""
    assert not is_nft_metadata({"tools": ["a"], "code_uri": f"ipfs://{CID}"})
    assert not is_nft_metadata({"toolMetadata": {}, "attributes": []})
    assert not is_nft_metadata({"name": "x", "description": "y", "image": "z"})
    assert not is_nft_metadata([_nft("x")])


def test_bad_own_fields_are_reported_at_their_pointers() -> None:
    """code_uri not ipfs://, image not a string, attributes not objects, no description."""
    document = _nft("x", code_uri="https://example.org/pkg", image=3, attributes=[1])
    del document["description"]
    found = {p.path: p.message for p in validate_nft_metadata(document)}
    assert set(found) == {"", "/code_uri", "/image", "/attributes/0"}
    assert "ipfs://CID" in found["/code_uri"]
    assert all(p.code == P.SCHEMA_VIOLATION for p in validate_nft_metadata(document))


@pytest.mark.parametrize(
    ("described", "pointer"),
    [
        (
            {**TOOL, "kwargs": [{"identifier": "a", "type": 5}]},
            "/description/kwargs/0/type",
        ),
        ([TOOL, {"name": "b", "input": "text"}], "/description/1/input"),
        (
            {"tools": [TOOL, {"name": "b", "arguments": {"a": "int"}}]},
            "/description/tools/1/arguments",
        ),
    ],
)
def test_described_tools_are_checked_at_description_pointers(
    described: Any, pointer: str
) -> None:
    """A fault in a described tool: one schema problem whose pointer and message agree."""
    problems = validate_nft_metadata(_nft(json.dumps(described)))
    assert [p.path for p in problems] == [pointer]
    assert f"Field {pointer} " in problems[0].message
    assert "/tools/" not in problems[0].message.replace("/description/tools/", "")
