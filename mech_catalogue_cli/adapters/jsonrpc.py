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

"""The CLI's one JSON-RPC client for a chain node: every ``eth_*`` read it makes.

JSON-RPC 2.0 over HTTP POST (https://www.jsonrpc.org/specification; the methods are the
Ethereum execution API's, https://ethereum.github.io/execution-apis/api-documentation/),
on a ``requests`` session. Used by the registry and marketplace reads
(:mod:`mech_catalogue_cli.sync_driver`, :mod:`mech_catalogue_cli.marketplace_driver`),
``derive`` from chain (:mod:`mech_catalogue_cli.code_source`), ``list``'s chain id check
and the devnet. (``publish`` and the MCP server's paid call send transactions through
web3, which has its own client.)

Bounds, the same for every call:

- ``timeout`` seconds for the whole request, answer included
  (:func:`mech_catalogue_cli.adapters.http.deadline`; ``requests``' own timeout is per
  socket read, and an answer sent a byte more often held a read as long as it lasted);
- the answer is streamed and read up to ``max_bytes`` (:data:`MAX_ANSWER_BYTES` unless
  told): a larger one is refused, not held whole;
- its JSON nesting is measured before decoding and at most :data:`MAX_ANSWER_DEPTH`
  levels are accepted (``manifest.validation.nesting_depth``: 100,000 ``[`` crashed
  the process in ``json.loads``);
- the JSON is decoded only when it is JSON-RPC: a non-JSON answer (a proxy's HTTP 413
  page, a login page) is refused naming the HTTP status, which
  :mod:`mech_catalogue_core.chain.rpc_limits` reads to split a batch the node refused as
  too large;
- no retries here: the library's runners decide (a batch or log range refused as too
  large is sent again in halves; a period that fails keeps the last catalogue).

Every failure is the library's one :class:`~mech_catalogue_core.chain.registry.ChainReadError`:
its message names the method and the node by scheme and host only
(:func:`mech_catalogue_cli.keys.redacted_url`: RPC providers put the account's key in the
URL path or query), its ``reason`` keeps the node's own words for the library's
classifiers.
"""

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

import requests
from mech_catalogue_core.chain.registry import ChainReadError
from mech_catalogue_core.ipfs.size_cap import read_capped
from mech_catalogue_core.manifest.validation import nesting_depth

from mech_catalogue_cli.adapters.http import (
    deadline,
    failure_text,
    watched,
    watched_session,
)
from mech_catalogue_cli.adapters.urls import redacted_url

#: bytes of one JSON-RPC answer at most (64 MiB: a Multicall2 batch of 200 calls or a
#: ``CreateMech`` log range is kilobytes; this only stops a hostile or broken node from
#: filling memory)
MAX_ANSWER_BYTES = 64 * 1024 * 1024
#: bytes pulled from the body at a time
CHUNK_BYTES = 64 * 1024
#: JSON nesting of one answer at most (a log or a JSON-RPC error is 3 or 4 levels deep):
#: measured before decoding, as a deeper text crashed the interpreter in the decoder
MAX_ANSWER_DEPTH = 64
#: characters of a node's error object kept in a message
MAX_ERROR_CHARS = 500


class JsonRpc:  # pylint: disable=too-few-public-methods
    """One chain node's JSON-RPC endpoint.

    :param url: the node's URL (may carry an API key: it never appears in errors).
    :param timeout: seconds for the whole request, answer included.
    :param session: the HTTP session to reuse (a new one when None).
    :param max_bytes: the most bytes of one answer read.
    """

    def __init__(
        self,
        url: str,
        timeout: float,
        session: Optional[requests.Session] = None,
        max_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        """Bind to the node.

        :param url: the node's URL.
        :param timeout: seconds for the whole request, answer included.
        :param session: the HTTP session to reuse (a new one when None).
        :param max_bytes: the most bytes of one answer read.
        """
        self.url = url
        self.timeout = timeout
        self.session = watched(session if session is not None else watched_session())
        self.max_bytes = max_bytes

    def call(self, method: str, params: Sequence[Any], what: str = "") -> Any:
        """Send one request and return its ``result``.

        :param method: e.g. ``eth_call``.
        :param params: its parameters.
        :param what: how messages name the request (``method`` when empty), e.g.
            ``eth_getLogs 3-18 on 0x...``.
        :return: the decoded ``result`` (any JSON value).
        :raises ChainReadError: on a transport failure or timeout, an answer over
            ``max_bytes``, an answer that is not JSON, or one without ``result`` (a
            JSON-RPC error, e.g. a revert: the node's error object is in the message
            and the ``reason``).
        """
        where = f"{what or method} to {redacted_url(self.url)}"
        payload = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
        status, body = self._post(payload, where)
        if len(body) > self.max_bytes:
            raise ChainReadError(
                f"{where} failed: the answer is over {self.max_bytes} bytes; is the URL "
                "a chain node's JSON-RPC endpoint?",
                f"answer over {self.max_bytes} bytes",
            )
        if nesting_depth(body, MAX_ANSWER_DEPTH) > MAX_ANSWER_DEPTH:
            raise ChainReadError(
                f"{where} failed: the answer is JSON nested more than "
                f"{MAX_ANSWER_DEPTH} levels deep, not JSON-RPC",
                f"JSON nested over {MAX_ANSWER_DEPTH} levels",
            )
        try:
            answer = json.loads(body)
        except (ValueError, RecursionError) as exc:  # e.g. a proxy's HTTP 413 page
            raise ChainReadError(
                f"{where} failed: HTTP {status}, not JSON-RPC",
                f"HTTP {status}, not JSON-RPC",
            ) from exc
        if not isinstance(answer, dict) or "result" not in answer:
            error = answer.get("error") if isinstance(answer, dict) else answer
            said = str(error)[:MAX_ERROR_CHARS]
            raise ChainReadError(f"{where} returned an error: {said}", said)
        return answer["result"]

    def _post(self, payload: Dict[str, Any], where: str) -> Tuple[int, bytes]:
        try:
            with (
                deadline(self.timeout),
                self.session.post(
                    self.url, json=payload, timeout=self.timeout, stream=True
                ) as response,
            ):
                body = read_capped(response.iter_content(CHUNK_BYTES), self.max_bytes)
                return response.status_code, body
        except (requests.RequestException, OSError) as exc:
            # the exception's text quotes the URL: only its type is kept
            raise ChainReadError(
                f"{where} failed: {failure_text(exc)}; check the URL and that the "
                "node is running"
            ) from exc


def quantity(value: Any, where: str) -> int:
    """Read a JSON-RPC quantity: ``0x``-prefixed hex, e.g. a block number.

    :param value: the ``result``.
    :param where: names the request in the message.
    :return: the integer.
    :raises ChainReadError: when it is not ``0x`` + hex digits.
    """
    if isinstance(value, str) and value.startswith("0x"):
        try:
            return int(value, 16)
        except ValueError:
            pass
    raise ChainReadError(f"{where} returned {str(value)[:80]!r}, not a hex quantity")


def data_bytes(value: Any, where: str) -> bytes:
    """Read JSON-RPC data: ``0x``-prefixed hex bytes, e.g. an ``eth_call`` result.

    :param value: the ``result``.
    :param where: names the request in the message.
    :return: the bytes.
    :raises ChainReadError: when it is not ``0x`` + an even number of hex digits.
    """
    if isinstance(value, str) and value.startswith("0x"):
        try:
            return bytes.fromhex(value[2:])
        except ValueError:
            pass
    raise ChainReadError(f"{where} returned {str(value)[:80]!r}, not hex data")


def eth_call(
    rpc: JsonRpc, to: str, data: bytes, block: Optional[int], gas: Optional[int] = None
) -> bytes:
    """Run one ``eth_call``.

    :param rpc: the node.
    :param to: the contract address.
    :param data: the call data.
    :param block: block number, or None for ``latest``.
    :param gas: the gas the call is given at most; None: the node's default (its cap).
    :return: the returned bytes; ChainReadError as :meth:`JsonRpc.call`, or when the
        result is not hex data.
    """
    at = hex(block) if block is not None else "latest"
    transaction = {"to": to, "data": "0x" + data.hex()}
    if gas is not None:
        transaction["gas"] = hex(gas)
    result = rpc.call("eth_call", [transaction, at])
    return data_bytes(result, f"eth_call to {to}")


def block_number(rpc: JsonRpc) -> int:
    """Return the chain's head block.

    :param rpc: the node.
    :return: ``eth_blockNumber``; ChainReadError as :meth:`JsonRpc.call`, or when the
        result is no quantity.
    """
    return quantity(rpc.call("eth_blockNumber", []), "eth_blockNumber")


def chain_id(rpc: JsonRpc) -> int:
    """Return the chain id the node serves.

    :param rpc: the node.
    :return: ``eth_chainId``; ChainReadError as :meth:`JsonRpc.call`, or when the
        result is no quantity.
    """
    return quantity(rpc.call("eth_chainId", []), "eth_chainId")


def get_logs(
    rpc: JsonRpc, address: str, topic: str, from_block: int, to_block: int
) -> List[Dict[str, Any]]:
    """Return one contract's logs of one event over a block range (``eth_getLogs``).

    :param rpc: the node.
    :param address: the contract.
    :param topic: the event's topic 0.
    :param from_block: the first block.
    :param to_block: the last block (inclusive).
    :return: the logs as the node returns them.
    :raises ChainReadError: as :meth:`JsonRpc.call` (the node's words kept in ``reason``,
        which ``rpc_limits.log_range_too_wide`` reads), or a result that is no list.
    """
    what = f"eth_getLogs {from_block}-{to_block} on {address}"
    query = {
        "address": address,
        "topics": [topic],
        "fromBlock": hex(from_block),
        "toBlock": hex(to_block),
    }
    result = rpc.call("eth_getLogs", [query], what)
    if not isinstance(result, list):
        raise ChainReadError(f"{what} returned {type(result).__name__}, not a list")
    return result
