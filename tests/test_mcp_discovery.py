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

"""Discovery mode in process, through the ``mcp`` SDK's own client (``Client(server)``).

The catalogues are built from manifests by the direct source's own code
(``served_from_catalogue``); no key is given, so calls are dry runs (nothing on chain
here: paying through ``call_tool`` on the devnet is tests/devnet/test_mcp_discovery.py).
"""

from dataclasses import replace
from typing import Any, Dict, List, Optional, cast

import anyio
import mcp_types as types
import pytest
from mcp import Client

from mech_catalogue_cli.mcp_server.call_identity import IDEMPOTENCY_META_KEY
from mech_catalogue_cli.mcp_server.discovery import (
    CALL_TOOL,
    DESCRIBE_TOOL,
    SEARCH_TOOLS,
    searching,
)
from mech_catalogue_cli.mcp_server.option_defaults import AUTO_THRESHOLD, DiscoveryMode
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import ServedCatalogue
from tests.test_mcp_tasks import Ctx, passed_on
from tests.test_mcp_untrusted_text import served_catalogue

DISCOVERY = [SEARCH_TOOLS, DESCRIBE_TOOL, CALL_TOOL]


def _tool(name: str, description: str, kind: str = "", **arguments: str) -> Dict:
    tool: Dict[str, Any] = {"name": name, "description": description}
    if kind:
        tool["kind"] = kind
    if arguments:
        tool["kwargs"] = [
            {"identifier": k, "type": "str", "description": d}
            for k, d in arguments.items()
        ]
    return tool


#: descriptions in the words of mech-predict's and other mechs' own tools
REALISTIC = (
    _tool(
        "prediction-online",
        "Estimates the probability that a market question resolves yes, from web "
        "search results about the event.",
        "prediction",
        question="the market question",
    ),
    _tool(
        "claude-prediction-offline",
        "Predicts the outcome of a question from the model's knowledge only.",
        "prediction",
    ),
    _tool(
        "sentiment-analysis",
        "Classifies the sentiment of a text as positive, negative or neutral.",
        "nlp",
        text="the text to classify",
    ),
    _tool(
        "stabilityai-image",
        "Generates an image from a text prompt with Stable Diffusion.",
        "image",
        width="pixels",
    ),
    _tool(
        "deepl-translate",
        "Translates a text into another language.",
        "nlp",
        target_language="ISO code of the language to translate into",
    ),
    _tool("tide-table", "Tide times for a port, high and low water.", "", port="port"),
)


def _fillers(count: int) -> List[Dict]:
    return [
        _tool(f"filler-{i:03d}", f"Answers filler question number {i}.")
        for i in range(count)
    ]


class _Source:  # pylint: disable=too-few-public-methods
    def __init__(self, served: ServedCatalogue) -> None:
        self.served = served

    def read(self) -> ServedCatalogue:
        """Return the current catalogue."""
        return self.served


def _server(
    served: ServedCatalogue, discovery: str = "search", **settings: Any
) -> MechToolServer:
    server = MechToolServer(
        _Source(served),
        CallSettings("g", "a", discovery=discovery, **settings),
        None,
        None,
    )
    server.refresh()
    return server


def _run(server: MechToolServer, body: Any) -> Any:
    async def main() -> Any:
        async with Client(server.server) as client:
            return await body(client)

    return anyio.run(main)


async def _listed_names(client: Client) -> List[str]:
    names, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if cursor is None:
            return names


def _search(server: MechToolServer, **arguments: Any) -> Any:
    async def body(client: Client) -> Any:
        return await client.call_tool(SEARCH_TOOLS, arguments)

    return _run(server, body)


def _text(result: Any) -> str:
    return result.content[0].text


def test_search_mode_lists_three_tools_with_schemas_list_mode_the_catalogue() -> None:
    """search: the three tools, each with input and output schemas; list: the catalogue."""
    served = served_catalogue(*REALISTIC)
    searched = _run(_server(served, "search"), _listed_names)
    assert searched == DISCOVERY

    async def tools(client: Client) -> Any:
        return (await client.list_tools()).tools

    for tool in _run(_server(served, "search"), tools):
        assert tool.input_schema["type"] == "object" and tool.output_schema, tool.name
    listed = _run(_server(served, "list"), _listed_names)
    assert listed == [t.name for t in served.tools] and len(listed) == len(REALISTIC)


@pytest.mark.parametrize(
    "count,expected",
    [(AUTO_THRESHOLD - 1, False), (AUTO_THRESHOLD, False), (AUTO_THRESHOLD + 1, True)],
)
def test_auto_switches_above_the_threshold(count: int, expected: bool) -> None:
    """auto: the catalogue up to the threshold, the three tools above it."""
    served = served_catalogue(*_fillers(count))
    names = _run(_server(served, "auto"), _listed_names)
    assert (names == DISCOVERY) is expected
    assert len(names) == (3 if expected else count)


def test_searching_is_the_mode_and_the_count() -> None:
    """The pure choice behind tools/list."""
    assert searching(DiscoveryMode.SEARCH, 0) and not searching(
        DiscoveryMode.LIST, 10**6
    )
    assert searching(DiscoveryMode.AUTO, 5, threshold=4)
    assert not searching(DiscoveryMode.AUTO, 4, threshold=4)


@pytest.mark.parametrize(
    "query,first",
    [
        ("will this market question resolve yes", "prediction-online"),
        ("is this review positive or negative", "sentiment-analysis"),
        ("generate images of a cat", "stabilityai-image"),
        ("translate to German", "deepl-translate"),
        ("when is high water at the harbour port", "tide-table"),
    ],
)
def test_a_query_finds_the_right_tool_first(query: str, first: str) -> None:
    """BM25 over names, descriptions and arguments ranks the fitting tool first."""
    served = served_catalogue(*REALISTIC, *_fillers(50))
    result = _search(_server(served), query=query)
    assert not result.is_error, _text(result)
    matches = result.structured_content["matches"]
    assert matches[0]["name"] == first, [m["name"] for m in matches]
    assert matches[0]["price_wei"] == "7" and matches[0]["payment"] == "native"


def test_a_query_naming_a_tool_gets_it_first() -> None:
    """The name in words or as written beats a longer name holding the same words."""
    shorter = _tool("claude-prediction-online", "Prediction online.", "prediction")
    served = served_catalogue(*REALISTIC, shorter, *_fillers(5))
    server = _server(served)
    for query in ("prediction online", "prediction-online", "Prediction Online"):
        matches = _search(server, query=query).structured_content["matches"]
        assert matches[0]["name"] == "prediction-online", query
    matches = _search(server, query="claude prediction offline").structured_content
    assert matches["matches"][0]["name"] == "claude-prediction-offline"


def test_matches_are_compact_one_line_and_tied_by_name() -> None:
    """A match: one cleaned line; equal scores come in name order."""
    served = served_catalogue(*_fillers(30))
    result = _search(_server(served), query="filler question", limit=25)
    names = [m["name"] for m in result.structured_content["matches"]]
    assert names == sorted(names) and len(names) == 25
    match = result.structured_content["matches"][0]
    assert set(match) == {
        "name",
        "title",
        "summary",
        "kind",
        "price",
        "price_wei",
        "payment",
        "typed",
        "tenure",
    }
    assert match["summary"] == "Answers filler question number 0."
    assert "Paid call" not in match["summary"]  # the price is its own field


def test_hidden_and_long_manifest_text_is_one_clean_line() -> None:
    """Newlines, bidi controls and zero-width characters do not reach a match."""
    hostile = _tool(
        "odd-tool",
        "First line\n\nSecond\u200b line\u202e " + "word " * 400,
        port="port",
    )
    served = served_catalogue(hostile)
    matches = _search(_server(served), query="second line").structured_content[
        "matches"
    ]
    summary = matches[0]["summary"]
    assert "\n" not in summary and "\u200b" not in summary and "\u202e" not in summary
    assert len(summary) <= 200 and summary.startswith("First line Second line")


def test_filters_kind_price_and_typed() -> None:
    """kind, max_price (an integer: native wei) and typed keep only what they say."""
    cheap = served_catalogue(*REALISTIC[:3], price=5)
    dear = served_catalogue(*REALISTIC[3:], price=500, address="0x" + "0c" * 20)
    served = ServedCatalogue("two", cheap.tools + dear.tools)
    server = _server(served)

    def names(**arguments: Any) -> List[str]:
        result = _search(server, **arguments)
        assert not result.is_error, _text(result)
        return [m["name"] for m in result.structured_content["matches"]]

    assert names(kind="nlp") == ["deepl-translate", "sentiment-analysis"]
    assert names(max_price=100) == [
        "claude-prediction-offline",
        "prediction-online",
        "sentiment-analysis",
    ]
    assert names(typed=False) == ["claude-prediction-offline"]
    assert names(query="text", kind="nlp", max_price=100) == ["sentiment-analysis"]


def test_min_karma_and_karma_sort() -> None:
    """min_karma and sort karma follow the paid mech's karma; relevance ignores it.

    Sort karma is highest first, unread last, relevance breaking ties.
    """
    karma = {"prediction-online": 1, "claude-prediction-offline": 9, "tide-table": None}
    base = served_catalogue(REALISTIC[0], REALISTIC[1], REALISTIC[5])
    served = ServedCatalogue(
        "karma",
        tuple(
            replace(
                tool,
                offers=tuple(replace(o, karma=karma[tool.name]) for o in tool.offers),
            )
            for tool in base.tools
        ),
    )
    server = _server(served)

    def names(**arguments: Any) -> List[str]:
        result = _search(server, **arguments)
        assert not result.is_error, _text(result)
        return [m["name"] for m in result.structured_content["matches"]]

    assert names(min_karma=2) == ["claude-prediction-offline"]
    assert names(min_karma=0) == ["claude-prediction-offline", "prediction-online"]
    assert names(sort="karma") == [
        "claude-prediction-offline",
        "prediction-online",
        "tide-table",
    ]
    relevance = names(query="probability market question prediction")
    assert relevance[0] == "prediction-online"  # more karma does not buy rank
    assert _search(server, sort="popularity").is_error


def test_delivered_within_and_recent_sort() -> None:
    """delivered_within and sort recent follow the paid offer's latest delivery block.

    Facts read at block 100: claude delivered at 95, prediction-online at 40, the tide
    table never; recent is latest first, none known last.
    """
    last = {
        "prediction-online": 40,
        "claude-prediction-offline": 95,
        "tide-table": None,
    }
    base = served_catalogue(REALISTIC[0], REALISTIC[1], REALISTIC[5])
    served = ServedCatalogue(
        "recent",
        tuple(
            replace(
                tool,
                offers=tuple(
                    replace(o, block=100, last_delivery_block=last[tool.name])
                    for o in tool.offers
                ),
            )
            for tool in base.tools
        ),
    )
    server = _server(served)

    def names(**arguments: Any) -> List[str]:
        result = _search(server, **arguments)
        assert not result.is_error, _text(result)
        return [m["name"] for m in result.structured_content["matches"]]

    assert names(delivered_within=4) == []
    assert names(delivered_within=5) == ["claude-prediction-offline"]
    assert names(delivered_within=60) == [
        "claude-prediction-offline",
        "prediction-online",
    ]
    assert names(sort="recent") == [
        "claude-prediction-offline",
        "prediction-online",
        "tide-table",
    ]
    assert _search(server, delivered_within=-1).is_error
    assert _search(server, delivered_within="soon").is_error


def test_cursors_page_through_every_match_once() -> None:
    """Pages join to every match, each once; total is the whole answer's."""
    served = served_catalogue(*_fillers(23))
    server = _server(served)

    async def body(client: Client) -> List[str]:
        seen: List[str] = []
        cursor: Optional[str] = None
        while True:
            arguments: Dict[str, Any] = {"query": "filler", "limit": 5}
            if cursor:
                arguments["cursor"] = cursor
            page = (await client.call_tool(SEARCH_TOOLS, arguments)).structured_content
            assert page["total"] == 23
            seen += [m["name"] for m in page["matches"]]
            cursor = page["nextCursor"]
            if cursor is None:
                return seen

    seen = _run(server, body)
    assert len(seen) == len(set(seen)) == 23


def test_a_bad_cursor_is_an_error_that_says_to_search_again() -> None:
    """Garbled, another query's, or another catalogue's cursor: isError, search again."""
    served = served_catalogue(*_fillers(12))
    server = _server(served)
    first = _search(server, query="filler", limit=5).structured_content
    for arguments in (
        {"query": "filler", "limit": 5, "cursor": "garbage"},
        {"query": "question", "limit": 5, "cursor": first["nextCursor"]},
        {"query": "filler", "limit": 6, "cursor": first["nextCursor"]},
    ):
        result = _search(server, **arguments)
        assert result.is_error and "without a cursor" in _text(result), arguments
    server.source = _Source(served_catalogue(*_fillers(13)))
    assert server.refresh()
    stale = _search(server, query="filler", limit=5, cursor=first["nextCursor"])
    assert stale.is_error and "without a cursor" in _text(stale)


def test_bad_arguments_and_unknown_names_say_what_to_do() -> None:
    """Wrong types, unknown arguments, an unknown name: isError naming them."""
    server = _server(served_catalogue(*REALISTIC))
    wrong = _search(server, limit=500, colour="red")
    assert wrong.is_error and "limit" in _text(wrong) and "colour" in _text(wrong)

    async def body(client: Client) -> Any:
        described = await client.call_tool(DESCRIBE_TOOL, {"name": "no-such-tool"})
        called = await client.call_tool(
            CALL_TOOL, {"name": "no-such-tool", "arguments": {}}
        )
        return described, called

    for result in _run(server, body):
        assert result.is_error and SEARCH_TOOLS in _text(result)
        assert '"no-such-tool"' in _text(result)


def test_describe_gives_the_tool_as_list_mode_lists_it_with_offers() -> None:
    """describe_tool: the exact Tool of tools/list in list mode, and its offers."""
    served = served_catalogue(*REALISTIC)

    async def listed(client: Client) -> Any:
        return (await client.list_tools()).tools

    in_list = {
        t.name: t.model_dump(by_alias=True, mode="json", exclude_none=True)
        for t in _run(_server(served, "list"), listed)
    }

    async def body(client: Client) -> Any:
        return await client.call_tool(DESCRIBE_TOOL, {"name": "prediction-online"})

    described = _run(_server(served), body).structured_content
    assert described["tool"] == in_list["prediction-online"]
    assert [o["price_wei"] for o in described["offers"]] == ["7"]
    assert [o["last_delivery_block"] for o in described["offers"]] == [None]


def test_describe_and_list_show_the_latest_delivery_block_of_each_offer() -> None:
    """The block delivered_within and recent read is in describe_tool and _meta."""
    served = served_catalogue(*REALISTIC, last_delivery_block=18)

    async def listed(client: Client) -> Any:
        return (await client.list_tools()).tools

    meta = {
        t.name: (t.meta or {})["io.olas/mech-tool"]
        for t in _run(_server(served, "list"), listed)
    }
    assert [o["last_delivery_block"] for o in meta["prediction-online"]["offers"]] == [
        "18"
    ]

    async def body(client: Client) -> Any:
        return await client.call_tool(DESCRIBE_TOOL, {"name": "prediction-online"})

    described = _run(_server(served), body).structured_content
    assert [o["last_delivery_block"] for o in described["offers"]] == ["18"]


def test_call_tool_answers_as_tools_call_does() -> None:
    """A dry run through call_tool is tools/call's: same mech, payload and call key."""
    server = _server(served_catalogue(*REALISTIC))
    arguments = {"question": "Will it rain in Lisbon tomorrow?"}

    async def body(client: Client) -> Any:
        through = await client.call_tool(
            CALL_TOOL,
            {
                "name": "prediction-online",
                "arguments": arguments,
                "idempotency_key": "k1",
            },
        )
        direct = await client.call_tool(
            "prediction-online",
            arguments,
            meta=cast(types.RequestParamsMeta, {IDEMPOTENCY_META_KEY: "k1"}),
        )
        invalid = await client.call_tool(
            CALL_TOOL, {"name": "prediction-online", "arguments": {"question": 3}}
        )
        return through, direct, invalid

    through, direct, invalid = _run(server, body)
    assert "dry run" in _text(through)  # no key: what would be sent, nothing sent
    assert _text(through) == _text(direct)
    key = through.meta["io.olas/mech-request"]["call_key"]
    assert key == direct.meta["io.olas/mech-request"]["call_key"]

    async def other_key(client: Client) -> Any:
        return await client.call_tool(
            CALL_TOOL,
            {
                "name": "prediction-online",
                "arguments": arguments,
                "idempotency_key": "k2",
            },
        )

    assert _run(server, other_key).meta["io.olas/mech-request"]["call_key"] != key
    assert invalid.is_error and "question" in _text(invalid)
    assert "nothing was sent" in _text(invalid)


def test_a_tool_not_listed_cannot_be_found_described_or_called() -> None:
    """Over --max-price: not in search, describe_tool nor call_tool."""
    cheap = served_catalogue(*REALISTIC[:1], price=5)
    dear = served_catalogue(*REALISTIC[2:3], price=500, address="0x" + "0c" * 20)
    server = _server(ServedCatalogue("two", cheap.tools + dear.tools), max_price=100)
    assert [t.name for t in server.listed.tools] == ["prediction-online"]
    assert server.catalogue.named("sentiment-analysis") is not None  # still served

    async def body(client: Client) -> Any:
        found = await client.call_tool(SEARCH_TOOLS, {"query": "sentiment text"})
        described = await client.call_tool(
            DESCRIBE_TOOL, {"name": "sentiment-analysis"}
        )
        called = await client.call_tool(
            CALL_TOOL,
            {"name": "sentiment-analysis", "arguments": {"text": "a fine day"}},
        )
        return found, described, called

    found, described, called = _run(server, body)
    assert found.structured_content["matches"] == []
    assert described.is_error and called.is_error
    assert "nothing was sent" in _text(called)


def test_the_index_is_built_once_per_listed_catalogue() -> None:
    """Searches reuse the index; a refreshed catalogue gets its own."""
    server = _server(served_catalogue(*_fillers(3)))
    first = server.discovery.finder()
    assert server.discovery.finder() is first
    server.source = _Source(served_catalogue(*REALISTIC))
    server.refresh()
    rebuilt = server.discovery.finder()
    assert rebuilt is not first and rebuilt.listed is server.listed


def test_an_empty_catalogue_searches_to_nothing() -> None:
    """Search mode over no tools: no match, no error."""
    result = _search(_server(ServedCatalogue("", ())), query="anything")
    assert not result.is_error and result.structured_content["matches"] == []


def test_call_tool_in_a_task_runs_the_same_call() -> None:
    """A task-augmented call_tool runs the mech tool's call (not 'no tool call_tool')."""
    server = _server(served_catalogue(*REALISTIC))
    arguments = {"question": "Will it snow in Oslo?"}

    async def main() -> Any:
        async with anyio.create_task_group() as group:
            server.tasks.group = group
            created = await server.tasks(
                Ctx(
                    "tools/call",
                    {
                        "name": CALL_TOOL,
                        "arguments": {
                            "name": "prediction-online",
                            "arguments": arguments,
                        },
                        "task": {"ttl": 5_000},
                    },
                ),
                passed_on,
            )
            task_id = created["task"]["taskId"]
            return await server.tasks(
                Ctx("tasks/result", {"taskId": task_id}), passed_on
            )

    in_task = anyio.run(main)

    async def body(client: Client) -> Any:
        return await client.call_tool("prediction-online", arguments)

    direct = _run(server, body)
    assert "dry run" in in_task["content"][0]["text"]
    assert (
        in_task["_meta"]["io.olas/mech-request"]["call_key"]
        == direct.meta["io.olas/mech-request"]["call_key"]
    )
