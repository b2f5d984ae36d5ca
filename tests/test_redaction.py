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

"""Secrets of configured URLs out of error results, CLI failures and logs (issue #29).

The failures are real: each client (web3's HTTP provider, ``requests`` to kubo's API
and a gateway) talks to a closed port of this machine, so the error texts are the
libraries' own, which quote only a URL's path (``url: /v3/KEY``).
"""

import logging
import socket
from typing import Iterator

import pytest

from mech_catalogue_cli import redaction
from mech_catalogue_cli.mcp_server.ipfs import IpfsError, fetch_response, upload_json
from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace
from mech_catalogue_cli.mcp_server.results import error_result, failure_text
from mech_catalogue_cli.redaction import RedactingFilter, redact, secret_fragments

SECRET = "pr0jectKEY9f81c2aa77d04e1b"  # a made-up provider key
PASSWORD = "hunter2-kubo"
KEY = "0x" + "5a" * 32  # a made-up signing key (never funded)
MARKET = "0x" + "77" * 20


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends


@pytest.fixture(name="port")
def _port() -> Iterator[int]:
    port = _closed_port()
    yield port
    with redaction._LOCK:  # pylint: disable=protected-access
        redaction._URLS.clear()  # pylint: disable=protected-access
        redaction._FRAGMENTS.clear()  # pylint: disable=protected-access


@pytest.mark.parametrize(
    "url, secrets",
    [
        ("https://rpc.example/v3/" + SECRET, [SECRET, "/v3/" + SECRET]),
        ("https://rpc.example/" + SECRET + "/", [SECRET]),
        (
            "http://api:" + PASSWORD + "@kubo.example:5001",
            [PASSWORD, f"api:{PASSWORD}@"],
        ),
        ("https://gw.example/ipfs?token=" + SECRET + "&x=1", [SECRET]),
        ("https://u:p%40ss%2Fw0rd@gw.example", ["p%40ss%2Fw0rd", "p@ss/w0rd"]),
        ("https://rpc.example/#" + SECRET, [SECRET]),
    ],
)
def test_every_spelling_of_a_url_secret_is_found(url: str, secrets: list) -> None:
    """Path, path segment, userinfo, query value, percent-encoded password, fragment."""
    fragments = secret_fragments(url)
    for secret in secrets:
        assert secret in fragments
    quoted = f"failed: {url} then url: {secrets[0]} and {secrets[-1]}!"
    shown = redact(quoted, [url])
    for secret in secrets:
        assert secret not in shown, shown
    assert "failed: " in shown and "!" in shown


def test_plain_urls_and_short_words_are_left_alone() -> None:
    """A URL without secrets keeps its host; short segments do not eat ordinary words."""
    url = "https://rpc.example/v3/mainnet"
    assert "v3" not in secret_fragments(url) and "mainnet" not in secret_fragments(url)
    assert redact("the mainnet is down at https://rpc.example", [url]) == (
        "the mainnet is down at https://rpc.example"
    )


def test_an_rpc_key_in_the_path_leaves_no_error_text(port: int) -> None:
    """web3's error quotes the path: the MarketError, failure_text and result do not."""
    url = f"http://127.0.0.1:{port}/v3/{SECRET}"
    redaction.register_urls(url)
    market = Marketplace(url, MARKET, KEY, timeout=2)
    with pytest.raises(MarketError) as raised:
        market.sign({"from": market.requester, "to": MARKET, "value": 1, "data": "0x"})
    text = failure_text(raised.value)
    result = error_result(f"tool: {raised.value}")
    assert SECRET not in text and SECRET not in result.content[0].text  # type: ignore
    assert str(port) in text  # still says where it failed


@pytest.mark.parametrize(
    "api",
    [
        "http://api:{p}@127.0.0.1:{port}",
        "http://127.0.0.1:{port}/{s}",
        "http://127.0.0.1:{port}/?key={s}",
    ],
)
def test_ipfs_api_and_gateway_secrets_leave_no_error_text(port: int, api: str) -> None:
    """The IPFS API and a gateway with the key in userinfo, path or query."""
    url = api.format(p=PASSWORD, port=port, s=SECRET)
    redaction.register_urls(url)
    texts = []
    with pytest.raises(IpfsError) as upload:
        upload_json(url, {"prompt": "x"}, 2)
    texts.append(failure_text(upload.value))
    with pytest.raises(IpfsError) as fetch:
        fetch_response(url, b"\x01" * 32, 5, 2)
    texts.append(failure_text(fetch.value))
    for text in texts:
        assert SECRET not in text and PASSWORD not in text, text


def test_a_traceback_logged_after_an_unwrapped_failure_is_redacted(
    port: int, caplog: pytest.LogCaptureFixture
) -> None:
    """head() raises the library's own error; LOGGER.exception logs its traceback."""
    url = f"http://127.0.0.1:{port}/v2/{SECRET}?apikey={SECRET}"
    redaction.register_urls(url)
    caplog.handler.addFilter(RedactingFilter())
    logger = logging.getLogger("mech_catalogue.mcp")
    market = Marketplace(url, MARKET, KEY, timeout=2)
    try:
        market.head()
    except Exception:  # pylint: disable=broad-exception-caught
        logger.exception("request %s: reading its answer failed via %s", "0x01", url)
    assert "Traceback" in caplog.text and "reading its answer failed" in caplog.text
    assert SECRET not in caplog.text
