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

"""Benchmark of the catalogue search: index build time and memory, query latency.

Not a test (performance is measured, not asserted). For each size (default 1,000,
20,000 and 200,000 tools) it builds a synthetic catalogue (100 tools a mech; names,
descriptions and arguments drawn from a fixed vocabulary with a seeded generator, a
third of the mechs with a native-priced marketplace contract), then measures:

Wall times are printed with the process's CPU times beside them (the machine may be
shared: CPU time is what the work costs, wall time what a caller waited).

- ``build``: :meth:`SearchIndex.build` wall and CPU time (the medians of
  :data:`BUILDS` builds), then (another build, traced) its peak
  traced memory and what the index keeps (tracemalloc traces numpy's buffers too), the
  catalogue itself excluded;
- ``bm25``: the baseline of the same run: the BM25 part alone over the catalogue's offer
  texts, built in numpy batches (as ``build`` does) and the per-document way
  (``Bm25Index(..., vectorised=False)``, the reference of the tests, as the index was
  built before the batches), CPU seconds each;
- ``search``: p50/p99 wall time of ``--queries`` queries, one at a time in this process:
  one to three words, a third with a filter (kind, max price, callable), a fifth sorted
  by price, half of them one match per name (as ``GET /tools?q=`` asks), a page of 20;
- ``http``: p50/p99 of the same queries through the HTTP API's routing function
  (``http_api.routes.route``: parse, search, MCP Tool export of the page), in process
  (the index built before, as after the first search of an agreed catalogue);
- ``socket``: p50/p99 of the same queries as HTTP round trips over a real TCP socket on
  127.0.0.1 to the agent's own HTTP server connection
  (``packages/mech_catalogue/connections/http_server``: h11 parsing, limits, the
  ``valory/http`` REQUEST envelope and the RESPONSE back), running in its own asyncio
  loop and thread as in the agent, answered by a skill played here that calls the
  same ``route`` the skill's ``HttpHandler`` calls, with the catalogue loaded. Not
  measured: the AEA multiplexer's queues and the handler's dispatch between the
  connection and the skill (a fixed cost per request, whatever the catalogue). One
  client, one request per connection (the server closes each), as ``curl`` would.

With ``--docs`` the figures replace the search section of ``docs/benchmarks.md`` (from
:data:`SECTION_MARKER` on; ``scripts/bench_sync.py`` keeps that section when it rewrites
the rest), with the run's date and the machine's load average.

Usage::

    python scripts/bench_search.py [--sizes 1000,20000,200000] [--queries 300] [--json]
        [--docs]
"""

import argparse
import asyncio
import http.client
import json
import os
import platform
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any, Dict, List, Tuple
from urllib.parse import quote_plus

from aea.configurations.base import ConnectionConfig
from aea.identity.base import Identity
from aea.mail.base import Envelope, Message
from aea.protocols.dialogue.base import Dialogue as BaseDialogue

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# pylint: disable=wrong-import-position
from mech_catalogue_core.catalogue.exposure import ExposedCatalogue  # noqa: E402
from mech_catalogue_core.http_api.routes import CatalogueView, route  # noqa: E402
from mech_catalogue_core.model.catalogue import Catalogue, Mech  # noqa: E402
from mech_catalogue_core.model.market import MechFacts  # noqa: E402
from mech_catalogue_core.model.tool import (  # noqa: E402
    Argument,
    MechRef,
    Provenance,
    Tool,
)
from mech_catalogue_core.model.vocabulary import RegistryKind, SearchSort  # noqa: E402
from mech_catalogue_core.search.bm25 import Bm25Index  # noqa: E402
from mech_catalogue_core.search.index import (  # noqa: E402
    FIELD_WEIGHTS,
    SearchIndex,
    offer_text,
)
from mech_catalogue_core.search.query import SearchQuery  # noqa: E402

from packages.mech_catalogue.connections.http_server.connection import (  # noqa: E402
    PUBLIC_ID,
    HttpServerConnection,
)
from packages.valory.protocols.http.dialogues import (  # noqa: E402
    HttpDialogue,
    HttpDialogues,
)
from packages.valory.protocols.http.message import HttpMessage  # noqa: E402

#: where the search section of docs/benchmarks.md starts (bench_sync.py keeps it)
SECTION_MARKER = "<!-- bench_search -->"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
#: the skill the connection hands requests to (the agent's, by name only here)
SKILL = "mech_catalogue/tool_metadata_chained_abci:0.1.0"

TOOLS_PER_MECH = 100
#: builds timed per size (the median is reported: the machine may be shared)
BUILDS = 3
NATIVE = "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
KINDS = ("prediction", "resolve", "chat", "image", "question_generation")
DOMAIN = (
    "prediction market question probability binary yes no resolve outcome event news "
    "web search online offline claude openai gpt model language image picture stable "
    "diffusion generate text prompt translate weather forecast token price oracle "
    "expert persona retrieval embedding summary sentiment code audio video chart"
).split()
SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pe", "qua", "zen", "dor")


def vocabulary(rng: random.Random, size: int = 5000) -> List[str]:
    """Return the domain words and ``size`` made-up words (a long tail of rare ones).

    :param rng: the seeded generator.
    :param size: made-up words.
    :return: the words.
    """
    made = {
        "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        for _ in range(size)
    }
    return DOMAIN + sorted(made)


def words(rng: random.Random, vocab: List[str], count: int) -> str:
    """Draw words, the common ones (the start of the list) more often.

    :param rng: the generator.
    :param vocab: the vocabulary.
    :param count: how many.
    :return: the words, space-joined.
    """
    return " ".join(
        (
            vocab[min(int(rng.paretovariate(1.2)) - 1, len(vocab) - 1)]
            if rng.random() < 0.5
            else rng.choice(vocab)
        )
        for _ in range(count)
    )


def synthetic_catalogue(tools: int, seed: int = 7) -> Catalogue:
    """Build a catalogue of ``tools`` tools, 100 a mech.

    :param tools: how many tools.
    :param seed: the generator's seed.
    :return: the catalogue.
    """
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    mechs = []
    for mech_id in range((tools + TOOLS_PER_MECH - 1) // TOOLS_PER_MECH):
        ref = MechRef(
            100, RegistryKind.COMPLEMENTARY_SERVICE, "0x" + "cc" * 20, mech_id
        )
        provenance = Provenance("arguments_v1", ref, "bafy", "0x" + "00" * 32)
        count = min(TOOLS_PER_MECH, tools - mech_id * TOOLS_PER_MECH)
        built = tuple(
            Tool(
                name=f"{words(rng, vocab, 1)}-{words(rng, vocab, 1)}-{mech_id}-{i}",
                kind=rng.choice(KINDS),
                description=words(rng, vocab, rng.randint(8, 30)),
                arguments=tuple(
                    Argument(
                        words(rng, vocab, 1) + f"_{j}",
                        "str",
                        '{"type":"string"}',
                        description=words(rng, vocab, 6),
                    )
                    for j in range(rng.randint(0, 3))
                ),
                provenance=provenance,
            )
            for i in range(count)
        )
        market: Tuple[MechFacts, ...] = ()
        if mech_id % 3 == 0:
            market = (
                MechFacts(
                    address="0x" + f"{mech_id:040x}",
                    service_id=mech_id,
                    block=1,
                    confirmed=True,
                    max_delivery_rate=rng.randint(1, 10**17),
                    payment_type=NATIVE,
                    requests=3,
                    deliveries=rng.randint(0, 3),
                ),
            )
        mechs.append(Mech(ref=ref, status="ok", tools=built, marketplace=market))
    return Catalogue.build(mechs)


def queries(rng: random.Random, count: int) -> List[Tuple[SearchQuery, bool]]:
    """Draw the benchmark's queries, as the module doc says.

    :param rng: the generator.
    :param count: how many.
    :return: (query, one match per name) pairs.
    """
    vocab = vocabulary(random.Random(7))
    drawn = []
    for at in range(count):
        fields: Dict[str, Any] = {"text": words(rng, vocab, rng.randint(1, 3))}
        if at % 3 == 1:
            fields[rng.choice(("kind", "max_price", "callable_now"))] = None
            if "kind" in fields:
                fields["kind"] = rng.choice(KINDS)
            if "max_price" in fields:
                fields["max_price"] = 5 * 10**16
            if "callable_now" in fields:
                fields["callable_now"] = True
        if at % 5 == 0:
            fields["sort"] = SearchSort.PRICE
        drawn.append((SearchQuery(**fields), at % 2 == 0))
    return drawn


def url_of(query: SearchQuery) -> str:
    """Write the ``GET /tools`` URL of a query.

    :param query: the query.
    :return: the URL.
    """
    parts = [f"q={quote_plus(query.text)}"]
    if query.kind:
        parts.append(f"kind={query.kind}")
    if query.max_price is not None:
        parts.append(f"max_price={query.max_price}")
    if query.callable_now:
        parts.append("callable=true")
    if query.sort == SearchSort.PRICE:
        parts.append("sort=price")
    return "/tools?" + "&".join(parts)


def percentiles(samples: List[float]) -> Dict[str, float]:
    """Return p50 and p99 in milliseconds.

    :param samples: seconds.
    :return: ``{"p50_ms", "p99_ms", "max_ms"}``.
    """
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {
        "p50_ms": round(cuts[49] * 1000, 2),
        "p99_ms": round(cuts[98] * 1000, 2),
        "max_ms": round(max(samples) * 1000, 2),
    }


class AgentHttpServer:
    """The agent's HTTP server connection on a free port, answered by ``route``.

    The connection runs in its own event loop and thread (the agent runs connections
    apart from its skills); the played skill reads each REQUEST envelope, answers it
    with ``http_api.routes.route`` over the loaded catalogue and sends the RESPONSE.
    """

    def __init__(self, view: CatalogueView) -> None:
        """Start the connection and the played skill.

        :param view: the catalogue served.
        """
        self.view = view
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        # pylint: disable-next=consider-using-with
        self._folder = tempfile.TemporaryDirectory()
        self.connection = HttpServerConnection(
            configuration=ConnectionConfig(
                connection_id=PUBLIC_ID,
                host="127.0.0.1",
                port=self.port,
                target_skill_id=SKILL,
            ),
            data_dir=self._folder.name,
            identity=Identity("agent", address="agent", public_key="key"),
        )
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.connection.connect(), self.loop).result(
            30
        )
        self._skill = asyncio.run_coroutine_threadsafe(self._play(), self.loop)

    async def _play(self) -> None:
        def role(  # pylint: disable=unused-argument
            message: Message, receiver_address: str
        ) -> BaseDialogue.Role:
            return HttpDialogue.Role.SERVER

        dialogues = HttpDialogues(self_address=SKILL, role_from_first_message=role)
        while True:
            envelope = await self.connection.receive()
            if envelope is None:
                return
            message = envelope.message
            assert isinstance(message, HttpMessage)
            dialogue = dialogues.update(message)
            assert dialogue is not None
            result = route(
                message.method, message.url, message.body, self.view, 0.0, 20, 60.0
            )
            reply = dialogue.reply(
                performative=HttpMessage.Performative.RESPONSE,
                target_message=message,
                version=message.version,
                status_code=result.status_code,
                status_text=result.status_text,
                headers=result.headers,
                body=result.body,
            )
            await self.connection.send(
                Envelope(to=reply.to, sender=reply.sender, message=reply)
            )

    def get(self, path: str) -> Tuple[int, bytes]:
        """Send one GET over a new TCP connection and read the whole answer.

        :param path: the request target.
        :return: the status and body.
        """
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            client.request("GET", path)
            answer = client.getresponse()
            return answer.status, answer.read()
        finally:
            client.close()

    def stop(self) -> None:
        """Stop the played skill, the connection and its loop."""
        self._skill.cancel()
        asyncio.run_coroutine_threadsafe(
            self.connection.disconnect(), self.loop
        ).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self._folder.cleanup()


def over_socket(
    view: CatalogueView, drawn: List[Tuple[SearchQuery, bool]]
) -> List[float]:
    """Time each query's round trip to the agent's HTTP server connection.

    :param view: the catalogue served (its index built).
    :param drawn: the queries.
    :return: seconds per query.
    """
    server = AgentHttpServer(view)
    try:
        server.get("/healthcheck")  # the first connection warms the loop up
        latencies = []
        for query, _ in drawn:
            started = time.perf_counter()
            status, body = server.get(url_of(query))
            latencies.append(time.perf_counter() - started)
            assert status == 200, body[:200]
        return latencies
    finally:
        server.stop()


def measure(  # pylint: disable=too-many-locals
    tools: int, count: int
) -> Dict[str, Any]:
    """Measure one size.

    :param tools: how many tools.
    :param count: queries.
    :return: the figures.
    """
    catalogue = synthetic_catalogue(tools)
    digest = "ab" * 32  # the agreed digest is given, as the HTTP view passes it
    walls, cpus = [], []
    for _ in range(BUILDS):
        started, cpu = time.perf_counter(), time.process_time()
        index = SearchIndex.build(catalogue, digest)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
        del index
    build_seconds, build_cpu = statistics.median(walls), statistics.median(cpus)
    tracemalloc.start()  # a second build, traced (tracing slows it: not timed)
    index = SearchIndex.build(catalogue, digest)
    _, peak = tracemalloc.get_traced_memory()
    retained, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    texts = [offer_text(tool) for tool in catalogue.tools()]
    bm25_cpu = {}
    for name, vectorised in (("batched", True), ("per_document", False)):
        cpu = time.process_time()
        Bm25Index(texts, vectorised=vectorised, field_weights=FIELD_WEIGHTS)
        bm25_cpu[name] = round(time.process_time() - cpu, 3)
    del texts
    drawn = queries(random.Random(11), count)
    latencies, cpu_latencies, matched = [], [], 0
    for query, distinct in drawn:
        started, cpu = time.perf_counter(), time.thread_time()
        page = index.search(query, None, distinct)
        latencies.append(time.perf_counter() - started)
        cpu_latencies.append(time.thread_time() - cpu)
        matched += page.total
    view = CatalogueView.build(ExposedCatalogue(catalogue, digest, "", 1, 0.0, 1))
    view.search_index()  # built once per agreed catalogue, on the first search
    over_http, cpu_http = [], []
    for query, _ in drawn:
        started, cpu = time.perf_counter(), time.thread_time()
        result = route("GET", url_of(query), b"", view, 0.0, 20, 60.0)
        over_http.append(time.perf_counter() - started)
        cpu_http.append(time.thread_time() - cpu)
        assert result.status_code == 200, result.body[:200]
    over_tcp = over_socket(view, drawn)
    return {
        "tools": tools,
        "offers_indexed": index.offer_count,
        "build_seconds": round(build_seconds, 3),
        "build_cpu_seconds": round(build_cpu, 3),
        "build_peak_mib": round(peak / 2**20, 1),
        "index_mib": round(retained / 2**20, 1),
        "bm25_cpu_seconds": bm25_cpu,
        "search": percentiles(latencies),
        "search_cpu": percentiles(cpu_latencies),
        "http_route": percentiles(over_http),
        "http_route_cpu": percentiles(cpu_http),
        "http_socket": percentiles(over_tcp),
        "mean_matches": round(matched / len(drawn), 1),
        "queries": len(drawn),
    }


def section(results: List[Dict[str, Any]], run: str) -> str:
    """Write the figures as the search section of docs/benchmarks.md.

    :param results: :func:`measure`'s, one per size.
    :param run: when and under what load the run was made.
    :return: the markdown, from :data:`SECTION_MARKER` on.
    """
    lines = [
        SECTION_MARKER,
        "",
        "## Search (issue 33): `python scripts/bench_search.py --docs`",
        "",
        f"{run}. Synthetic catalogues (100 tools a mech, all texts distinct: the worst "
        "case, since registrations sharing a manifest are one document); "
        f"{results[0]['queries']} queries of 1-3 words, a third filtered, a fifth by "
        "price, half one match per name, pages of 20. Wall milliseconds, CPU of the "
        "process in brackets (the machine is shared: CPU is what the work costs); "
        f"*build*: the medians of {BUILDS} builds. "
        "*BM25 batched / per document*: the BM25 part of the build in CPU seconds, "
        "the numpy batches against the per-document way the index was built before "
        "(same run, same texts). *HTTP socket*: round trips over TCP to the agent's "
        "HTTP server connection answered by the skill's `route` (the module doc of "
        "`scripts/bench_search.py` says what is and is not in it).",
        "",
        "| tools | build s (CPU) | peak / kept MiB | BM25 batched / per document "
        "CPU s | search p50 / p99 ms (CPU) | HTTP route p50 / p99 ms (CPU) "
        "| HTTP socket p50 / p99 ms |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results:
        lines.append(
            f"| {row['tools']:,} | {row['build_seconds']} "
            f"({row['build_cpu_seconds']}) | {row['build_peak_mib']} / "
            f"{row['index_mib']} | {row['bm25_cpu_seconds']['batched']} / "
            f"{row['bm25_cpu_seconds']['per_document']} | "
            f"{row['search']['p50_ms']} / {row['search']['p99_ms']} "
            f"({row['search_cpu']['p50_ms']} / {row['search_cpu']['p99_ms']}) | "
            f"{row['http_route']['p50_ms']} / {row['http_route']['p99_ms']} "
            f"({row['http_route_cpu']['p50_ms']} / {row['http_route_cpu']['p99_ms']}) "
            f"| {row['http_socket']['p50_ms']} / {row['http_socket']['p99_ms']} |"
        )
    return "\n".join(lines) + "\n"


def write_section(text: str) -> None:
    """Replace the search section of docs/benchmarks.md (append it when absent).

    :param text: :func:`section`'s.
    """
    current = DOCS.read_text(encoding="utf-8") if DOCS.exists() else ""
    at = current.find(SECTION_MARKER)
    kept = current if at < 0 else current[:at]
    DOCS.write_text(kept.rstrip("\n") + "\n\n" + text, encoding="utf-8")


def main() -> None:
    """Run the benchmark and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--sizes", default="1000,20000,200000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--docs", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results = [measure(int(size), args.queries) for size in args.sizes.split(",")]
    if args.docs:
        write_section(
            section(
                results,
                f"Run {started} on {platform.machine()} ({os.cpu_count()} CPUs, load "
                f"average {load:.1f} at start, {os.getloadavg()[0]:.1f} at end)",
            )
        )
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print("wall time (CPU time of this process in brackets: the machine may be shared)")
    for row in results:
        print(
            f"{row['tools']:>7} tools: build {row['build_seconds']} s "
            f"({row['build_cpu_seconds']} s), peak {row['build_peak_mib']} MiB, "
            f"kept {row['index_mib']} MiB; BM25 batched/per-document "
            f"{row['bm25_cpu_seconds']['batched']}/"
            f"{row['bm25_cpu_seconds']['per_document']} s CPU; search p50/p99 "
            f"{row['search']['p50_ms']}/{row['search']['p99_ms']} ms "
            f"({row['search_cpu']['p50_ms']}/{row['search_cpu']['p99_ms']}); "
            f"HTTP route p50/p99 {row['http_route']['p50_ms']}/"
            f"{row['http_route']['p99_ms']} ms ({row['http_route_cpu']['p50_ms']}/"
            f"{row['http_route_cpu']['p99_ms']}); HTTP socket p50/p99 "
            f"{row['http_socket']['p50_ms']}/{row['http_socket']['p99_ms']} ms; "
            f"{row['mean_matches']} matches a query"
        )


if __name__ == "__main__":
    main()
