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

"""``/tools`` and ``/tools/<name>`` pages are bounded in bytes, not only in items.

Anyone can register large tools: before, 50 tools of 915 KB (100 arguments with 9 KB
descriptions) made one page 47 MB, encoded on the agent's loop for every request. Every
item must still be reachable by following ``nextCursor``.

Most tests lower the bound to :data:`TEST_BOUND` (the pages scale with it, and every
item's text is checked, so the served 1 MiB bound made these tests read 45 MB of text);
one keeps the served bound, ``routes.PAGE_MAX_BYTES``.
"""

import json
from typing import Any, Dict, List, Optional

import pytest
from mech_catalogue_core.http_api import routes
from mech_catalogue_core.model.catalogue import (
    Mech,
)
from mech_catalogue_core.model.tool import (
    Argument,
    Provenance,
    Tool,
)

from packages.mech_catalogue.skills.tool_metadata_abci.tests.test_handlers import (
    exposed,
    get,
    ref,
)

#: the page bound most tests serve with: pages scale with it
TEST_BOUND = 64 * 1024


@pytest.fixture(name="page_bound")
def lowered_page_bound(monkeypatch: Any) -> int:
    """Serve pages bounded by :data:`TEST_BOUND`.

    :param monkeypatch: lowers ``routes.PAGE_MAX_BYTES``.
    :return: the bound served in this test, in bytes.
    """
    monkeypatch.setattr(routes, "PAGE_MAX_BYTES", TEST_BOUND)
    return TEST_BOUND


def long_enum(bound: int) -> str:
    """An enum long enough that three tools holding it pass ``bound``.

    A description would not do: every text a model reads is capped at 1,024 characters
    (model.untrusted_text).

    :param bound: the page bound, in bytes.
    :return: the schema, compact JSON.
    """
    values = [f"v{i:07d}" for i in range(bound // 33 + 100)]
    return json.dumps({"type": "string", "enum": values}, separators=(",", ":"))


def huge_enum(bound: int) -> str:
    """An enum past ``bound`` by itself.

    :param bound: the page bound, in bytes.
    :return: the schema, compact JSON.
    """
    values = [f"w{i:07d}" for i in range(bound // 11 + 100)]
    return json.dumps({"type": "string", "enum": values}, separators=(",", ":"))


def big_tool(name: str, mech_id: int, bound: int) -> Tool:
    """A tool whose one argument's schema is a third of the page bound.

    :param name: the tool name.
    :param mech_id: the offering mech.
    :param bound: the page bound, in bytes.
    :return: the tool.
    """
    argument = Argument(
        "prompt", "enum", long_enum(bound), True, None, "one of the values"
    )
    return Tool(
        name=name,
        description=f"{name} of {mech_id}",
        arguments=(argument,),
        provenance=Provenance("input_schema", ref(mech_id)),
    )


def mech(mech_id: int, *tools: Tool) -> Mech:
    """An ok mech offering ``tools``.

    :param mech_id: the agent id.
    :param tools: its tools.
    :return: the mech.
    """
    return Mech(
        ref=ref(mech_id),
        digest="0x" + f"{mech_id:02x}" * 32,
        cid=f"bafy{mech_id}",
        status="ok",
        tools=tools,
        observed_block=20,
    )


def pages(url: str, current: Any, page_size: int) -> List[Dict[str, Any]]:
    """Every page of ``url``, following ``nextCursor``.

    :param url: the first page's URL (no query).
    :param current: the exposed catalogue.
    :param page_size: items per page.
    :return: the decoded bodies, in order.
    """
    found: List[Dict[str, Any]] = []
    cursor: Optional[str] = None
    while True:
        status, body = get(
            url + ("" if cursor is None else f"?cursor={cursor}"), current, page_size
        )
        assert status == 200, body
        found.append(body)
        cursor = body.get("nextCursor")
        if cursor is None:
            return found


def test_a_tools_page_stops_at_the_byte_bound_and_every_name_is_reached(
    page_bound: int,
) -> None:
    """Five large tools, 50 a page: pages of at most the bound, all five names served once.

    :param page_bound: the bound served.
    """
    current = exposed(
        *(mech(i, big_tool(f"big-{i}", i, page_bound)) for i in range(1, 6))
    )
    bodies = pages("/tools", current, page_size=50)
    assert len(bodies) >= 2  # without the bound: one page of five
    for body in bodies:
        assert body["tools"]  # never an empty page
        items = sum(len(json.dumps(t)) for t in body["tools"])
        assert len(body["tools"]) == 1 or items <= page_bound
    names = [t["name"] for body in bodies for t in body["tools"]]
    assert sorted(names) == sorted(f"big-{i}" for i in range(1, 6))


def test_a_names_offers_stop_at_the_byte_bound_and_every_offer_is_reached() -> None:
    """One name offered by five mechs with large tools: every offer once, in ref order.

    Served with the real bound, 1 MiB.
    """
    page_bound = routes.PAGE_MAX_BYTES
    current = exposed(*(mech(i, big_tool("same", i, page_bound)) for i in range(1, 6)))
    bodies = pages("/tools/same", current, page_size=50)
    assert len(bodies) >= 2
    for body in bodies:
        assert body["offer_count"] == 5 and body["offers"]
        items = sum(len(json.dumps(o)) for o in body["offers"])
        assert len(body["offers"]) == 1 or items <= page_bound
    ids = [o["mech"]["mech_id"] for body in bodies for o in body["offers"]]
    assert ids == [1, 2, 3, 4, 5]


def test_one_item_larger_than_the_bound_is_served_alone(page_bound: int) -> None:
    """A tool past the bound by itself still has a page: one item, then the next.

    :param page_bound: the bound served.
    """
    huge = Argument(
        "prompt", "enum", huge_enum(page_bound), True, None, "past the bound"
    )
    first = Tool(
        name="a-huge",
        description="past the bound",
        arguments=(huge,),
        provenance=Provenance("input_schema", ref(1)),
    )
    current = exposed(mech(1, first), mech(2, big_tool("b-big", 2, page_bound)))
    bodies = pages("/tools", current, page_size=50)
    assert [[t["name"] for t in body["tools"]] for body in bodies] == [
        ["a-huge"],
        ["b-big"],
    ]


def test_small_tools_still_fill_pages_by_count() -> None:
    """Ten small tools, 4 a page: pages of 4, 4 and 2 as before the bound."""
    tools = [
        Tool(
            name=f"t{i:02d}",
            description="small",
            provenance=Provenance("name_only", ref(1)),
        )
        for i in range(10)
    ]
    bodies = pages("/tools", exposed(mech(1, *tools)), page_size=4)
    assert [len(body["tools"]) for body in bodies] == [4, 4, 2]


def test_a_names_page_builds_only_the_offers_it_can_hold(
    monkeypatch: Any, page_bound: int
) -> None:
    """Fifty large offers of one name: a page builds its one offer and the one that spilt.

    Building an offer decodes every schema of its tool; 50 registrations of an 870 KB tool
    made each page build all 50 (about 2 s) before cutting it to one offer.

    :param monkeypatch: counts ``Tool.to_dict`` calls.
    :param page_bound: the bound served.
    """
    built: List[str] = []
    original = Tool.to_dict

    def counting(self: Tool) -> Dict[str, Any]:
        built.append(self.description)
        return original(self)

    huge = Argument(
        "prompt", "enum", huge_enum(page_bound), True, None, "past the bound"
    )
    current = exposed(
        *(
            mech(
                i,
                Tool(
                    name="same",
                    description=f"same of {i}",
                    arguments=(huge,),
                    provenance=Provenance("input_schema", ref(i)),
                ),
            )
            for i in range(1, 51)
        )
    )
    monkeypatch.setattr(Tool, "to_dict", counting)
    status, body = get("/tools/same", current, 50)
    assert status == 200 and len(body["offers"]) == 1
    assert body["nextCursor"] == "1" and body["offer_count"] == 50
    assert built == ["same of 1", "same of 2"]
    built.clear()
    status, body = get("/tools/same?cursor=49", current, 50)
    assert status == 200 and [o["mech"]["mech_id"] for o in body["offers"]] == [50]
    assert built == ["same of 50"]
