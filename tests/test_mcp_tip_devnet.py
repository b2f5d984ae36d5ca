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

"""A paid call's request is mined with the tip the user gave (devnet, stdio).

``mech-catalogue mcp --priority-fee-per-gas 2gwei`` through the MCP SDK's client over
stdio, the devnet's responder answering: the request transaction carries a 2 gwei
``maxPriorityFeePerGas``, its fee is at most twice the base fee plus it, and it is
mined paying the block's base fee plus that tip.
"""

from pathlib import Path

import pytest

from scripts.devnet import Devnet
from tests.test_mcp_gas_bound_devnet import _calls, _record, _text

pytestmark = pytest.mark.devnet

GWEI = 10**9


def test_a_request_is_mined_with_the_tip_given(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``--priority-fee-per-gas 2gwei``: signed and paid with a 2 gwei tip.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    results, receipts = _calls(
        devnet, tmp_path, ["fix29zw tip"], "--priority-fee-per-gas", "2gwei"
    )
    assert not results[0].is_error, _text(results)
    assert len(receipts) == 1, receipts
    receipt = receipts[0]
    tx = devnet.w3.eth.get_transaction(receipt["transactionHash"])
    assert int(tx["maxPriorityFeePerGas"]) == 2 * GWEI
    base = int(devnet.w3.eth.get_block(receipt["blockNumber"])["baseFeePerGas"])
    assert int(tx["maxFeePerGas"]) <= 100 * GWEI
    assert int(receipt["effectiveGasPrice"]) == base + 2 * GWEI
    assert _record(results[0])["gas"]["fee_per_gas_wei"] == str(base + 2 * GWEI)
