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

"""``chain.offchain``: the declared endpoint, the 402 challenge, the request id's inputs.

The request id's equality with the contract's ``getRequestId`` is checked on the devnet
(``tests/devnet/test_mcp_offchain.py``); here, what is refused and why.
"""

import ipaddress
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.chain.offchain import (
    MAX_ENDPOINT_CHARS,
    Challenge,
    ChallengeError,
    EndpointError,
    challenge_refusal,
    offchain_endpoint,
    parse_challenge,
    private_address_refusal,
    request_id,
    split_signature,
)

TRACKER = "0x" + "a1" * 20
CHALLENGE: Dict[str, Any] = {
    "scheme": "olas-prepay",
    "payTo": "0x" + "A1" * 20,
    "asset": "0x" + "00" * 20,
    "chainId": 100,
    "currentBalance": "100000000000000000",
    "required": "500000000000000000",
}


@pytest.mark.parametrize(
    "url, endpoint",
    [
        ("https://mech.example", "https://mech.example"),
        ("https://mech.example/", "https://mech.example"),
        ("https://[::1]:9000", "https://[::1]:9000"),
        ("", None),
        (None, None),
    ],
)
def test_a_declared_endpoint_is_kept_without_its_trailing_slash(
    url: Any, endpoint: Any
) -> None:
    """http(s) with a host, with or without a port and path."""
    extra = {} if url is None else {"url": url}
    assert offchain_endpoint(extra) == endpoint


@pytest.mark.parametrize(
    "url, why",
    [
        (42, "not a string"),
        ("https://" + "a" * MAX_ENDPOINT_CHARS, "over 512 characters"),
        ("ftp://mech.example", "not http or https"),
        ("file:///etc/passwd", "not http or https"),
        ("https://user:secret@mech.example", "userinfo"),
        ("https://mech.example@attacker.example", "userinfo"),
        ("https://mech.example/?to=attacker.example", "query or fragment"),
        ("https://mech.example/#x", "query or fragment"),
        ("https://mech.example:99999", "invalid port"),
        ("https:///path", "no valid host"),
        ("https://mech.example\u202e/", "printable ASCII"),
        ("https://mech .example", "printable ASCII"),
        ("https://mech\r\n.example", "printable ASCII"),
    ],
)
def test_an_endpoint_this_client_would_not_post_to_is_refused(
    url: Any, why: str
) -> None:
    """Each refusal says why; a manifest cannot point the key's signature elsewhere."""
    with pytest.raises(EndpointError, match=why):
        offchain_endpoint({"url": url})


def test_a_challenge_is_read_strictly() -> None:
    """Addresses lowercased, amounts as integers whether text or numbers."""
    assert parse_challenge(CHALLENGE) == Challenge(
        pay_to=TRACKER,
        asset="0x" + "00" * 20,
        chain_id=100,
        required=5 * 10**17,
        current_balance=10**17,
    )
    assert parse_challenge(dict(CHALLENGE, required=7)).required == 7


@pytest.mark.parametrize(
    "change, why",
    [
        ({"scheme": "x402"}, "scheme is not olas-prepay"),
        ({"payTo": "0x1234"}, "payTo is not an address"),
        ({"payTo": None}, "payTo is not an address"),
        ({"asset": "usdc"}, "asset is not an address"),
        ({"chainId": "0x64"}, "chainId is not a uint256"),
        ({"chainId": True}, "chainId is not an integer"),
        ({"required": "-1"}, "required is not a uint256"),
        ({"required": "01"}, "required is not a uint256"),
        ({"required": str(2**256)}, "required is not a uint256"),
        ({"required": 1.5}, "required is not an integer"),
        ({"currentBalance": "lots"}, "currentBalance is not a uint256"),
    ],
)
def test_a_malformed_challenge_is_refused(change: Dict[str, Any], why: str) -> None:
    """Every field of another form is named."""
    with pytest.raises(ChallengeError, match=why):
        parse_challenge(dict(CHALLENGE, **change))
    with pytest.raises(ChallengeError, match="not a JSON object"):
        parse_challenge(["olas-prepay"])


def test_a_challenge_never_decides_where_money_goes() -> None:
    """Another payTo, another chain or more than the signed price: not believed."""
    challenge = parse_challenge(CHALLENGE)
    assert (
        challenge_refusal(
            challenge, TRACKER.upper().replace("0X", "0x"), 100, 5 * 10**17
        )
        == ""
    )
    assert "is not the balance tracker" in challenge_refusal(
        challenge, "0x" + "b2" * 20, 100, 5 * 10**17
    )
    assert "chainId 100 is not this chain's (8453)" in challenge_refusal(
        challenge, TRACKER, 8453, 5 * 10**17
    )
    assert "more than the signed price" in challenge_refusal(
        challenge, TRACKER, 100, 10**17
    )


def test_the_request_id_moves_with_every_input() -> None:
    """A different chain, marketplace, mech, requester, data, rate, type or nonce."""
    base = (
        100,
        "0x" + "11" * 20,
        "0x" + "22" * 20,
        "0x" + "33" * 20,
        b"\x44" * 32,
        10**16,
        b"\x55" * 32,
        0,
    )
    first = request_id(*base)
    assert len(first) == 32
    changed: List[Any] = [
        101,
        "0x" + "12" * 20,
        "0x" + "23" * 20,
        "0x" + "34" * 20,
        b"\x45" * 32,
        10**16 + 1,
        b"\x56" * 32,
        1,
    ]
    for index, value in enumerate(changed):
        moved: List[Any] = list(base)
        moved[index] = value
        assert request_id(*moved) != first, index


def test_a_signature_splits_as_the_marketplace_reads_it() -> None:
    """A v of 0/1 becomes 27/28; other lengths are refused."""
    signature = bytes(range(64)) + b"\x01"
    v, r, s = split_signature(signature)
    assert v == 28 and r == int.from_bytes(bytes(range(32)), "big")
    assert s == int.from_bytes(bytes(range(32, 64)), "big")
    assert split_signature(bytes(64) + b"\x1b")[0] == 27
    with pytest.raises(ValueError, match="65 bytes"):
        split_signature(bytes(64))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.2:5001/api/v0/shutdown",
        "https://mech.example/api",
        "https://mech.example/send_signed_requests",
        "http://mech.example//",
    ],
)
def test_an_endpoint_with_a_path_is_refused(url: str) -> None:
    """An endpoint is a host: a path could aim the post at another service's command."""
    with pytest.raises(EndpointError, match="path"):
        offchain_endpoint({"url": url})


@pytest.mark.parametrize("url", ["https://mech.example", "https://mech.example:8443/"])
def test_an_endpoint_that_is_a_host_is_kept(url: str) -> None:
    """Scheme, host and port, with or without the root slash."""
    assert offchain_endpoint({"url": url}) == url.rstrip("/")


@pytest.mark.parametrize(
    "addresses",
    [
        ["127.0.0.1"],
        ["10.1.2.3"],
        ["192.168.0.7"],
        ["172.16.0.1"],
        ["169.254.169.254"],  # a cloud's metadata service
        ["::1"],
        ["fe80::1%eth0"],
        ["fd00::5"],
        ["0.0.0.0"],
        ["93.184.216.34", "127.0.0.1"],  # one private answer among global ones
        [],
        ["not-an-address"],
    ],
)
def test_a_host_that_is_not_on_the_internet_is_refused(addresses: List[str]) -> None:
    """Loopback, private, link-local, unspecified, none or garbage: a reason."""
    assert private_address_refusal("mech.example", addresses)


def test_a_host_on_the_internet_is_posted_to() -> None:
    """Every address global: no reason."""
    assert (
        private_address_refusal("mech.example", ["93.184.216.34", "2606:4700::1"]) == ""
    )


@pytest.mark.parametrize(
    "address, delivered_to",
    [
        ("::ffff:10.0.0.1", "10.0.0.1"),  # IPv4-mapped
        ("::7f00:1", "127.0.0.1"),  # IPv4-compatible (global to Python 3.11)
        ("::ffff:0:c0a8:1", "192.168.0.1"),  # IPv4-translated (SIIT)
        ("64:ff9b::ac10:5", "172.16.0.5"),  # NAT64, well-known prefix
        ("64:ff9b::a00:1", "10.0.0.1"),
        ("2002:c0a8:107::1", "192.168.1.7"),  # 6to4
        ("2002:a00:1:ffff::9", "10.0.0.1"),
        ("2001:0:7f00:1:0:ffff:3fff:fdd2", "127.0.0.1"),  # Teredo server loopback
        ("2001:0:4136:e378:8000:ffff:f5ff:fefe", "10.0.1.1"),  # Teredo client, inverted
        ("2001:4860:0:1::5efe:c0a8:102", "192.168.1.2"),  # ISATAP (RFC 5214)
        ("2600:1f00:0:1:200:5efe:a9fe:a9fe", "169.254.169.254"),  # ISATAP, u/l bit
        ("::ffff:239.1.2.3", "239.1.2.3"),  # a multicast group, IPv4-mapped
        ("64:ff9b::f000:1", "240.0.0.1"),  # NAT64 to the reserved 240/4
    ],
)
def test_an_address_a_translator_delivers_to_a_private_one_is_refused(
    address: str, delivered_to: str
) -> None:
    """An IPv6 address embedding a non-global IPv4 one is refused, naming that address.

    :param address: an IPv6 address embedding ``delivered_to``.
    :param delivered_to: the IPv4 address a translator or tunnel delivers to.
    """
    reason = private_address_refusal("mech.example", [address])
    assert f"delivers to {delivered_to}," in reason, reason


@pytest.mark.parametrize(
    "address", ["64:ff9b:1::808:808", "64:ff9b:1:ab00::1", "64:ff9b:1:ffff::5db8:d822"]
)
def test_the_local_use_nat64_prefix_is_refused_whole(address: str) -> None:
    """RFC 8215's prefix is a site's own translator: refused whatever it embeds.

    :param address: an address in ``64:ff9b:1::/48``.
    """
    assert private_address_refusal("mech.example", [address])


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::5db8:d822",  # NAT64 to 93.184.216.34
        "2002:5db8:d822::1",  # 6to4 relay at 93.184.216.34
        "::ffff:93.184.216.34",
    ],
)
def test_an_address_translated_to_a_global_one_is_posted_to(address: str) -> None:
    """A translator delivering to an internet address is no reason to refuse.

    :param address: an IPv6 address embedding 93.184.216.34.
    """
    assert private_address_refusal("mech.example", [address]) == ""


@pytest.mark.parametrize(
    "address",
    [
        "224.0.0.251",  # mDNS
        "232.1.1.1",  # source-specific multicast
        "239.192.0.1",  # organisation-local multicast
        "ff01::1",  # interface-local
        "ff08::fb",  # organisation-local
        "ff1e::1234",  # global scope, transient
        "240.1.2.3",  # reserved
        "255.255.255.255",  # limited broadcast
        "198.18.0.9",  # benchmarking
        "100.64.1.1",  # carrier-grade NAT
        "192.0.0.170",  # IETF protocol assignments
        "203.0.113.5",  # documentation
        "2001:db8::7",  # documentation
        "100::1",  # discard-only
        "fec0::1",  # site-local (deprecated)
    ],
)
def test_a_multicast_or_special_purpose_address_is_refused(address: str) -> None:
    """Never an internet host's unicast address, whatever ``is_global`` says of it.

    :param address: what the manifest's host resolves to.
    """
    reason = private_address_refusal("mech.example", [address])
    assert f"is {ipaddress.ip_address(address)}, not an internet address" in reason


@pytest.mark.parametrize(
    "address",
    [
        "2001:4860:0:1::5efe:5db8:d822",  # ISATAP to 93.184.216.34
        "2a00:1450:4001:80b::200e",  # an ordinary global address, no embedding
        "2606:4700::6810:84e5",
        "1.1.1.1",
    ],
)
def test_a_global_unicast_address_is_still_posted_to(address: str) -> None:
    """The fixed table takes nothing an internet host uses.

    :param address: a global unicast address, or one tunnelled to 93.184.216.34.
    """
    assert private_address_refusal("mech.example", [address]) == ""
