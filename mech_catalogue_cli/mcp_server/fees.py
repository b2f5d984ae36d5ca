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

"""What a transaction pays per gas: the fees signed, a cancellation's, the gas paid (pure).

Every fee is at most ``--max-fee-per-gas``; of the node's fee suggestions only its tip
(``eth_maxPriorityFeePerGas``) is read, and only with no ``--chain`` preset and no
``--priority-fee-per-gas`` (:meth:`.market.Marketplace.sign`).
"""

import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

from mech_catalogue_core.chain.presets import DEFAULT_MIN_PRIORITY_FEE_PER_GAS

from .market_errors import (
    FEE_CAP_TIMES_BASE_FEE,
    TIP_FROM_NODE,
    TIP_LEAST,
    TIP_TYPED,
    CancelOverCap,
    FeeOverCap,
    TipOverCap,
    replacement_fee,
)

#: the least tip of a cancellation, wei per gas (1 gwei: above any chain's least tip but
#: Polygon's, which ``min_tip`` raises it to)
CANCEL_LEAST_TIP = 10**9
#: gas of a plain transfer (a cancellation is one: zero value to the sender itself)
TRANSFER_GAS = 21_000


class Tip(NamedTuple):
    """A tip to sign and where it came from.

    :param wei: wei per gas.
    :param source: :data:`.market_errors.TIP_TYPED`, ``TIP_FROM_NODE`` or
        ``TIP_LEAST``.
    """

    wei: int
    source: str


@dataclass
class TipChoice:
    """Which tip (``maxPriorityFeePerGas``) a transaction is signed with.

    :param least: the least the chain's nodes take (the ``--chain`` preset's
        ``min_priority_fee_wei``; 0 without one), wei per gas.
    :param typed: ``--priority-fee-per-gas``, wei per gas (None: not typed).
    :param from_node: ask the node's ``eth_maxPriorityFeePerGas`` at each signing (no
        tip typed and no preset: a custom ``--rpc``).
    """

    least: int = DEFAULT_MIN_PRIORITY_FEE_PER_GAS
    typed: Optional[int] = None
    from_node: bool = False

    def tip(self, read_node: Callable[[], Optional[int]], cap: int, node: str) -> Tip:
        """The tip to sign now: typed, else the node's suggestion, else the least.

        :param read_node: reads the node's suggestion, wei per gas (None: the node has
            no such method); called only with :attr:`from_node` and nothing typed.
        :param cap: ``--max-fee-per-gas``, wei per gas.
        :param node: the node's URL, redacted (for the error).
        :return: the tip, wei per gas, and where it came from.
        :raises TipOverCap: when the node's suggestion is over ``cap`` (nothing is
            signed); what ``read_node`` raises (an answer that is no quantity).
        """
        if self.typed is not None:
            return Tip(self.typed, TIP_TYPED)
        suggested = read_node() if self.from_node else None
        if suggested is None:
            return Tip(self.least, TIP_LEAST)
        if suggested > cap:
            raise TipOverCap(node, suggested, cap)
        return Tip(suggested, TIP_FROM_NODE)

    @property
    def cancel_least(self) -> int:
        """The least tip a cancellation signs, wei per gas.

        The tip typed when it is more than the chain's least, else the chain's least: a
        tip typed under a preset's least is warned of at start and signed for requests
        (the user's choice), but a cancellation must be mined, so it never tips less
        than the chain's nodes take (:func:`cancellation_fees` also outbids the tip of
        the transaction it replaces).

        :return: wei per gas.
        """
        return max(self.typed or 0, self.least)


def request_fees(base_fee: int, where: str, cap: int, tip: Tip) -> Tuple[int, int]:
    """The fees to sign: twice the base fee plus the tip, within the cap.

    :param base_fee: the latest block's base fee (its gas price before EIP-1559), wei.
    :param where: the block and node it was read from, for the error.
    :param cap: ``--max-fee-per-gas``, wei per gas.
    :param tip: the tip signed and where it came from (:meth:`TipChoice.tip`: the
        chain's least, ``--priority-fee-per-gas``, or the node's suggestion).
    :return: ``(maxFeePerGas, maxPriorityFeePerGas)``, wei per gas.
    :raises FeeOverCap: when the base fee plus the tip is over the cap (a transaction
        signed under it would be refused or wait unmined, or pay a spike): it says the
        fee needed, the cap, and where the tip came from.
    """
    if base_fee + tip.wei > cap:
        raise FeeOverCap(where, base_fee, cap, tip.wei, tip.source)
    return min(base_fee * FEE_CAP_TIMES_BASE_FEE + tip.wei, cap), tip.wei


def cancellation_fees(  # pylint: disable=too-many-arguments
    pending: Tuple[str, int],
    old_fees: Tuple[int, int],
    base_fee: int,
    min_tip: int,
    cap: Optional[int],
) -> Tuple[int, int]:
    """The fees of a transfer replacing a pending transaction at its nonce.

    At least twice the pending one's fees (nodes take a replacement from a 10 % raise)
    and twice the base fee, plus a tip; cut to the cap, and refused when that no longer
    outbids the pending transaction by 10 % or pays the base fee (adv29zp F1: no
    transaction is ever signed over the cap).

    :param pending: the pending transaction's hash and account nonce (for the error).
    :param old_fees: its ``(maxFeePerGas, maxPriorityFeePerGas)``, wei per gas.
    :param base_fee: the latest block's base fee, wei per gas.
    :param min_tip: the least tip a cancellation signs (:attr:`TipChoice.cancel_least`:
        the chain's least, or the tip typed when more), wei per gas.
    :param cap: ``--max-fee-per-gas`` (None: no cap).
    :return: ``(maxFeePerGas, maxPriorityFeePerGas)``, wei per gas.
    :raises CancelOverCap: when a replacement within the cap cannot be mined: the
        message says what to do.
    """
    old_fee, old_tip = old_fees
    tip = max(2 * old_tip, CANCEL_LEAST_TIP, min_tip)
    fee_cap = max(2 * old_fee, 2 * base_fee) + tip
    if cap is None:
        return fee_cap, tip
    fee_cap = min(fee_cap, cap)
    tip = min(tip, fee_cap)
    least = max(replacement_fee(old_fee), base_fee)
    if fee_cap < least or tip < replacement_fee(old_tip):
        raise CancelOverCap(_cancel_over_cap(pending, old_fee, least, cap), least, cap)
    return fee_cap, tip


def _cancel_over_cap(
    pending: Tuple[str, int], old_fee: int, least: int, cap: int
) -> str:
    """Why a cancellation is not signed under ``--max-fee-per-gas``."""
    tx_hash, account_nonce = pending
    return (
        f"transaction {tx_hash} (account nonce {account_nonce}, "
        f"signed at {old_fee:,} wei per gas) is not mined and its request may no "
        f"longer be paid, but its cancellation would need at least {least:,} wei "
        f"per gas (10 % over it, and the base fee now), over --max-fee-per-gas "
        f"{cap:,} wei: the cancellation was not signed. The request may still "
        "be mined (its price was fixed when signed); nothing else is paid for "
        "this call until its nonce is taken. Call again when the base fee is "
        f"lower, or give --max-fee-per-gas {least:,} or more to cancel it"
    )


def gas_paid(receipt: Any, max_gas: int) -> Dict[str, Any]:
    """What a mined transaction cost in gas, from its receipt.

    An OP Stack chain's receipt (Optimism, Base, Celo) also carries ``l1Fee``: the L1
    data fee charged to the sender besides ``gasUsed`` times ``effectiveGasPrice`` (the
    OP Stack's ``eth_getTransactionReceipt`` extension; anvil has no L1, so only unit
    tests see it).

    :param receipt: its receipt (``gasUsed``, ``effectiveGasPrice``; ``l1Fee`` when the
        chain has one: an int or a ``0x`` hex quantity).
    :param max_gas: the gas bound it was signed under (``--max-gas``).
    :return: ``{"gas_used": int, "max_gas": int (the bound), "fee_per_gas_wei": str,
        "fee_paid_wei": str}`` (wei as decimal strings: ``gasUsed`` times
        ``effectiveGasPrice``), and with an ``l1Fee`` the record also has
        ``"l1_fee_wei"`` (it) and ``"total_fee_wei"`` (both fees); an ``l1Fee`` that is
        no quantity is left out, never guessed.
    """
    used = int(receipt["gasUsed"])
    price = int(receipt.get("effectiveGasPrice", 0))
    paid: Dict[str, Any] = {
        "gas_used": used,
        "max_gas": max_gas,
        "fee_per_gas_wei": str(price),
        "fee_paid_wei": str(used * price),
    }
    l1_fee = _quantity(receipt.get("l1Fee"))
    if l1_fee is not None:
        paid["l1_fee_wei"] = str(l1_fee)
        paid["total_fee_wei"] = str(used * price + l1_fee)
    return paid


def _quantity(value: Any) -> Optional[int]:
    """A receipt field as a non-negative int: an int, or a ``0x`` hex quantity.

    :param value: the field (None: absent).
    :return: it, or None when absent or not a quantity.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and re.fullmatch(r"0x[0-9a-fA-F]{1,64}", value):
        return int(value, 16)
    return None
