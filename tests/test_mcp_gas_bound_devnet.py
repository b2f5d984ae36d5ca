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


"""A mech's code decides no more of the user's gas than ``--max-gas`` (devnet, stdio).

The marketplace calls the chosen mech inside the user's request, so the mech's code
sets the request's gas (adv29yp G1). Through the MCP SDK's client over stdio, with the
devnet's responder answering: a plain request's gas is said in ``_meta`` (the receipt's)
and is well under the default bound; a mech burning gas for the marketplace is refused
before signing (the node's estimate, asked within the bound, reverts there), and the
tool's next offer paid; the next call tries it last; a mech burning gas only when mined (its
estimate plain) is cut at the signed gas limit, remembered as reverting; a bound under
every request pays nothing.
"""

from pathlib import Path
from typing import Any, Dict, List, Tuple

import anyio
import pytest
from web3 import Web3

from mech_catalogue_cli.mcp_server.market import DEFAULT_MAX_GAS
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY
from scripts.devnet import Devnet
from tests.adversary import test_adv29r_revert_reason_markup as markup_reproduction
from tests.adversary.test_adv29r_revert_reason_markup import _revert_for_marketplace
from tests.adversary.test_adv29yp_request_gas_uncapped_devnet import (
    BURNER,
    _receipts_from,
)
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import market_nonce, requester, responder, stdio_client
from tests.devnet.test_mcp_server import TOOL

pytestmark = pytest.mark.devnet

#: burns only in a mined transaction (a gas price above zero), not in the estimate
MINED_BURNER = BURNER.replace(
    "if (msg.sender == MARKET && data.length > 4)",
    "if (msg.sender == MARKET && data.length > 4 && tx.gasprice > 0)",
)


def _calls(
    devnet: Devnet, state: Path, prompts: List[str], *options: str
) -> Tuple[List[Any], List[Any]]:
    """Call the tool once per prompt through one stdio server; the requests' receipts.

    The responder answers the seeded chosen mech; another mech's request is paid and
    left unanswered (the call then ends after ``--timeout``, its record in ``_meta``).

    :param devnet: the devnet.
    :param state: the server's state folder.
    :param prompts: one call each, in turn.
    :param options: more server options (``--timeout`` first: 60 s by default).
    :return: the results, and the requester's receipts mined meanwhile.
    """
    account = Web3.to_checksum_address(requester(devnet))
    start = devnet.w3.eth.block_number
    results: List[Any] = []

    async def main() -> None:
        timeout = () if "--timeout" in options else ("--timeout", "60")
        async with stdio_client(devnet, state, *timeout, *options) as client:
            for prompt in prompts:
                results.append(await client.call_tool(TOOL, {"prompt": prompt}))

    with responder(devnet):
        anyio.run(main)
    return results, _receipts_from(devnet, account, start)


def _text(results: List[Any]) -> str:
    return " | ".join(str(result.content[0].text)[:600] for result in results)


def _record(result: Any) -> Dict[str, Any]:
    return dict((result.meta or {}).get(REQUEST_META_KEY) or {})


def test_a_plain_request_says_its_gas_well_under_the_bound(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The receipt's gas is in ``_meta``; a plain request takes under a third of the bound."""
    results, receipts = _calls(chain_snapshot, tmp_path, ["fix29yh plain"])
    assert not results[0].is_error, results[0]
    assert len(receipts) == 1, receipts
    receipt = receipts[0]
    gas = _record(results[0])["gas"]
    assert gas["gas_used"] == int(receipt["gasUsed"])
    paid = int(receipt["gasUsed"]) * int(receipt["effectiveGasPrice"])
    assert gas["fee_paid_wei"] == str(paid) and gas["max_gas"] == DEFAULT_MAX_GAS
    assert 3 * gas["gas_used"] < DEFAULT_MAX_GAS, gas  # the margin docs/mcp.md states


def test_a_gas_burning_mech_is_refused_and_the_next_offer_paid(
    chain_snapshot: Devnet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused unsigned within the bound; the next offer paid; then tried last."""
    devnet = chain_snapshot
    chosen, _, _ = _paid_mechs(devnet)
    monkeypatch.setattr(markup_reproduction, "PROXY", BURNER)
    _revert_for_marketplace(devnet, chosen, "")
    prompts = ["fix29yh burn 1", "fix29yh burn 2"]
    results, receipts = _calls(devnet, tmp_path, prompts, "--timeout", "2")
    assert len(receipts) == 2, _text(results)  # one request per call, none burnt
    assert all(int(r["gasUsed"]) * 3 < DEFAULT_MAX_GAS for r in receipts)
    first, second = (_record(result) for result in results)
    assert first["mech"].lower() != chosen.lower() and first["gas"]["gas_used"]
    (skipped,) = first["skipped"]
    assert skipped["address"].lower() == chosen.lower()
    # the node's estimate runs within the bound (fix29ze): the burn reverts there
    within = f"reverted at its gas estimate within --max-gas {DEFAULT_MAX_GAS:,} gas"
    assert within in skipped["why"], skipped
    # remembered: the second call pays the next offer first, the burner tried last
    # (a revert at the estimate; not estimated again, the first offer paid)
    assert second["mech"].lower() != chosen.lower() and not second["skipped"]
    (last,) = second["choice"]["tried_last"]
    assert last["address"].lower() == chosen.lower() and within in last["why"]


def test_a_mech_burning_only_when_mined_is_cut_at_the_signed_limit(
    chain_snapshot: Devnet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its estimate is plain: its mined request runs out of the gas signed; then skipped."""
    devnet = chain_snapshot
    chosen, _, _ = _paid_mechs(devnet)
    monkeypatch.setattr(markup_reproduction, "PROXY", MINED_BURNER)
    _revert_for_marketplace(devnet, chosen, "")
    prompts = ["fix29yh mined 1", "fix29yh mined 2"]
    results, receipts = _calls(devnet, tmp_path, prompts, "--timeout", "2")
    assert len(receipts) == 2, _text(results)  # the first call waits (adv29u)
    burnt, paid = receipts[0], receipts[1]
    assert int(burnt["status"]) == 0 and int(paid["status"]) == 1, _text(results)
    assert int(burnt["gasUsed"]) * 2 < DEFAULT_MAX_GAS  # the limit signed, not the burn
    assert "mined and reverted" in str(results[0].content[0].text)
    second = _record(results[1])
    assert second["mech"].lower() != chosen.lower()
    assert "not sent another request" in second["skipped"][0]["why"]


def test_a_bound_under_every_request_pays_nothing(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``--max-gas 100000``: every offer refused by name, no request, no nonce moved.

    A token offer's approval (46,173 gas, under the bound) is signed before its request
    can be estimated (the estimate reverts without it): it stays as the allowance.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    marketplace = devnet.info.contracts["MechMarketplace"].lower()
    results, receipts = _calls(
        devnet, tmp_path, ["fix29yh low bound"], "--timeout", "2", "--max-gas", "1e5"
    )
    assert results[0].is_error and market_nonce(devnet) == nonce
    assert all(str(r["to"]).lower() != marketplace for r in receipts), receipts
    assert all(int(r["gasUsed"]) <= 100_000 for r in receipts)
    text = str(results[0].content[0].text)
    assert "no offer could be paid now" in text and "over --max-gas 100,000" in text
    # the approvals sent before the requests were refused are named (fix29zw), and
    # the call's last words say no request was sent, never "nothing" (fix29zzd)
    approvals = ["0x" + bytes(r["transactionHash"]).hex() for r in receipts]
    assert approvals and all(tx.lower() in text.lower() for tx in approvals), text
    assert "the request itself was not signed" in text, text
    assert "no request was signed nor sent" in text, text
    assert "nothing was sent" not in text and "nothing was signed" not in text, text
