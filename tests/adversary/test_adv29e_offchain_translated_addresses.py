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

"""IPv6 addresses that embed a private IPv4 address pass the endpoint check (adv29e).

``chain.offchain.private_address_refusal`` refuses an off-chain endpoint whose host
resolves to an address that is not ``ipaddress``' ``is_global``. On the interpreter the
project pins (3.11, ``requires-python``), these translation forms are "global":

- ``64:ff9b:1::/48``, the *local-use* IPv4/IPv6 translation prefix (RFC 8215), which a
  site's own NAT64 translates to the IPv4 address in its last 32 bits, private ones
  included: ``64:ff9b:1::a9fe:a9fe`` is the cloud metadata address 169.254.169.254,
  ``64:ff9b:1::a00:1`` is 10.0.0.1 (Python 3.13's ``ipaddress`` lists the prefix as
  not global: the answer changes with the interpreter, which the catalogue's own rules
  avoid by fixing their tables, docs/mcp.md);
- ``64:ff9b::/96`` (RFC 6052's well-known prefix) embedding a private IPv4 address,
  which RFC 6052 forbids translators to represent but which a DNS64 name can answer;
- ``2002::/16`` (6to4) embedding 127.0.0.1 or 169.254.169.254.

On a network whose resolver and gateway translate (IPv6-only networks with DNS64/NAT64
are common on mobile and some clouds), a manifest's endpoint answering such an address
reaches the IPv4 service the check meant to keep it from (the same hole DNS pinning
closed for names: adv29c, fix29d). Not reproducible end to end here (no translator);
the check itself is the oracle.

Expected: an address whose embedded IPv4 address (translation prefixes, 6to4) is not
global is refused like that IPv4 address, whatever the interpreter's version.
"""

import pytest
from mech_catalogue_core.chain.offchain import private_address_refusal

TRANSLATED = [
    ("local-use NAT64 to the metadata address", "64:ff9b:1::a9fe:a9fe"),
    ("local-use NAT64 to a LAN address", "64:ff9b:1::a00:1"),
    ("well-known NAT64 to the metadata address", "64:ff9b::a9fe:a9fe"),
    ("well-known NAT64 to loopback", "64:ff9b::7f00:1"),
    ("6to4 to the metadata address", "2002:a9fe:a9fe::1"),
    ("6to4 to loopback", "2002:7f00:1::1"),
]


@pytest.mark.parametrize(
    "address", [a for _, a in TRANSLATED], ids=[f for f, _ in TRANSLATED]
)
def test_a_translated_private_address_is_refused(address: str) -> None:
    """The endpoint check refuses an address that a translator maps to a private one.

    :param address: an IPv6 address embedding a non-global IPv4 address.
    """
    # observed on main (Python 3.11): "" (posted to)
    assert private_address_refusal("mech.example", [address]), address


def test_the_plain_forms_are_still_refused() -> None:
    """The control: the IPv4 addresses themselves and the IPv4-mapped form are refused."""
    for address in ("169.254.169.254", "10.0.0.1", "127.0.0.1", "::ffff:127.0.0.1"):
        assert private_address_refusal("mech.example", [address]), address
