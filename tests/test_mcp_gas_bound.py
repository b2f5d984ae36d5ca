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
from click.testing import CliRunner
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes
from mech_catalogue_core.chain.presets import DEFAULT_MAX_FEE_PER_GAS, chain_preset
from web3.exceptions import Web3RPCError

from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.gas_options import (
    _whole_number,
    chosen_max_fee_per_gas,
)
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import (
    DEFAULT_MAX_GAS,
    GasOverBound,
    MarketError,
    Marketplace,
    SentTransaction,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.market_errors import GAS_KEY, FeeOverCap
from mech_catalogue_cli.mcp_server.offchain_sending import PriceRefusal
from mech_catalogue_cli.mcp_server.refused_offers import RevertRefusal, gas_refusal
from tests.raw_block_stub import BlocksOfStub
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
    """The node calls ``sign`` makes: a nonce, an estimate, the latest block.

    Its fee suggestions lie (a hostile RPC): a thousand times the base fee, which
    ``sign`` must not read.
    """

    chain_id = 31337

    def __init__(self, estimate: int, base_fee: Optional[int]) -> None:
        self.estimate = estimate
        self.base_fee = base_fee
        self.gas_price = 1000 * (base_fee or GWEI)
        self.max_priority_fee = 1000 * (base_fee or GWEI)

    def get_block(self, tag: str) -> Dict[str, Any]:
        """The latest block: its number and base fee (none: a chain before EIP-1559)."""
        assert tag == "latest"
        block: Dict[str, Any] = {"number": 77}
        if self.base_fee is not None:
            block["baseFeePerGas"] = self.base_fee
        return block

    def fee_history(self, *_args: Any) -> Dict[str, Any]:
        """A lie: every reward a thousand gwei."""
        return {"baseFeePerGas": [10**15], "reward": [[10**12]]}

    def get_transaction_count(self, *_args: Any) -> int:
        """The pending nonce."""
        return 4

    def estimate_gas(self, _tx: Dict[str, Any]) -> int:
        """The estimate told."""
        return self.estimate


def _market(
    estimate: int, base_fee: Optional[int] = 10 * GWEI, fee_cap: Optional[int] = None
) -> Marketplace:
    market = Marketplace(
        "http://127.0.0.1:9",
        MARKET,
        "0x" + "42" * 32,
        gas_bounds=(DEFAULT_MAX_GAS, fee_cap),
    )
    node = SimpleNamespace(eth=_Eth(estimate, base_fee))
    node.provider = BlocksOfStub(node)
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
    assert MARKET in said and "nothing was signed nor sent" in said


@pytest.mark.parametrize(
    "base_fee, cap, fee",
    [
        (10 * GWEI, None, 20 * GWEI),  # twice the base fee, under the default
        (10 * GWEI, 15 * GWEI, 15 * GWEI),  # within the cap
        (10 * GWEI, 10 * GWEI, 10 * GWEI),  # the fee at the cap: still mined
        (60 * GWEI, None, DEFAULT_MAX_FEE_PER_GAS),  # twice passes the default
        (7, None, 14),  # a devnet's decayed base fee
        (0, None, 0),
    ],
)
def test_the_fee_per_gas_is_twice_the_base_fee_within_the_cap(
    base_fee: int, cap: Optional[int], fee: int
) -> None:
    """``maxFeePerGas``: the worst case of a transaction is its gas times this.

    The node's lying suggestions (``eth_gasPrice``, ``eth_maxPriorityFeePerGas``,
    ``eth_feeHistory``: a thousand times the base fee) move nothing; no tip is signed.

    :param base_fee: the latest block's base fee.
    :param cap: ``--max-fee-per-gas`` (None: the default).
    :param fee: the ``maxFeePerGas`` signed.
    """
    signed = _signed(_market(300_000, base_fee, cap))
    assert signed["maxFeePerGas"] == fee and signed["maxPriorityFeePerGas"] == 0


@pytest.mark.parametrize(
    "base_fee, cap, words",
    [
        (
            10 * GWEI + 1,
            10 * GWEI,
            "block 77 on http://127.0.0.1:9 is 10.000000001 gwei (10,000,000,001 "
            "wei) per gas, over --max-fee-per-gas 10 gwei (10,000,000,000 wei)",
        ),
        (
            250 * GWEI,  # a spike, under no --max-fee-per-gas: the default refuses
            None,
            "is 250 gwei (250,000,000,000 wei) per gas, over --max-fee-per-gas 100 "
            "gwei (100,000,000,000 wei)",
        ),
        (
            2 * GWEI,
            GWEI // 1000,
            "is 2 gwei (2,000,000,000 wei) per gas, over --max-fee-per-gas 0.001 gwei "
            "(1,000,000 wei)",
        ),
    ],
)
def test_a_base_fee_over_the_cap_signs_nothing_and_says_both(
    base_fee: int, cap: Optional[int], words: str
) -> None:
    """A fee the cap cannot pay: nothing signed, the fee and the cap said in gwei."""
    with pytest.raises(FeeOverCap) as raised:
        _signed(_market(300_000, base_fee, cap))
    said = str(raised.value)
    assert words in said and "nothing was signed nor sent" in said, said
    assert "pass a higher --max-fee-per-gas" in said
    assert raised.value.fee == base_fee


def test_a_chain_without_base_fees_is_read_by_its_gas_price_under_the_cap() -> None:
    """No ``baseFeePerGas``: the gas price stands for it, the cap still holds."""
    market = _market(300_000, None, 2_000 * GWEI)
    assert _signed(market)["maxFeePerGas"] == 2_000 * GWEI  # 1,000 gwei twice: capped
    with pytest.raises(FeeOverCap, match=r"\(its gas price\) is 1000 gwei"):
        _signed(_market(300_000, None))


@pytest.mark.parametrize(
    "preset, cap",
    [
        ("gnosis", 100 * GWEI),
        ("mainnet", 100 * GWEI),
        ("base", GWEI),
        ("optimism", GWEI),
        ("arbitrum", GWEI),
        ("polygon", 1_000 * GWEI),
        ("celo", 1_000 * GWEI),
        (None, DEFAULT_MAX_FEE_PER_GAS),  # the devnet, a custom --rpc
    ],
)
def test_the_default_cap_is_the_chain_s_and_a_typed_one_wins(
    preset: Optional[str], cap: int
) -> None:
    """Each preset's cap, sourced as a design choice; ``--max-fee-per-gas`` over it."""
    chosen = chain_preset(preset) if preset else None
    assert chosen_max_fee_per_gas(None, chosen) == cap
    assert chosen_max_fee_per_gas(7, chosen) == 7
    if chosen is not None:
        assert chosen.sources["max_fee_per_gas"] == "fee_cap"
        # what one transaction at the default --max-gas may cost: 0.001 to 1 coin
        assert 10**15 <= cap * DEFAULT_MAX_GAS <= 10**18


def test_the_help_says_the_default_caps() -> None:
    """``mcp --help`` names the default cap and what is refused."""
    said = " ".join(
        CliRunner().invoke(cli, ["mcp", "--help"], terminal_width=200).output.split()
    )
    assert "--max-fee-per-gas" in said and "100 gwei on mainnet and gnosis" in said
    assert "1 gwei on base" in said and "1000 gwei on polygon" in said
    assert "base fee plus the tip is over this cap nothing is signed" in said
    assert "25 gwei on polygon" in said and "0 on arbitrum" in said


def test_the_receipt_gives_the_gas_used_and_the_fee_paid() -> None:
    """``gasUsed`` times ``effectiveGasPrice``, as decimal wei; the bound beside."""
    assert _market(1).gas_paid({"gasUsed": 327_798, "effectiveGasPrice": 3 * GWEI}) == {
        "gas_used": 327_798,
        "max_gas": DEFAULT_MAX_GAS,
        "fee_per_gas_wei": str(3 * GWEI),
        "fee_paid_wei": str(327_798 * 3 * GWEI),
    }


class _Refusing(_Eth):
    """A node that refuses a signed transaction with a JSON-RPC error (web3 7's)."""

    def __init__(self, words: str) -> None:
        super().__init__(300_000, GWEI)
        self.words = words
        self.waited = 0

    def send_raw_transaction(self, _raw: str) -> None:
        """Refuse, in the node's words."""
        raise Web3RPCError(str({"code": -32003, "message": self.words}))

    def wait_for_transaction_receipt(self, _tx: str, timeout: float) -> Dict[str, Any]:
        """Mined (for the bytes a node holds already)."""
        del timeout
        self.waited += 1
        return {"status": 1, "gasUsed": 21_000, "effectiveGasPrice": GWEI}


@pytest.mark.parametrize(
    "words",
    [
        "max fee per gas less than block base fee",
        "nonce too low",
        "insufficient funds for gas * price + value",
    ],
)
def test_a_node_refusing_the_bytes_is_said_never_an_internal_error(words: str) -> None:
    """A JSON-RPC refusal of ``eth_sendRawTransaction``: a ``MarketError`` in words.

    web3 7's ``Web3RPCError`` is no ``ValueError``: it escaped the call as "Internal
    server error" (found by the devnet run of fix29zd, a fee under the base fee).

    :param words: the node's refusal.
    """
    market = _market(300_000)
    market.w3 = SimpleNamespace(eth=_Refusing(words))  # type: ignore[assignment]
    with pytest.raises(MarketError, match="failed: Web3RPCError") as raised:
        market.broadcast(SignedRequest("0x02", "0x" + "99" * 32, 4), 1.0)
    assert words in str(raised.value)


def test_a_node_holding_the_bytes_already_is_waited_for() -> None:
    """The bytes "already known" (a JSON-RPC error): waited for, its receipt read."""
    market = _market(300_000)
    node = _Refusing("already known")
    market.w3 = SimpleNamespace(eth=node)  # type: ignore[assignment]
    sent = market.broadcast(SignedRequest("0x02", "0x" + "99" * 32, 4), 1.0)
    assert sent == "0x" + "99" * 32 and node.waited == 1


@pytest.mark.parametrize(
    "l1_fee, said",
    [
        ("0x2386f26fc10000", 10**16),  # as an OP Stack node answers it: hex
        (12_345, 12_345),  # as web3 may hand it over once formatted
        ("0x0", 0),
    ],
)
def test_an_l2_receipt_s_l1_data_fee_is_said_beside_the_gas(
    l1_fee: Any, said: int
) -> None:
    """Optimism/Base receipts carry ``l1Fee``, charged besides the gas: said, and summed.

    Anvil has no L1, so no devnet receipt carries it: this receipt is written here.

    :param l1_fee: the receipt's ``l1Fee``.
    :param said: the wei said for it.
    """
    receipt = {"gasUsed": 327_798, "effectiveGasPrice": 3 * GWEI, "l1Fee": l1_fee}
    gas = _market(1).gas_paid(receipt)
    assert gas["fee_paid_wei"] == str(327_798 * 3 * GWEI)
    assert gas["l1_fee_wei"] == str(said)
    assert gas["total_fee_wei"] == str(327_798 * 3 * GWEI + said)


@pytest.mark.parametrize(
    "l1_fee", [None, "", "0x", "12", "-0x1", -5, True, "0xZZ", 1.5]
)
def test_an_l1_fee_that_is_no_quantity_is_left_out(l1_fee: Any) -> None:
    """Absent or not a quantity: no ``l1_fee_wei``, never a guess."""
    receipt = {"gasUsed": 21_000, "effectiveGasPrice": 1, "l1Fee": l1_fee}
    gas = _market(1).gas_paid(receipt)
    assert "l1_fee_wei" not in gas and "total_fee_wei" not in gas
    assert gas["fee_paid_wei"] == "21000"


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
