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

"""Benchmark: ``search --json``'s page with each match's text warnings (adv29w).

Not a test (performance is measured here, never asserted). Since adv29w a match of
``search --json`` carries its tool's text warnings (``search_cmd.hit_problems``:
``untrusted_text.tool_text_problems``), read for each match of the page printed. The
catalogue: ``--tools`` tools (default 200, the largest page), each description
``--chars`` characters (default 10,000: the manifest's cap) of prose with markup. Timed,
best of ``--rounds``, in the same process: the page's JSON (``search_cmd.page_json``)
with the text warnings, and with them switched off (the code before). Usage::

    python scripts/bench_search_warnings.py [--tools 200] [--chars 10000] [--rounds 5]
"""

import argparse
import time
from typing import Any, Callable, Tuple
from unittest import mock

from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.tool import MechRef, Tool
from mech_catalogue_core.search.query import SearchQuery

from mech_catalogue_cli.commands import search_cmd


def _catalogue(tools: int, chars: int) -> Catalogue:
    line = "<p>Tide {0}</p> **bold** &#105;tems [a](b) snake_case ü times for a port. "
    made = []
    for at in range(tools):
        text = (line.format(at) * (chars // len(line) + 1))[:chars]
        made.append(Tool(name=f"tide-{at}", kind="data", description=text))
    ref = MechRef(100, "legacy_mech_registry", "0x" + "11" * 20, 1)
    mech = Mech.from_manifest(ref, Manifest(tools=tuple(made)), digest="0x" + "06" * 32)
    return Catalogue.build([mech])


def _best(rounds: int, run: Callable[[], Any]) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(tools: int, chars: int, rounds: int) -> Tuple[float, float]:
    """Time one page's JSON without and with the text warnings.

    :param tools: tools of the catalogue (all on the page).
    :param chars: characters of each description.
    :param rounds: runs of each, the best kept.
    :return: seconds without, seconds with.
    """
    catalogue = _catalogue(tools, chars)
    query = SearchQuery(text="tide", page_size=tools)
    page = search_cmd.run_search(catalogue, query, None, False)
    assert len(page.hits) == tools, len(page.hits)
    with mock.patch.object(search_cmd, "tool_text_problems", lambda tool: ()):
        before = _best(rounds, lambda: search_cmd.page_json(query, page))
    after = _best(rounds, lambda: search_cmd.page_json(query, page))
    return before, after


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--chars", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    before, after = measure(args.tools, args.chars, args.rounds)
    print(f"page of {args.tools} matches, {args.chars:,}-character descriptions")
    print(f"{'without text warnings':24} {before * 1000:9.1f} ms")
    print(f"{'with text warnings':24} {after * 1000:9.1f} ms  {after / before:6.1f}x")


if __name__ == "__main__":
    main()
