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

"""The CLI's one IPFS client: HTTP gateways (reads) and a kubo node's RPC API (adds, reads).

Gateways: ``GET <gateway>/ipfs/<cid>`` (IPFS HTTP Gateway spec,
https://specs.ipfs.tech/http-gateways/path-gateway/; ``?format=raw`` with
``Accept: application/vnd.ipld.raw`` for a verifiable raw block). Kubo RPC:
``POST <api>/api/v0/<command>`` (https://docs.ipfs.tech/reference/kubo/rpc/). Both on
``requests``. Nothing read here is trusted: callers verify bytes against their CID
(:mod:`mech_catalogue_core.ipfs.cid`).

Bounds, the same for every read:

- ``timeout`` seconds for the whole request, headers and body
  (:func:`mech_catalogue_cli.adapters.http.deadline`: ``requests``' own timeout is per
  socket read, and a body sent a byte more often lasted days); a caller's plain session
  is given watched transports (:func:`~mech_catalogue_cli.adapters.http.watched`);
- bodies are streamed and at most ``cap + 1`` bytes are pulled
  (:func:`mech_catalogue_core.ipfs.size_cap.read_capped`; ``cap + 1`` proves a body is
  over the cap); manifest GETs also ask for that many with ``Range``
  (:func:`~mech_catalogue_core.ipfs.size_cap.range_header`) and
  :func:`~mech_catalogue_core.ipfs.size_cap.gateway_body` decides what a ranged answer
  means;
- no retries here: which gateway next, 429/Retry-After and backoff are decided by the
  library (``ipfs.gateways.FetchWindow``, ``catalogue.fetching.manifest_fetcher``).

Failures are returned as text (the gateway reads the fetch window drives) or raised as
:class:`IpfsTransportError`, whose ``kind`` says which bound or failure and whose message
names the node or gateway by scheme and host only (:func:`mech_catalogue_cli.keys.redacted_url`).
"""

import json
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

import requests
from mech_catalogue_core.ipfs.size_cap import (
    gateway_body,
    range_header,
    read_capped,
)
from mech_catalogue_core.manifest.validation import nesting_depth

from mech_catalogue_cli.adapters.http import (
    deadline,
    failure_text,
    watched,
    watched_session,
)
from mech_catalogue_cli.adapters.urls import redacted_url

#: bytes pulled from a body at a time
CHUNK_BYTES = 64 * 1024
#: bytes of a refusal's body kept in a message
MAX_REFUSAL_BYTES = 200
#: bytes of a kubo ``add`` answer at most (one JSON line per file added)
MAX_ADD_ANSWER_BYTES = 1024 * 1024
#: JSON nesting of a kubo ``add`` answer at most (its lines are flat objects)
MAX_ADD_ANSWER_DEPTH = 8
#: ``Accept`` of a manifest GET, as the skill's ``FetchManifestsBehaviour`` sends it
ACCEPT_FILE = "application/octet-stream"
#: ``Accept`` of a raw block GET (trustless gateway response format)
ACCEPT_RAW = "application/vnd.ipld.raw"

#: one gateway answer: (bytes or None, failure text, HTTP status or None, Retry-After or None)
GatewayAnswer = Tuple[Optional[bytes], str, Optional[int], Optional[str]]

TRANSPORT = "transport"
STATUS = "status"
TOO_LARGE = "too_large"
NOT_JSON = "not_json"


class IpfsTransportError(RuntimeError):
    """An IPFS read or add failed; the message names the node by scheme and host only.

    :param message: what happened.
    :param kind: :data:`TRANSPORT` (no answer, timeout, broken off), :data:`STATUS`
        (an HTTP error status), :data:`TOO_LARGE` (a body over its cap) or
        :data:`NOT_JSON` (kubo answered something else).
    :param status: the HTTP status when there was one.
    :param detail: the start of a refusal's body (kubo's error text), else "".
    """

    def __init__(
        self, message: str, kind: str, status: Optional[int] = None, detail: str = ""
    ) -> None:
        """Keep the kind, status and detail beside the message.

        :param message: what happened.
        :param kind: which bound or failure.
        :param status: the HTTP status when there was one.
        :param detail: the start of a refusal's body.
        """
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.detail = detail


def header_text(headers: Mapping[str, str]) -> str:
    """Write headers as ``Name: value`` lines (the form ``size_cap.gateway_body`` reads).

    :param headers: the response headers.
    :return: the lines.
    """
    return "".join(f"{name}: {value}\n" for name, value in headers.items())


@contextmanager
def _streamed_get(
    session: requests.Session, url: str, timeout: float, headers: Dict[str, str]
) -> Iterator[requests.Response]:
    """GET ``url`` streamed, the whole answer bounded by ``timeout`` (``http.deadline``).

    :param session: a requests session (given the watched transport).
    :param url: the URL.
    :param timeout: seconds for the whole answer.
    :param headers: request headers.
    :yield: the response, its body still to read.
    """
    with (
        deadline(timeout),
        watched(session).get(url, timeout=timeout, stream=True, headers=headers) as r,
    ):
        yield r


def gateway_answer(  # pylint: disable=too-many-arguments,too-many-positional-arguments
    session: requests.Session,
    gateway: str,
    cid: str,
    timeout: float,
    cap: int,
    accept: Optional[str] = ACCEPT_FILE,
) -> GatewayAnswer:
    """GET one CID from a gateway, at most ``cap + 1`` bytes asked for and read.

    :param session: the HTTP session.
    :param gateway: the gateway base URL (a trailing ``/`` is dropped).
    :param cid: the CID.
    :param timeout: seconds for the whole request, headers and body.
    :param cap: the size cap (bytes beyond it are not read; the caller rejects the rest).
    :param accept: the ``Accept`` header (None: none sent).
    :return: ``(bytes or None, failure text, status, Retry-After)``: the bytes as
        ``size_cap.gateway_body`` decides; status None on a transport error or a
        timeout, whose failure text is the exception's type (never its text, which
        quotes the URL), or ``did not finish within <timeout> s``.
    """
    headers = {"Range": range_header(cap)}
    if accept:
        headers["Accept"] = accept
    try:
        with _streamed_get(
            session, f"{gateway.rstrip('/')}/ipfs/{cid}", timeout, headers
        ) as response:
            body = read_capped(response.iter_content(CHUNK_BYTES), cap)
            data, failure = gateway_body(
                response.status_code, header_text(response.headers), body, cap
            )
            return (
                data,
                failure,
                response.status_code,
                response.headers.get("Retry-After"),
            )
    except (requests.RequestException, OSError) as exc:
        return None, failure_text(exc), None, None


def gateway_get(
    session: requests.Session, gateway: str, cid: str, timeout: float, cap: int
) -> Tuple[Optional[bytes], str]:
    """GET one CID from a gateway (:func:`gateway_answer` without status and headers).

    :param session: the HTTP session.
    :param gateway: the gateway base URL.
    :param cid: the CID.
    :param timeout: seconds for the whole request, headers and body.
    :param cap: the size cap.
    :return: ``(bytes or None, failure text)``.
    """
    data, failure, _, _ = gateway_answer(session, gateway, cid, timeout, cap)
    return data, failure


def gateway_file(
    gateway: str, cid: str, timeout: float, cap: int
) -> Tuple[Optional[bytes], str]:
    """GET one file on a connection of its own, with no ``Accept`` (as the gateway serves it).

    :param gateway: the gateway base URL.
    :param cid: the CID.
    :param timeout: seconds for the whole request, headers and body.
    :param cap: the size cap (at most ``cap + 1`` bytes come back).
    :return: ``(bytes or None, failure text)``, as :func:`gateway_answer`.
    """
    with watched_session() as session:
        data, failure, _, _ = gateway_answer(
            session, gateway, cid, timeout, cap, accept=None
        )
    return data, failure


def gateway_bytes(  # pylint: disable=too-many-arguments,too-many-positional-arguments
    session: requests.Session,
    gateway: str,
    path: str,
    timeout: float,
    cap: int,
    accept: Optional[str] = None,
) -> bytes:
    """GET ``<gateway>/<path>`` and return the whole body, refusing one over ``cap``.

    :param session: the HTTP session.
    :param gateway: the gateway base URL (a trailing ``/`` is dropped).
    :param path: e.g. ``ipfs/<cid>?format=raw``.
    :param timeout: seconds for the whole request, headers and body.
    :param cap: the most bytes accepted.
    :param accept: the ``Accept`` header (None: none sent), e.g. :data:`ACCEPT_RAW`.
    :return: the body (content-decoded).
    :raises IpfsTransportError: :data:`TRANSPORT` (no answer, timeout, ``timeout``
        passed: the message says ``did not finish within``), :data:`STATUS`
        (not 2xx) or :data:`TOO_LARGE` (over ``cap``).
    """
    where = f"GET /{path} from {redacted_url(gateway)}"
    headers = {"Accept": accept} if accept else {}
    try:
        with _streamed_get(
            session, f"{gateway.rstrip('/')}/{path}", timeout, headers
        ) as response:
            if not response.ok:
                raise IpfsTransportError(
                    f"{where} failed (HTTP {response.status_code})",
                    STATUS,
                    response.status_code,
                )
            body = read_capped(response.iter_content(CHUNK_BYTES), cap)
    except (requests.RequestException, OSError) as exc:
        raise IpfsTransportError(
            f"{where} failed ({failure_text(exc)})", TRANSPORT
        ) from exc
    if len(body) > cap:
        raise IpfsTransportError(f"{where}: more than {cap} bytes", TOO_LARGE)
    return body


def raw_block(
    session: requests.Session, gateway: str, cid: str, timeout: float, cap: int
) -> Optional[bytes]:
    """GET one raw block (``?format=raw``), for a caller that verifies it against ``cid``.

    :param session: the HTTP session.
    :param gateway: the gateway base URL.
    :param cid: the block's CID.
    :param timeout: seconds for the whole request, headers and body.
    :param cap: the most bytes accepted.
    :return: the block, or None when the gateway fails, refuses or sends over ``cap``
        (the caller reports the block as missing).
    """
    try:
        return gateway_bytes(
            session, gateway, f"ipfs/{cid}?format=raw", timeout, cap, ACCEPT_RAW
        )
    except IpfsTransportError:
        return None


class KuboRpc:
    """A kubo node's RPC API (e.g. ``http://127.0.0.1:5001``); every command is a POST.

    :param api_url: the API's base URL (a trailing ``/`` is dropped).
    :param timeout: seconds for the whole request, headers and body.
    :param session: the HTTP session (None: a watched session of its own a call).
    """

    def __init__(
        self,
        api_url: str,
        timeout: float,
        session: Optional[requests.Session] = None,
    ) -> None:
        """Bind to the node.

        :param api_url: the API's base URL.
        :param timeout: seconds for the whole request, headers and body.
        :param session: the HTTP session (None: a new connection a call).
        """
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout
        self.session = session

    @contextmanager
    def post(
        self, command: str, params: Dict[str, str], files: Optional[Any] = None
    ) -> Iterator[requests.Response]:
        """POST one command and hand its streamed answer over (closed on exit).

        :param command: e.g. ``add``, ``cat``, ``block/get``, ``version``.
        :param params: its query arguments.
        :param files: multipart parts (``requests``' ``files``), or None.
        :yield: the response, status 2xx, body not read yet (read it in the block: the
            whole command, body included, ends within ``timeout``).
        :raises IpfsTransportError: :data:`TRANSPORT` when the node does not answer,
            times out or has not finished within ``timeout`` (``did not finish
            within``), :data:`STATUS` when it refuses (``detail``: the start of its
            error text).
        """
        where = f"{command} on the IPFS node at {redacted_url(self.api_url)}"
        own = watched_session() if self.session is None else None
        try:
            with (
                deadline(self.timeout),
                watched(own or self.session).post(
                    f"{self.api_url}/api/v0/{command}",
                    params=params,
                    files=files,
                    timeout=self.timeout,
                    stream=True,
                ) as response,
            ):
                if not response.ok:
                    detail = self._refusal(response)
                    raise IpfsTransportError(
                        f"{where} was refused: HTTP {response.status_code} {detail}",
                        STATUS,
                        response.status_code,
                        detail,
                    )
                yield response
        except (requests.RequestException, OSError) as exc:
            raise IpfsTransportError(
                f"{where} failed ({failure_text(exc)})", TRANSPORT
            ) from exc
        finally:
            if own is not None:
                own.close()

    @staticmethod
    def _refusal(response: requests.Response) -> str:
        try:
            start = read_capped(
                response.iter_content(MAX_REFUSAL_BYTES), MAX_REFUSAL_BYTES - 1
            )
        except (requests.RequestException, OSError):
            return ""
        return start.decode("utf-8", errors="replace")

    def read(self, command: str, params: Dict[str, str], cap: int) -> bytes:
        """POST a reading command (``cat``, ``block/get``) and read at most ``cap + 1`` bytes.

        :param command: the command.
        :param params: its query arguments.
        :param cap: the size cap (``cap + 1`` bytes back means over it).
        :return: the bytes.
        :raises IpfsTransportError: as :meth:`post`, or :data:`TRANSPORT` when the node
            breaks the answer off.
        """
        with self.post(command, params) as response:
            try:
                return read_capped(response.iter_content(CHUNK_BYTES), cap)
            except (requests.RequestException, OSError) as exc:
                raise IpfsTransportError(
                    f"{command} on the IPFS node at {redacted_url(self.api_url)} "
                    f"broke off ({type(exc).__name__})",
                    TRANSPORT,
                ) from exc

    def add(self, params: Dict[str, str], files: Any) -> List[Dict[str, Any]]:
        """POST ``add`` and return kubo's answer, one JSON object per file added.

        :param params: ``add``'s arguments (``cid-version``, ``pin``...).
        :param files: the multipart parts.
        :return: the entries (each with ``Name`` and ``Hash``).
        :raises IpfsTransportError: as :meth:`read`; :data:`TOO_LARGE` when the answer
            is over :data:`MAX_ADD_ANSWER_BYTES`; :data:`NOT_JSON` when a line is not a
            JSON object.
        """
        where = f"add on the IPFS node at {redacted_url(self.api_url)}"
        with self.post("add", params, files) as response:
            try:
                text = read_capped(
                    response.iter_content(CHUNK_BYTES), MAX_ADD_ANSWER_BYTES
                )
            except (requests.RequestException, OSError) as exc:
                raise IpfsTransportError(
                    f"{where} broke off ({type(exc).__name__})", TRANSPORT
                ) from exc
        if len(text) > MAX_ADD_ANSWER_BYTES:
            raise IpfsTransportError(
                f"{where} answered more than {MAX_ADD_ANSWER_BYTES} bytes", TOO_LARGE
            )
        return _json_lines(text, where)


def _json_lines(text: bytes, where: str) -> List[Dict[str, Any]]:
    if nesting_depth(text, MAX_ADD_ANSWER_DEPTH) > MAX_ADD_ANSWER_DEPTH:
        raise IpfsTransportError(f"{where} answered JSON nested too deep", NOT_JSON)
    try:
        entries = [json.loads(line) for line in text.splitlines() if line.strip()]
    except (ValueError, RecursionError) as exc:
        raise IpfsTransportError(
            f"{where} answered something not JSON", NOT_JSON
        ) from exc
    if not all(isinstance(e, dict) for e in entries):
        raise IpfsTransportError(f"{where} answered JSON that is not objects", NOT_JSON)
    return entries
