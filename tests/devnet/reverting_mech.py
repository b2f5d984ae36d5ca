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


"""A mech that reverts for the marketplace only when its request is mined (devnet).

The set-up every reproduction of a mined revert shares (adv29r, adv29t, adv29u,
adv29yp, adv29yq, fix29yb's call deadline): the mech's code is replaced by
``test_adv29r_revert_reason_markup``'s proxy, which runs the mech's own code for every
caller but the marketplace and reverts for the marketplace only in a transaction that
pays gas. A request's gas estimate runs at gas price 0 and passes; the mined request
pays the block's base fee and reverts: the front-running price raise of adv29u, seen
by the server only in the receipt.
"""

from typing import NamedTuple

from eth_typing import ChecksumAddress
from web3 import Web3

from scripts.devnet import Devnet
from tests.adversary.test_adv29r_revert_reason_markup import (
    PROXY,
    REASON,
    _revert_for_marketplace,
)
from tests.devnet.mcp_helpers import market_nonce, requester

#: the proxy reverting for the marketplace only when mined (``tx.gasprice > 0``)
MINED_ONLY = PROXY.replace(
    "if (msg.sender == MARKET)", "if (msg.sender == MARKET && tx.gasprice > 0)"
)


class BeforeTheCalls(NamedTuple):
    """The chain's counts before any call, to tell what the calls sent."""

    #: ``MechMarketplace.mapNonces(requester)``: moves by one per request paid
    market_nonce: int
    #: the requester account (checksummed)
    account: ChecksumAddress
    #: its mined transaction count
    sent: int


def reverting_when_mined(devnet: Devnet, *mechs: str) -> BeforeTheCalls:
    """Give each of ``mechs`` code that reverts for the marketplace only when mined.

    :param devnet: the devnet (a ``chain_snapshot``: the code is reverted after).
    :param mechs: the mechs' addresses.
    :return: the marketplace nonce, the requester and its transaction count, read
        after the code was set and before any call.
    """
    assert MINED_ONLY != PROXY, "the proxy's marketplace check was not found"
    for mech in mechs:
        _revert_for_marketplace(devnet, mech, REASON, MINED_ONLY)
    account = Web3.to_checksum_address(requester(devnet))
    return BeforeTheCalls(
        market_nonce(devnet), account, int(devnet.w3.eth.get_transaction_count(account))
    )
