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

"""Who may reach the paying HTTP endpoint: loopback by default, else a bearer token.

Every ``tools/call`` spends the user's funds, so the Streamable HTTP transport is served
on a loopback address unless the user says otherwise twice: ``--allow-remote`` and
``--auth-token-file FILE`` (a bearer token read from a file, never from the command line,
never logged). Always, the SDK's DNS-rebinding guard (``TransportSecuritySettings``)
admits only the Host and Origin headers of the addresses served
(:func:`allowed_hosts`): a browser page on a rebound name gets 421 or 403. With a token,
the SDK's own bearer middleware (``BearerAuthBackend``, ``RequireAuthMiddleware``)
answers a request without it, or with another, 401 (RFC 6750).

The server serves MCP only; the paths a person types for the catalogue page (``/``,
``/catalogue``, ``/catalogue/``) answer 404 saying where MCP and the page are
(:func:`page_elsewhere_routes`) instead of a bare "Not Found".
"""

import hmac
import ipaddress
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

#: the CLI failure code of a refused ``--host`` or token file
REMOTE_REFUSED = "remote_http_refused"
#: RFC 6750 section 2.1 ``b64token``; at least 32 characters (about 190 bits when random)
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9\-._~+/]{32,}=*")
#: binds that listen on every interface
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})  # nosec B104: names, not a bind
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: the paths a person types for the catalogue page (served by the agent and ``serve``)
PAGE_PATHS = ("/", "/catalogue", "/catalogue/")
#: the 404 message on :data:`PAGE_PATHS`
PAGE_ELSEWHERE = (
    "this is the MCP server of mech-catalogue: MCP clients connect to /mcp (Streamable "
    "HTTP). The catalogue page is served by the agent and by `mech-catalogue serve`, at "
    "their /catalogue/"
)


class RemoteRefused(ValueError):
    """A ``--host``/token combination the server refuses; the message says what to do."""


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine.

    :param host: ``--host`` (an IP address or a name).
    :return: True for ``localhost`` and loopback IPv4/IPv6 addresses.
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_token(path: str) -> str:
    """Read a bearer token from a file (surrounding whitespace ignored).

    :param path: ``--auth-token-file``.
    :return: the token.
    :raises RemoteRefused: when the file cannot be read or its text is not one RFC 6750
        token of at least 32 characters (the message never quotes the file's text).
    """
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise RemoteRefused(
            f"--auth-token-file {path} could not be read ({type(exc).__name__})"
        ) from None
    if not TOKEN_PATTERN.fullmatch(text):
        raise RemoteRefused(
            f"--auth-token-file {path} must hold one bearer token of at least 32 "
            "characters from A-Z a-z 0-9 - . _ ~ + / (e.g. the output of "
            "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        )
    return text


def remote_refusal(host: str, allow_remote: bool, has_token: bool) -> str:
    """Judge the HTTP bind address ("" when it may be served).

    :param host: ``--host``.
    :param allow_remote: ``--allow-remote`` was given.
    :param has_token: ``--auth-token-file`` was given.
    :return: a sentence saying what to do, or "".
    """
    if is_loopback(host):
        return ""
    if not allow_remote or not has_token:
        return (
            f"--host {host} is not a loopback address: anyone who reaches it could make "
            "the server pay mechs. Give --allow-remote and --auth-token-file FILE (a "
            "bearer token clients send as 'Authorization: Bearer ...'), or bind 127.0.0.1"
        )
    return ""


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _outbound_address(family: int, probe: str) -> List[str]:
    """The source address the kernel picks to reach ``probe``.

    :param family: ``AF_INET`` or ``AF_INET6``.
    :param probe: an address to route to (a UDP connect sends nothing).
    :return: ``[address]``, or [] when there is no such route.
    """
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as udp:
            udp.connect((probe, 9))
            return [str(udp.getsockname()[0])]
    except OSError:
        return []


def _machine_addresses() -> List[str]:
    """This machine's name, the addresses it resolves to, and its outbound addresses."""
    names = {socket.gethostname(), socket.getfqdn()}
    addresses = set(names)
    # documentation-range probes (RFC 5737, RFC 3849): routed like any remote peer
    addresses.update(_outbound_address(socket.AF_INET, "198.51.100.1"))
    addresses.update(_outbound_address(socket.AF_INET6, "2001:db8::1"))
    for name in names:
        try:
            infos = socket.getaddrinfo(name, None)
        except OSError:
            continue
        addresses.update(str(info[4][0]) for info in infos)
    return sorted(addresses)


def allowed_hosts(host: str, port: int, extra: Iterable[str] = ()) -> List[str]:
    """The ``Host`` header values the endpoint answers (``name:port``).

    :param host: ``--host``: loopback names always; a specific address itself; a
        wildcard bind (``0.0.0.0``, ``::``) this machine's name and resolved addresses.
    :param port: ``--port``.
    :param extra: more names the user serves under (a DNS name in front of it).
    :return: ``host:port`` strings (IPv6 in brackets).
    """
    names = list(LOOPBACK_NAMES)
    names += _machine_addresses() if host in WILDCARD_HOSTS else [host]
    names += list(extra)
    seen: Dict[str, None] = {}
    for name in names:
        seen.setdefault(f"{_bracketed(name)}:{port}", None)
    return list(seen)


@dataclass(frozen=True)
class StaticTokenVerifier:
    """The SDK's ``TokenVerifier`` for one bearer token (constant-time comparison).

    :param token: the token read from ``--auth-token-file``.
    """

    token: str

    async def verify_token(self, token: str) -> Optional[Any]:
        """Return an ``AccessToken`` for the configured token, None for any other.

        :param token: the token a request carried.
        :return: the access token, or None.
        """
        from mcp.server.auth.provider import (  # pylint: disable=import-outside-toplevel
            AccessToken,
        )

        if not hmac.compare_digest(token.encode(), self.token.encode()):
            return None
        return AccessToken(token=token, client_id="mech-catalogue-user", scopes=[])

    def __repr__(self) -> str:
        """Never show the token.

        :return: a placeholder.
        """
        return "StaticTokenVerifier(token=<hidden>)"


@dataclass(frozen=True)
class HttpAccess:
    """How the HTTP endpoint is guarded.

    :param host: ``--host``.
    :param port: ``--port``.
    :param token: the bearer token ("" on loopback without ``--auth-token-file``).
    :param extra_hosts: ``--allowed-host`` names.
    """

    host: str
    port: int
    token: str = ""
    extra_hosts: Sequence[str] = ()

    def __repr__(self) -> str:
        """Never show the token.

        :return: the address and whether a token is required.
        """
        return f"HttpAccess({self.host}:{self.port}, token={'yes' if self.token else 'no'})"

    def app_options(self) -> Dict[str, Any]:
        """Keyword arguments for the SDK's ``Server.streamable_http_app``.

        :return: ``transport_security`` and ``custom_starlette_routes``
            (:func:`page_elsewhere_routes`) always; ``auth`` and ``token_verifier`` with a
            token.
        """
        # pylint: disable=import-outside-toplevel
        from mcp.server.auth.settings import AuthSettings
        from mcp.server.transport_security import TransportSecuritySettings

        hosts = allowed_hosts(self.host, self.port, self.extra_hosts)
        options: Dict[str, Any] = {
            "transport_security": TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=hosts,
                allowed_origins=[
                    f"{s}://{h}" for h in hosts for s in ("http", "https")
                ],
            )
        }
        options["custom_starlette_routes"] = page_elsewhere_routes()
        if self.token:
            options["auth"] = AuthSettings(
                issuer_url=f"http://{hosts[0]}",  # type: ignore[arg-type]
                resource_server_url=None,
            )
            options["token_verifier"] = StaticTokenVerifier(self.token)
        return options


def page_elsewhere_routes() -> List[Any]:
    """Routes answering the page's paths with where MCP and the page are.

    :return: Starlette ``Route``s of :data:`PAGE_PATHS` (GET, and HEAD as Starlette adds
        it), each a 404 ``{"error": {"code": "unknown_path", "message":
        PAGE_ELSEWHERE}}``: the body the catalogue's HTTP API gives an unknown path.
    """
    # pylint: disable=import-outside-toplevel
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def elsewhere(request: Request) -> JSONResponse:  # pylint: disable=W0613
        return JSONResponse(
            {"error": {"code": "unknown_path", "message": PAGE_ELSEWHERE}},
            status_code=404,
        )

    return [Route(path, elsewhere, methods=["GET"]) for path in PAGE_PATHS]


def http_access(
    host: str,
    port: int,
    allow_remote: bool,
    token_file: Optional[str],
    extra_hosts: Sequence[str] = (),
) -> HttpAccess:
    """Decide how the HTTP endpoint is served, or refuse.

    :param host: ``--host``.
    :param port: ``--port``.
    :param allow_remote: ``--allow-remote``.
    :param token_file: ``--auth-token-file`` (None: none).
    :param extra_hosts: ``--allowed-host`` names.
    :return: the access settings.
    :raises RemoteRefused: for a non-loopback host without both ``--allow-remote`` and
        a token file, or an unreadable or malformed token file.
    """
    refusal = remote_refusal(host, allow_remote, bool(token_file))
    if refusal:
        raise RemoteRefused(refusal)
    token = read_token(token_file) if token_file else ""
    return HttpAccess(host, port, token, tuple(extra_hosts))
