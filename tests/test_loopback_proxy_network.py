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

"""The loopback proxy's network model: seeded latencies with a tail, 429 + Retry-After past the limit."""

import http.server
import random
import statistics
import threading
from typing import Iterator, List

import pytest
import requests

from scripts.loopback_proxy import GATEWAY_NETWORK, LoopbackProxy, NetworkModel


class _Ok(http.server.BaseHTTPRequestHandler):
    """An upstream answering 200 "ok" to every GET."""

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        """Answer."""
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:  # pylint: disable=arguments-differ
        """Stay quiet."""


@pytest.fixture
def proxy() -> Iterator[LoopbackProxy]:
    """A proxy in front of a trivial upstream on 127.0.0.1."""
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    front = LoopbackProxy(f"http://127.0.0.1:{upstream.server_address[1]}")
    try:
        yield front
    finally:
        front.close()
        upstream.shutdown()
        upstream.server_close()


def test_gateway_model_draws_its_median_and_tail() -> None:
    """10,000 seeded draws: median near 60 ms, about 2% at 1.5 s; the same seed gives the same draws."""
    rng = random.Random(GATEWAY_NETWORK.seed)
    draws = [GATEWAY_NETWORK.sample(rng) for _ in range(10_000)]
    tail = sum(1 for d in draws if d == GATEWAY_NETWORK.tail_seconds) / len(draws)
    body = [d for d in draws if d != GATEWAY_NETWORK.tail_seconds]
    assert 0.015 <= tail <= 0.025
    assert statistics.median(body) == pytest.approx(0.060, rel=0.05)
    again = random.Random(GATEWAY_NETWORK.seed)
    assert [GATEWAY_NETWORK.sample(again) for _ in range(100)] == draws[:100]


def test_requests_past_the_limit_get_429_with_retry_after(
    proxy: LoopbackProxy,
) -> None:
    """Limit 2, five at once: two forwarded, three answered 429 with the model's Retry-After."""
    proxy.set_network(NetworkModel(median=0.3, max_concurrent=2, retry_after=3))
    answers: List[requests.Response] = []
    lock = threading.Lock()

    def get() -> None:
        response = requests.get(f"{proxy.url}/ipfs/x", timeout=10)
        with lock:
            answers.append(response)

    threads = [threading.Thread(target=get) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [200, 200, 429, 429, 429]
    assert {r.headers.get("Retry-After") for r in answers if r.status_code == 429} == {
        "3"
    }
    seen = proxy.reset_counters()
    assert seen.rate_limited == 3 and seen.max_in_flight == 2 and seen.requests == 5


def test_rate_limited_fault_and_clearing(proxy: LoopbackProxy) -> None:
    """mode=rate_limited answers 429 with the set Retry-After; clear_faults drops it and the model."""
    proxy.mode, proxy.retry_after = "rate_limited", 7
    answer = requests.get(f"{proxy.url}/ipfs/x", timeout=10)
    assert answer.status_code == 429 and answer.headers["Retry-After"] == "7"
    proxy.set_network(NetworkModel(median=0.01))
    proxy.clear_faults()
    assert proxy.network is None
    assert requests.get(f"{proxy.url}/ipfs/x", timeout=10).status_code == 200
