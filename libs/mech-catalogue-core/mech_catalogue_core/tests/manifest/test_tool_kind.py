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

"""A tool says what kind it is (issue #12, item 7): spec, model, /tools, query, exports."""

import json
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.exporters import (
    to_agent_skill,
    to_mcp_tool,
)
from mech_catalogue_core.http_api.request import (
    INVALID_KIND,
    parse_request,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.manifest.validation import (
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
    MechRef,
    Tool,
)

TYPED = [{"identifier": "question", "type": "str"}]


def _tool(name: str, kind: Any = None) -> Dict[str, Any]:
    tool: Dict[str, Any] = {"name": name, "kwargs": TYPED}
    if kind is not None:
        tool["kind"] = kind
    return tool


def _catalogue(*manifests: Dict[str, Any]) -> Catalogue:
    mechs = []
    for index, document in enumerate(manifests):
        result = parse_document(document)
        ref = MechRef(100, "legacy_mech_registry", "0x" + "22" * 20, index + 1)
        mechs.append(Mech.from_manifest(ref, result.manifest, result.problems))
    return Catalogue.build(mechs)


def _get(catalogue: Catalogue, url: str, page_size: int = 100) -> Any:
    published = ExposedCatalogue(catalogue, catalogue.digest(), "s", 1, 0.0, 1)
    response = route(
        "GET", url, b"", CatalogueView.build(published), 0.0, page_size, 60.0
    )
    return response.status_code, json.loads(response.body)


@pytest.mark.parametrize(
    "kind", ["prediction", "resolve", "chat", "image", "question_generation"]
)
def test_known_kinds_are_read_without_problem(kind: str) -> None:
    """The mech-predict vocabulary is valid v1 and parses silently into Tool.kind."""
    document = {"name": "m", "description": "d", "tools": [_tool("t", kind)]}
    assert not validate_manifest(document)
    result = parse_document(document)
    assert not result.problems
    assert result.manifest is not None and result.manifest.tools[0].kind == kind


def test_unknown_word_is_kept_with_a_warning() -> None:
    """The vocabulary is extensible: a new lowercase word is kept, and the author is told."""
    result = parse_document({"tools": [_tool("t", "embedding")]})
    assert result.manifest is not None and result.manifest.tools[0].kind == "embedding"
    assert result.codes == (P.UNKNOWN_TOOL_KIND,)
    assert (
        result.problems[0].path == "/tools/0/kind" and not result.problems[0].is_error
    )


@pytest.mark.parametrize(
    "kind", [3, "Prediction", "", "pre diction", ["chat"], "x" * 65]
)
def test_malformed_kind_is_ignored_never_withholds(kind: Any) -> None:
    """A kind that is not a lowercase word is dropped with a warning; the tool is offered."""
    result = parse_document({"tools": [_tool("t", kind)]})
    assert result.manifest is not None
    assert [t.kind for t in result.manifest.tools] == [""]
    assert result.codes == (P.UNKNOWN_TOOL_KIND,)
    assert "/tools/0/kind" in result.problems[0].message


def test_schema_rejects_a_kind_that_is_not_a_word() -> None:
    """`validate` names the pointer of a kind that is not a lowercase word."""
    problems = validate_manifest({"tools": [_tool("t", 3)]})
    assert len(problems) == 1
    problem = problems[0]
    assert problem.path == "/tools/0/kind" and "should be a string" in problem.message


def test_digest_changes_only_for_manifests_that_use_kind() -> None:
    """A tool without kind serialises without the key; with one, the digest differs."""
    plain = Tool(name="t")
    assert "kind" not in plain.to_dict()
    kinded = Tool(name="t", kind="chat")
    assert Tool.from_dict(kinded.to_dict()) == kinded
    without = _catalogue({"tools": [_tool("t")]})
    with_kind = _catalogue({"tools": [_tool("t", "chat")]})
    assert without.digest() != with_kind.digest()
    assert '"kind"' not in without.to_json()


def test_tools_query_by_kind() -> None:
    """GET /tools?kind= lists the names some mech offers with that kind, paged the same way."""
    catalogue = _catalogue(
        {"tools": [_tool("a", "prediction"), _tool("b", "chat"), _tool("c")]},
        {"tools": [_tool("b", "prediction"), _tool("d", "prediction")]},
    )
    status, body = _get(catalogue, "/tools?kind=prediction")
    assert status == 200 and [t["name"] for t in body["tools"]] == ["a", "b", "d"]
    _, first = _get(catalogue, "/tools?kind=prediction", page_size=2)
    assert [t["name"] for t in first["tools"]] == ["a", "b"]
    _, rest = _get(catalogue, f"/tools?kind=prediction&cursor={first['nextCursor']}", 2)
    assert [t["name"] for t in rest["tools"]] == ["d"] and "nextCursor" not in rest
    _, none = _get(catalogue, "/tools?kind=image")
    assert none["tools"] == []
    _, everything = _get(catalogue, "/tools")
    assert [t["name"] for t in everything["tools"]] == ["a", "b", "c", "d"]
    assert everything["tools"][0]["_meta"]["io.olas/mech-tool"]["kind"] == "prediction"
    assert "kind" not in everything["tools"][2]["_meta"]["io.olas/mech-tool"]


@pytest.mark.parametrize("value", ["", "Chat", "chat%20x", "1x", "a" * 65, "%00"])
def test_malformed_kind_query_is_a_400(value: str) -> None:
    """The kind parameter is parsed as strictly as the rest of the request."""
    result = parse_request("GET", f"/tools?kind={value}", b"")
    assert getattr(result, "status_code", None) == 400
    assert json.loads(result.body)["error"]["code"] == INVALID_KIND  # type: ignore[union-attr]


def test_kind_query_rules() -> None:
    """Kind is for /tools (and a /mechs search), once; it combines with a cursor."""
    assert parse_request("GET", "/tools?kind=chat&cursor=2", b"").kind == "chat"  # type: ignore[union-attr]
    for url in ("/tools?kind=chat&kind=image", "/tools/a?kind=chat"):
        assert parse_request("GET", url, b"").status_code == 400  # type: ignore[union-attr]
    # /mechs: kind makes a search of the mechs offering tools of that kind
    assert parse_request("GET", "/mechs?kind=chat", b"").search.kind == "chat"  # type: ignore[union-attr]


def test_exports_carry_the_kind() -> None:
    """MCP `_meta` and A2A skill tags say the kind; untyped-kind tools carry no kind tag."""
    tool = Tool(name="t", kind="resolve")
    assert to_mcp_tool(tool)["_meta"]["io.olas/mech-tool"]["kind"] == "resolve"
    tags: List[str] = to_agent_skill(tool)["tags"]
    assert "kind:resolve" in tags
    assert not [
        t for t in to_agent_skill(Tool(name="t"))["tags"] if t.startswith("kind:")
    ]
