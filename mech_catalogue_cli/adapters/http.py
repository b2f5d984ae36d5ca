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

"""The CLI's plain HTTP: its sessions, and one JSON answer read within a byte cap, a deadline and a depth.

Every blocking HTTP request the CLI makes goes through ``requests`` sessions made here
(:func:`new_session`, :func:`watched_session`) and the CLI's three adapters
(:mod:`.jsonrpc`, :mod:`.ipfs`, this module); no other CLI module imports ``requests``
(``lint-imports``' ``cli-io-in-adapters`` contract). :data:`TRANSPORT_ERRORS` is what a
caller catches around a request it hands a session to (web3's HTTP provider included).

An upstream (``mcp --agent URL``) may be anyone's server. Read without bounds, a 300 MiB
body was held whole (about 1 GB of memory), a body dripped one byte every 0.4 s held
a request for as long as the drip lasted (``requests``' timeout is per socket read, not
per request) and 200,000 ``[`` raised ``RecursionError`` out of ``json.loads``.
:func:`get_json` therefore:

- streams the body and stops pulling at ``max_bytes + 1`` bytes (``size_cap.read_capped``;
  a ``Content-Length`` over the cap is refused before any body byte is read);
- ends the request at ``seconds`` after it began, headers and body alike: a watchdog
  shuts the request's socket down at the deadline, which ends any read blocked on it
  (:class:`WatchedAdapter`'s connections record their socket as the request is sent;
  a session gets them from :func:`watched_session`);
- measures the JSON nesting before decoding it (``manifest.validation.nesting_depth``,
  no recursion) and refuses more than ``max_depth`` levels.

Every failure is :class:`AnswerError`, whose message says what happened and never quotes
the URL (the caller names the upstream, redacted).

The same watchdog bounds every other read of the CLI (:func:`deadline`: gateway, kubo
and JSON-RPC reads in :mod:`.ipfs` and :mod:`.jsonrpc`; :class:`DeadlineSession`: web3's
provider): a gateway relaying a mech's response a byte at a time held a paid call's
delivery read, and a worker thread, for days.
"""

import json
import socket
import threading
import time
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple
from urllib.parse import urlsplit

import requests
import urllib3
from mech_catalogue_core.ipfs.size_cap import (
    read_capped,
)
from mech_catalogue_core.manifest.validation import (
    nesting_depth,
)
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError

#: what a request raises when the network fails (requests' errors, socket errors)
TRANSPORT_ERRORS = (requests.RequestException, OSError)
#: the session type the adapters take
Session = requests.Session

#: bytes pulled from the body at a time
CHUNK_BYTES = 64 * 1024
#: seconds between the watchdog's shutdowns of a request past its deadline (a connection
#: still being opened at the deadline gets its socket a moment later)
_WATCH_SECONDS = 0.05

_SENDING = threading.local()


class NotConnected(requests.ConnectionError):
    """No address accepted a TCP connection: not one byte of the request left this host.

    Raised by :class:`PinnedAdapter` only when every checked address refused or did not
    complete the connection; a failure after one was opened (a reset, a timeout) is
    ``requests``' own error, since the request may have been sent.
    """


class AnswerError(RuntimeError):
    """An upstream answer was refused: the message says why, without the URL.

    :param message: what happened.
    :param kind: ``status``, ``redirect``, ``too_large``, ``deadline``, ``too_deep``,
        ``not_json``, ``transport``, or ``not_connected`` (:class:`NotConnected`:
        nothing was sent).
    """

    def __init__(self, message: str, kind: str) -> None:
        """Keep the kind beside the message.

        :param message: what happened.
        :param kind: which bound or failure.
        """
        super().__init__(message)
        self.kind = kind


def _record(sock: Optional[socket.socket]) -> None:
    """Tell the sending thread's watchdogs, if any, that ``sock`` carries their request.

    The socket, not the connection: ``http.client`` hands the socket to the response and
    forgets it (``sock = None``) when the answer ends with the connection (HTTP/1.0,
    ``Connection: close``), while the body is still to be read.

    :param sock: the connection's socket.
    """
    if sock is None:
        return
    for opened in getattr(_SENDING, "watched", ()):
        opened.append(sock)


class _WatchedConnection(HTTPConnection):
    """An HTTP connection that tells the sending thread's watchdog its socket."""

    def request(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Record this connection's socket (when open already), then send the request.

        :param args: ``HTTPConnection.request``'s.
        :param kwargs: ``HTTPConnection.request``'s.
        """
        if self.sock is not None:
            _record(self.sock)
        super().request(*args, **kwargs)

    def connect(self) -> None:
        """Open the connection, and record its socket."""
        super().connect()
        _record(self.sock)


class _WatchedTlsConnection(HTTPSConnection):
    """An HTTPS connection that tells the sending thread's watchdog its socket.

    (pylint does not see ``HTTPSConnection``'s members: urllib3 defines it where ``ssl``
    is importable.)
    """

    def request(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Record this connection's socket (when open already), then send the request.

        :param args: ``HTTPSConnection.request``'s.
        :param kwargs: ``HTTPSConnection.request``'s.
        """
        if self.sock is not None:
            _record(self.sock)
        super().request(*args, **kwargs)  # pylint: disable=no-member

    def connect(self) -> None:
        """Open the connection, and record its socket."""
        super().connect()  # pylint: disable=no-member
        _record(self.sock)


class _WatchedPool(HTTPConnectionPool):
    ConnectionCls = _WatchedConnection


class _WatchedTlsPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedTlsConnection


class WatchedAdapter(HTTPAdapter):
    """A transport whose connections :func:`get_json`'s watchdog can shut down."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        """Make the pool manager open watched connections.

        :param args: ``HTTPAdapter.init_poolmanager``'s.
        :param kwargs: ``HTTPAdapter.init_poolmanager``'s.
        """
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _WatchedPool,
            "https": _WatchedTlsPool,
        }


class PinnedAdapter(WatchedAdapter):
    """A watched transport that connects only to addresses checked before, never via a proxy.

    A name resolved for a check and resolved again by the HTTP library when it connects
    may answer differently the second time (DNS rebinding: a public address to the
    check, ``127.0.0.1`` or ``169.254.169.254`` to the connection). This transport does
    not resolve: each request connects to the first of ``addresses`` that accepts a
    connection (the next is tried only when none was opened, so a request is sent at
    most once), with the URL's own name in the ``Host`` header and, for https, as the
    TLS server name (SNI) and the name the certificate must match (urllib3's
    ``server_hostname`` and ``assert_hostname`` pool settings). Proxies (the
    ``*_PROXY`` variables) are not used: a proxy would resolve the name again itself.
    """

    def __init__(self, addresses: Sequence[str]) -> None:
        """Keep the checked addresses; requests are not retried.

        :param addresses: IP addresses (text), in the order to try.
        """
        super().__init__(max_retries=0)
        self.addresses = tuple(addresses)
        self._address = self.addresses[0] if self.addresses else ""

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: Any, cert: Any = None
    ) -> Any:
        """Key the connection pool by the checked address, the name kept for TLS.

        :param request: the request.
        :param verify: ``requests``' verify setting.
        :param cert: ``requests``' client certificate setting.
        :return: the pool's host parameters and settings (``requests``' hook).
        """
        params, settings = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        host_params: Dict[str, Any] = dict(params)
        pool_kwargs: Dict[str, Any] = dict(settings)
        name = host_params["host"]
        host_params["host"] = self._address
        if host_params["scheme"] == "https":
            pool_kwargs["server_hostname"] = name
            pool_kwargs["assert_hostname"] = name
        return host_params, pool_kwargs

    def send(  # type: ignore[override]  # pylint: disable=arguments-differ
        self, request: requests.PreparedRequest, **kwargs: Any
    ) -> requests.Response:
        """Send to the first checked address that accepts a connection, without a proxy.

        :param request: the request (its URL names the host as declared).
        :param kwargs: ``HTTPAdapter.send``'s (``proxies`` is replaced by none).
        :return: the response (``requests``' errors are raised as they come).
        :raises NotConnected: when no address accepts a connection.
        :raises requests.ConnectionError: when one did, then failed (the request may
            have been sent: no other address is tried).
        """
        kwargs["proxies"] = {}
        if "Host" not in request.headers:
            request.headers["Host"] = urlsplit(str(request.url)).netloc
        failed: Optional[requests.ConnectionError] = None
        for address in self.addresses:
            self._address = address
            try:
                return super().send(request, **kwargs)
            except requests.ConnectionError as exc:
                reason = getattr(exc.args[0] if exc.args else None, "reason", None)
                if not isinstance(reason, ConnectTimeoutError):
                    raise  # a connection was opened: the request may have been sent
                failed = exc
        raise NotConnected(
            "no address accepted a connection" if failed else "no address to connect to"
        ) from failed


def pinned_session(addresses: Sequence[str]) -> requests.Session:
    """Return a session whose requests connect only to ``addresses`` (:class:`PinnedAdapter`).

    :param addresses: IP addresses checked by the caller, in the order to try.
    :return: the session (one per request: close it after).
    """
    session = requests.Session()
    adapter = PinnedAdapter(addresses)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def new_session() -> requests.Session:
    """Return a session whose requests :func:`deadline` can end (connections kept alive).

    :return: the session (:func:`watched_session`).
    """
    return watched_session()


def watched_session() -> requests.Session:
    """Return a session whose HTTP(S) requests :func:`get_json` can end at a deadline.

    :return: the session.
    """
    session = requests.Session()
    adapter = WatchedAdapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def watched(session: Any) -> Any:
    """Mount :class:`WatchedAdapter` on a plain ``requests`` session, so :func:`deadline` holds.

    A session already watched (:func:`watched_session`, :func:`pinned_session`) and any
    other object (a test's stand-in) are returned as they are.

    :param session: the session.
    :return: the same session.
    """
    if isinstance(session, requests.Session):
        for prefix in ("http://", "https://"):
            if not isinstance(session.get_adapter(prefix), WatchedAdapter):
                session.mount(prefix, WatchedAdapter())
    return session


class DeadlineExceeded(requests.RequestException):
    """A request was not over, headers and body read, within its deadline.

    Not a ``requests.Timeout``: a client retrying timeouts (web3 retries a read five
    times) does not spend the deadline again on the same server.

    :param seconds: the deadline, in seconds after the request began.
    """

    def __init__(self, seconds: float) -> None:
        """Say which deadline.

        :param seconds: the deadline.
        """
        super().__init__(f"did not finish within {seconds:g} s")
        self.seconds = seconds


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Bound every request made in the block, on this thread, to ``seconds`` in all.

    ``requests``' ``timeout`` bounds each socket read: a server sending a byte more
    often holds a request for as long as it likes. Here a watchdog shuts down, at
    ``seconds`` after the block began, every socket a :class:`WatchedAdapter` opened or
    reused for the block's requests (:func:`watched_session`, :func:`watched`), which
    ends any read blocked on it (and a connection opened later, within
    :data:`_WATCH_SECONDS`). Blocks may nest: each watchdog sees the sockets of its
    block. Neither ``urllib3``'s ``Timeout(total=...)`` (connect plus each read) nor
    ``httpx``'s timeouts (per operation) bound a body that drips, hence this helper.

    :param seconds: the deadline.
    :yield: nothing: run the requests, and read their bodies, inside the block.
    :raises DeadlineExceeded: when the deadline passed before the block ended (the
        block's own exception, if any, is its cause): a body cut short by the
        shutdown is never taken for a whole one.
    """
    done, expired = threading.Event(), threading.Event()
    opened: List[socket.socket] = []
    watchdog = threading.Thread(
        target=_watch, args=(seconds, done, expired, opened), daemon=True
    )
    stack: List[List[socket.socket]] = getattr(_SENDING, "watched", [])
    _SENDING.watched = stack + [opened]
    began = time.monotonic()
    watchdog.start()
    try:
        yield
    except Exception as exc:
        # a socket timeout as long as the deadline may fire first: the deadline passed
        if expired.is_set() or time.monotonic() - began >= seconds:
            raise DeadlineExceeded(seconds) from exc
        raise
    finally:
        done.set()
        _SENDING.watched = stack
    if expired.is_set():
        raise DeadlineExceeded(seconds)


def failure_text(exc: BaseException) -> str:
    """Name a failed request without its URL (an exception's text may quote it).

    :param exc: what the request raised.
    :return: the deadline's sentence for :class:`DeadlineExceeded`, else the type's name.
    """
    return str(exc) if isinstance(exc, DeadlineExceeded) else type(exc).__name__


class DeadlineSession(requests.Session):
    """A watched session each of whose requests, body included, ends within ``seconds``.

    For a client that reads whole answers through a session it is given (web3's
    ``HTTPProvider(session=...)``): a request that is not streamed is read whole inside
    :func:`deadline`. A streamed one is the caller's to bound (:func:`deadline`).

    :param seconds: each request's deadline.
    """

    def __init__(self, seconds: float) -> None:
        """Mount watched transports.

        :param seconds: each request's deadline.
        """
        super().__init__()
        self.seconds = seconds
        watched(self)

    def request(  # type: ignore[override]  # pylint: disable=arguments-differ
        self, *args: Any, **kwargs: Any
    ) -> requests.Response:
        """Send one request and, unless streamed, read its body within the deadline.

        :param args: ``requests.Session.request``'s.
        :param kwargs: ``requests.Session.request``'s.
        :return: the response.
        """
        if kwargs.get("stream"):
            return super().request(*args, **kwargs)
        with deadline(self.seconds):
            return super().request(*args, **kwargs)


def _shut(opened: List[socket.socket]) -> None:
    for sock in list(opened):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed


def _watch(
    seconds: float,
    done: threading.Event,
    expired: threading.Event,
    opened: List[socket.socket],
) -> None:
    if done.wait(seconds):
        return
    expired.set()
    while not done.is_set():
        _shut(opened)
        done.wait(_WATCH_SECONDS)


def _body(
    session: requests.Session,
    url: str,
    seconds: float,
    max_bytes: int,
    ok: Tuple[int, ...],
    form: Optional[Dict[str, str]] = None,
) -> Tuple[bytes, int]:
    if form is None:
        sent = session.get(url, timeout=(seconds, seconds), stream=True)
    else:  # a POST never follows a redirect: the caller posts to one endpoint only
        sent = session.post(
            url,
            data=form,
            timeout=(seconds, seconds),
            stream=True,
            allow_redirects=False,
        )
    with sent as response:
        if response.status_code not in ok:
            if 300 <= response.status_code < 400:
                raise AnswerError(
                    f"answered HTTP {response.status_code}, a redirect, which is not "
                    "followed",
                    "redirect",
                )
            raise AnswerError(f"answered HTTP {response.status_code}", "status")
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise AnswerError(
                f"announced {declared} bytes, more than the {max_bytes} read",
                "too_large",
            )
        body = read_capped(response.iter_content(CHUNK_BYTES), max_bytes)
        status = response.status_code
    if len(body) > max_bytes:
        raise AnswerError(f"answered more than {max_bytes} bytes", "too_large")
    return body, status


def get_json(  # pylint: disable=too-many-arguments
    session: requests.Session,
    url: str,
    seconds: float,
    max_bytes: int,
    max_depth: int,
    ok: Tuple[int, ...] = (200,),
) -> Tuple[Any, int]:
    """GET ``url`` and decode its JSON body, within every bound.

    :param session: the session (:func:`watched_session`, else the deadline holds only
        per socket read).
    :param url: the URL.
    :param seconds: the whole request's deadline (connect, headers and body).
    :param max_bytes: the body's bytes at most (after content decoding).
    :param max_depth: the JSON's nesting at most.
    :param ok: the statuses whose body is read.
    :return: the decoded JSON and the body's size in bytes; ``AnswerError`` is raised
        for another status, a body over ``max_bytes``, the deadline passed, JSON nested
        deeper than ``max_depth`` or no JSON at all, or a transport failure.
    """
    decoded, size, _ = _bounded_json(session, url, seconds, max_bytes, max_depth, ok)
    return decoded, size


def post_form_json(  # pylint: disable=too-many-arguments
    session: requests.Session,
    url: str,
    form: Dict[str, str],
    seconds: float,
    max_bytes: int,
    max_depth: int,
    ok: Tuple[int, ...] = (200,),
) -> Tuple[Any, int]:
    """POST a form (``application/x-www-form-urlencoded``) and decode the JSON answer.

    The same bounds as :func:`get_json`; a redirect is never followed (an
    ``AnswerError`` of kind ``redirect``): the caller posts to one endpoint only.

    :param session: the session (:func:`watched_session`).
    :param url: the URL.
    :param form: the form fields.
    :param seconds: the whole request's deadline.
    :param max_bytes: the body's bytes at most.
    :param max_depth: the JSON's nesting at most.
    :param ok: the statuses whose body is read (e.g. 200 and 402).
    :return: the decoded JSON and the HTTP status; ``AnswerError`` is raised as by
        :func:`get_json`, and for a redirect.
    """
    decoded, _, status = _bounded_json(
        session, url, seconds, max_bytes, max_depth, ok, form
    )
    return decoded, status


def _bounded_json(  # pylint: disable=too-many-arguments
    session: requests.Session,
    url: str,
    seconds: float,
    max_bytes: int,
    max_depth: int,
    ok: Tuple[int, ...],
    form: Optional[Dict[str, str]] = None,
) -> Tuple[Any, int, int]:
    done, expired = threading.Event(), threading.Event()
    opened: List[socket.socket] = []
    watchdog = threading.Thread(
        target=_watch, args=(seconds, done, expired, opened), daemon=True
    )
    began = time.monotonic()
    stack: List[List[socket.socket]] = getattr(_SENDING, "watched", [])
    _SENDING.watched = stack + [opened]
    watchdog.start()
    try:
        body, status = _body(session, url, seconds, max_bytes, ok, form)
    except NotConnected as exc:  # before the deadline's test: nothing was sent
        raise AnswerError(
            f"could not be reached (ConnectionError: {exc})", "not_connected"
        ) from exc
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
        # the socket's own timeout equals the deadline: whichever fires first, the
        # deadline has passed
        timed_out = isinstance(
            exc, (requests.Timeout, urllib3.exceptions.TimeoutError, TimeoutError)
        )
        if expired.is_set() or timed_out or time.monotonic() - began >= seconds:
            raise AnswerError(
                f"did not answer within {seconds:g} s", "deadline"
            ) from exc
        raise AnswerError(f"failed ({type(exc).__name__})", "transport") from exc
    finally:
        done.set()
        _SENDING.watched = stack
    if expired.is_set() or time.monotonic() - began > seconds:
        raise AnswerError(f"did not answer within {seconds:g} s", "deadline")
    if nesting_depth(body, max_depth) > max_depth:
        raise AnswerError(
            f"answered JSON nested more than {max_depth} levels deep", "too_deep"
        )
    try:
        return json.loads(body), len(body), status
    except (ValueError, RecursionError) as exc:  # RecursionError: depth counted wrong
        raise AnswerError(
            f"answered something that is not JSON ({type(exc).__name__})", "not_json"
        ) from exc
