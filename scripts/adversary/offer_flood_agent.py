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

"""Attack: one manifest registered by N services, then clients flooding ``GET /tools/<name>``.

Registering is permissionless and one pinned file serves every registration: each of its
tool names then has N offers. ``GET /tools/<name>`` answers in O(offers) (every offer's
tool, provenance and facts, serialised per request; only the MCP Tool is kept per
catalogue), on the agent's one loop, which the behaviours share.

Run: ``PYTHONPATH=$PWD nice -n 10 .venv/bin/python -m scripts.adversary.offer_flood_agent 2000 8``
(N services, K flooding clients; one agent with the mock Tendermint on a seeded devnet,
work folder ``.run/adversary/offer_flood``). Prints the answer's size and latency, and the
periods (seconds per round) before and during the flood.
"""

import json
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List

import requests

from scripts.adversary.views_bloat_agent import (
    one_agent,
    period_figures,
    rounds_by_period,
    rss_mib,
)
from scripts.bench_manifest import ten_tool_manifest
from scripts.bench_sync import change_hashes, create_services
from scripts.devnet import Devnet

WORK = Path(".run/adversary/offer_flood").resolve()
NAME = "tool-0-0"


def register_shared(devnet: Devnet, count: int) -> None:
    """Create ``count`` services all pointing at one manifest (one file pinned).

    :param devnet: the devnet.
    :param count: services.
    """
    ids = create_services(devnet, count)
    digest = devnet.add_manifest(ten_tool_manifest(0))[1]
    change_hashes(devnet, dict.fromkeys(ids, digest), devnet.address("owner_1"))


def flood(url: str, stop: threading.Event, latencies: List[float]) -> None:
    """GET ``url`` until ``stop`` is set, recording each answer's latency.

    :param url: the URL.
    :param stop: the stop flag.
    :param latencies: where the latencies go.
    """
    with requests.Session() as session:
        while not stop.is_set():
            began = time.monotonic()
            try:
                session.get(url, timeout=60).raise_for_status()
                latencies.append(time.monotonic() - began)
            except requests.RequestException:
                latencies.append(float("inf"))


def wait_periods(agent_log: Path, count: int, limit: float) -> int:
    """Wait until ``count`` more periods have started.

    :param agent_log: the agent's output.
    :param count: periods to wait for.
    :param limit: seconds at most.
    :return: the current period.
    """
    start = max(rounds_by_period(agent_log), default=-1)
    deadline = time.monotonic() + limit
    current = start
    while current < start + count and time.monotonic() < deadline:
        time.sleep(1)
        current = max(rounds_by_period(agent_log), default=-1)
    return current


def main(services: int, clients: int) -> None:  # pylint: disable=too-many-locals
    """Run the agent, measure two periods quiet and two under the flood.

    :param services: services sharing the manifest.
    :param clients: flooding clients.
    :raises RuntimeError: when the catalogue never shows the N offers.
    """
    with one_agent(WORK, lambda devnet: register_shared(devnet, services)) as (
        _,
        agent,
        _,
    ):
        url = f"{agent.http_url}/tools/{NAME}"
        deadline = time.monotonic() + 600
        body = b""
        while time.monotonic() < deadline:
            time.sleep(2)
            try:
                answer = requests.get(url, timeout=60)
            except requests.RequestException:
                continue
            if answer.ok and len(answer.json()["offers"]) >= services:
                body = answer.content
                break
        if not body:
            raise RuntimeError(f"{NAME} never had {services} offers")
        quiet_from = wait_periods(agent.log_path, 1, 300)
        quiet_to = wait_periods(agent.log_path, 2, 300)
        stop = threading.Event()
        latencies: List[float] = []
        threads = [
            threading.Thread(target=flood, args=(url, stop, latencies), daemon=True)
            for _ in range(clients)
        ]
        for thread in threads:
            thread.start()
        flood_from = quiet_to
        flood_to = wait_periods(agent.log_path, 2, 600)
        stop.set()
        for thread in threads:
            thread.join(70)
        rss = rss_mib(agent.pid or 0)
        by_period = rounds_by_period(agent.log_path)
        rows: Dict[str, object] = {
            "services": services,
            "clients": clients,
            "body_bytes": len(body),
            "requests": len(latencies),
            "failed": sum(1 for t in latencies if t == float("inf")),
            "median_latency_s": (
                round(sorted(latencies)[len(latencies) // 2], 2) if latencies else None
            ),
            "rss_mib": rss,
        }
        print(json.dumps(rows), flush=True)
        for label, low, high in (
            ("quiet", quiet_from, quiet_to),
            ("flood", flood_from, flood_to),
        ):
            for period in range(low, high):
                if period in by_period and period + 1 in by_period:
                    figures = period_figures(
                        by_period[period], by_period[period + 1][0][0]
                    )
                    print(json.dumps({label: period, **figures}), flush=True)


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 2000,
        int(sys.argv[2]) if len(sys.argv) > 2 else 8,
    )
