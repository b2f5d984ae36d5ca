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

"""The agent's ``GET /tools`` and ``GET /tools/<name>`` say a name's look-alike (issue 29).

Before, only the MCP server's ``tools/list`` carried the ``lookalike_tool_name``
warning; a client of the agent's HTTP views saw ``onIine`` (capital I) beside ``online``
with nothing said. Now each MCP Tool the views serve carries the library's one warning
(``catalogue.lookalikes.lookalike_problems``) in ``_meta`` and its ASCII name as title.
"""

import json
from typing import Any, Dict, List

from mech_catalogue_core.catalogue.exposure import ExposedCatalogue
from mech_catalogue_core.catalogue.lookalikes import lookalike_problems
from mech_catalogue_core.exporters.mcp_tool import META_KEY, with_lookalike_warning
from mech_catalogue_core.http_api.routes import CatalogueView, list_tools, show_tool
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.model.catalogue import Catalogue, Mech
from mech_catalogue_core.model.problems import LOOKALIKE_TOOL_NAME
from mech_catalogue_core.model.tool import REGISTRY_COMPLEMENTARY_SERVICE, MechRef


def _view(*names: str) -> CatalogueView:
    mechs = []
    for index, name in enumerate(names):
        document = {
            "name": f"mech {index}",
            "description": "Forecasts.",
            "tools": [name],
            "toolMetadata": {
                name: {
                    "name": name,
                    "description": "Forecasts a market.",
                    "input": {"type": "text", "description": "the question"},
                    "output": {"type": "text", "description": "the answer"},
                }
            },
        }
        parsed = parse_manifest(json.dumps(document))
        assert parsed.manifest is not None, parsed.problems
        ref = MechRef(100, REGISTRY_COMPLEMENTARY_SERVICE, "0x" + "cd" * 20, index + 1)
        mechs.append(Mech.from_manifest(ref, parsed.manifest, digest="0x" + "22" * 32))
    catalogue = Catalogue.build(mechs)
    return CatalogueView.build(
        ExposedCatalogue(catalogue, catalogue.digest(), "", 40, 0.0, 1)
    )


def _warnings(tool: Dict[str, Any]) -> List[Dict[str, str]]:
    return [
        w
        for w in tool["_meta"][META_KEY].get("warnings") or []
        if w["code"] == LOOKALIKE_TOOL_NAME
    ]


def test_tools_and_tool_offers_carry_the_lookalike_warning() -> None:
    """Both twins, in both views, with the catalogue's wording and an ASCII title."""
    view = _view("forecast-online", "forecast-onIine")
    expected = lookalike_problems(["forecast-onIine", "forecast-online"])
    listed = json.loads(list_tools(view, None, 50).body)["tools"]
    assert len(listed) == 2
    for tool in listed:
        (said,) = _warnings(tool)
        assert said["message"] == expected[tool["name"]].message
        assert tool["title"] == tool["name"] == tool["annotations"]["title"]
        shown = json.loads(show_tool(view, tool["name"]).body)
        assert _warnings(shown["mcp"]) == [said]


def test_distinct_names_carry_no_warning() -> None:
    """The control: visibly different names are not flagged."""
    view = _view("forecast-online", "forecast-offline")
    for tool in json.loads(list_tools(view, None, 50).body)["tools"]:
        assert _warnings(tool) == []


def test_the_warning_is_added_once() -> None:
    """A Tool that already carries it (as an agent serves it) is not flagged twice."""
    view = _view("forecast-online", "forecast-onIine")
    tool = view.mcp_tool_of("forecast-onIine")
    again = with_lookalike_warning(tool, view.lookalikes["forecast-onIine"])
    assert _warnings(again) == _warnings(tool) and len(_warnings(tool)) == 1
