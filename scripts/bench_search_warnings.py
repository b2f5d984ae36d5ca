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

"""Benchmark: ``search --json``'s page with each match's text warnings (adv29w, fix29yb).

Not a test (performance is measured here, never asserted). Since adv29w a match of
``search --json`` carries its tool's text warnings (``search_cmd.hit_problems``); since
fix29yb they are read through the MCP server's cache of definition checks
(``CheckedDefinitions.text_problems``, keyed by the definition's SHA-256). The
catalogue: ``--tools`` matches (default 200, the largest page), each description
``--chars`` characters (default 10,000: the manifest's cap) of prose with markup, either
all distinct or one definition offered by every mech (``--shared``: the same manifest
registered by many services). Timed, best of ``--rounds``, in the same process, the
page's JSON (``search_cmd.page_json``): without warnings (before adv29w); each match
checked afresh (before fix29yb); through the cache emptied before each round (a
one-shot ``search --json``); through the cache kept (the page printed again in one
process). Usage::

    python scripts/bench_search_warnings.py [--tools 200] [--chars 10000] [--rounds 5]
        [--shared]
"""

import argparse
import time
from typing import Any, Callable, Tuple
from unittest import mock

from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.tool import MechRef, Tool
from mech_catalogue_core.model.untrusted_text import tool_text_problems
from mech_catalogue_core.search.query import SearchQuery

from mech_catalogue_cli.commands import search_cmd
from mech_catalogue_cli.mcp_server.checked_definitions import CHECKED


def _catalogue(tools: int, chars: int, shared: bool = False) -> Catalogue:
    """``tools`` matches of ``chars``-character descriptions.

    :param tools: matches.
    :param chars: characters of each description.
    :param shared: one tool offered by ``tools`` mechs (else one mech, distinct tools).
    :return: the catalogue.
    """
    line = "<p>Tide {0}</p> **bold** &#105;tems [a](b) snake_case ü times for a port. "
    made = []
    for at in range(1 if shared else tools):
        text = (line.format(at) * (chars // len(line) + 1))[:chars]
        made.append(Tool(name=f"tide-{at}", kind="data", description=text))
    mechs = [
        Mech.from_manifest(
            MechRef(100, "legacy_mech_registry", f"0x{at + 1:040x}", at + 1),
            Manifest(tools=tuple(made)),
            digest="0x" + "06" * 32,
        )
        for at in range(tools if shared else 1)
    ]
    return Catalogue.build(mechs)


def _best(rounds: int, run: Callable[[], Any]) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(
    tools: int, chars: int, rounds: int, shared: bool = False
) -> Tuple[float, float, float, float]:
    """Time one page's JSON: no warnings, each checked afresh, cache emptied, cache kept.

    :param tools: matches of the page.
    :param chars: characters of each description.
    :param rounds: runs of each, the best kept.
    :param shared: every match one definition (:func:`_catalogue`).
    :return: seconds of each way, in that order.
    """
    catalogue = _catalogue(tools, chars, shared)
    query = SearchQuery(text="tide", page_size=tools)
    page = search_cmd.run_search(catalogue, query, None, False)
    assert len(page.hits) == tools, len(page.hits)

    def page_json() -> Any:
        return search_cmd.page_json(query, page)

    def one_shot() -> Any:
        CHECKED.clear()
        return page_json()

    with mock.patch.object(CHECKED, "text_problems", lambda tool: ()):
        without = _best(rounds, page_json)
    with mock.patch.object(CHECKED, "text_problems", tool_text_problems):
        fresh = _best(rounds, page_json)
    emptied = _best(rounds, one_shot)
    kept = _best(rounds, page_json)
    return without, fresh, emptied, kept


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--chars", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--shared", action="store_true")
    args = parser.parse_args()
    without, fresh, emptied, kept = measure(
        args.tools, args.chars, args.rounds, args.shared
    )
    print(
        f"page of {args.tools} matches, {args.chars:,}-character descriptions, "
        + ("one definition offered by every mech" if args.shared else "all distinct")
    )
    print(f"{'without text warnings':34} {without * 1000:9.1f} ms")
    print(f"{'each match checked afresh':34} {fresh * 1000:9.1f} ms")
    for name, seconds in (
        ("cached, cache emptied (one-shot)", emptied),
        ("cached, cache kept (again)", kept),
    ):
        print(f"{name:34} {seconds * 1000:9.1f} ms  {fresh / seconds:6.1f}x faster")


if __name__ == "__main__":
    main()
