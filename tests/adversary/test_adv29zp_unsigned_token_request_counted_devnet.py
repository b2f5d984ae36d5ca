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

"""adv29zp C5 on the devnet: an OLAS offer refused unsigned holds the OLAS cap.

The reproduction without a chain, the severity and what is expected:
``test_adv29zp_unsigned_token_request_counted.py``. Here through the MCP SDK's client
over stdio on the devnet (anvil with the marketplace's real bytecode, the stand-in OLAS
token and tracker): the deployed service's OLAS mech is given adv29yp's burner code
(10 M gas in the marketplace's call), the server pinned to it with ``--max-spend
olas=<its price>``. Call A approves the price (mined) and refuses the request, its
estimate over ``--max-gas``: nothing sent. A restarted server's call B is then refused
by the OLAS cap, although no OLAS was ever paid.

Observed on main 3f9bf80e: call B says "... over --max-spend olas=... on 1 journalled
request(s) of earlier or other runs)"; the marketplace nonce did not move.
"""

from pathlib import Path

import pytest

from scripts.devnet import Devnet
from tests.adversary import test_adv29r_revert_reason_markup as markup_reproduction
from tests.adversary.test_adv29r_revert_reason_markup import _revert_for_marketplace
from tests.adversary.test_adv29yp_request_gas_uncapped_devnet import BURNER
from tests.devnet.mcp_helpers import (
    call_once,
    market_nonce,
    marketplace_mech_of,
    price_of,
)
from tests.devnet.test_mcp_token_payments import TOOL, holdings

pytestmark = pytest.mark.devnet


def test_an_olas_offer_refused_unsigned_holds_no_cap_devnet(
    chain_snapshot: Devnet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Call A refused for gas, nothing paid; a restart's call B is not refused by the cap."""
    devnet = chain_snapshot
    mech = marketplace_mech_of(devnet, "olas")
    price = price_of(devnet, mech)
    monkeypatch.setattr(markup_reproduction, "PROXY", BURNER)
    _revert_for_marketplace(devnet, mech, "")
    nonce = market_nonce(devnet)
    before = holdings(devnet, "olas")
    options = ("--mech", mech, "--max-spend", f"olas={price}", "--timeout", "20")
    first = call_once(devnet, tmp_path, TOOL, {"prompt": "adv29zp C5 a"}, *options)
    text_a = str(first.content[0].text)
    # the estimate runs within --max-gas (fix29ze): the burner reverts there, where
    # an estimate without the bound said "over --max-gas"; either way nothing is sent
    assert first.is_error and "--max-gas" in text_a, text_a[:400]
    after = holdings(devnet, "olas")
    assert after["wallet"] == before["wallet"] and market_nonce(devnet) == nonce
    assert after["allowance"] == price  # the approval mined: the allowance stays
    second = call_once(devnet, tmp_path, TOOL, {"prompt": "adv29zp C5 b"}, *options)
    text_b = str(second.content[0].text)
    assert "over --max-spend" not in text_b, (
        f"call B refused by the OLAS cap, no OLAS paid ({market_nonce(devnet) - nonce} "
        f"requests): {text_b[:400]}"
    )
