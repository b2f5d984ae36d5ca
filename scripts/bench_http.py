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

"""Load test of the HTTP API at 20,000 tools: p50/p99 latency per route.

Not a test (performance is measured, not asserted). Builds a catalogue of ``--mechs``
ten-tool typed manifests (default 2,000 -> 20,000 tools, parsed by the real parser), the
HTTP view the skill builds once per agreed catalogue (timed: that is the per-agreement
cost), then answers ``--requests`` requests per route through the same pure routing
function the skill's handler calls (``mech_catalogue_core/http_api.route``): every ``/tools`` page in
turn, ``/tools/<name>`` for random names, ``/mechs``, ``/healthcheck`` and refused
requests (bad cursors, odd paths). The time is wall time on this process, one request
at a time, as the agent's single loop answers them; the HTTP connection's own cost
(aiohttp, the multiplexer) comes on top and does not depend on the catalogue.

With ``--url http://127.0.0.1:<port>`` it instead sends the same kinds of requests to a
running agent over HTTP and times the round trips (whatever catalogue that agent serves);
with ``--agent`` it starts one agent on a seeded devnet (``scripts.run_local``, mock
Tendermint), measures it that way, reports the period before and after the load, and
stops everything it started.

Usage::

    python scripts/bench_http.py [--mechs 2000] [--requests 400] [--page-size 50]
    python scripts/bench_http.py --url http://127.0.0.1:8000 [--requests 200]
    python scripts/bench_http.py --agent [--requests 200]
"""

import argparse
import json
import random
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Callable, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mech_catalogue_core.model.catalogue import (  # noqa: E402 # pylint: disable=wrong-import-position
    Catalogue,
)

from scripts.bench_catalogue import (  # noqa: E402 # pylint: disable=wrong-import-position
    agreed,
    get,
    parsed_mechs,
    served_view,
)
from scripts.bench_manifest import (  # noqa: E402 # pylint: disable=wrong-import-position
    ten_tool_manifest,
)

Answer = Callable[[str], Tuple[int, int]]


def build_catalogue(mechs: int) -> Catalogue:
    """Parse ``mechs`` distinct ten-tool typed manifests into a catalogue.

    :param mechs: how many mechs.
    :return: the catalogue (10 x ``mechs`` tools).
    """
    return Catalogue.build(parsed_mechs(map(ten_tool_manifest, range(mechs))))


def percentile(values: List[float], fraction: float) -> float:
    """Nearest-rank percentile.

    :param values: samples.
    :param fraction: 0.5 for the median, 0.99 for p99.
    :return: the sample at that rank.
    """
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * len(ordered))) - 1)]


def workload(names: List[str], page_size: int, count: int) -> Dict[str, List[str]]:
    """The URLs to time, per route.

    :param names: the tool names served.
    :param page_size: tools per page.
    :param count: requests per route.
    :return: route label -> URLs.
    """
    pages = ["/tools"] + [
        f"/tools?cursor={offset}" for offset in range(page_size, len(names), page_size)
    ]
    rng = random.Random(10)
    picked = [rng.choice(names) for _ in range(count)]
    refused = ["/tools?cursor=b2Zmc2V0OsKy", "/tools/%zz", "/nothing", "/tools?x=1"]
    return {
        "/tools (every page in turn)": [pages[i % len(pages)] for i in range(count)],
        "/tools/<name>": [
            "/tools/" + urllib.parse.quote(name, safe="") for name in picked
        ],
        "/healthcheck": ["/healthcheck"] * count,
        "/mechs": ["/mechs"] * max(1, count // 10),
        "refused (4xx)": [refused[i % len(refused)] for i in range(count)],
    }


def measure(answer: Answer, urls: List[str]) -> Dict[str, float]:
    """Time each URL once.

    :param answer: sends one GET, returns (status, body bytes).
    :param urls: the URLs.
    :return: p50 / p99 / max in milliseconds, mean body KiB, statuses seen.
    """
    times, sizes, statuses = [], [], set()
    for url in urls:
        start = time.perf_counter()
        status, size = answer(url)
        times.append((time.perf_counter() - start) * 1000)
        sizes.append(size)
        statuses.add(status)
    return {
        "n": len(urls),
        "p50_ms": round(percentile(times, 0.5), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
        "max_ms": round(max(times), 2),
        "body_kib": round(statistics.mean(sizes) / 1024, 1),
        "statuses": ",".join(str(s) for s in sorted(statuses)),  # type: ignore[dict-item]
    }


def in_process(
    mechs: int, page_size: int
) -> Tuple[Answer, List[str], Dict[str, float]]:
    """Build the catalogue and its view; answer through ``route``.

    :param mechs: mechs of ten tools.
    :param page_size: tools per page.
    :return: the answer function, the tool names, and the build figures.
    """
    start = time.perf_counter()
    catalogue = build_catalogue(mechs)
    parsed = time.perf_counter() - start
    published = agreed(catalogue)
    start = time.perf_counter()
    view = served_view(published)
    built = time.perf_counter() - start

    def answer(url: str) -> Tuple[int, int]:
        result = get(view, url, page_size)
        return result.status_code, len(result.body)

    figures = {
        "tools": len(catalogue.tools()),
        "names": len(view.names),
        "parse_and_build_catalogue_s": round(parsed, 2),
        "view_build_ms": round(built * 1000, 1),
    }
    return answer, list(view.names), figures


def over_http(base_url: str) -> Tuple[Answer, List[str], Dict[str, float]]:
    """Answer through a running agent's HTTP API.

    :param base_url: ``http://host:port``.
    :return: the answer function, the tool names, and what the agent reports.
    """

    def answer(url: str) -> Tuple[int, int]:
        try:
            with urllib.request.urlopen(  # nosec B310: loopback http only
                base_url + url, timeout=30
            ) as response:
                return response.status, len(response.read())
        except urllib.error.HTTPError as error:
            return error.code, len(error.read())

    names: List[str] = []
    url = "/tools"
    while url:
        with urllib.request.urlopen(  # nosec B310: loopback http only
            base_url + url, timeout=30
        ) as response:
            page = json.loads(response.read())
        names += [t["title"] for t in page["tools"]]
        url = f"/tools?cursor={page['nextCursor']}" if "nextCursor" in page else ""
    return answer, names, {"tools_served": len(names)}


def period_of(base_url: str) -> int:
    """Read the period of the agent's last agreement.

    :param base_url: ``http://host:port``.
    :return: ``/healthcheck``'s ``period`` (-1 before the first agreement).
    """
    try:
        with urllib.request.urlopen(  # nosec B310: loopback http only
            base_url + "/healthcheck", timeout=10
        ) as response:
            return int(json.loads(response.read()).get("period", -1))
    except (urllib.error.URLError, OSError, ValueError):
        return -1


def with_agent(requests: int, page_size: int) -> Dict[str, object]:
    """Start one agent on a seeded devnet, load its HTTP API, stop it.

    :param requests: requests per route.
    :param page_size: the agent's page size (its default is 50).
    :return: the report, with the period before and after the load.
    """
    # imported here: the in-process mode must not need the devnet tooling
    from scripts.run_local.runner import (  # pylint: disable=import-outside-toplevel
        DEFAULT_WORK_DIR,
        LocalRun,
    )

    run = LocalRun(
        agents=1,
        work_dir=DEFAULT_WORK_DIR / "bench_http",
        settings={"RESET_PAUSE_DURATION": "10"},
    )
    run.start()
    try:
        base_url = run.processes[0].http_url
        deadline = time.monotonic() + 300
        while period_of(base_url) < 0 and time.monotonic() < deadline:
            time.sleep(2)
        before = period_of(base_url)
        answer, names, figures = over_http(base_url)
        report: Dict[str, object] = {"mode": "running agent", **figures}
        for label, urls in workload(names, page_size, requests).items():
            report[label] = measure(answer, urls)
        report["period_before_load"] = before
        report["period_after_load"] = period_of(base_url)
        time.sleep(30)
        report["period_30_s_later"] = period_of(base_url)
        report["agent_alive"] = run.processes[0].alive()
        return report
    finally:
        run.stop()


def main() -> None:
    """Run the load test and print a JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--mechs", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--page-size", type=int, default=50)
    parser.add_argument("--url", default="")
    parser.add_argument("--agent", action="store_true")
    args = parser.parse_args()
    if args.agent:
        print(json.dumps(with_agent(args.requests, args.page_size), indent=2))
        return
    if args.url:
        answer, names, figures = over_http(args.url.rstrip("/"))
    else:
        answer, names, figures = in_process(args.mechs, args.page_size)
    report: Dict[str, object] = {"mode": args.url or "in-process route()", **figures}
    for label, urls in workload(names, args.page_size, args.requests).items():
        report[label] = measure(answer, urls)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
