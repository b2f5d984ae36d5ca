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

"""DNS rebinding on the off-chain post: the post reaches only the address that was checked.

A manifest's endpoint host is resolved and each address checked (off the devnet chain
they must be internet addresses) before the signed request is posted. Before this fix the
HTTP library resolved the name again when it connected: a name answering a public
address to the check and ``127.0.0.1``, ``169.254.169.254`` or a LAN address to the
post reached that address.

Real DNS cannot run here (no resolver we control, no internet), so the name is answered
by a stand-in (:class:`RebindingDns`) that gives the checked address to the first lookup
and the attacker's address to every later one, both as the poster's resolver and as
``socket.getaddrinfo`` for that name (what the HTTP library would use to resolve it
again). The two addresses are loopback addresses of this machine, 127.0.0.1 (standing
for the public address: the check is told it is one) and 127.0.0.2 (the address the
name rebinds to), each with a listener that counts connections. The marketplace is a
stand-in giving a chain id only (the post reads nothing else of the chain when the mech
accepts).
"""

import datetime
import http.server
import json
import socket
import ssl
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple
from urllib.parse import parse_qs

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from mech_catalogue_cli.mcp_server import offchain
from mech_catalogue_cli.mcp_server.journal import JournalEntry
from mech_catalogue_cli.mcp_server.offchain import OffchainPoster
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE

NAME = "mech.example"
CHECKED = "127.0.0.1"  # stands for the public address the check sees
REBOUND = "127.0.0.2"  # what the name answers afterwards
GNOSIS = 100  # not a development chain: the addresses are checked


class RebindingDns:
    """Answers :data:`NAME` with ``first`` once, then with ``later`` for ever."""

    def __init__(self, first: List[str], later: List[str]) -> None:
        """Keep the answers.

        :param first: the first lookup's addresses.
        :param later: every later lookup's.
        """
        self.first, self.later = first, later
        self.lookups = 0

    def __call__(self, host: str, port: int) -> List[str]:
        """Resolve as the poster's resolver does.

        :param host: the name.
        :param port: the port.
        :return: the addresses of this lookup.
        """
        assert host == NAME
        self.lookups += 1
        return list(self.first if self.lookups == 1 else self.later)

    def getaddrinfo(self, real: Callable[..., Any]) -> Callable[..., Any]:
        """``socket.getaddrinfo`` answering :data:`NAME` as this resolver does.

        :param real: the system's, for every other name.
        :return: the stand-in.
        """

        def answer(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            if host != NAME:
                return real(host, port, *args, **kwargs)
            return [
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port)))
                for address in self(host, int(port))
            ]

        return answer


class Listener:
    """An HTTP server on one address that counts connections and records posts."""

    def __init__(self, address: str, port: int, context: Optional[Any] = None) -> None:
        """Listen (TLS when a context is given).

        :param address: the address.
        :param port: the port (0: any).
        :param context: an ``ssl.SSLContext`` for https.
        """
        owner = self
        self.connections = 0
        self.posts: List[Dict[str, Any]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            """Accepts the posted request id; records the post."""

            def do_POST(self) -> None:  # noqa: N802  # pylint: disable=invalid-name
                """Answer 200 accepting the form's request id."""
                length = int(self.headers.get("Content-Length", "0"))
                form = parse_qs(self.rfile.read(length).decode())
                owner.posts.append({"host": self.headers.get("Host"), "form": form})
                body = json.dumps({"request_id": form["request_id"][0]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                """Quiet."""

        class Server(http.server.ThreadingHTTPServer):
            """Counts connections (TLS-wrapped when a context is given)."""

            def get_request(self) -> Tuple[socket.socket, Any]:
                sock, peer = super().get_request()
                owner.connections += 1
                if context is not None:
                    sock = context.wrap_socket(sock, server_side=True)
                return sock, peer

        self.server = Server((address, port), Handler)
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


def chain_id_only() -> Any:
    """The marketplace stand-in: a chain id (``w3.eth.chain_id``) and a requester."""
    return SimpleNamespace(
        requester="0x" + "aa" * 20,
        w3=SimpleNamespace(eth=SimpleNamespace(chain_id=GNOSIS)),
    )


def _entry(endpoint: str) -> JournalEntry:
    return JournalEntry(
        key="ab" * 32,
        tool="prediction-online",
        mech="0x" + "11" * 20,
        price=5 * 10**15,
        payment_type=NATIVE_PAYMENT_TYPE,
        cid="bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
        data="0x" + "22" * 32,
        market_nonce=3,
        request_id="0x" + "33" * 32,
        from_block=10,
        extra={"offchain": {"endpoint": endpoint, "signature": "0x" + "44" * 65}},
    )


def _only_checked_is_public(host: str, addresses: Any) -> str:
    """The address check, with :data:`CHECKED` standing for the one public address."""
    found = list(addresses)
    bad = [a for a in found if a != CHECKED]
    return f"its host {host} is {bad[0]}, not an internet address" if bad else ""


@pytest.fixture(name="listeners")
def _listeners() -> Iterator[Tuple[Listener, Listener]]:
    checked = Listener(CHECKED, 0)
    try:
        rebound = Listener(REBOUND, checked.port)
    except OSError:
        checked.close()
        pytest.skip(f"{REBOUND} cannot be listened on here (a second loopback address)")
    yield checked, rebound
    checked.close()
    rebound.close()


def _poster(
    monkeypatch: pytest.MonkeyPatch, dns: RebindingDns, check: Any = None
) -> OffchainPoster:
    monkeypatch.setattr(socket, "getaddrinfo", dns.getaddrinfo(socket.getaddrinfo))
    monkeypatch.setattr(
        offchain, "private_address_refusal", check or _only_checked_is_public
    )
    return OffchainPoster(chain_id_only(), None, resolve=dns)  # type: ignore[arg-type]


def test_a_name_answering_a_private_address_after_the_check_is_never_reached_there(
    monkeypatch: pytest.MonkeyPatch, listeners: Tuple[Listener, Listener]
) -> None:
    """The post connects to the checked address with the name's Host; the rebound one gets nothing."""
    checked, rebound = listeners
    dns = RebindingDns([CHECKED], [REBOUND])
    poster = _poster(monkeypatch, dns)
    refused = poster.post(_entry(f"http://{NAME}:{checked.port}"), {"prompt": "x"})
    assert refused is None, refused
    assert rebound.connections == 0 and not rebound.posts
    assert checked.connections == 1
    assert checked.posts[0]["host"] == f"{NAME}:{checked.port}"
    assert checked.posts[0]["form"]["request_id"] == [str(int("33" * 32, 16))]
    assert dns.lookups == 1  # resolved once, by the check


def test_every_address_of_the_answer_is_checked_and_one_private_refuses_the_post(
    monkeypatch: pytest.MonkeyPatch, listeners: Tuple[Listener, Listener]
) -> None:
    """A public and a private address in one answer: nothing is posted anywhere."""
    checked, rebound = listeners
    poster = _poster(monkeypatch, RebindingDns([CHECKED, REBOUND], [REBOUND]))
    refused = poster.post(_entry(f"http://{NAME}:{checked.port}"), {"prompt": "x"})
    assert refused is not None and "is not posted to" in refused
    assert REBOUND in refused
    assert checked.connections == 0 and rebound.connections == 0


def test_a_name_that_does_not_resolve_or_answers_nothing_is_not_posted_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No address, or a resolver error: a refusal naming the host; nothing is sent."""
    poster = _poster(monkeypatch, RebindingDns([], []))
    refused = poster.post(_entry(f"http://{NAME}:9"), {})
    assert refused is not None and "resolves to no address" in refused

    def failing(host: str, port: int) -> List[str]:
        raise socket.gaierror("no such name")

    poster.resolve = failing
    refused = poster.post(_entry(f"http://{NAME}:9"), {})
    assert refused is not None and f"its host {NAME} does not resolve" in refused


def test_proxy_variables_do_not_carry_the_post_elsewhere(
    monkeypatch: pytest.MonkeyPatch, listeners: Tuple[Listener, Listener]
) -> None:
    """``HTTP_PROXY``/``ALL_PROXY`` naming the rebound address: the post still goes direct."""
    checked, rebound = listeners
    for variable in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(variable, f"http://{REBOUND}:{rebound.port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    poster = _poster(monkeypatch, RebindingDns([CHECKED], [REBOUND]))
    refused = poster.post(_entry(f"http://{NAME}:{checked.port}"), {"prompt": "x"})
    assert refused is None, refused
    assert rebound.connections == 0 and checked.connections == 1


def _certificate(tmp_path: Path, name: str) -> Tuple[Path, Path]:
    """A self-signed certificate for ``name`` (its own CA), and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.mark.parametrize("served_name", [NAME, "other.example"])
def test_https_connects_to_the_checked_address_with_the_names_sni_and_certificate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, served_name: str
) -> None:
    """TLS to the pinned address: SNI is the declared name; a certificate of another name fails."""
    cert_path, key_path = _certificate(tmp_path, served_name)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    seen: List[Optional[str]] = []
    context.sni_callback = lambda sock, sni, ctx: seen.append(sni)  # type: ignore
    checked = Listener(CHECKED, 0, context)
    try:
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert_path))
        poster = _poster(monkeypatch, RebindingDns([CHECKED], [REBOUND]))
        refused = poster.post(_entry(f"https://{NAME}:{checked.port}"), {"p": 1})
    finally:
        checked.close()
    assert seen == [NAME]
    if served_name == NAME:
        assert refused is None, refused
        assert checked.posts[0]["host"] == f"{NAME}:{checked.port}"
    else:  # the certificate is checked against the declared name, not the address
        assert refused is not None and "failed (SSLError)" in refused
        assert not checked.posts
