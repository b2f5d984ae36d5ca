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

"""The order in which mech contracts offering a tool are preferred (pure, no network).

One rule for every consumer of the catalogue: the MCP server's ``offers.rank_offers``
(the CLI) and the requester service's tool choice (:mod:`.mech_request`) both sort
offers by :func:`rank_key`. Times come first because they cannot be bought: the block of
the mech's first delivery since its service's manifest declared the tool, then the
block of that declaration, and only for offers without these facts (the agreed
catalogue of an agent carries neither: they are read from events by the MCP server's
``tenure.py``) "delivered at least once", then the ``CreateMech`` block. Counters a
mech raises by paying itself (karma, requests, deliveries as numbers) never rank
(issue #29; ``docs/mcp.md``, "How offers are chosen").
"""

from typing import Optional, Tuple

#: the sort key of :func:`seniority_key` (smaller first)
SeniorityKey = Tuple[bool, int, bool, int, bool, bool, int]


def seniority_key(
    first_delivery_block: Optional[int],
    declared_block: Optional[int],
    delivered: bool,
    created_block: Optional[int],
) -> SeniorityKey:
    """Since when a mech serves the tool, as a sort key (unknown values last per tier).

    :param first_delivery_block: block of the mech's first ``Deliver`` at or after
        ``declared_block`` (None: none since, or unknown).
    :param declared_block: block since which its service's manifests have declared the
        tool with its current definition (a manifest change leaving the tool as it was
        does not move it; None: unknown).
    :param delivered: whether it delivered at least one request addressed to it.
    :param created_block: block of its ``CreateMech`` event (None: unknown).
    :return: the key; the smaller, the more senior.
    """
    return (
        first_delivery_block is None,
        first_delivery_block or 0,
        declared_block is None,
        declared_block or 0,
        not delivered,
        created_block is None,
        created_block or 0,
    )


def delivered_once(requests: Optional[int], deliveries: Optional[int]) -> bool:
    """Whether a mech delivered at least one request addressed to it.

    :param requests: its ``numTotalRequests()`` (None: unread).
    :param deliveries: its ``numTotalDeliveries()`` (None: unread).
    :return: True when both were read and are at least 1.
    """
    return min(deliveries or 0, requests or 0) >= 1


def rank_key(
    seniority: SeniorityKey, price: Optional[int], address: str
) -> Tuple[object, ...]:
    """:func:`seniority_key`, then the cheaper, then the lower address (deterministic).

    :param seniority: the offer's :func:`seniority_key`.
    :param price: its ``maxDeliveryRate()`` in its asset's smallest unit (None: unread,
        after every read price: a stranger cannot rank cheapest by failing its read).
    :param address: its mech contract address, lowercase 0x hex.
    :return: the sort key of the offer.
    """
    return seniority + (price is None, price or 0, address)
