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

"""adv29zp F1: a cancellation is signed over ``--max-fee-per-gas``.

Severity: LOW (gas only: one 21,000-gas transfer per cancelled request, at a fee the
user capped below; a stranger's mech decides when it is sent).

fix29yh says every transaction the server signs is bounded, "a gas price over it signs
nothing" (docs/mcp.md "Gas: what a request may cost", ``--max-fee-per-gas`` in the
options table, ``Marketplace.sign``'s docstring). ``Marketplace.sign_cancel`` does not
read the cap: its ``maxFeePerGas`` is twice the pending request's, or twice the gas
price now, plus a tip of at least 1 gwei (the request paid 0). The cancellation is sent
when a journalled request is still unmined and its mech is no longer payable now
(``cancel.stale_request``): the mech raising its price over ``--max-price`` while the
user's request waits (e.g. a gas price over the cap kept it unmined) is enough.

Observed on main 3f9bf80e (no chain, the node stand-in of ``tests/test_mcp_gas_bound``):
with ``--max-fee-per-gas`` 10 gwei, a request signed at 10 gwei, then the gas price 50
gwei, the cancellation is signed at 101 gwei per gas (10.1 times the cap; with the gas
price unchanged, 21 gwei: 2.1 times the cap, since a replacement must outbid the
request by 10 % and the request was signed at the cap).

Expected: no transaction signed over ``--max-fee-per-gas``: a cancellation over the cap
is not signed (the call says so and waits, as a request over it does), or requests are
signed low enough under the cap that their replacement fits; or the docs and the option's
help say that a cancellation may pay up to twice the cap and why.
"""

from typing import Any, Dict

import pytest
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes

from mech_catalogue_cli.mcp_server.market import Marketplace
from mech_catalogue_cli.mcp_server.market_errors import FeeOverCap
from tests.test_mcp_gas_bound import GWEI, MARKET, _market

CAP = 10 * GWEI


def _fees(raw_tx: str) -> Dict[str, Any]:
    return dict(TypedTransaction.from_bytes(HexBytes(raw_tx)).as_dict())


def _request(market: Marketplace) -> Any:
    transaction = {"from": market.requester, "to": MARKET, "value": 0, "data": "0x"}
    return market.sign({**transaction, "chainId": 31337})


@pytest.mark.parametrize("gas_price_then", [10 * GWEI, 50 * GWEI])
def test_a_cancellation_is_never_signed_over_the_fee_cap(gas_price_then: int) -> None:
    """The request is signed within the cap; its cancellation must be too, or refused."""
    market = _market(300_000, base_fee=10 * GWEI, fee_cap=CAP)
    request = _request(market)
    assert _fees(request.raw_tx)["maxFeePerGas"] <= CAP  # premise: fix29yh's bound
    node: Any = market.w3.eth  # the node stand-in of tests/test_mcp_gas_bound
    node.base_fee = gas_price_then  # the request waits unmined meanwhile
    try:
        cancel = market.sign_cancel(request)
    except FeeOverCap:
        return  # refused, as a request over the cap is
    fee = _fees(cancel.raw_tx)["maxFeePerGas"]
    assert fee <= CAP, (
        f"the cancellation is signed at {fee / GWEI:g} gwei per gas under "
        f"--max-fee-per-gas {CAP / GWEI:g} gwei ({fee / CAP:.1f} times the cap)"
    )
