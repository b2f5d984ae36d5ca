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


"""The tip signed is the chain's least: Polygon's Bor refuses a tip under 25 gwei.

Before, every transaction was signed with ``maxPriorityFeePerGas`` 0: a Bor node refuses
it at its pool's door ("transaction gas price below minimum: gas tip cap 0, minimum
needed 25000000000"), and a pool of geth's defaults refuses it as underpriced (its
``PriceLimit`` is 1 wei), so a paid call on Polygon could never send its request. Each
``--chain`` preset now gives ``min_priority_fee_wei`` with its source; the tip is
signed within ``--max-fee-per-gas``, and a base fee plus tip the cap cannot pay is
refused with both figures. With a preset the node's fee suggestions are never asked
(a custom ``--rpc``: ``test_mcp_tip_choice.py``).
"""

from typing import Any, Dict, Optional

import pytest
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes
from mech_catalogue_core.chain.presets import (
    DEFAULT_MIN_PRIORITY_FEE_PER_GAS,
    PRESETS,
    SOURCES,
)

from mech_catalogue_cli.commands.gas_options import chosen_min_priority_fee
from mech_catalogue_cli.mcp_server.market import SignedRequest
from mech_catalogue_cli.mcp_server.market_errors import FeeOverCap
from tests.test_mcp_gas_bound import GWEI, _market, _signed

#: each preset's least tip, wei per gas, and the source it is read from
EXPECTED_TIPS = {
    "mainnet": (1, "geth_tip"),
    "gnosis": (1, "geth_tip"),
    "base": (1, "geth_tip"),
    "optimism": (1, "geth_tip"),
    "celo": (1, "geth_tip"),
    "arbitrum": (0, "arbitrum_tip"),
    "polygon": (25 * GWEI, "bor_tip"),
}


def _tipped(base_fee: int, cap: Optional[int], tip: int) -> Dict[str, Any]:
    market = _market(300_000, base_fee, cap)
    market.tips.least = tip
    return _signed(market)


def test_every_preset_names_its_least_tip_and_its_source() -> None:
    """Every chain has a tip with a source; the CLI gives the preset's to the signer."""
    assert set(EXPECTED_TIPS) == set(PRESETS)
    for name, (tip, source) in EXPECTED_TIPS.items():
        preset = PRESETS[name]
        assert preset.min_priority_fee_wei == tip, name
        assert preset.sources["min_priority_fee_wei"] == source, name
        assert source in SOURCES
        assert chosen_min_priority_fee(preset) == tip
        # the tip leaves most of the chain's default cap to the base fee
        assert tip <= preset.max_fee_per_gas // 10, name
    assert chosen_min_priority_fee(None) == DEFAULT_MIN_PRIORITY_FEE_PER_GAS == 0


@pytest.mark.parametrize("name", sorted(EXPECTED_TIPS))
def test_each_preset_s_tip_is_signed_over_twice_the_base_fee(name: str) -> None:
    """Base fee 30 gwei (Polygon's usual), the preset's cap: the tip is the preset's.

    :param name: the preset.
    """
    preset = PRESETS[name]
    base_fee = 30 * GWEI if preset.max_fee_per_gas > 60 * GWEI else GWEI // 10
    signed = _tipped(base_fee, preset.max_fee_per_gas, preset.min_priority_fee_wei)
    assert signed["maxPriorityFeePerGas"] == preset.min_priority_fee_wei
    assert signed["maxFeePerGas"] == min(
        2 * base_fee + preset.min_priority_fee_wei, preset.max_fee_per_gas
    )
    assert signed["maxPriorityFeePerGas"] <= signed["maxFeePerGas"]


@pytest.mark.parametrize(
    "base_fee, cap, fee",
    [
        (30 * GWEI, 1_000 * GWEI, 85 * GWEI),  # twice the base fee plus the tip
        (30 * GWEI, 70 * GWEI, 70 * GWEI),  # cut to the cap: the tip still fits
        (45 * GWEI, 70 * GWEI, 70 * GWEI),  # base plus tip exactly the cap
    ],
)
def test_the_polygon_tip_fits_under_the_cap_or_the_fee_is_cut_to_it(
    base_fee: int, cap: int, fee: int
) -> None:
    """25 gwei tip: the fee signed is at most the cap and pays base fee plus tip.

    :param base_fee: the latest block's base fee.
    :param cap: ``--max-fee-per-gas``.
    :param fee: the ``maxFeePerGas`` signed.
    """
    signed = _tipped(base_fee, cap, 25 * GWEI)
    assert signed["maxFeePerGas"] == fee
    assert signed["maxPriorityFeePerGas"] == 25 * GWEI
    assert signed["maxFeePerGas"] >= base_fee + 25 * GWEI  # mined at this base fee


@pytest.mark.parametrize(
    "base_fee, cap, needed",
    [
        (45 * GWEI + 1, 70 * GWEI, "70.000000001 gwei (70,000,000,001 wei)"),
        (GWEI, 20 * GWEI, "26 gwei (26,000,000,000 wei)"),  # the tip alone is over
    ],
)
def test_a_tip_the_cap_cannot_pay_signs_nothing_and_says_the_fee_needed(
    base_fee: int, cap: int, needed: str
) -> None:
    """Base fee plus 25 gwei over the cap: refused, the fee needed and the cap said.

    :param base_fee: the latest block's base fee.
    :param cap: ``--max-fee-per-gas``.
    :param needed: the fee per gas the transaction needs, as said.
    """
    with pytest.raises(FeeOverCap) as raised:
        _tipped(base_fee, cap, 25 * GWEI)
    said = str(raised.value)
    assert f"a transaction needs {needed}" in said, said
    assert "with the chain's least tip (25 gwei" in said, said
    assert f"over --max-fee-per-gas {cap // GWEI} gwei" in said
    assert "nothing was signed nor sent" in said
    assert (raised.value.fee, raised.value.tip, raised.value.cap) == (
        base_fee,
        25 * GWEI,
        cap,
    )


def test_without_a_tip_the_refusal_reads_as_before() -> None:
    """No least tip (the devnet, arbitrum): the base fee alone is said."""
    with pytest.raises(FeeOverCap) as raised:
        _tipped(11 * GWEI, 10 * GWEI, 0)
    assert "is 11 gwei (11,000,000,000 wei) per gas, over" in str(raised.value)
    assert "tip" not in str(raised.value)


def test_a_cancellation_tips_at_least_the_chain_s_least_tip() -> None:
    """A request signed with Polygon's 25 gwei tip is replaced by twice that."""
    market = _market(300_000, 30 * GWEI, 1_000 * GWEI)
    market.tips.least = 25 * GWEI
    request = market.sign(
        {"from": market.requester, "to": market.requester, "value": 0, "data": "0x"}
        | {"chainId": 137}
    )
    cancel = market.sign_cancel(request)
    fees = dict(TypedTransaction.from_bytes(HexBytes(cancel.raw_tx)).as_dict())
    assert fees["maxPriorityFeePerGas"] == 50 * GWEI
    assert fees["maxFeePerGas"] <= 1_000 * GWEI
    # a chain whose least tip is over twice the old one's: the least tip
    zero_tip = SignedRequest(request.raw_tx, request.tx_hash, request.account_nonce)
    market.tips.least = 60 * GWEI
    fees = dict(
        TypedTransaction.from_bytes(
            HexBytes(market.sign_cancel(zero_tip).raw_tx)
        ).as_dict()
    )
    assert fees["maxPriorityFeePerGas"] == 60 * GWEI
