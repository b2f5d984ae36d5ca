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

"""What the server's transactions pay per gas: a cancellation's fees, the gas paid (pure).

Every fee is at most ``--max-fee-per-gas``. The fees a request, an approval or a deposit
is signed with are every signing command's (:func:`mech_catalogue_cli.fee_caps.fees_to_sign`,
:meth:`.market.Marketplace.sign`).
"""

import re
from typing import Any, Dict, Optional, Tuple

from .market_errors import CancelOverCap, replacement_fee

#: the least tip of a cancellation, wei per gas (1 gwei: above any chain's least tip but
#: Polygon's, which ``min_tip`` raises it to)
CANCEL_LEAST_TIP = 10**9
#: gas of a plain transfer (a cancellation is one: zero value to the sender itself)
TRANSFER_GAS = 21_000


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
    :param min_tip: the least tip a cancellation signs, wei per gas
        (:attr:`~mech_catalogue_cli.fee_caps.TipChoice.cancel_least`: the chain's
        least, or the tip typed when more).
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
