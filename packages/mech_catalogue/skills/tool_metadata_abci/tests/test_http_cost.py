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

"""One HTTP request costs O(page size), whatever the catalogue's size (issue #10 item 9).

Work is counted, not timed: every Python call, line and return executed while answering
a request (``sys.settrace``), for the same requests against a catalogue of 100 tools
and one of 6,000 (3,050 names, most offered by two mechs). Everything that grows with the catalogue is built once per agreed
catalogue (``CatalogueView.build``, outside the count). The figures at 20,000 tools,
timed, come from ``scripts/bench_http.py`` (docs/faults.md).
"""

import sys
from types import FrameType
from typing import Any, Callable, Optional

import pytest
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.http_api import routes
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (
    Argument,
    MechRef,
    Provenance,
    Tool,
)

PAGE_SIZE = 20
TOOLS_PER_MECH = 100
SMALL_MECHS = 1
LARGE_MECHS = 60
Tracer = Callable[[FrameType, str, Any], Optional[Callable[..., Any]]]


def typed_tool(ref: MechRef, index: int) -> Tool:
    """A tool with typed arguments, named so that every second mech repeats names.

    :param ref: the mech.
    :param index: the tool's index in the catalogue.
    :return: the tool.
    """
    return Tool(
        name=f"tool-{index:06d}",
        description=f"tool {index}",
        arguments=(
            Argument("prompt", "str", '{"type":"string"}'),
            Argument("temperature", "float", '{"type":"number"}', False, "0.5"),
        ),
        provenance=Provenance("arguments_v1", ref, "bafy", "0x" + "00" * 32),
    )


def view_of(mechs: int) -> CatalogueView:
    """Build the HTTP view of a catalogue of ``mechs`` x 100 tools (half the names offered twice).

    :param mechs: how many mechs.
    :return: the view.
    """
    built = []
    for mech_id in range(mechs):
        ref = MechRef(100, "legacy_mech_registry", "0x" + "ab" * 20, mech_id)
        first = (mech_id // 2) * TOOLS_PER_MECH + (TOOLS_PER_MECH // 2) * (mech_id % 2)
        tools = tuple(typed_tool(ref, first + i) for i in range(TOOLS_PER_MECH))
        built.append(Mech(ref=ref, status="ok", tools=tools, observed_block=5))
    catalogue = Catalogue.build(built)
    return CatalogueView.build(
        ExposedCatalogue(catalogue, catalogue.digest(), "cd" * 32, 5, 1.0, 1)
    )


def work(view: CatalogueView, url: str) -> int:
    """Count the Python events executed answering one GET.

    :param view: the served catalogue.
    :param url: the request URL.
    :return: calls + lines + returns executed.
    """
    count = 0

    def tracer(  # pylint: disable=unused-argument
        frame: FrameType, event: str, arg: Any
    ) -> Tracer:
        nonlocal count
        count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        result = route("GET", url, b"", view, 2.0, PAGE_SIZE, 3600.0)
    finally:
        sys.settrace(previous)
    assert result.status_code == 200, (url, result.body[:200])
    return count


@pytest.fixture(scope="module", name="views")
def views_fixture() -> "tuple[CatalogueView, CatalogueView]":
    """The small and the large catalogue's views.

    :return: (100 tools, 6,000 tools) views.
    """
    return view_of(SMALL_MECHS), view_of(LARGE_MECHS)


@pytest.mark.parametrize(
    "path",
    [
        "/tools",
        "/tools?cursor=20",
        "/tools?cursor=40",
        "/tools/tool-000010",
        "/tools/tool-000030",
        "/healthcheck",
        "/mechs",
    ],
)
def test_work_per_request_does_not_grow_with_the_catalogue(
    views: "tuple[CatalogueView, CatalogueView]", path: str
) -> None:
    """The same request costs the same work at 100 tools and at 6,000."""
    small, large = views
    assert len(large.names) >= 30 * len(small.names) > 0
    cost_small, cost_large = work(small, path), work(large, path)
    assert cost_large <= cost_small * 1.02 + 10, (cost_small, cost_large)


def test_the_last_page_costs_like_the_first(
    views: "tuple[CatalogueView, CatalogueView]",
) -> None:
    """An offset deep into 3,050 names costs what the first page does (no scan up to it)."""
    _, large = views
    last = (len(large.names) - 1) // PAGE_SIZE * PAGE_SIZE
    first_page = work(large, "/tools?cursor=60")  # both pages not requested before
    assert work(large, f"/tools?cursor={last}") <= first_page * 1.02 + 10


def test_a_flood_of_requests_exports_each_tool_once(monkeypatch) -> None:
    """Many GETs of every page and tool: each name's MCP Tool is built once per view."""
    view = view_of(4)  # 400 tools, 300 names
    built: "list[str]" = []
    original = routes.mcp_tool

    def counting(tools: Any, exported: str) -> Any:
        built.append(exported)
        return original(tools, exported)

    monkeypatch.setattr(routes, "mcp_tool", counting)
    pages = range(0, len(view.names), PAGE_SIZE)
    bodies = set()
    for _ in range(20):
        for offset in pages:
            result = route(
                "GET", f"/tools?cursor={offset}", b"", view, 2.0, PAGE_SIZE, 3600.0
            )
            assert result.status_code == 200
            bodies.add(result.body)
        for name in view.names[::7]:
            assert (
                route(
                    "GET", f"/tools/{name}", b"", view, 2.0, PAGE_SIZE, 3600.0
                ).status_code
                == 200
            )
    assert sorted(built) == sorted(view.exported[n] for n in view.names)
    assert len(bodies) == len(pages)  # the same page, the same bytes, every time
    fresh = view_of(4)  # another agreed catalogue: its own tools, built again
    route("GET", "/tools", b"", fresh, 2.0, PAGE_SIZE, 3600.0)
    assert len(built) == len(view.names) + PAGE_SIZE


def test_a_repeated_page_costs_only_its_encoding(
    views: "tuple[CatalogueView, CatalogueView]",
) -> None:
    """The second request of a page does a fraction of the first's work (no export again)."""
    _, large = views
    offset = (len(large.names) // 2) // PAGE_SIZE * PAGE_SIZE
    first = work(large, f"/tools?cursor={offset}")
    again = work(large, f"/tools?cursor={offset}")
    assert again * 5 < first, (first, again)
