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

"""The CLI's I/O adapters on their unhappy paths, against a real local HTTP server.

Each test starts ``http.server`` on 127.0.0.1 in a thread (:func:`serving`) and points
an adapter (``mech_catalogue_cli/adapters/``) at it: a server that is slow, answers too
much, answers something that is not JSON, refuses with an HTTP error, or a port where
nothing listens. Nothing is mocked. The URLs carry a stand-in API key
(:data:`KEY`) in their path and query, which no message may show.

The tests through :class:`~mech_catalogue_cli.sync_driver.CatalogueSync` and
:func:`~mech_catalogue_cli.sync_driver.read_snapshot` use only what existed before the
adapters, and failed on the hand-written clients they replace: a node's URL (with its
key) was quoted in ``ChainReadError`` messages, and an ``eth_call`` result that was not
hex raised ``ValueError`` out of a period that must never raise.
"""

import http.server
import json
import socket
import threading
import time
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, Tuple

import pytest
from mech_catalogue_core.chain.registry import ChainReadError
from mech_catalogue_core.chain.rpc_limits import batch_too_large
from mech_catalogue_core.publish.publish import IPFS_UNAVAILABLE, PublishError

from mech_catalogue_cli.adapters import http as plain_http
from mech_catalogue_cli.adapters import ipfs, jsonrpc
from mech_catalogue_cli.adapters.http import AnswerError, get_json, watched_session
from mech_catalogue_cli.adapters.ipfs import IpfsTransportError, KuboRpc
from mech_catalogue_cli.adapters.jsonrpc import JsonRpc
from mech_catalogue_cli.publisher.ipfs import IpfsApi
from mech_catalogue_cli.sync_driver import (
    CatalogueSync,
    SyncConfig,
    all_ids_sources,
    read_snapshot,
)

#: a stand-in API key, as providers put it in the URL path or query
KEY = "k3y-5ecr3t-0123456789abcdef"
#: what a handler answers: (status, headers, body, seconds to wait before answering)
Answer = Tuple[int, Dict[str, str], bytes, float]
MULTICALL = "0x" + "11" * 20
REGISTRY = "0x" + "22" * 20


class _Handler(http.server.BaseHTTPRequestHandler):
    answer: Callable[[str, bytes], Answer]

    def _reply(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = self.rfile.read(length) if length else b""
        status, headers, body, delay = type(self).answer(self.path, request)
        time.sleep(delay)
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass  # the client gave up first (the timeouts tested here)

    do_GET = do_POST = _reply  # noqa: N815

    def log_message(self, *args: object) -> None:  # pylint: disable=arguments-differ
        """Keep the test output quiet."""


@contextmanager
def serving(answer: Callable[[str, bytes], Answer]) -> Iterator[str]:
    """Serve ``answer`` on a free loopback port.

    :param answer: (path, request body) -> what to answer.
    :yield: the server's base URL.
    """
    handler = type("Handler", (_Handler,), {"answer": staticmethod(answer)})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def constant(
    status: int, body: bytes, delay: float = 0.0, **headers: str
) -> Callable[[str, bytes], Answer]:
    """Answer every request alike.

    :param status: the HTTP status.
    :param body: the body.
    :param delay: seconds before answering.
    :param headers: extra headers (``_`` for ``-`` in names).
    :return: the answer function.
    """
    named = {k.replace("_", "-"): v for k, v in headers.items()}
    return lambda _path, _request: (status, named, body, delay)


def json_rpc(result: object) -> Callable[[str, bytes], Answer]:
    """Answer every JSON-RPC request with ``result``.

    :param result: the ``result``.
    :return: the answer function.
    """
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()
    return constant(200, body, Content_Type="application/json")


def closed_port() -> str:
    """A loopback URL where nothing listens (the port was bound, then freed).

    :return: the URL.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def keyed(base: str) -> str:
    """The URL as an RPC provider hands it out, the key in path and query.

    :param base: scheme and host.
    :return: the URL with :data:`KEY`.
    """
    return f"{base}/v2/{KEY}?apikey={KEY}"


def assert_keyless(error: BaseException) -> None:
    """The message, the reason and the chained causes' types name no key.

    :param error: the raised error.
    """
    texts = [str(error), str(getattr(error, "reason", "")), repr(error)]
    assert all(KEY not in text for text in texts), texts


# -- JSON-RPC ---------------------------------------------------------------------------


def test_jsonrpc_reads_a_result_and_decodes_eth_call_data() -> None:
    """The happy path: a hex result is bytes; a quantity an int; logs a list."""
    with serving(json_rpc("0x00ff")) as url:
        rpc = JsonRpc(keyed(url), 5.0)
        assert jsonrpc.eth_call(rpc, MULTICALL, b"\x01", None) == b"\x00\xff"
        assert jsonrpc.block_number(rpc) == 255
    with serving(json_rpc([{"topics": []}])) as url:
        assert jsonrpc.get_logs(JsonRpc(url, 5.0), REGISTRY, "0x00", 1, 2) == [
            {"topics": []}
        ]


def test_jsonrpc_timeout_is_a_chain_read_error_without_the_key() -> None:
    """A node slower than the timeout: ChainReadError naming the timeout, not the key."""
    with serving(constant(200, b"{}", delay=2.0)) as url:
        with pytest.raises(
            ChainReadError, match="did not finish within 0.3 s"
        ) as raised:
            jsonrpc.block_number(JsonRpc(keyed(url), 0.3))
    assert_keyless(raised.value)


def test_jsonrpc_connection_refused_is_a_chain_read_error() -> None:
    """Nothing listening: ChainReadError ConnectionError, saying what to check."""
    with pytest.raises(
        ChainReadError, match="ConnectionError.*node is running"
    ) as raised:
        jsonrpc.chain_id(JsonRpc(keyed(closed_port()), 2.0))
    assert_keyless(raised.value)


def test_jsonrpc_oversize_answer_is_refused_at_the_cap() -> None:
    """An answer over ``max_bytes`` is refused (read no further than the cap + 1)."""
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "result": "0x" + "00" * 50_000})
    with serving(constant(200, big.encode())) as url:
        with pytest.raises(ChainReadError, match="over 10000 bytes") as raised:
            jsonrpc.eth_call(
                JsonRpc(keyed(url), 5.0, max_bytes=10_000), MULTICALL, b"", 1
            )
    assert_keyless(raised.value)


def test_jsonrpc_non_json_names_the_status_for_the_batch_splitter() -> None:
    """A proxy's HTML 413: 'HTTP 413, not JSON-RPC', which the splitter reads as too large."""
    with serving(constant(413, b"<html>Request Entity Too Large</html>")) as url:
        with pytest.raises(ChainReadError, match="HTTP 413, not JSON-RPC") as raised:
            jsonrpc.eth_call(JsonRpc(keyed(url), 5.0), MULTICALL, b"", None)
    assert batch_too_large(raised.value)
    assert_keyless(raised.value)


def test_jsonrpc_http_error_with_a_json_rpc_error_keeps_the_nodes_words() -> None:
    """HTTP 429 with a JSON-RPC error: the node's words in message and reason."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"message": "slow down"}})
    with serving(constant(429, body.encode())) as url:
        with pytest.raises(ChainReadError, match="slow down") as raised:
            jsonrpc.get_logs(JsonRpc(keyed(url), 5.0), REGISTRY, "0x00", 1, 9)
    assert "slow down" in raised.value.reason and "eth_getLogs 1-9" in str(raised.value)
    assert not batch_too_large(raised.value)
    assert_keyless(raised.value)


@pytest.mark.parametrize(
    "result, call",
    [
        ("0xZZ", "eth_call"),  # not hex
        ("0x123", "eth_call"),  # odd length
        (7, "eth_call"),  # not a string
        ("12", "block_number"),  # no 0x
        (None, "chain_id"),
        ({"a": 1}, "get_logs"),  # not a list
    ],
)
def test_jsonrpc_result_of_the_wrong_shape_is_a_chain_read_error(
    result: object, call: str
) -> None:
    """A result that is not what the method returns: ChainReadError, never ValueError."""
    with serving(json_rpc(result)) as url:
        rpc = JsonRpc(keyed(url), 5.0)
        with pytest.raises(ChainReadError) as raised:
            if call == "eth_call":
                jsonrpc.eth_call(rpc, MULTICALL, b"", None)
            elif call == "get_logs":
                jsonrpc.get_logs(rpc, REGISTRY, "0x00", 1, 2)
            else:
                getattr(jsonrpc, call)(rpc)
    assert_keyless(raised.value)


def test_registry_read_of_deeply_nested_json_is_a_chain_read_error() -> None:
    """100,000 ``[`` from the node: ChainReadError, measured before decoding.

    Before, the decoder was handed it, which crashed the test process (a segmentation
    fault in ``json.loads``) or raised RecursionError out of the read.
    """
    deep = b'{"jsonrpc": "2.0", "id": 1, "result": ' + b"[" * 100_000
    with serving(constant(200, deep + b"]" * 100_000 + b"}")) as url:
        with pytest.raises(ChainReadError, match="nested more than 64") as raised:
            read_snapshot(_config(keyed(url)))
    assert_keyless(raised.value)


def _config(rpc_url: str) -> SyncConfig:
    return SyncConfig(
        rpc_url=rpc_url,
        gateway_url="http://127.0.0.1:9",
        sources=all_ids_sources(100, [("complementary_service_metadata", REGISTRY)]),
        multicall=MULTICALL,
        rpc_timeout=2.0,
    )


def test_a_period_against_a_node_returning_non_hex_keeps_the_last_catalogue() -> None:
    """``period`` never raises: a non-hex eth_call result fails the read, named."""
    with serving(json_rpc("0xnot-hex")) as url:
        sync = CatalogueSync(_config(keyed(url)))
        try:
            outcome = sync.period()
        finally:
            sync.close()
    assert not outcome.updated and "not hex data" in outcome.error


@pytest.mark.parametrize(
    "answer",
    [
        constant(200, b"<html>login</html>"),
        constant(500, json.dumps({"error": {"message": "internal"}}).encode()),
        constant(200, b"{}", delay=2.5),
    ],
)
def test_registry_read_errors_never_quote_the_rpc_key(answer) -> None:
    """Registry reads through a keyed RPC URL fail without quoting the key."""
    with serving(answer) as url:
        with pytest.raises(ChainReadError) as raised:
            read_snapshot(_config(keyed(url)))
    assert_keyless(raised.value)


def test_registry_read_against_a_closed_port_never_quotes_the_rpc_key() -> None:
    """Connection refused on a keyed URL: the message names the host only."""
    with pytest.raises(ChainReadError) as raised:
        read_snapshot(_config(keyed(closed_port())))
    assert_keyless(raised.value)
    assert "127.0.0.1" in str(raised.value)


# -- IPFS gateways and kubo RPC ---------------------------------------------------------


def test_gateway_answer_stops_at_the_cap_when_range_is_ignored() -> None:
    """A gateway that ignores Range and sends 10x the cap: cap + 1 bytes come back."""
    with serving(constant(200, b"x" * 10_000)) as url:
        data, failure, status, _ = ipfs.gateway_answer(
            plain_http.new_session(), url, "bafyany", 5.0, 1000
        )
    assert (len(data or b""), failure, status) == (1001, "", 200)


@pytest.mark.parametrize(
    "answer, failure",
    [
        (constant(504, b"gateway timeout"), "gateway answered HTTP 504"),
        (constant(200, b"x", delay=2.0), "did not finish within 0.5 s"),
    ],
)
def test_gateway_answer_failures_are_text_for_the_fetch_window(answer, failure) -> None:
    """HTTP errors and timeouts are failure text (the library decides what next)."""
    with serving(answer) as url:
        data, said, _, _ = ipfs.gateway_answer(
            plain_http.new_session(), url, "bafyany", 0.5, 1000
        )
    assert data is None and said == failure


def test_gateway_answer_connection_refused_is_failure_text() -> None:
    """Nothing listening: failure text naming the error's type only."""
    data, said, status, _ = ipfs.gateway_answer(
        plain_http.new_session(), keyed(closed_port()), "bafyany", 1.0, 1000
    )
    assert (data, said, status) == (None, "ConnectionError", None)


@pytest.mark.parametrize(
    "answer, kind",
    [
        (constant(500, b"boom"), ipfs.STATUS),
        (constant(200, b"y" * 5000), ipfs.TOO_LARGE),
        (constant(200, b"y", delay=2.0), ipfs.TRANSPORT),
    ],
)
def test_gateway_bytes_raises_by_kind_without_the_key(answer, kind) -> None:
    """An error status, an oversize body, a timeout: IpfsTransportError of that kind."""
    with serving(answer) as url:
        with pytest.raises(IpfsTransportError) as raised:
            ipfs.gateway_bytes(
                plain_http.new_session(), keyed(url), "ipfs/bafyany", 0.5, 1000
            )
    assert raised.value.kind == kind
    assert_keyless(raised.value)
    assert ipfs.raw_block(plain_http.new_session(), closed_port(), "x", 1.0, 10) is None


def test_kubo_refusal_keeps_only_the_start_of_its_body() -> None:
    """A kubo error with a 1 MB body: HTTP status and at most 200 bytes of its text."""
    with serving(constant(500, b'{"Message":"no"}' + b" " * 1_000_000)) as url:
        with pytest.raises(IpfsTransportError) as raised:
            KuboRpc(keyed(url), 5.0).read("cat", {"arg": "bafyany"}, 1000)
    assert raised.value.kind == ipfs.STATUS and raised.value.status == 500
    assert raised.value.detail.startswith('{"Message":"no"}')
    assert len(raised.value.detail) <= ipfs.MAX_REFUSAL_BYTES
    assert_keyless(raised.value)


@pytest.mark.parametrize(
    "answer, kind",
    [
        (constant(200, b"<html>not kubo</html>"), ipfs.NOT_JSON),
        (constant(200, b"[1, 2]"), ipfs.NOT_JSON),
        (constant(200, b"[" * 50_000 + b"]" * 50_000), ipfs.NOT_JSON),
        (constant(200, b"{}" * (ipfs.MAX_ADD_ANSWER_BYTES // 2 + 1)), ipfs.TOO_LARGE),
    ],
)
def test_kubo_add_answers_that_are_not_kubos_are_refused(answer, kind) -> None:
    """``add`` answered with something else, or too much: refused by kind."""
    with serving(answer) as url:
        with pytest.raises(IpfsTransportError) as raised:
            KuboRpc(url, 5.0).add({}, {"file": ("f", b"x")})
    assert raised.value.kind == kind


def test_publish_ipfs_unavailable_keeps_its_advice_and_hides_the_key() -> None:
    """Publishing's kubo view: nothing listening or a refusal is IPFS_UNAVAILABLE."""
    with pytest.raises(PublishError, match="did not answer add.*--ipfs-api") as down:
        IpfsApi(keyed(closed_port()), timeout=1.0).add(b"{}")
    with serving(constant(403, b"forbidden")) as url:
        with pytest.raises(PublishError, match="HTTP 403 forbidden") as refused:
            IpfsApi(keyed(url)).cat("bafyany")
        assert not IpfsApi(url).is_ready()
    for raised in (down, refused):
        assert raised.value.code == IPFS_UNAVAILABLE
        assert KEY not in str(raised.value)


# -- plain HTTP (an upstream's JSON) ----------------------------------------------------


@pytest.mark.parametrize(
    "answer, kind",
    [
        (constant(200, b"not json"), "not_json"),
        (constant(502, b"{}"), "status"),
        (constant(200, b"[" * 5000), "too_large"),
        (constant(200, b"[" * 300 + b"]" * 300), "too_deep"),
        (constant(200, b"{}", delay=2.0), "deadline"),
    ],
)
def test_get_json_refuses_by_kind_without_the_url(answer, kind) -> None:
    """Non-JSON, an HTTP error, oversize, too deep, too slow: AnswerError of that kind."""
    with serving(answer) as url:
        with pytest.raises(AnswerError) as raised:
            get_json(watched_session(), keyed(url), 0.5, 4000, 256)
    assert raised.value.kind == kind
    assert_keyless(raised.value)


def test_get_json_connection_refused_is_a_transport_answer_error() -> None:
    """Nothing listening: AnswerError ``transport``."""
    with pytest.raises(AnswerError) as raised:
        get_json(watched_session(), keyed(closed_port()), 1.0, 4000, 256)
    assert raised.value.kind == "transport"
    assert_keyless(raised.value)
