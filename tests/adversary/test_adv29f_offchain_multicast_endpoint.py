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

"""A manifest's endpoint resolving to a multicast address is not refused (adversary adv29f).

``chain.offchain.private_address_refusal`` says an endpoint "resolving to a loopback,
private, link-local, multicast, reserved or unspecified address" is refused, and checks
each address with ``ipaddress``'s ``is_global``. But ``is_global`` does not exclude
multicast (CPython 3.11: IPv4 ``is_global`` is "not private and not in
100.64.0.0/10", and neither 224.0.0.0/4 nor ff00::/8 is in the private tables), so
``224.0.0.1`` (all hosts on this network), ``239.255.255.250`` (SSDP/UPnP, every
router's discovery service on the LAN), ``ff02::1`` (all nodes on the link) and
``ff05::2`` (all routers on the site) all pass, directly or IPv4-mapped
(``::ffff:224.0.0.1``) or through NAT64 (``64:ff9b::e000:1``).

Reach: a TCP connection to a multicast address is refused by the kernel here (Linux
answers ``ENETUNREACH`` at ``connect``), so no service was reached in this review; the
finding is that the documented guarantee is not the one checked, on an interpreter whose
``ipaddress`` tables the module itself says "change between versions".

Expected: every one of these addresses is refused with the function's reason, as its
docstring says of multicast ones.
"""

import pytest
from mech_catalogue_core.chain.offchain import private_address_refusal

#: multicast addresses a manifest's host may resolve to (IANA multicast registries)
MULTICAST = [
    "224.0.0.1",
    "239.255.255.250",
    "ff02::1",
    "ff05::2",
    "ff0e::1",
    "::ffff:224.0.0.1",
    "64:ff9b::e000:1",
]


@pytest.mark.parametrize("address", MULTICAST)
def test_a_multicast_address_is_refused(address: str) -> None:
    """Refused, with the reason naming the host.

    :param address: what the manifest's host resolves to.
    """
    # observed on main: "" (posted to) for every one of them
    assert "mech.example" in private_address_refusal("mech.example", [address])


def test_the_control_a_global_unicast_address_passes() -> None:
    """The control: an internet unicast address is not refused."""
    assert private_address_refusal("mech.example", ["8.8.8.8", "2606:4700::1"]) == ""
