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

"""Off-chain mech requests: the endpoint a manifest declares, the request id, the 402.

A mech whose manifest has a top-level ``url`` may take requests over HTTP instead of a
``MechMarketplace.request`` transaction (valory-xyz/mech, ``task_execution`` handlers,
routes ``send_signed_requests`` and ``fetch_offchain_info``): the requester signs the
request id, the mech answers from the requester's prepaid balance on the balance
tracker of its payment type, and settles later on chain with
``deliverMarketplaceWithSignatures`` (ai-registry-mech ``MechMarketplace``), which
checks the signature, records the request as delivered and emits ``Deliver``.

- :func:`offchain_endpoint`: the declared ``url``, validated (http or https, a host, no
  userinfo, query or fragment, at most :data:`MAX_ENDPOINT_CHARS`), or why not;
- :func:`request_id`: ``MechMarketplace.getRequestId`` computed exactly as the
  contract does (EIP-712 domain ``MechMarketplace`` / ``1.1.0``);
- :func:`parse_challenge` and :func:`challenge_refusal`: an HTTP 402 ``olas-prepay``
  challenge read strictly, and checked against what the chain says (a challenge never
  decides where money goes).

Pure functions: no network, no chain.
"""

import ipaddress
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Tuple, Union
from urllib.parse import urlsplit

from eth_abi import encode as abi_encode
from eth_utils import keccak

#: longest ``url`` a manifest may declare (characters)
MAX_ENDPOINT_CHARS = 512
#: the real mech's routes (valory-xyz/mech ``task_execution/handlers.py``, ``Route``)
SEND_ROUTE = "send_signed_requests"
FETCH_ROUTE = "fetch_offchain_info"
#: the 402 challenge's scheme (same handlers, ``PAYMENT_SCHEME``)
PREPAY_SCHEME = "olas-prepay"
#: MechMarketplace's EIP-712 domain (ai-registry-mech ``MechMarketplace.sol``: ``VERSION``)
MARKETPLACE_NAME = "MechMarketplace"
MARKETPLACE_VERSION = "1.1.0"
_DOMAIN_TYPEHASH = keccak(
    text="EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
)
_ADDRESS = re.compile(r"\A0x[0-9a-fA-F]{40}\Z")
_UINT = re.compile(r"\A(0|[1-9][0-9]{0,77})\Z")
_HOST = re.compile(r"\A[A-Za-z0-9.-]{1,253}\Z|\A\[[0-9A-Fa-f:.]{2,45}\]\Z")


class EndpointError(ValueError):
    """A manifest's ``url`` is not an endpoint this client posts to; the message says why."""


def offchain_endpoint(extra: Mapping[str, Any]) -> Optional[str]:
    """The off-chain endpoint a manifest declares, validated.

    :param extra: the manifest's other top-level fields (``Manifest.extra``).
    :return: the base URL without a trailing ``/`` (None when no ``url`` is declared).
    :raises EndpointError: when ``url`` is not a string, too long, not http(s), has no
        host, carries userinfo (``user:pass@``), a path (an endpoint is a host: its
        routes are the real mech's, ``/send_signed_requests``; a path let a manifest
        aim the post at another service's command, e.g. kubo's ``/api/v0/shutdown``),
        a query or a fragment, or has characters outside printable ASCII.
    """
    url = extra.get("url")
    if url is None or url == "":
        return None
    if not isinstance(url, str):
        raise EndpointError("url is not a string")
    if len(url) > MAX_ENDPOINT_CHARS:
        raise EndpointError(f"url is over {MAX_ENDPOINT_CHARS} characters")
    if not url.isascii() or not url.isprintable() or " " in url:
        raise EndpointError("url has characters outside printable ASCII")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise EndpointError("url is not http or https")
    if "@" in parts.netloc:
        raise EndpointError("url carries userinfo")
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise EndpointError("url has a query or fragment")
    try:
        port = parts.port
    except ValueError as exc:
        raise EndpointError("url has an invalid port") from exc
    host = parts.hostname or ""
    if not host or not _HOST.match(
        parts.netloc.rsplit(":", 1)[0] if port else parts.netloc
    ):
        raise EndpointError("url has no valid host")
    if parts.path not in ("", "/"):
        raise EndpointError(
            "url has a path: an off-chain endpoint is a host (scheme, host, port)"
        )
    return url.rstrip("/")


#: chain ids of local development chains (anvil's and Hardhat's default), where a mech's
#: endpoint on this machine is expected (the devnet's stand-in)
DEVELOPMENT_CHAIN_IDS = frozenset({31337})


#: IPv6 prefixes whose last 32 bits are an IPv4 address a host or translator reaches
#: instead: IPv4-mapped ``::ffff:0:0/96`` and IPv4-compatible ``::/96`` (RFC 4291
#: 2.5.5), IPv4-translated ``::ffff:0:0:0/96`` (RFC 2765 2.1) and NAT64's well-known
#: ``64:ff9b::/96`` (RFC 6052 2.1); fixed here, not read from the interpreter's
#: ``ipaddress`` tables, which change between versions (found by the adversarial review
#: adv29e)
_LAST_32_BITS_IPV4 = tuple(
    ipaddress.IPv6Network(prefix)
    for prefix in ("::ffff:0:0/96", "::/96", "::ffff:0:0:0/96", "64:ff9b::/96")
)
#: NAT64's local-use prefix (RFC 8215): a site's own translator, embedding the IPv4
#: address at whatever prefix length the site chose, so it is refused whole
_LOCAL_USE_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")
#: ISATAP interface identifiers (RFC 5214 6.1): ``0000:5efe`` or, with the
#: universal/local bit set, ``0200:5efe``, then the IPv4 address of the node the ISATAP
#: router tunnels to, under any 64-bit prefix
_ISATAP_MARKS = (0x00005EFE, 0x02005EFE)
#: networks never an internet host's unicast address, whatever the interpreter's
#: ``is_global`` says (its tables change between versions, and CPython 3.11's keep
#: multicast: adversarial review adv29f): IANA's special-purpose registries (RFC 6890,
#: RFC 5771 multicast, RFC 4291 2.7 multicast and 2.5 unspecified and loopback)
_NOT_INTERNET = tuple(
    ipaddress.ip_network(network)
    for network in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128",
        "::1/128",
        "100::/64",
        "2001:db8::/32",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
)


def _on_the_internet(
    address: Union[ipaddress.IPv4Address, ipaddress.IPv6Address],
) -> bool:
    """Whether ``address`` is an internet host's unicast address.

    :param address: an address.
    :return: ``is_global`` and in none of :data:`_NOT_INTERNET` (multicast among them).
    """
    return address.is_global and not any(
        address in network
        for network in _NOT_INTERNET
        if network.version == address.version
    )


def _embedded_ipv4(address: ipaddress.IPv6Address) -> Tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address is translated or tunnelled to.

    :param address: an IPv6 address.
    :return: the last 32 bits for the prefixes of :data:`_LAST_32_BITS_IPV4` and for an
        ISATAP interface identifier (:data:`_ISATAP_MARKS`), the 6to4 relay's address
        for ``2002::/16`` (RFC 3056), the Teredo server's and client's for
        ``2001::/32`` (RFC 4380); () for any other address.
    """
    embedded = []
    if any(address in network for network in _LAST_32_BITS_IPV4):
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if address.sixtofour is not None:
        embedded.append(address.sixtofour)
    if address.teredo is not None:
        embedded.extend(address.teredo)
    if (int(address) >> 32) & 0xFFFFFFFF in _ISATAP_MARKS:
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return tuple(embedded)


def private_address_refusal(host: str, addresses: Iterable[str]) -> str:
    """Why a manifest's endpoint may not be posted to: a host that is not on the internet.

    A manifest is anyone's text: an endpoint resolving to a loopback, private,
    link-local, multicast, reserved or unspecified address would let it aim the user's
    server at the services of their machine or network (found by the adversarial review
    adv29c: a local kubo's API). Checked on the addresses the host resolves to now; an
    IPv6 address embedding an IPv4 one (NAT64, 6to4, Teredo, ISATAP, IPv4-mapped or
    -compatible: :func:`_embedded_ipv4`) is checked on that IPv4 address too, since a
    translator on the way delivers to it, and NAT64's local-use prefix
    ``64:ff9b:1::/48`` is refused whole (adv29e). Each address must be ``is_global`` and
    outside the fixed :data:`_NOT_INTERNET` (multicast passed ``is_global``: adv29f).

    :param host: the endpoint's host, as declared.
    :param addresses: the addresses it resolves to (IPv4 or IPv6 text; a scope suffix
        ``%eth0`` is ignored).
    :return: the reason, or "" when every address is a global one (and there is one).
    """
    found = [a.split("%", 1)[0] for a in addresses]
    if not found:
        return f"its host {host} resolves to no address"
    for text in found:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            return f"its host {host} resolves to {text[:60]!r}, no IP address"
        embedded: Tuple[ipaddress.IPv4Address, ...] = ()
        if isinstance(address, ipaddress.IPv6Address):
            embedded = _embedded_ipv4(address)
        for inner in embedded:
            if not _on_the_internet(inner):
                return (
                    f"its host {host} is {address}, which a translator or tunnel "
                    f"delivers to {inner}, not an internet address: a manifest's "
                    "endpoint never reaches this machine's or a private network's "
                    "services"
                )
        if not _on_the_internet(address) or address in _LOCAL_USE_NAT64:
            return (
                f"its host {host} is {address}, not an internet address: a manifest's "
                "endpoint never reaches this machine's or a private network's services"
            )
    return ""


def domain_separator(chain_id: int, marketplace: str) -> bytes:
    """``MechMarketplace._computeDomainSeparator`` (the version hashed through ``abi.encode``).

    :param chain_id: the chain id.
    :param marketplace: the marketplace address (0x hex).
    :return: 32 bytes.
    """
    return keccak(
        abi_encode(
            ["bytes32", "bytes32", "bytes32", "uint256", "address"],
            [
                _DOMAIN_TYPEHASH,
                keccak(text=MARKETPLACE_NAME),
                keccak(abi_encode(["string"], [MARKETPLACE_VERSION])),
                chain_id,
                marketplace,
            ],
        )
    )


def request_id(  # pylint: disable=too-many-arguments
    chain_id: int,
    marketplace: str,
    mech: str,
    requester: str,
    data: bytes,
    delivery_rate: int,
    payment_type: bytes,
    nonce: int,
) -> bytes:
    r"""``MechMarketplace.getRequestId(mech, requester, data, deliveryRate, paymentType, nonce)``.

    ``keccak256("\\x19\\x01" ‖ domainSeparator ‖ keccak256(abi.encode(marketplace, mech,
    requester, keccak256(data), deliveryRate, paymentType, nonce)))``: the EIP-712 digest the
    requester signs (raw, no EIP-191 prefix) and the marketplace recovers in
    ``deliverMarketplaceWithSignatures``.

    :param chain_id: the chain id.
    :param marketplace: the marketplace address.
    :param mech: the mech contract.
    :param requester: the paying account.
    :param data: the request data (the 32-byte digest of the payload's CID).
    :param delivery_rate: the mech's ``maxDeliveryRate()``, in its asset's smallest unit.
    :param payment_type: the mech's ``paymentType()`` (32 bytes).
    :param nonce: ``mapNonces(requester)``.
    :return: the 32-byte request id.
    """
    inner = keccak(
        abi_encode(
            [
                "address",
                "address",
                "address",
                "bytes32",
                "uint256",
                "bytes32",
                "uint256",
            ],
            [
                marketplace,
                mech,
                requester,
                keccak(data),
                delivery_rate,
                payment_type,
                nonce,
            ],
        )
    )
    return keccak(b"\x19\x01" + domain_separator(chain_id, marketplace) + inner)


@dataclass(frozen=True)
class Challenge:
    """An HTTP 402 ``olas-prepay`` challenge, as the real mech builds it.

    :param pay_to: the balance tracker to deposit to (0x hex).
    :param asset: the token (the zero address for native).
    :param chain_id: the chain the tracker is on.
    :param required: the amount the call needs, smallest units.
    :param current_balance: the prepaid balance the mech read (None: not given).
    """

    pay_to: str
    asset: str
    chain_id: int
    required: int
    current_balance: Optional[int] = None


class ChallengeError(ValueError):
    """A 402 answer that is not a well-formed ``olas-prepay`` challenge."""


def _uint(body: Mapping[str, Any], key: str) -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ChallengeError(f"{key} is not an integer")
    text = str(value)
    if not _UINT.match(text) or int(text) >= 2**256:
        raise ChallengeError(f"{key} is not a uint256")
    return int(text)


def parse_challenge(body: Any) -> Challenge:
    """Read a 402 body strictly.

    :param body: the decoded JSON body.
    :return: the challenge.
    :raises ChallengeError: when it is not an object, its ``scheme`` is not
        ``olas-prepay``, ``payTo`` or ``asset`` is not an address, or ``chainId`` /
        ``required`` / ``currentBalance`` is not a uint256 (decimal text or integer).
    """
    if not isinstance(body, dict):
        raise ChallengeError("the 402 body is not a JSON object")
    if body.get("scheme") != PREPAY_SCHEME:
        raise ChallengeError(f"the 402 scheme is not {PREPAY_SCHEME}")
    for key in ("payTo", "asset"):
        if not isinstance(body.get(key), str) or not _ADDRESS.match(body[key]):
            raise ChallengeError(f"{key} is not an address")
    balance = _uint(body, "currentBalance") if "currentBalance" in body else None
    return Challenge(
        pay_to=body["payTo"].lower(),
        asset=body["asset"].lower(),
        chain_id=_uint(body, "chainId"),
        required=_uint(body, "required"),
        current_balance=balance,
    )


def challenge_refusal(
    challenge: Challenge, tracker: str, chain_id: int, price: int
) -> str:
    """Why a challenge is not believed ("" when it matches the chain).

    :param challenge: the parsed challenge.
    :param tracker: the balance tracker ``mapPaymentTypeBalanceTrackers(paymentType)``
        names for the mech's payment type (read on chain, never from the mech).
    :param chain_id: our chain id.
    :param price: the price the request was signed for.
    :return: the reason, or "".
    """
    if challenge.pay_to != tracker.lower():
        return (
            f"its payTo {challenge.pay_to} is not the balance tracker the marketplace "
            f"names for the mech's payment type ({tracker.lower()})"
        )
    if challenge.chain_id != chain_id:
        return f"its chainId {challenge.chain_id} is not this chain's ({chain_id})"
    if challenge.required > price:
        return f"it requires {challenge.required}, more than the signed price {price}"
    return ""


def split_signature(signature: bytes) -> Tuple[int, int, int]:
    """``(v, r, s)`` of a 65-byte signature (``r ‖ s ‖ v``).

    :param signature: the signature.
    :return: v (27 or 28 after the marketplace's ``v < 4`` adjustment), r, s.
    :raises ValueError: when it is not 65 bytes.
    """
    if len(signature) != 65:
        raise ValueError("a signature is 65 bytes")
    v = signature[64]
    return (
        v + 27 if v < 4 else v,
        int.from_bytes(signature[:32], "big"),
        int.from_bytes(signature[32:64], "big"),
    )
