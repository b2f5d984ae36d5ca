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

"""What a marketplace transaction is refused for, and the gas and fee bounds it is signed within.

The errors :class:`.market.Marketplace` raises (:class:`MarketError` and its kinds) and
the words that say a gas estimate or a fee against ``--max-gas`` and
``--max-fee-per-gas`` (docs/mcp.md, "Gas: what a request may cost"). Pure: no chain
read here.
"""

import re
from typing import Any, Optional

from mech_catalogue_core.chain.revert import revert_words

# the fee refusals are every signing command's, named here too as the server's errors
from ..fee_caps import (  # noqa: F401  # pylint: disable=unused-import
    FEE_CAP_TIMES_BASE_FEE,
    NOTHING_SIGNED_NOR_SENT,
    TIP_FROM_NODE,
    TIP_LEAST,
    TIP_TYPED,
    FeeOverCap,
    MarketError,
    TipOverCap,
    UnsignedRefusal,
    say_gwei,
)

#: the most gas one transaction is signed for (``--max-gas``): the marketplace runs the
#: chosen mech's code inside the user's request (``requestFromMarketplace``), so a
#: stranger's code decides the estimate. A plain native request used 276,510 to 327,798
#: gas on the devnet (ai-registry-mech 0.8.28's bytecode, as the presets' marketplaces
#: run; ``docs/mcp.md`` "Gas: what a request may cost"); a token request adds an ERC-20
#: ``transferFrom``. One million is about three times the plain request
DEFAULT_MAX_GAS = 1_000_000
#: a journal entry's ``extra`` key: its request transaction's gas
#: (:meth:`Marketplace.gas_paid`), said in the call's ``_meta``
GAS_KEY = "gas"


class RequestReverted(MarketError):
    """The request transaction was mined and reverted: only gas was spent, nothing paid."""


#: what an offer's refusal before its request was signed says of the call
#: (``refused_offers.gas_refusal``, a revert at the estimate in ``sending.py``), each
#: with the words it says instead after the call's token approval
#: (``call_end_words.with_approval``: the request alone unsigned, never "nothing")
OFFER_UNSENT_WORDS = {
    "not signed, nothing was sent": "its request not signed",
    "(nothing was sent)": "(its request not signed)",
}
GAS_UNSENT, ESTIMATE_UNSENT = OFFER_UNSENT_WORDS


class GasOverBound(UnsignedRefusal):
    """A transaction's gas estimate is over ``--max-gas``: nothing was signed nor sent.

    :param address: the contract called (the marketplace, for a request).
    :param estimate: the node's gas estimate (None: the node, asked to estimate within
        the bound, answered that it runs out of gas there).
    :param bound: ``--max-gas``.
    """

    def __init__(self, address: str, estimate: Optional[int], bound: int) -> None:
        """Say which transaction, its estimate and the bound."""
        super().__init__(
            f"the transaction to {address} would take {gas_words(estimate, bound)} "
            f"by the node's estimate, over --max-gas {bound:,}"
        )
        self.estimate = estimate
        self.bound = bound


class CancelOverCap(FeeOverCap):
    """A cancellation within ``--max-fee-per-gas`` could not replace its request.

    Its request was signed before it, so its words are its own (never rebuilt by
    :meth:`~mech_catalogue_cli.fee_caps.UnsignedRefusal.signed_before`).

    :param fee: the least fee per gas the cancellation needs, wei.
    :param cap: ``--max-fee-per-gas``, wei per gas.
    """

    def __init__(  # pylint: disable=super-init-not-called,non-parent-init-called
        self, message: str, fee: int, cap: int
    ) -> None:
        """Keep the sentence and the figures.

        :param message: what happened and what to do (``Marketplace.sign_cancel``).
        :param fee: the least fee per gas the cancellation needs, wei.
        :param cap: ``--max-fee-per-gas``, wei per gas.
        """
        MarketError.__init__(self, message)  # its own words, not FeeOverCap's
        self.why, self.advice = message, ""
        self.fee = fee
        self.cap = cap
        self.tip, self.tip_source = 0, None

    def signed_before(self, signed: str) -> "UnsignedRefusal":
        """Itself: a cancellation's words say its signed request already.

        :param signed: unused.
        :return: this refusal.
        """
        del signed
        return self


class StateUnavailable(MarketError):
    """The node holds no state at a past block the server must read (a pruned node).

    The message names the node (its URL without path or query), the block asked and
    what to do: an RPC node keeping that much state, or a smaller ``--final-depth``.
    """


class EstimateReverted(MarketError):
    """A transaction's gas estimate reverted: nothing was signed nor sent.

    ``reason`` is the revert in words (:func:`~mech_catalogue_core.chain.revert.revert_words`:
    a reason as a contract wrote it is cleaned, never quoted raw), for a request the
    mech's own, as the marketplace passes its revert data up unchanged. web3's message,
    which quotes the reason raw, is not used.
    """

    def __init__(self, address: str, data: Any, bound: Optional[int] = None) -> None:
        """Say which contract's estimate reverted, and with what.

        :param address: the contract called.
        :param data: the revert data (web3's ``ContractLogicError.data``).
        :param bound: the gas the estimate ran within (``--max-gas``; None: unsaid). A
            mech whose code needs more reverts the request within it too.
        """
        self.reason = revert_words(data)
        self.bound = bound
        #: " within --max-gas N gas" ("" when unsaid): for the refusal's words
        self.within = "" if bound is None else f" within --max-gas {bound:,} gas"
        super().__init__(
            f"the request transaction to {address} reverted at its gas estimate "
            f"({self.reason})"
        )


def gas_words(estimate: Optional[int], bound: int) -> str:
    """Say a gas estimate over ``--max-gas`` (pure).

    :param estimate: the node's estimate (None: only that it is over ``bound``).
    :param bound: ``--max-gas``.
    :return: e.g. ``"10,282,093 gas"`` or ``"more than 1,000,000 gas"``.
    """
    return f"more than {bound:,} gas" if estimate is None else f"{estimate:,} gas"


#: what nodes answer an estimate that runs out of the gas it was given (geth, anvil,
#: erigon, nethermind: "gas required exceeds allowance", "out of gas")
OUT_OF_GAS = re.compile(r"gas required exceeds|out of gas", re.IGNORECASE)


def replacement_fee(fee: int) -> int:
    """The least fee a node takes to replace a pending one: 10 % more, rounded up."""
    return -(-fee * 11 // 10)
