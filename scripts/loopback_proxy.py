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
- ``path_modes``: path substring -> mode, a fault for matching requests only (e.g. one
  CID), the others forwarded (a mode in ``mode`` wins);
- ``rewrite``: a function ``(path, body) -> body`` replacing what upstream returned
  (a gateway serving other bytes than the CID names).

Bounded: request and response bodies over :data:`MAX_BODY` bytes are refused, upstream
calls time out after ``upstream_timeout`` seconds, and handler threads are daemons that
die with the process. Only loopback upstreams are accepted.
"""

import http.client
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, Optional, Tuple
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
)
#: the HTTP status each answering fault mode replies with
FAULT_STATUS = {
    "http_error": 500,
    "down": 502,
    "not_found": 404,
    "gateway_timeout": 504,
}

Rewrite = Callable[[str, bytes], bytes]


@dataclass
class ProxyCounters:
    """What went through the proxy since the last :meth:`LoopbackProxy.reset_counters`.

    :param requests: HTTP requests received.
    :param rpc_calls: JSON-RPC calls (each call of a batch counts once).
    :param rpc_methods: JSON-RPC method -> calls.
    :param faults: requests answered by an injected fault.
    """

    requests: int = 0
    rpc_calls: int = 0
    rpc_methods: Dict[str, int] = field(default_factory=dict)
    faults: int = 0


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
        self.rewrite: Optional[Rewrite] = None
        self.path_modes: Dict[str, str] = {}
        self.counters = ProxyCounters()
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

    def clear_faults(self) -> None:
        """Stop injecting faults and latency."""
        self.mode = ""
        self.latency = 0.0
        self.rewrite = None
        self.path_modes = {}

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

            def _rpc_error(self, body: bytes) -> bytes:
                try:
                    payload = json.loads(body)
                except ValueError:
                    payload = {}
                calls = payload if isinstance(payload, list) else [payload]
                errors = [
                    {
                        "jsonrpc": "2.0",
                        "id": call.get("id") if isinstance(call, dict) else None,
                        "error": {"code": -32000, "message": "injected fault"},
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
                if mode in FAULT_STATUS:
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
