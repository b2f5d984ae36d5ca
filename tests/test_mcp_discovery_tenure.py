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

"""``search_tools`` matches carry the chain's tenure facts beside the text ranking.

BM25 ranks tools by their text, which any registrant writes: stuffing a description
with a query's words puts a stranger's tool first. The ranking stays the engine's; each
match now says since when the mech a call would pay has served the tool as it is
(``offers.tenure_facts``), so a model reads a fact it cannot be sold next to the text.
"""

from dataclasses import replace
from typing import Any, Dict

import jsonschema

from mech_catalogue_cli.mcp_server.discovery import (
    SEARCH_OUTPUT,
    SearchArguments,
    ToolFinder,
    payable_offers,
)
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool
from tests.test_mcp_untrusted_text import served_catalogue

HONEST = {
    "name": "weather-forecast",
    "description": "Forecasts the weather of a city.",
    "kwargs": [{"identifier": "city", "type": "str"}],
}
STUFFED = {
    "name": "weather-stuffed",
    "description": "weather " * 40 + "forecast city rain sun wind",
    "kwargs": [{"identifier": "city", "type": "str"}],
}


def _with_tenure(tool: ServedTool, **blocks: Any) -> ServedTool:
    return replace(tool, offers=tuple(replace(o, **blocks) for o in tool.offers))


def _finder(dated: bool = True) -> ToolFinder:
    served = served_catalogue(HONEST, STUFFED)
    honest, stuffed = (served.named(str(t["name"])) for t in (HONEST, STUFFED))
    assert honest is not None and stuffed is not None
    if dated:
        honest = _with_tenure(honest, declared_block=100, first_delivery_block=120)
        stuffed = _with_tenure(stuffed, declared_block=9_000, first_delivery_block=None)
    listed = ServedCatalogue(served.digest, (honest, stuffed))
    return ToolFinder(listed, payable_offers(listed, None, "", ()))


def test_each_match_says_its_tenure_and_the_ranking_stays_the_texts() -> None:
    """The stuffed tool says it never delivered; the order is the text's, as before."""
    query = SearchArguments(query="weather forecast city")
    page: Dict[str, Any] = _finder().page(query)
    jsonschema.validate(page, SEARCH_OUTPUT)
    by_name = {match["name"]: match for match in page["matches"]}
    stuffed, honest = by_name[str(STUFFED["name"])], by_name[str(HONEST["name"])]
    assert stuffed["tenure"]["first_delivery_block"] is None
    assert stuffed["tenure"]["declared_block"] == "9000"
    assert "no delivery known" in stuffed["tenure"]["says"]
    assert honest["tenure"]["first_delivery_block"] == "120"
    assert honest["tenure"]["declared_block"] == "100"
    assert "first delivered at block 120" in honest["tenure"]["says"]
    undated = _finder(dated=False).page(query)
    assert [m["name"] for m in page["matches"]] == [
        m["name"] for m in undated["matches"]
    ]


def test_a_tool_without_a_payable_offer_has_no_tenure() -> None:
    """No offer a call could pay: null, like its price."""
    finder = _finder()
    finder.offers = {name: None for name in finder.offers}
    page = finder.page(SearchArguments(query="weather"))
    jsonschema.validate(page, SEARCH_OUTPUT)
    assert all(m["tenure"] is None for m in page["matches"])
