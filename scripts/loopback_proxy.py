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

"""A small counting and fault-injecting HTTP proxy on loopback, for benchmarks and fault tests.

``LoopbackProxy(upstream)`` listens on ``127.0.0.1:<free port>`` and forwards every request
to ``upstream`` (an ``http://host:port`` base URL, loopback only). It counts what passes
(HTTP requests, JSON-RPC calls by method, including the calls inside a JSON-RPC batch) and,
when told to, injects one fault:

- ``latency``: seconds added before forwarding (a slow IPFS or RPC);
- ``mode = "http_error"``: answer ``500`` without forwarding;
- ``mode = "rpc_error"``: answer a JSON-RPC error object (code -32000) for every call;
- ``mode = "timeout"``: hold the request ``hang_seconds`` then drop the connection;
- ``mode = "reset"``: close the connection without an answer;
- ``mode = "down"``: answer ``502`` (the upstream is gone);
- ``mode = "not_found"`` / ``"gateway_timeout"``: answer ``404`` / ``504`` (a gateway that
  does not have, or gave up fetching, the content);
- ``mode = "rate_limited"``: answer ``429`` with ``Retry-After: <retry_after>`` (a
  gateway rate-limiting this client; ``retry_after`` defaults to 1 s);
- ``max_request_bytes``: a JSON-RPC request body longer than this is answered with a
  JSON-RPC error "request entity too large" (an RPC capping what one ``eth_call`` carries);
- ``max_log_range``: an ``eth_getLogs`` call spanning more blocks than this (``fromBlock``
  and ``toBlock`` both numbers; a tag such as ``latest`` is not judged unless
  ``tags_are_head``) is answered with a JSON-RPC error whose text is ``log_range_refusal``
  formatted with ``width`` and ``limit`` (an RPC capping the block range of a log query;
  set the text to a real RPC's phrasing);
- ``tags_are_head``: with ``max_log_range``, a block tag (``latest``, ``pending``, ``safe``,
  ``finalized``, or no bound at all) counts as the upstream's head block, read with
  ``eth_blockNumber``, and ``earliest`` as block 0, as hosted providers judge ranges;
- ``path_modes``: path substring -> mode, a fault for matching requests only (e.g. one
  CID), the others forwarded (a mode in ``mode`` wins);
- ``rewrite``: a function ``(path, body) -> body`` replacing what upstream returned
  (a gateway serving other bytes than the CID names);
- ``rpc_answer``: a function ``(call) -> members`` given each single JSON-RPC call (a
  dict; batches are forwarded), returning the answer's ``result`` or ``error`` member
  to reply with instead of forwarding (``{"result": None}``, ``{"error": {...}}``), or
  None to forward it (a node answering one method or block tag its own way);
- ``network``: a :class:`NetworkModel`, a seeded per-request latency (a median, a
  log-normal spread and a long tail) and a concurrency limit beyond which requests are
  answered ``429 Too Many Requests`` with ``Retry-After`` (a public gateway);
  :data:`RPC_NETWORK` and :data:`GATEWAY_NETWORK` are the benchmark's models.

Bounded: request and response bodies over :data:`MAX_BODY` bytes are refused, upstream
calls time out after ``upstream_timeout`` seconds, and handler threads are daemons that
die with the process. Only loopback upstreams are accepted.
"""

import http.client
import json
import math
import random
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Optional, Tuple
from urllib.parse import urlsplit

#: the largest request or response body the proxy passes, bytes (64 MiB)
MAX_BODY = 64 * 1024 * 1024

FAULT_MODES = (
    "",
    "http_error",
    "rpc_error",
    "timeout",
    "reset",
    "down",
    "not_found",
    "gateway_timeout",
    "rate_limited",
)
#: the HTTP status each answering fault mode replies with
FAULT_STATUS = {
    "http_error": 500,
    "down": 502,
    "not_found": 404,
    "gateway_timeout": 504,
}

Rewrite = Callable[[str, bytes], bytes]
#: one JSON-RPC call -> the ``result`` or ``error`` member answered instead, or None
RpcAnswer = Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]

#: the default text of a ``max_log_range`` refusal (``width`` and ``limit`` filled in)
LOG_RANGE_REFUSAL = "block range is too wide: {width} blocks, the limit is {limit}"

#: HTTP status of a rate-limited request (RFC 6585 s4)
TOO_MANY_REQUESTS = 429


@dataclass(frozen=True)
class NetworkModel:
    """A seeded model of one remote endpoint: latency per request and a concurrency limit.

    Each admitted request waits ``median * exp(sigma * z)`` seconds (``z`` standard
    normal: a log-normal around the median), or ``tail_seconds`` for a ``tail_fraction``
    of requests, before it is forwarded. A request arriving while ``max_concurrent``
    are in flight waits one ``median`` (its round trip) and is answered 429 with
    ``Retry-After: <retry_after>`` without being forwarded.

    :param median: median latency, seconds.
    :param sigma: log-normal spread (0: every request takes ``median``).
    :param tail_fraction: share of requests taking ``tail_seconds`` (0..1).
    :param tail_seconds: latency of the tail, seconds.
    :param max_concurrent: requests admitted at once (0: no limit).
    :param retry_after: the ``Retry-After`` of a 429, whole seconds.
    :param seed: the random seed (the same seed gives the same latencies, in order).
    """

    median: float
    sigma: float = 0.0
    tail_fraction: float = 0.0
    tail_seconds: float = 0.0
    max_concurrent: int = 0
    retry_after: int = 1
    seed: int = 0

    def sample(self, rng: random.Random) -> float:
        """Draw one request's latency.

        :param rng: the model's random generator.
        :return: seconds.
        """
        if self.tail_fraction and rng.random() < self.tail_fraction:
            return self.tail_seconds
        return self.median * math.exp(self.sigma * rng.gauss(0.0, 1.0))


#: an Ethereum RPC endpoint: 20 ms a call
RPC_NETWORK = NetworkModel(median=0.020, sigma=0.1, seed=20)
#: a public IPFS gateway: 60 ms median, 2% of requests 1.5 s, 32 at once, then 429
GATEWAY_NETWORK = NetworkModel(
    median=0.060,
    sigma=0.5,
    tail_fraction=0.02,
    tail_seconds=1.5,
    max_concurrent=32,
    retry_after=1,
    seed=60,
)


@dataclass
class ProxyCounters:
    """What went through the proxy since the last :meth:`LoopbackProxy.reset_counters`.

    :param requests: HTTP requests received.
    :param rpc_calls: JSON-RPC calls (each call of a batch counts once).
    :param rpc_methods: JSON-RPC method -> calls.
    :param faults: requests answered by an injected fault.
    :param rate_limited: requests answered 429 by the network model.
    :param max_in_flight: the most requests in flight at once.
    :param latency_seconds: latency the network model added, summed over requests.
    """

    requests: int = 0
    rpc_calls: int = 0
    rpc_methods: Dict[str, int] = field(default_factory=dict)
    faults: int = 0
    rate_limited: int = 0
    max_in_flight: int = 0
    latency_seconds: float = 0.0


class LoopbackProxy:  # pylint: disable=too-many-instance-attributes
    """A threaded HTTP proxy on 127.0.0.1 in front of one loopback upstream."""

    def __init__(
        self,
        upstream: str,
        host: str = "127.0.0.1",
        upstream_timeout: float = 30.0,
    ) -> None:
        """Start listening on a free port of ``host``.

        :param upstream: base URL of the upstream, ``http://127.x.x.x:port``.
        :param host: the loopback address to listen on.
        :param upstream_timeout: seconds one forwarded request may take.
        :raises ValueError: when ``upstream`` or ``host`` is not loopback HTTP.
        """
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not (parts.hostname or "").startswith("127."):
            raise ValueError(
                f"upstream {upstream!r} must be http:// on a 127.0.0.0/8 address"
            )
        if not host.startswith("127."):
            raise ValueError(f"listen address {host!r} must be loopback")
        self.upstream_host = parts.hostname or ""
        self.upstream_port = parts.port or 80
        self.upstream_timeout = upstream_timeout
        self.latency = 0.0
        self.mode = ""
        self.hang_seconds = 5.0
        self.retry_after = 1
        self.rewrite: Optional[Rewrite] = None
        self.rpc_answer: Optional[RpcAnswer] = None
        self.path_modes: Dict[str, str] = {}
        self.max_request_bytes: Optional[int] = None
        self.max_log_range: Optional[int] = None
        self.log_range_refusal = LOG_RANGE_REFUSAL
        self.tags_are_head = False
        self.counters = ProxyCounters()
        self.network: Optional[NetworkModel] = None
        self._rng = random.Random(0)
        self._in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="loopback-proxy", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """Get the proxy's base URL.

        :return: ``http://127.0.0.1:<port>``.
        """
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def set_upstream(self, upstream: str) -> None:
        """Point the proxy at another loopback upstream (e.g. a restarted node's new port).

        :param upstream: ``http://127.x.x.x:port``.
        """
        parts = urlsplit(upstream)
        self.upstream_host = parts.hostname or ""
        self.upstream_port = parts.port or 80

    def set_network(self, model: Optional[NetworkModel]) -> None:
        """Model a remote endpoint (None: plain loopback); reseeds the latency draws.

        :param model: the network model, or None.
        """
        with self._lock:
            self.network = model
            self._rng = random.Random(model.seed if model else 0)

    def admit(self) -> Tuple[bool, float]:
        """Take a place among the requests in flight, as the network model allows.

        :return: ``(admitted, seconds to wait)``; an admitted request must call
            :meth:`release` when answered.
        """
        with self._lock:
            model = self.network
            if (
                model
                and model.max_concurrent
                and self._in_flight >= model.max_concurrent
            ):
                self.counters.rate_limited += 1
                return False, model.median
            self._in_flight += 1
            self.counters.max_in_flight = max(
                self.counters.max_in_flight, self._in_flight
            )
            delay = model.sample(self._rng) if model else 0.0
            self.counters.latency_seconds += delay
            return True, delay

    def release(self) -> None:
        """Give back a place taken by :meth:`admit`."""
        with self._lock:
            self._in_flight = max(0, self._in_flight - 1)

    def clear_faults(self) -> None:
        """Stop injecting faults and latency; drop the network model."""
        self.network = None
        self.retry_after = 1
        self.mode = ""
        self.latency = 0.0
        self.rewrite = None
        self.rpc_answer = None
        self.path_modes = {}
        self.max_request_bytes = None
        self.max_log_range = None
        self.tags_are_head = False
        self.log_range_refusal = LOG_RANGE_REFUSAL

    def reset_counters(self) -> ProxyCounters:
        """Zero the counters.

        :return: the counters as they were.
        """
        with self._lock:
            before, self.counters = self.counters, ProxyCounters()
        return before

    def close(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "LoopbackProxy":
        """Use as a context manager.

        :return: this proxy.
        """
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close on exit.

        :param exc_info: ignored.
        """
        self.close()

    # ------------------------------------------------------------------ internals

    def count(self, body: bytes) -> None:
        """Count one request and the JSON-RPC calls in its body.

        :param body: the request body.
        """
        methods = []
        try:
            payload = json.loads(body) if body else None
        except ValueError:
            payload = None
        for call in payload if isinstance(payload, list) else [payload]:
            if isinstance(call, dict) and isinstance(call.get("method"), str):
                methods.append(call["method"])
        with self._lock:
            self.counters.requests += 1
            self.counters.rpc_calls += len(methods)
            for method in methods:
                self.counters.rpc_methods[method] = (
                    self.counters.rpc_methods.get(method, 0) + 1
                )

    def answered(self, body: bytes) -> Optional[bytes]:
        """The answer :attr:`rpc_answer` gives a single JSON-RPC call, if any.

        :param body: the request body.
        :return: the JSON-RPC answer (its ``id`` the call's), or None to forward.
        """
        answer = self.rpc_answer
        if answer is None:
            return None
        try:
            call = json.loads(body) if body else None
        except ValueError:
            return None
        if not isinstance(call, dict):
            return None  # a batch, or not JSON-RPC: forwarded
        members = answer(call)  # pylint: disable=not-callable
        if members is None:
            return None
        return json.dumps({"jsonrpc": "2.0", "id": call.get("id"), **members}).encode()

    def log_range_refused(self, body: bytes) -> Optional[str]:
        """Say why ``max_log_range`` refuses a request, if it does.

        :param body: the request body (one JSON-RPC call or a batch).
        :return: the refusal's text for the widest ``eth_getLogs`` range over the limit,
            or None when every range fits (or is given by a tag).
        """
        limit = self.max_log_range
        if limit is None:
            return None
        try:
            payload = json.loads(body) if body else None
        except ValueError:
            return None
        widths = [0]
        for call in payload if isinstance(payload, list) else [payload]:
            if not isinstance(call, dict) or call.get("method") != "eth_getLogs":
                continue
            params = call.get("params") or [{}]
            query = params[0] if isinstance(params[0], dict) else {}
            try:
                first = self._block_number(query.get("fromBlock", "latest"))
                last = self._block_number(query.get("toBlock", "latest"))
            except (KeyError, TypeError, ValueError):
                continue
            widths.append(last - first + 1)
        if max(widths) <= limit:
            return None
        return self.log_range_refusal.format(width=max(widths), limit=limit)

    def _block_number(self, bound: str) -> int:
        """Read one ``eth_getLogs`` bound as a block number.

        A tag when tags are not judged, or a head that cannot be read, raises
        ``ValueError`` (the bound is then not judged).

        :param bound: a hex number or a tag.
        :return: the number (a tag only with ``tags_are_head``).
        """
        if not self.tags_are_head or bound.startswith("0x"):
            return int(bound, 16)
        if bound == "earliest":
            return 0
        request = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
        ).encode()
        _, _, data = self.forward(
            "POST", "/", request, {"Content-Type": "application/json"}
        )
        return int(json.loads(data)["result"], 16)

    def record_fault(self) -> None:
        """Count one request answered by an injected fault."""
        with self._lock:
            self.counters.faults += 1

    def forward(
        self, method: str, path: str, body: bytes, headers: Dict[str, str]
    ) -> Tuple[int, str, bytes]:
        """Send one request upstream.

        :param method: GET or POST.
        :param path: the path and query.
        :param body: the body.
        :param headers: headers to pass on.
        :return: ``(status, content type, body)`` (at most MAX_BODY + 1 bytes).
        """
        connection = http.client.HTTPConnection(
            self.upstream_host, self.upstream_port, timeout=self.upstream_timeout
        )
        try:
            connection.request(method, path, body=body or None, headers=headers)
            response = connection.getresponse()
            data = response.read(MAX_BODY + 1)
            return response.status, response.getheader("Content-Type", ""), data
        finally:
            connection.close()

    def _handler_class(self):  # noqa: C901  # pylint: disable=too-many-statements
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            """Forward one request, or answer with the injected fault."""

            protocol_version = "HTTP/1.1"
            # headers and body go out as two writes; without TCP_NODELAY a keep-alive
            # client waits for the delayed ACK (about 40 ms per request)
            disable_nagle_algorithm = True

            def log_message(  # pylint: disable=arguments-differ
                self, *args: object
            ) -> None:
                """Stay quiet.

                :param args: ignored.
                """

            def _reply(self, status: int, content_type: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type or "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _rpc_error(self, body: bytes, message: str = "injected fault") -> bytes:
                try:
                    payload = json.loads(body)
                except ValueError:
                    payload = {}
                calls = payload if isinstance(payload, list) else [payload]
                errors = [
                    {
                        "jsonrpc": "2.0",
                        "id": call.get("id") if isinstance(call, dict) else None,
                        "error": {"code": -32000, "message": message},
                    }
                    for call in calls
                ]
                return json.dumps(
                    errors if isinstance(payload, list) else errors[0]
                ).encode()

            def _injected(self, mode: str, body: bytes) -> bool:
                """Answer with the injected fault, if any.

                :param mode: the fault mode ("" for none).
                :param body: the request body.
                :return: True when the request was answered (or dropped) here.
                """
                if not mode:
                    return False
                proxy.record_fault()
                if mode == "rate_limited":
                    self._too_many(proxy.retry_after)
                elif mode in FAULT_STATUS:
                    self._reply(
                        FAULT_STATUS[mode],
                        "text/plain",
                        f"injected fault: {mode}".encode(),
                    )
                elif mode == "rpc_error":
                    self._reply(200, "application/json", self._rpc_error(body))
                else:  # timeout, reset
                    if mode == "timeout":
                        time.sleep(proxy.hang_seconds)
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                return True

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    self._reply(413, "text/plain", b"request body too large")
                    return
                body = self.rfile.read(length) if length else b""
                proxy.count(body)
                admitted, delay = proxy.admit()
                if not admitted:
                    time.sleep(delay)
                    self._too_many(proxy.network.retry_after if proxy.network else 1)
                    return
                try:
                    time.sleep(delay)
                    self._answer(method, body)
                finally:
                    proxy.release()

            def _too_many(self, retry_after: int) -> None:
                data = b"too many requests"
                self.send_response(TOO_MANY_REQUESTS)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Retry-After", str(retry_after))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _answer(self, method: str, body: bytes) -> None:
                if proxy.latency:
                    time.sleep(proxy.latency)
                mode = proxy.mode or next(
                    (
                        m
                        for part, m in dict(proxy.path_modes).items()
                        if part in self.path
                    ),
                    "",
                )
                if self._injected(mode, body):
                    return
                limit = proxy.max_request_bytes
                if limit is not None and method == "POST" and len(body) > limit:
                    proxy.record_fault()
                    message = (
                        f"request entity too large: {len(body)} bytes, "
                        f"the limit is {limit}"
                    )
                    self._reply(200, "application/json", self._rpc_error(body, message))
                    return
                answered = proxy.answered(body) if method == "POST" else None
                if answered is not None:
                    proxy.record_fault()
                    self._reply(200, "application/json", answered)
                    return
                refusal = proxy.log_range_refused(body) if method == "POST" else None
                if refusal is not None:
                    proxy.record_fault()
                    self._reply(200, "application/json", self._rpc_error(body, refusal))
                    return
                headers = {
                    key: value
                    for key, value in self.headers.items()
                    if key.lower() in ("content-type", "accept")
                }
                try:
                    status, content_type, data = proxy.forward(
                        method, self.path, body, headers
                    )
                except OSError as exc:
                    self._reply(502, "text/plain", f"upstream: {exc}".encode())
                    return
                if len(data) > MAX_BODY:
                    self._reply(502, "text/plain", b"upstream body too large")
                    return
                rewrite = proxy.rewrite
                if rewrite is not None and status == 200:
                    data = rewrite(self.path, data)  # pylint: disable=not-callable
                self._reply(status, content_type, data)

            def do_GET(self) -> None:  # pylint: disable=invalid-name
                """Forward a GET."""
                self._handle("GET")

            def do_POST(self) -> None:  # pylint: disable=invalid-name
                """Forward a POST."""
                self._handle("POST")

        return Handler
