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

"""Pages of ``GET /tools`` and ``GET /tools/<name>``: defaults, the last page, stale cursors, other paths.

Found by mutation testing (issue 18): ``show_tool``'s default page size, ``list_tools``'
default (every kind), the sentences of both ``invalid_cursor`` answers and ``serve``'s
answer to a parsed path it does not serve (an extra path of a skill that does not
answer it) were asserted by no test.
"""

import json

from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.http_api.request import (
    Request,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    list_tools,
    serve,
    show_tool,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Manifest,
    Mech,
    MechRef,
    Tool,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
)

REGISTRY = "0x" + "dd" * 20


def view_of(offers: int) -> CatalogueView:
    """A served catalogue in which ``offers`` services each offer ``predict``.

    :param offers: how many services.
    :return: the view.
    """
    catalogue = Catalogue.build(
        Mech.from_manifest(
            MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, i),
            Manifest(tools=(Tool(name="predict"),)),
            digest="0x" + f"{i:064x}",
        )
        for i in range(1, offers + 1)
    )
    return CatalogueView.build(
        ExposedCatalogue(catalogue, catalogue.digest(), "", 40, 0.0, 1)
    )


def test_the_default_page_is_50_offers() -> None:
    """51 offers, no page size given: 50, then the 51st from cursor 50, with no next cursor."""
    view = view_of(51)
    first = json.loads(show_tool(view, "predict").body)
    assert first["offer_count"] == 51 and len(first["offers"]) == 50
    assert first["nextCursor"] == "50"
    last = json.loads(show_tool(view, "predict", 50).body)
    assert [o["mech"]["mech_id"] for o in last["offers"]] == [51]
    assert "nextCursor" not in last


def test_exactly_one_page_of_offers_has_no_next_cursor() -> None:
    """Three offers in pages of three: all of them, and no cursor to a page that is empty."""
    body = json.loads(show_tool(view_of(3), "predict", None, 3).body)
    assert len(body["offers"]) == 3 and "nextCursor" not in body


def test_a_cursor_past_the_offers_says_how_many_and_what_to_do() -> None:
    """Cursor 3 of 3 offers: 400 invalid_cursor naming the cursor, the count and the tool."""
    result = show_tool(view_of(3), "predict", 3)
    assert result.status_code == 400
    assert json.loads(result.body)["error"] == {
        "code": "invalid_cursor",
        "message": "cursor 3 is past the 3 offers of 'predict' served now (the "
        "catalogue may have changed); omit it to start over",
    }


def test_list_tools_without_a_kind_lists_every_name() -> None:
    """No kind given: both tools of the catalogue, one page of 50."""
    catalogue = Catalogue.build(
        [
            Mech.from_manifest(
                MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, 1),
                Manifest(tools=(Tool(name="predict"), Tool(name="summarise"))),
                digest="0x" + "01" * 32,
            )
        ]
    )
    view = CatalogueView.build(
        ExposedCatalogue(catalogue, catalogue.digest(), "", 40, 0.0, 1)
    )
    body = json.loads(list_tools(view, None, 50).body)
    assert [tool["name"] for tool in body["tools"]] == ["predict", "summarise"]


def test_a_tools_cursor_past_the_names_says_how_many_and_what_to_do() -> None:
    """Cursor 1 of one name: 400 invalid_cursor with the count and what to do."""
    result = list_tools(view_of(2), 1, 50)
    assert result.status_code == 400
    assert json.loads(result.body)["error"] == {
        "code": "invalid_cursor",
        "message": "cursor 1 is past the 1 tool names served now (the catalogue may "
        "have changed); omit it to start over",
    }


def test_a_parsed_path_serve_does_not_know_is_404_unknown_path() -> None:
    """An extra path parsed for a skill that does not answer it: 404 naming the path."""
    result = serve(Request("/metrics"), view_of(1), 0.0, 50, 60.0)
    assert result.status_code == 404
    assert json.loads(result.body)["error"] == {
        "code": "unknown_path",
        "message": "'/metrics' is not served here",
    }
