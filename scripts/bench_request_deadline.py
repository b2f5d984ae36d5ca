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

"""What one whole-answer deadline costs a read: ``adapters.http.deadline`` against none.

Every gateway, kubo and JSON-RPC read now runs inside ``deadline`` (a watchdog thread per
request, on a session with watched transports). This script reads the same answer from
a local keep-alive HTTP server ``--requests`` times the old way (``requests``' per-read
timeout only, a plain session) and the new way (``gateway_bytes``), alternating rounds
in the same run, and prints the seconds per request of each and their ratio. The
loopback server answers in well under a millisecond, so the ratio is the overhead's
upper bound; a real gateway or RPC answer takes milliseconds to seconds.

Run: ``python -m scripts.bench_request_deadline [--requests 2000] [--bytes 65536]``.
"""

import argparse
import http.server
import statistics
import threading
import time
from typing import Any, Callable, List

import requests
from mech_catalogue_core.ipfs.size_cap import read_capped

from mech_catalogue_cli.adapters.http import new_session
from mech_catalogue_cli.adapters.ipfs import CHUNK_BYTES, gateway_bytes


def serve(size: int) -> http.server.ThreadingHTTPServer:
    """Answer every GET with ``size`` bytes, keep-alive, from a thread.

    :param size: the body's bytes.
    :return: the server (shut it down after).
    """
    body = b"x" * size

    class Handler(http.server.BaseHTTPRequestHandler):
        """One answer."""

        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # pylint: disable=invalid-name
            """Answer."""
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:  # pylint: disable=arguments-differ
            """Quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def per_request(read: Callable[[], bytes], count: int) -> float:
    """Seconds per read over ``count`` reads.

    :param read: one read.
    :param count: how many.
    :return: the mean seconds.
    """
    began = time.perf_counter()
    for _ in range(count):
        read()
    return (time.perf_counter() - began) / count


def main() -> None:
    """Measure both ways, alternating, and print the medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--bytes", type=int, default=65536)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    server = serve(options.bytes)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    cap = options.bytes + 1
    plain, watched = requests.Session(), new_session()

    def old() -> bytes:
        with plain.get(f"{url}/ipfs/x", timeout=10, stream=True) as response:
            return read_capped(response.iter_content(CHUNK_BYTES), cap)

    def new() -> bytes:
        return gateway_bytes(watched, url, "ipfs/x", 10, cap)

    before: List[float] = []
    after: List[float] = []
    for _ in range(options.rounds):
        before.append(per_request(old, options.requests))
        after.append(per_request(new, options.requests))
    server.shutdown()
    old_s, new_s = statistics.median(before), statistics.median(after)
    print(
        f"{options.requests} reads of {options.bytes} B x {options.rounds} rounds: "
        f"per-read timeout only {old_s * 1e3:.3f} ms, whole-answer deadline "
        f"{new_s * 1e3:.3f} ms, ratio {new_s / old_s:.2f} (+{(new_s - old_s) * 1e6:.0f} us)"
    )


if __name__ == "__main__":
    main()
