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


"""What one signed transaction may cost in gas: ``--max-gas`` and ``--max-fee-per-gas``.

Without a chain: :meth:`.market.Marketplace.sign` against a node stand-in (its
estimate and gas price as told; the signed bytes decoded), the sender's refusal of a
request over the bound (``mcp_server.refused_offers``, with the stand-in marketplace of
``tests/test_mcp_refused_offers.py``), the receipt's gas kept for ``_meta``, and the
options' reading. Over stdio on the devnet: ``tests/test_mcp_gas_bound_devnet.py``.
"""

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, Optional

import click
import pytest
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes

from mech_catalogue_cli.commands.gas_options import _whole_number
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import (
    DEFAULT_MAX_GAS,
    GAS_KEY,
    FeeOverCap,
    GasOverBound,
    Marketplace,
    SentTransaction,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.offchain_sending import PriceRefusal
from mech_catalogue_cli.mcp_server.refused_offers import RevertRefusal, gas_refusal
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401  # pylint: disable=unused-import
    MECH,
    PRICE,
    _Market,
    _no_upload,
    _sender,
    _sent,
)

GWEI = 10**9
MARKET = "0x" + "84" * 20


class _Eth:
    """The node calls ``sign`` makes: a nonce, an estimate, a gas price."""

    chain_id = 31337

    def __init__(self, estimate: int, gas_price: int) -> None:
        self.estimate = estimate
        self.gas_price = gas_price

    def get_transaction_count(self, *_args: Any) -> int:
        """The pending nonce."""
        return 4

    def estimate_gas(self, _tx: Dict[str, Any]) -> int:
        """The estimate told."""
        return self.estimate


def _market(
    estimate: int, gas_price: int = 10 * GWEI, fee_cap: Optional[int] = None
) -> Marketplace:
    market = Marketplace(
        "http://127.0.0.1:9",
        MARKET,
        "0x" + "42" * 32,
        gas_bounds=(DEFAULT_MAX_GAS, fee_cap),
    )
    node = SimpleNamespace(eth=_Eth(estimate, gas_price))
    market.w3 = node  # type: ignore[assignment]
    return market


def _signed(market: Marketplace) -> Dict[str, Any]:
    transaction = {"from": market.requester, "to": MARKET, "value": 0, "data": "0x"}
    signed = market.sign({**transaction, "chainId": 31337})
    return dict(TypedTransaction.from_bytes(HexBytes(signed.raw_tx)).as_dict())


@pytest.mark.parametrize(
    "estimate, gas",
    [
        (21_000, 25_200),
        (327_798, 393_357),  # the devnet's plain request: its estimate plus 20 %
        (900_000, DEFAULT_MAX_GAS),  # plus 20 % would pass the bound: the bound
        (DEFAULT_MAX_GAS, DEFAULT_MAX_GAS),
    ],
)
def test_the_gas_signed_is_the_estimate_plus_a_fifth_within_the_bound(
    estimate: int, gas: int
) -> None:
    """Never more gas than ``--max-gas`` is signed, whatever the estimate."""
    assert _signed(_market(estimate))["gas"] == gas


@pytest.mark.parametrize("estimate", [DEFAULT_MAX_GAS + 1, 10_282_093, 2**63])
def test_an_estimate_over_the_bound_is_not_signed(estimate: int) -> None:
    """The error names the contract, the estimate and the bound; nothing is signed."""
    with pytest.raises(GasOverBound) as raised:
        _signed(_market(estimate))
    assert raised.value.estimate == estimate and raised.value.bound == DEFAULT_MAX_GAS
    said = str(raised.value)
    assert f"{estimate:,} gas" in said and f"--max-gas {DEFAULT_MAX_GAS:,}" in said
    assert MARKET in said and "nothing was sent" in said


@pytest.mark.parametrize(
    "gas_price, cap, fee",
    [
        (10 * GWEI, None, 20 * GWEI),  # twice the gas price now
        (10 * GWEI, 15 * GWEI, 15 * GWEI),  # within the cap
        (10 * GWEI, 10 * GWEI, 10 * GWEI),  # the price at the cap: still mined
        (0, None, 0),
    ],
)
def test_the_fee_per_gas_is_twice_the_price_within_the_cap(
    gas_price: int, cap: Optional[int], fee: int
) -> None:
    """``maxFeePerGas``: the worst case of a transaction is its gas times this."""
    signed = _signed(_market(300_000, gas_price, cap))
    assert signed["maxFeePerGas"] == fee and signed["maxPriorityFeePerGas"] == 0


def test_a_gas_price_over_the_cap_signs_nothing() -> None:
    """A price the cap cannot pay: nothing signed, said with both figures."""
    said = r"10,000,000,001 wei now, over --max-fee-per-gas 10,000,000,000"
    with pytest.raises(FeeOverCap, match=said):
        _signed(_market(300_000, 10 * GWEI + 1, 10 * GWEI))


def test_the_receipt_gives_the_gas_used_and_the_fee_paid() -> None:
    """``gasUsed`` times ``effectiveGasPrice``, as decimal wei; the bound beside."""
    assert _market(1).gas_paid({"gasUsed": 327_798, "effectiveGasPrice": 3 * GWEI}) == {
        "gas_used": 327_798,
        "max_gas": DEFAULT_MAX_GAS,
        "fee_per_gas_wei": str(3 * GWEI),
        "fee_paid_wei": str(327_798 * 3 * GWEI),
    }


@pytest.mark.usefixtures("no_upload")
def test_a_request_over_the_bound_refuses_the_offer_and_skips_its_mech(
    tmp_path: Path,
) -> None:
    """A refusal naming the mech, the estimate and the bound; nothing journalled or sent.

    The mech is skipped for the window as one mined and reverted is: the next call
    does not even estimate it; nothing was mined, so the call says nothing was sent.

    :param tmp_path: the journal's folder.
    """
    market = _Market(GasOverBound(MARKET, 10_282_093, DEFAULT_MAX_GAS), [PRICE])
    sender = _sender(tmp_path, market)
    said = _sent(sender)
    assert isinstance(said, RevertRefusal) and said.skip and not said.mined
    assert said.mech == MECH and "10,282,093 gas" in said
    assert f"over --max-gas {DEFAULT_MAX_GAS:,}" in said and "nothing was sent" in said
    assert not market.broadcasts and not list(Journal(tmp_path).folder.glob("*.json"))
    kept, skipped = sender.reverting.skipped([offer(MECH, 1)])
    assert not kept and "not sent another request" in skipped[0][1]
    again = _sent(sender, "1" * 64)
    assert isinstance(again, PriceRefusal) and market.signed == 1  # not estimated


def test_the_gas_refusal_says_its_figures() -> None:
    """The refusal's own words, the mech in lowercase for the memory."""
    refusal = gas_refusal(MECH.upper().replace("0X", "0x"), 1_500_000, 1_000_000)
    assert refusal.mech == MECH and refusal.skip and not refusal.mined
    assert "1,500,000 gas" in refusal and "--max-gas 1,000,000" in refusal


class _Mined(_Market):
    """A stand-in whose broadcast is mined, its receipt's gas told."""

    def broadcast(self, signed: SignedRequest, _wait: float) -> str:
        """Mined: the hash with its gas."""
        self.broadcasts.append(signed.raw_tx)
        sent = SentTransaction(signed.tx_hash)
        sent.gas = {"gas_used": 327_798, "fee_paid_wei": "1"}
        return sent

    def status(self, _request_id: str) -> int:
        """The request is on chain."""
        return 1

    def mined_request_id(self, *_args: Any) -> Optional[str]:
        """The id derived is the one mined."""
        return "0x" + "77" * 32


@pytest.mark.usefixtures("no_upload")
def test_a_sent_request_keeps_its_gas_for_the_answer(tmp_path: Path) -> None:
    """The receipt's gas is journalled in the entry (the result's ``_meta`` ``gas``).

    :param tmp_path: the journal's folder.
    """
    sender = _sender(tmp_path, _Mined(None, [PRICE]))
    entry = _sent(sender)
    assert entry.extra[GAS_KEY] == {"gas_used": 327_798, "fee_paid_wei": "1"}
    assert not isinstance(entry.tx_hash, SentTransaction)  # a plain string journalled
    saved = Journal(tmp_path).load(entry.key)
    assert saved is not None and saved.extra[GAS_KEY]["gas_used"] == 327_798


@pytest.mark.parametrize(
    "written, number",
    [("1000000", 10**6), ("1e6", 10**6), ("1_000_000", 10**6), (" 21000 ", 21_000)],
)
def test_the_options_read_whole_numbers(written: str, number: int) -> None:
    """Plain, exponent and underscored forms."""
    assert _whole_number(None, None, written) == number  # type: ignore[arg-type]


@pytest.mark.parametrize("written", ["0", "-5", "1.5", "abc", "inf", "nan", "", "1e-3"])
def test_the_options_refuse_what_is_no_positive_whole_number(written: str) -> None:
    """A usage error, never a bound of zero or none."""
    with pytest.raises(click.BadParameter, match="no positive whole number"):
        _whole_number(None, None, written)  # type: ignore[arg-type]
