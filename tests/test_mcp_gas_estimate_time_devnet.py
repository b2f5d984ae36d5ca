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

"""A mech burning gas costs the node's estimate no more than ``--max-gas`` (devnet).

The estimate runs under the send lock: a mech whose code burns 29 M gas for the
marketplace made anvil's estimate take 2.75 to 4.07 s (adv29zp), while every other
call of the server waited. ``Marketplace.sign`` asks the estimate within ``--max-gas``
(``eth_estimateGas``'s ``gas``), so the node's search stops there. Measured here on
the devnet (anvil with the marketplace's real bytecode): the request to an honest mech
and to the same mech given a 29 M gas burner, through ``Marketplace.sign`` (nothing
is sent), against the node's estimate without the bound.
"""

import statistics
import time
from typing import Any, Callable, List

import pytest

from mech_catalogue_cli.mcp_server.market import (
    DEFAULT_MAX_GAS,
    EstimateReverted,
    GasOverBound,
    Marketplace,
)
from scripts.devnet import Devnet
from tests.adversary import test_adv29r_revert_reason_markup as markup_reproduction
from tests.adversary.test_adv29r_revert_reason_markup import _revert_for_marketplace
from tests.adversary.test_adv29yp_request_gas_uncapped_devnet import BURN, BURNER
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import price_of

pytestmark = pytest.mark.devnet

#: what the burner burns here: about the devnet's block gas limit (30 M)
BIG_BURN = 29_000_000
TIMES = 3


def _seconds(attempt: Callable[[], Any]) -> float:
    """The median time of ``attempt`` over :data:`TIMES` runs (its errors are results)."""
    taken: List[float] = []
    for _ in range(TIMES):
        start = time.perf_counter()
        try:
            attempt()
        except (EstimateReverted, GasOverBound):
            pass
        taken.append(time.perf_counter() - start)
    return statistics.median(taken)


def test_a_burner_s_estimate_takes_no_longer_than_the_bound_allows(
    chain_snapshot: Devnet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bounded: a 29 M gas burner is refused about as fast as an honest mech is estimated."""
    devnet = chain_snapshot
    chosen, _, _ = _paid_mechs(devnet)
    market = Marketplace(
        devnet.info.rpc_url,
        devnet.info.contracts["MechMarketplace"],
        str(devnet.info.accounts["stranger"]["private_key"]),
    )
    price = price_of(devnet, chosen)
    payment_type = (
        "0x" + bytes(devnet.mech(chosen).functions.paymentType().call()).hex()
    )

    def transaction() -> Any:
        data = bytes.fromhex("12" * 32)
        return market.request_transaction(chosen, data, price, payment_type, 300)

    honest = _seconds(lambda: market.sign(transaction()))
    monkeypatch.setattr(
        markup_reproduction, "PROXY", BURNER.replace(str(BURN), str(BIG_BURN))
    )
    _revert_for_marketplace(devnet, chosen, "")
    with pytest.raises((EstimateReverted, GasOverBound)):
        market.sign(transaction())  # refused: nothing signed
    burner = _seconds(lambda: market.sign(transaction()))
    unbounded = _seconds(lambda: market.w3.eth.estimate_gas(transaction()))
    print(
        f"estimate: honest {honest:.3f} s, burner within --max-gas "
        f"{DEFAULT_MAX_GAS:,} {burner:.3f} s ({burner / honest:.2f} times), "
        f"burner unbounded {unbounded:.3f} s ({unbounded / honest:.1f} times)"
    )
    assert burner < 3 * honest + 0.1, (honest, burner, unbounded)
    assert burner < unbounded, (honest, burner, unbounded)
