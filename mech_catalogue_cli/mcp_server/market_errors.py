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
from decimal import Decimal
from typing import Any, Optional, Tuple

from mech_catalogue_core.chain.presets import GWEI
from mech_catalogue_core.chain.revert import revert_words

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
#: the fee per gas signed is at most this many times the latest block's base fee (a
#: base fee rises at most 12.5 % a block under EIP-1559: twice it stays minable for
#: several blocks), and at most ``--max-fee-per-gas``
FEE_CAP_TIMES_BASE_FEE = 2


class MarketError(RuntimeError):
    """A marketplace read or transaction failed; the message names it (never the key)."""


class RequestReverted(MarketError):
    """The request transaction was mined and reverted: only gas was spent, nothing paid."""


#: what a refusal before signing says the call signed, when it signed nothing before
#: (:class:`UnsignedRefusal`)
NOTHING_SIGNED_NOR_SENT = "nothing was signed nor sent"

#: what an offer's refusal before its request was signed says of the call
#: (``refused_offers.gas_refusal``, a revert at the estimate in ``sending.py``), each
#: with the words it says instead after the call's token approval
#: (``call_end_words.with_approval``: the request alone unsigned, never "nothing")
OFFER_UNSENT_WORDS = {
    "not signed, nothing was sent": "its request not signed",
    "(nothing was sent)": "(its request not signed)",
}
GAS_UNSENT, ESTIMATE_UNSENT = OFFER_UNSENT_WORDS

#: where a signed tip came from (:attr:`.fees.Tip.source`): ``--priority-fee-per-gas``
TIP_TYPED = "typed"
#: ... the node's ``eth_maxPriorityFeePerGas`` (a custom ``--rpc``, nothing typed)
TIP_FROM_NODE = "node"
#: ... the chain's least (the ``--chain`` preset's, the devnet's 0, or 0 when a custom
#: node has no such method)
TIP_LEAST = "least"


class UnsignedRefusal(MarketError):
    """A transaction refused before it was signed: what happened, what was signed, what to do.

    Its sentence is ``"{why}: {signed}. {advice}"``, ``signed`` being
    :data:`NOTHING_SIGNED_NOR_SENT` when built. A call that signed something before it
    (a token approval, an off-chain request its mech may settle) says that instead, in
    the same sentence (:meth:`signed_before`, read by
    :func:`.call_end_words.refusal_said`): never "nothing was signed" beside it.

    :param why: what was refused and why (no final stop).
    :param advice: what to do ("": nothing said).
    """

    def __init__(self, why: str, advice: str = "") -> None:
        """Keep the parts; say nothing was signed.

        :param why: what was refused and why.
        :param advice: what to do ("": none).
        """
        self.why = why
        self.advice = advice
        super().__init__(self._sentence(NOTHING_SIGNED_NOR_SENT))

    def _sentence(self, signed: str) -> str:
        """The refusal with ``signed`` as what the call signed."""
        return f"{self.why}: {signed}" + (f". {self.advice}" if self.advice else "")

    def signed_before(self, signed: str) -> "UnsignedRefusal":
        """The same refusal, saying what the call signed before it (pure).

        :param signed: what the call signed before this transaction, and that this one
            was not (``call_end_words.signed_before_words``).
        :return: a copy of the same kind, its fields kept, its sentence saying
            ``signed`` where it said :data:`NOTHING_SIGNED_NOR_SENT`.
        """
        said = type(self).__new__(type(self), self._sentence(signed))
        said.__dict__.update(self.__dict__)
        return said


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


def _tip_said(tip: int, source: Optional[str]) -> Tuple[str, str]:
    """Which tip a fee over the cap counted, and how to choose another (pure).

    :param tip: the tip signed, wei per gas (more than 0).
    :param source: where it came from (:data:`TIP_TYPED`, :data:`TIP_FROM_NODE`,
        :data:`TIP_LEAST`; None: unsaid).
    :return: the tip named with its value in gwei, and the advice's clause.
    """
    if source == TIP_TYPED:
        return (
            f"the tip you gave (--priority-fee-per-gas {say_gwei(tip)})",
            " or a lower --priority-fee-per-gas",
        )
    if source == TIP_FROM_NODE:
        return (
            f"the tip the node suggested ({say_gwei(tip)}, its "
            "eth_maxPriorityFeePerGas: no --priority-fee-per-gas was given)",
            ", or set a lower tip with --priority-fee-per-gas (the node's suggestion is "
            "signed only when none is given)",
        )
    if source == TIP_LEAST:
        return (
            f"the chain's least tip ({say_gwei(tip)}, the --chain preset's)",
            ", or set another tip with --priority-fee-per-gas (under the chain's "
            "least, its nodes may refuse or never mine the transaction)",
        )
    return (
        f"the tip signed ({say_gwei(tip)})",
        " or a lower --priority-fee-per-gas (the tip signed is the one given, else "
        "the preset's least, else the node's suggestion)",
    )


class FeeOverCap(UnsignedRefusal):
    """The base fee plus the tip signed is over ``--max-fee-per-gas``.

    Nothing was signed.

    :param fee: the base fee read, wei per gas.
    :param cap: ``--max-fee-per-gas``, wei per gas.
    :param tip: the tip signed (the chain's least, ``--priority-fee-per-gas`` or the
        node's suggestion), wei per gas.
    """

    def __init__(  # pylint: disable=too-many-arguments
        self,
        where: str,
        fee: int,
        cap: int,
        tip: int = 0,
        tip_source: Optional[str] = None,
    ) -> None:
        """Say the fee needed, the cap, and where the tip came from, in gwei and wei.

        :param where: the block and the node it was read from.
        :param fee: the base fee read, wei per gas.
        :param cap: ``--max-fee-per-gas``, wei per gas.
        :param tip: the tip signed (0: none), wei per gas.
        :param tip_source: where the tip came from (:data:`TIP_TYPED`, the node's
            suggestion :data:`TIP_FROM_NODE`, the chain's :data:`TIP_LEAST`; None:
            unsaid).
        """
        needed, advice = f"{say_gwei(fee)} per gas", ""
        if tip:
            which, advice = _tip_said(tip, tip_source)
            needed = (
                f"{needed}, and with {which} a transaction needs {say_gwei(fee + tip)}"
            )
        super().__init__(
            f"the base fee of {where} is {needed}, over --max-fee-per-gas "
            f"{say_gwei(cap)}",
            "Call again when the fee is lower, or pass a higher --max-fee-per-gas to "
            "pay it" + advice,
        )
        self.fee = fee
        self.tip = tip
        self.tip_source = tip_source
        self.cap = cap


class CancelOverCap(FeeOverCap):
    """A cancellation within ``--max-fee-per-gas`` could not replace its request.

    Its request was signed before it, so its words are its own (never rebuilt by
    :meth:`UnsignedRefusal.signed_before`).

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


class TipOverCap(UnsignedRefusal):
    """The node's suggested tip is over ``--max-fee-per-gas``: nothing was signed.

    :param tip: the node's ``eth_maxPriorityFeePerGas``, wei per gas.
    :param cap: ``--max-fee-per-gas``, wei per gas.
    """

    def __init__(self, node: str, tip: int, cap: int) -> None:
        """Say the suggestion, the cap and how to choose the tip.

        :param node: the node asked (its URL redacted).
        :param tip: its suggestion, wei per gas.
        :param cap: ``--max-fee-per-gas``, wei per gas.
        """
        super().__init__(
            f"the node {node} suggests a tip (eth_maxPriorityFeePerGas) of "
            f"{say_gwei(tip)} per gas, over --max-fee-per-gas {say_gwei(cap)} (no "
            "--priority-fee-per-gas was given)",
            "Give --priority-fee-per-gas WEI to choose the tip, or a higher "
            "--max-fee-per-gas to pay it",
        )
        self.tip = tip
        self.cap = cap


def say_gwei(wei: int) -> str:
    """Say a fee per gas in gwei, with its wei (pure).

    :param wei: wei per gas.
    :return: e.g. ``"250 gwei (250,000,000,000 wei)"``, ``"0.0012 gwei (1,200,000
        wei)"``.
    """
    gwei = format((Decimal(wei) / GWEI).normalize(), "f")
    return f"{gwei} gwei ({wei:,} wei)"


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
