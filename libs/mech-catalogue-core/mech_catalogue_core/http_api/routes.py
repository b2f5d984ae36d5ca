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

"""The skill's read-only HTTP API, as pure functions from the exposed catalogue to responses.

Routes (all GET, JSON bodies):

``/tools[?cursor=<c>][&kind=<kind>]``
    MCP ``tools/list`` result shape (modelcontextprotocol.io, specification 2026-07-28,
    "Tools"; ``exporters.mcp_tool.tools_list_result``): ``{"tools": [Tool], "resultType",
    "ttlMs", "cacheScope", "nextCursor"?: str}``, one entry per distinct tool name,
    sorted by name, ``page_size`` per page (fewer when the next would take the page's
    items past :data:`PAGE_MAX_BYTES`, never none); ``kind`` keeps only the names some mech offers
    with that ``Tool.kind``; the cursor is opaque to clients (today: the
    decimal offset of the next name, 1-9 ASCII digits, below the number of names). Each
    Tool is ``exporters.mcp_tool.offered_tool``: the checked MCP Tool of the first offering
    mech (ref order), named by the catalogue-wide MCP name mapping, with
    ``_meta["io.olas/mech-tool"]`` extended by ``mechs`` (keys of every offering mech),
    ``collision``, ``schema_mechs`` (the offering mechs whose arguments
    are the served ones) and ``conflicting_schemas``.
``/tools/<name>[?cursor=<c>]``
    ``{"name", "collision", "offer_count", "mcp", "offers": [{"mech": MechRef, "tool":
    Tool.to_dict(), "same_as_served": bool, "marketplace": [MechFacts.to_dict()]}],
    "nextCursor"?: str}``, ``page_size`` offers per page in ref order, bounded in bytes
    as ``/tools`` (the cursor as on ``/tools``); 404 when no mech offers it. Each offer's
    ``tool`` is ``model.untrusted_text.tool_for_model`` of it: the name as published, every
    text cleaned of invisible characters and capped, as in every exporter.
``/tools?q=<words>[&kind=..][&max_price=..][&sort=relevance|price|karma|recent]``
``[&payment=..][&mech=..][&registry=..][&typed=true|false][&callable=true]``
``[&delivering=true][&min_karma=..][&delivered_within=<blocks>][&cursor=..]``
    A search (:mod:`..search`; any of ``http_api.request.SEARCH_PARAMETERS`` makes one):
    the same ``tools/list`` shape, one entry per tool name some matching offer carries,
    best offer first (BM25 relevance, price or karma, ties by name then mech), ``page_size``
    per page (at most ``search.query.MAX_PAGE_SIZE``) and bounded in bytes as above;
    ``nextCursor`` is the engine's (bound to the query and the catalogue: 400
    ``invalid_cursor`` once either changed). The index is built on the first search of
    an agreed catalogue and kept with it.
``/mechs[?cursor=<c>]``
    ``{"mechs": [{"ref", "key", "status", "digest", "cid", "observed_block", "stale",
    "tools", "withheld", "problems", "marketplace", "in_views"}], "nextCursor"?: str}``,
    mechs in ref order, ``page_size`` per page and bounded in bytes as ``/tools`` (the
    cursor as on ``/tools``): ``withheld`` names
    the mech's tools not offered because of an error-level problem (``problems`` says
    which); ``in_views`` whether its tools and facts are in the shared-state views
    (``catalogue.views.views_selection``: false for an ok mech left out by their bound,
    and for every mech that is not ok).
``/mechs?<the search parameters of /tools?q=, kind included>``
    the mechs offering a matching offer, in the order of each one's best matching
    offer, as the same entries: ``{"mechs": [...], "total", "nextCursor"?}``, bounded
    as ``/mechs`` (the cursor the engine's, bound to the query, the catalogue and this
    route).

``marketplace`` lists each mech contract serving the entry (``model.market.MechFacts``:
address, ``max_delivery_rate`` = price per request in wei as decimal text, payment type,
counts, karma, the block read; a value that could not be read is null and named in
``unread`` with the reason) with ``liveness`` (``model.vocabulary.MechLiveness``, from
its counters) and ``payment`` (``model.payment.Payment.to_dict()``: the
way, asset, decimals and price in whole units, and ``status`` ``unchecked`` when it can be
paid in principle, else ``unsupported``/``price_unread`` with the ``reason``; no
requester's balance is read here); empty when no marketplace facts were read.
``/mechs/<key>``
    one mech's ``/mechs`` entry, by its catalogue entry key (``MechRef.key``, as
    ``/mechs`` gives it; percent-encoded in the path); 404 ``unknown_mech``.
``/offers?<the search parameters of /tools?q=>``
    one page of matching offers (a tool of one mech) with price, payment way, karma and
    liveness, for the catalogue page: :mod:`.offers`.
``/catalogue/``, ``/catalogue/<file>``
    the catalogue web page and its files (:mod:`.page_files`), with a strict
    Content-Security-Policy; 404 ``unknown_path`` for any other file. ``/`` and
    ``/catalogue`` answer 302 to ``/catalogue/``.
``/healthcheck``
    freshness: ``{"status": "fresh"|"stale"|"no_catalogue", ...}``; 200 when fresh, else 503.

Before the first agreed catalogue, ``/tools``, ``/tools/<name>`` and ``/mechs`` answer 503
``no_catalogue`` (not an empty list: "not ready" must not read as "no tools").

Errors are ``{"error": {"code": <machine code>, "message": <sentence>}}`` with
400/404/405/414 (``http_request.ERROR_STATUS``); requests are parsed strictly by
:func:`.http_request.parse_request` and :func:`route` never raises on any input.

Cost: everything that grows with the catalogue is computed once per agreed catalogue in
:class:`CatalogueView` (names in page order, the MCP name mapping, the ``/mechs`` body,
the healthcheck counts, and each name's MCP Tool, exported on first request and kept for
the view's lifetime) and the catalogue's own index (``tools_named``), so one request
costs O(page bytes) (``/tools``: encoding kept dicts), O(offers) (``/tools/<name>``) or
O(1) plus the bytes sent; a flood of ``/tools`` requests exports each tool at most once
per agreed catalogue.
"""

from bisect import bisect_right
from dataclasses import dataclass, field, replace
from itertools import accumulate
from types import MappingProxyType
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.lookalikes import lookalike_problems
from mech_catalogue_core.catalogue.views import (
    views_selection,
)
from mech_catalogue_core.exporters.mcp_tool import (
    offered_tool,
    same_signature,
    tools_list_result,
    with_lookalike_warning,
)
from mech_catalogue_core.exporters.names import (
    MCP_TOOL_RULE,
    export_names,
)
from mech_catalogue_core.http_api.offers import (
    contract_view,
    search_offers,
)
from mech_catalogue_core.http_api.page_files import (
    page_file,
    page_redirect,
)
from mech_catalogue_core.http_api.request import (
    HEALTHCHECK_PATH,
    INVALID_CURSOR,
    INVALID_SEARCH_PARAMETER,
    MECH_ROUTE,
    MECHS_PATH,
    NO_CATALOGUE,
    OFFERS_PATH,
    PAGE_ALIAS_ROUTE,
    PAGE_ROUTE,
    TOOL_ROUTE,
    TOOLS_PATH,
    UNKNOWN_MECH,
    UNKNOWN_PATH,
    UNKNOWN_TOOL,
    HttpResult,
    Request,
    error_result,
    json_bytes,
    json_result,
    parse_request,
    quoted,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.problems import Problem
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import (
    tool_for_model,
)
from mech_catalogue_core.search.index import (
    InvalidCursor,
    SearchIndex,
)
from mech_catalogue_core.search.query import (
    MAX_PAGE_SIZE,
    InvalidQuery,
    SearchQuery,
)

__all__ = ["CatalogueView", "HttpResult", "mcp_tool", "route", "serve"]

#: encoded bytes of one page's items at most (a page always holds one): anyone can register
#: 50 tools of 915 KB each (100 arguments with long descriptions), which made one ``/tools``
#: or ``/tools/<name>`` answer 47 MB, built on the agent's loop for every request
PAGE_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class CatalogueView:
    """What the HTTP API serves for one agreed catalogue, built once (O(mechs + tools)).

    :param exposed: the agreed catalogue.
    :param names: the distinct tool names, sorted (the ``/tools`` page order).
    :param exported: tool name -> its MCP name (unique, ``MCP_TOOL_RULE``: never a discovery tool's name).
    :param mech_entries: each mech's ``GET /mechs`` entry, encoded, ref order.
    :param counts: ``mechs``, ``tools``, ``stale_mechs``, ``errors``, ``collisions``.
    :param kinds: tool kind -> the names (page order) some mech offers with that kind.
    :param mech_keys: each mech's catalogue entry key -> its place in
        :attr:`mech_entries`.
    """

    exposed: ExposedCatalogue
    names: Tuple[str, ...]
    exported: Mapping[str, str]
    mech_entries: Tuple[bytes, ...]
    counts: Mapping[str, int]
    kinds: Mapping[str, Tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    #: the running total of :attr:`mech_entries`' sizes (computed with them)
    mech_ends: Tuple[int, ...] = ()
    mech_keys: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    #: tool name -> its look-alike warning (``catalogue.lookalikes``); names without one
    #: are absent
    lookalikes: Mapping[str, Problem] = field(
        default_factory=lambda: MappingProxyType({})
    )
    # the search index of the catalogue, built on the first search (one entry at most)
    _search: Dict[str, SearchIndex] = field(
        default_factory=dict, repr=False, compare=False
    )
    # tool name -> its MCP Tool, filled on first request (at most one entry per name)
    _mcp_tools: Dict[str, Dict[str, Any]] = field(
        default_factory=dict, repr=False, compare=False
    )
    # tool name -> the encoded size of its MCP Tool, as _mcp_tools
    _mcp_sizes: Dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def mcp_tool_of(self, name: str) -> Dict[str, Any]:
        """Return the MCP Tool served for a name, exported once per view.

        :param name: a name of :attr:`names`.
        :return: :func:`mcp_tool` of its offers (shared: callers must not mutate it).
        """
        tool = self._mcp_tools.get(name)
        if tool is None:
            tool = with_lookalike_warning(
                mcp_tool(self.exposed.catalogue.tools_named(name), self.exported[name]),
                self.lookalikes.get(name),
            )
            self._mcp_tools[name] = tool
            self._mcp_sizes[name] = len(json_bytes(tool))
        return tool

    @property
    def mechs_body(self) -> bytes:
        """Return every mech's entry in one ``{"mechs": [...]}`` body (not served: paged).

        :return: the JSON bytes.
        """
        return b'{"mechs":[' + b",".join(self.mech_entries) + b"]}"

    def search_index(self) -> SearchIndex:
        """Return the catalogue's search index, built on first use (once per view).

        :return: the index, its cursors bound to the agreed catalogue digest.
        """
        index = self._search.get("index")
        if index is None:
            index = SearchIndex.build(
                self.exposed.catalogue, self.exposed.catalogue_digest
            )
            self._search["index"] = index
        return index

    def mcp_tool_size(self, name: str) -> int:
        """Return the encoded size of the MCP Tool served for a name (exported once per view).

        :param name: a name of :attr:`names`.
        :return: bytes of its JSON.
        """
        self.mcp_tool_of(name)
        return self._mcp_sizes[name]

    @classmethod
    def build(cls, exposed: ExposedCatalogue) -> "CatalogueView":
        """Build the view.

        :param exposed: the agreed catalogue.
        :return: the view.
        """
        catalogue = exposed.catalogue
        block = exposed.block_number
        names = catalogue.tool_names()
        in_views = views_selection(catalogue, incumbents=exposed.incumbents)
        mechs = [
            {
                "ref": m.ref.to_dict(),
                "key": m.ref.key,
                "status": m.status,
                "digest": m.digest,
                "cid": m.cid,
                "observed_block": m.observed_block,
                "stale": m.observed_block is None or m.observed_block < block,
                "tools": [t.name for t in m.tools],
                "withheld": list(m.withheld),
                "problems": [p.to_dict() for p in m.problems],
                "marketplace": [_facts_view(f) for f in m.marketplace],
                "in_views": m.ref in in_views,
            }
            for m in catalogue.mechs
        ]
        entries = tuple(json_bytes(entry) for entry in mechs)
        kinds: Dict[str, List[str]] = {}
        for name in names:
            for kind in sorted({t.kind for t in catalogue.tools_named(name) if t.kind}):
                kinds.setdefault(kind, []).append(name)
        return cls(
            exposed=exposed,
            names=names,
            kinds=MappingProxyType({k: tuple(v) for k, v in kinds.items()}),
            exported=MappingProxyType(export_names(names, MCP_TOOL_RULE)),
            mech_entries=entries,
            mech_ends=tuple(accumulate(len(entry) for entry in entries)),
            mech_keys=MappingProxyType(
                {m.ref.key: at for at, m in enumerate(catalogue.mechs)}
            ),
            lookalikes=MappingProxyType(lookalike_problems(list(names))),
            counts=MappingProxyType(
                {
                    "mechs": len(catalogue.mechs),
                    "tools": len(names),
                    "stale_mechs": len(catalogue.stale(block)),
                    "errors": len(catalogue.errors()),
                    "collisions": len(catalogue.collisions()),
                }
            ),
        )


def mcp_tool(tools: Tuple[Tool, ...], exported: str) -> Dict[str, Any]:
    """One MCP ``Tool`` for a tool name (``exporters.mcp_tool.to_mcp_tool`` of the first offer).

    :param tools: every mech's tool of one name, ref order (non-empty).
    :param exported: the MCP-safe unique name.
    :return: the MCP Tool, its ``_meta[META_KEY]`` extended with ``mechs`` (every offering
        mech's key) and ``collision`` (True when more than one mech offers the name).
    """
    return offered_tool(tools, exported)


def not_ready() -> HttpResult:
    """Answer a catalogue route before the first agreed catalogue.

    :return: 503 ``no_catalogue``, saying what to wait for.
    """
    return error_result(
        NO_CATALOGUE,
        "no catalogue has been agreed yet (the agents are still reading the registries "
        "and fetching manifests); retry when GET /healthcheck stops answering "
        "no_catalogue",
    )


def list_tools(
    view: Optional[CatalogueView],
    cursor: Optional[int],
    page_size: int,
    kind: str = "",
) -> HttpResult:
    """Answer ``GET /tools`` (``?kind=`` for the tools of one kind), in O(page size).

    :param view: the served catalogue (None before the first agreement).
    :param cursor: the offset from a previous page's ``nextCursor`` (of the same query).
    :param page_size: tools per page.
    :param kind: only names some mech offers with this ``kind`` ("" for all).
    :return: the MCP ``tools/list`` result page; 400 ``invalid_cursor`` when the cursor
        is past the last name (the catalogue changed since it was issued); 503
        ``no_catalogue`` before the first agreement.
    """
    if view is None:
        return not_ready()
    names = view.kinds.get(kind, ()) if kind else view.names
    offset = 0 if cursor is None else cursor
    if cursor is not None and offset >= len(names):
        return error_result(
            INVALID_CURSOR,
            f"cursor {cursor} is past the {len(names)} tool names served now (the "
            "catalogue may have changed); omit it to start over",
        )
    end = _page_end(
        offset, page_size, len(names), lambda i: view.mcp_tool_size(names[i])
    )
    return json_result(
        200,
        tools_list_result(
            [view.mcp_tool_of(name) for name in names[offset:end]],
            str(end) if end < len(names) else None,
        ),
    )


def search_tools(
    view: Optional[CatalogueView],
    query: SearchQuery,
    cursor: str,
    page_size: int,
) -> HttpResult:
    """Answer a ``GET /tools`` search: one page of tool names, best match first.

    :param view: the served catalogue (None before the first agreement).
    :param query: the parsed search (its page size is replaced by the server's).
    :param cursor: a previous page's ``nextCursor`` ("": the first page).
    :param page_size: names per page (capped at ``search.query.MAX_PAGE_SIZE``).
    :return: the ``tools/list`` result page; 400 ``invalid_cursor`` for a cursor of
        another query or catalogue; 503 ``no_catalogue`` before the first agreement.
    """
    if view is None:
        return not_ready()
    index = view.search_index()
    try:
        query = replace(query, page_size=min(page_size, MAX_PAGE_SIZE))
        page = index.search(query, cursor or None, distinct=True)
    except InvalidCursor as exc:
        return error_result(INVALID_CURSOR, str(exc))
    except InvalidQuery as exc:
        return error_result(INVALID_SEARCH_PARAMETER, str(exc))
    names = [hit.tool.name for hit in page.hits]
    end = _page_end(0, len(names), len(names), lambda i: view.mcp_tool_size(names[i]))
    next_cursor = page.next_cursor
    if end < len(names):
        next_cursor = index.cursor_at(query, page.offset + end, distinct=True)
    return json_result(
        200,
        tools_list_result(
            [view.mcp_tool_of(name) for name in names[:end]], next_cursor
        ),
    )


def _bytes_page_end(ends: Tuple[int, ...], offset: int, page_size: int) -> int:
    """Where a page of items of known sizes ends, in O(log items) (no per-item work).

    :param ends: the running total of the items' encoded sizes (``ends[i]``: bytes of
        items ``0..i``).
    :param offset: the page's first item.
    :param page_size: items per page at most.
    :return: the index after the page's last item: ``page_size`` items, fewer when they
        pass :data:`PAGE_MAX_BYTES`, at least one.
    """
    before = ends[offset - 1] if offset else 0
    by_bytes = bisect_right(ends, before + PAGE_MAX_BYTES, lo=offset)
    return max(offset + 1, min(offset + page_size, len(ends), by_bytes))


def _page_end(
    offset: int, page_size: int, count: int, size_of: Callable[[int], int]
) -> int:
    """Where a page starting at ``offset`` ends: ``page_size`` items, or fewer by bytes.

    :param offset: the page's first item.
    :param page_size: items per page at most.
    :param count: items in all.
    :param size_of: the encoded bytes of item ``i``.
    :return: the index after the page's last item (at least ``offset + 1``).
    """
    end, total = offset, 0
    while end < min(count, offset + page_size):
        total += size_of(end)
        if end > offset and total > PAGE_MAX_BYTES:
            break
        end += 1
    return end


def _offer_facts(catalogue: Catalogue, tool: Tool) -> List[Dict[str, Any]]:
    """Return the marketplace facts of the mech offering ``tool`` (O(1) by ref).

    :param catalogue: the catalogue.
    :param tool: an offered tool.
    :return: its mech's ``MechFacts.to_dict()`` list (empty when none were read).
    """
    mech = catalogue.mech(tool.provenance.mech) if tool.provenance.mech else None
    return [] if mech is None else [_facts_view(f) for f in mech.marketplace]


def _facts_view(facts: MechFacts) -> Dict[str, Any]:
    """Return one mech contract's facts with how it is paid (no requester looked at).

    :param facts: the facts.
    :return: ``MechFacts.to_dict()`` plus ``"payment"``:
        ``model.payment.Payment.to_dict()`` (way, asset, decimals, price in whole
        units; status ``unchecked`` when payable in principle, else why not) and
        ``"liveness"`` (:func:`.offers.contract_view`).
    """
    return contract_view(facts)


def show_tool(
    view: Optional[CatalogueView],
    name: str,
    cursor: Optional[int] = None,
    page_size: int = 50,
) -> HttpResult:
    """Answer ``GET /tools/<name>[?cursor=c]``: one page of the name's offers, in O(page).

    An offer is built only while the page has room (at most one past the byte bound is
    built and dropped): 50 registrations of one 870 KB tool made every page build all 50
    (about 2 s of the agent's loop a request) before the page was cut to one.

    Paged like ``/tools`` because anyone can register a name: 2,000 services offering one
    tool made a single answer 3.8 MB, rebuilt on the agent's loop for every request.

    :param view: the served catalogue.
    :param name: the tool name.
    :param cursor: the offset from a previous page's ``nextCursor`` (None: first page).
    :param page_size: offers per page.
    :return: ``{"name", "collision", "offer_count", "mcp", "offers", "nextCursor"?}``;
        404 ``unknown_tool`` when no mech offers it; 400 ``invalid_cursor`` past the
        last offer; 503 ``no_catalogue`` before the first agreement.
    """
    if view is None:
        return not_ready()
    catalogue = view.exposed.catalogue
    tools = catalogue.tools_named(name)
    if not tools:
        return error_result(
            UNKNOWN_TOOL,
            f"no mech in the catalogue offers a tool named {quoted(name)}; see GET /tools",
        )
    offset = 0 if cursor is None else cursor
    if offset >= len(tools):
        return error_result(
            INVALID_CURSOR,
            f"cursor {cursor} is past the {len(tools)} offers of {quoted(name)} served "
            "now (the catalogue may have changed); omit it to start over",
        )
    # Offers are built one at a time while the page has room: building one decodes every
    # schema of the tool, so a page of large offers must not build past its byte bound.
    offers: List[Dict[str, Any]] = []

    def offer_size(index: int) -> int:
        tool = tools[index]
        offers.append(
            {
                "mech": (
                    tool.provenance.mech.to_dict() if tool.provenance.mech else None
                ),
                "tool": tool_for_model(tool).to_dict(),
                "same_as_served": same_signature(tool, tools[0]),
                "marketplace": _offer_facts(catalogue, tool),
            }
        )
        return len(json_bytes(offers[-1]))

    end = _page_end(offset, page_size, len(tools), offer_size)
    body: Dict[str, Any] = {
        "name": name,
        "collision": len(tools) > 1,
        "offer_count": len(tools),
        "mcp": view.mcp_tool_of(name),
        "offers": offers[: end - offset],
    }
    if end < len(tools):
        body["nextCursor"] = str(end)
    return json_result(200, body)


def list_mechs(
    view: Optional[CatalogueView], cursor: Optional[int] = None, page_size: int = 50
) -> HttpResult:
    """Answer ``GET /mechs[?cursor=c]``: one page of mechs, in O(page).

    Each entry is encoded once per catalogue; a page is ``page_size`` of them, fewer
    when they would pass :data:`PAGE_MAX_BYTES` (never none), so the body is bounded
    however many mechs register (one body of 68 mechs was 1.23 MB).

    :param view: the served catalogue.
    :param cursor: the offset from a previous page's ``nextCursor`` (None: first page).
    :param page_size: mechs per page.
    :return: ``{"mechs": [...], "nextCursor"?}``, each mech with status, provenance and
        problems; 400 ``invalid_cursor`` past the last mech; 503 ``no_catalogue``
        before the first agreement.
    """
    if view is None:
        return not_ready()
    entries = view.mech_entries
    offset = 0 if cursor is None else cursor
    if cursor is not None and offset >= len(entries):
        return error_result(
            INVALID_CURSOR,
            f"cursor {cursor} is past the {len(entries)} mechs served now (the "
            "catalogue may have changed); omit it to start over",
        )
    end = _bytes_page_end(view.mech_ends, offset, page_size)
    body = b'{"mechs":[' + b",".join(entries[offset:end]) + b"]"
    if end < len(entries):
        body += b',"nextCursor":"%d"' % end
    return HttpResult(200, body + b"}")


def search_mechs(
    view: Optional[CatalogueView],
    query: SearchQuery,
    cursor: str,
    page_size: int,
) -> HttpResult:
    """Answer ``GET /mechs`` with ``/tools``' filters: the mechs offering a match.

    Mechs in the order of their best matching offer (``SearchIndex.search_mechs``),
    each the ``/mechs`` entry; a page is ``page_size`` of them, fewer when they would
    pass :data:`PAGE_MAX_BYTES` (never none).

    :param view: the served catalogue (None before the first agreement).
    :param query: the parsed search (its page size is replaced by the server's).
    :param cursor: a previous page's ``nextCursor`` ("": the first page).
    :param page_size: mechs per page (capped at ``search.query.MAX_PAGE_SIZE``).
    :return: ``{"mechs": [...], "total", "nextCursor"?}``; 400 ``invalid_cursor`` for a
        cursor of another query, catalogue or route; 503 ``no_catalogue`` before the
        first agreement.
    """
    if view is None:
        return not_ready()
    index = view.search_index()
    try:
        query = replace(query, page_size=min(page_size, MAX_PAGE_SIZE))
        mechs, total, next_cursor, offset = index.search_mechs(query, cursor or None)
    except InvalidCursor as exc:
        return error_result(INVALID_CURSOR, str(exc))
    except InvalidQuery as exc:
        return error_result(INVALID_SEARCH_PARAMETER, str(exc))
    entries = view.mech_entries
    end = _page_end(0, len(mechs), len(mechs), lambda i: len(entries[mechs[i]]))
    if end < len(mechs):
        next_cursor = index.cursor_at(query, offset + end, "mechs")
    body = b'{"mechs":[' + b",".join(entries[at] for at in mechs[:end]) + b"]"
    body += b',"total":%d' % total
    if next_cursor is not None:
        body += b',"nextCursor":' + json_bytes(next_cursor)
    return HttpResult(200, body + b"}")


def show_mech(view: Optional[CatalogueView], key: str) -> HttpResult:
    """Answer ``GET /mechs/<key>``: one mech's ``/mechs`` entry, in O(1).

    :param view: the served catalogue.
    :param key: the mech's catalogue entry key (``MechRef.key``).
    :return: the entry (encoded once per catalogue); 404 ``unknown_mech`` when no mech
        has that key; 503 ``no_catalogue`` before the first agreement.
    """
    if view is None:
        return not_ready()
    at = view.mech_keys.get(key)
    if at is None:
        return error_result(
            UNKNOWN_MECH,
            f"no mech in the catalogue has the key {quoted(key)}; keys are "
            "<chain id>:<registry kind>:<registry address>:<id>, as GET /mechs gives them",
        )
    return HttpResult(200, view.mech_entries[at])


def healthcheck(
    view: Optional[CatalogueView], now: float, max_age_seconds: float
) -> HttpResult:
    """Answer ``GET /healthcheck``, in O(1).

    :param view: the served catalogue.
    :param now: unix time.
    :param max_age_seconds: freshness limit.
    :return: 200 with status fresh, or 503 with status stale / no_catalogue.
    """
    if view is None:
        return json_result(
            503, {"status": NO_CATALOGUE, "max_age_seconds": max_age_seconds}
        )
    exposed = view.exposed
    age = exposed.age_seconds(now)
    body = {
        "status": "fresh" if age <= max_age_seconds else "stale",
        "age_seconds": age,
        "max_age_seconds": max_age_seconds,
        "catalogue_digest": exposed.catalogue_digest,
        "snapshot_digest": exposed.snapshot_digest,
        "block_number": exposed.block_number,
        "period": exposed.period,
        **view.counts,
    }
    return json_result(200 if body["status"] == "fresh" else 503, body)


def serve(
    request: Request,
    view: Optional[CatalogueView],
    now: float,
    page_size: int,
    max_age_seconds: float,
) -> HttpResult:
    """Answer a parsed request.

    :param request: from :func:`.http_request.parse_request`.
    :param view: the served catalogue (None before the first agreement).
    :param now: unix time, seconds.
    :param page_size: tools per ``/tools`` page.
    :param max_age_seconds: the healthcheck's freshness limit.
    :return: the response (404 ``unknown_path`` for a path this module does not serve).
    """
    if request.path == TOOLS_PATH and request.search is not None:
        return search_tools(view, request.search, request.search_cursor, page_size)
    if request.path == TOOLS_PATH:
        return list_tools(view, request.cursor, page_size, request.kind)
    if request.path == TOOL_ROUTE:
        return show_tool(view, request.tool_name, request.cursor, page_size)
    if request.path == MECHS_PATH:  # with search parameters: the mechs offering a match
        return (
            list_mechs(view, request.cursor, page_size)
            if request.search is None
            else search_mechs(view, request.search, request.search_cursor, page_size)
        )
    if request.path == HEALTHCHECK_PATH:
        return healthcheck(view, now, max_age_seconds)
    return _serve_browsing(request, view, page_size)


def _serve_browsing(
    request: Request, view: Optional[CatalogueView], page_size: int
) -> HttpResult:
    """Answer the routes the catalogue page adds: its files, ``/offers``, ``/mechs/<key>``."""
    if request.path == PAGE_ROUTE:
        return page_file(request.page_file)
    if request.path == PAGE_ALIAS_ROUTE:
        return page_redirect()
    if request.path == MECH_ROUTE:
        return show_mech(view, request.mech_key)
    if request.path == OFFERS_PATH and request.search is not None:
        if view is None:
            return not_ready()
        return search_offers(
            view.search_index(), request.search, request.search_cursor, page_size
        )
    return error_result(UNKNOWN_PATH, f"{quoted(request.path)} is not served here")


def route(  # pylint: disable=too-many-arguments
    method: object,
    url: object,
    body: object,
    view: Optional[CatalogueView],
    now: float,
    page_size: int,
    max_age_seconds: float,
) -> HttpResult:
    """Answer one request from its raw parts; never raises on any method, URL or body.

    :param method: the HTTP method.
    :param url: the full URL or path, with query.
    :param body: the request body.
    :param view: the served catalogue (None before the first agreement).
    :param now: unix time, seconds.
    :param page_size: tools per ``/tools`` page.
    :param max_age_seconds: the healthcheck's freshness limit.
    :return: the response.
    """
    request = parse_request(method, url, body)
    if isinstance(request, HttpResult):
        return request
    return serve(request, view, now, page_size, max_age_seconds)
