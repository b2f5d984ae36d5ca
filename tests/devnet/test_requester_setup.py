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

"""The requester service's devnet setup (``scripts/run_local/requester.py``) on a real devnet.

Real anvil (the MechMarketplace fixture, Gnosis Safe 1.3.0, ServiceRegistryL2) and kubo;
nothing is mocked. The responder is not started here (``deliver=False``).
"""

import pytest
from eth_account import Account
from web3 import Web3

from scripts.devnet import Devnet
from scripts.devnet.contracts import contract_at
from scripts.run_local.requester import (
    SAFE_FUNDS_WEI,
    marketplace_mechs,
    prepare_requester,
    safe_threshold,
)
from scripts.run_local.workspace import WorkspaceError


def agents(count: int) -> list:
    """Fresh agent addresses.

    :param count: how many.
    :return: their checksummed addresses.
    """
    # pylint: disable-next=no-value-for-parameter  # eth_account classmethod
    return [Account.create().address for _ in range(count)]


@pytest.mark.parametrize("timeout", [0, 59, 3601])
def test_a_response_timeout_the_marketplace_refuses_stops_before_any_deployment(
    chain_snapshot: Devnet, timeout: int
) -> None:
    """Outside [minResponseTimeout, maxResponseTimeout] every request would revert (GS013).

    :param chain_snapshot: the session devnet, reverted afterwards.
    :param timeout: a response timeout the devnet marketplace refuses.
    """
    block = chain_snapshot.w3.eth.block_number
    with pytest.raises(
        WorkspaceError, match=r"outside the MechMarketplace's \[60, 3600\]"
    ):
        prepare_requester(
            chain_snapshot, agents(1), deliver=False, response_timeout=timeout
        )
    assert chain_snapshot.w3.eth.block_number == block  # nothing deployed


@pytest.mark.parametrize("count", [1, 4])
def test_the_safe_is_owned_by_the_agents_with_the_consensus_threshold(
    chain_snapshot: Devnet, count: int
) -> None:
    """The Safe's owners are the agents, threshold ceil((2n+1)/3), funded; operators deployed.

    :param chain_snapshot: the session devnet, reverted afterwards.
    :param count: agents.
    """
    owners = agents(count)
    setup = prepare_requester(
        chain_snapshot, owners, deliver=False, response_timeout=60
    )
    safe = contract_at(chain_snapshot.w3, "GnosisSafe", setup.safe)
    assert sorted(safe.functions.getOwners().call()) == sorted(owners)
    assert safe.functions.getThreshold().call() == safe_threshold(count)
    assert safe_threshold(count) == {1: 1, 4: 3}[count]
    assert (
        chain_snapshot.w3.eth.get_balance(Web3.to_checksum_address(setup.safe))
        == SAFE_FUNDS_WEI
    )
    assert setup.responder is None
    for mech in marketplace_mechs(chain_snapshot):
        assert chain_snapshot.service_multisig(int(str(mech["service_id"]))) is not None
    assert setup.settings["SAFE_CONTRACT_ADDRESS"] == setup.safe
    assert setup.settings["MECH_RESPONSE_TIMEOUT"] == "60"
