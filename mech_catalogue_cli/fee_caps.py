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

"""The fees per gas a transaction is signed with, within ``--max-fee-per-gas``.

One rule for every command that signs (``mcp``, ``prepay``, ``publish``): EIP-1559 fees,
``maxFeePerGas`` twice the latest block's base fee plus the tip and at most the cap,
``maxPriorityFeePerGas`` the tip (:class:`TipChoice`); when the base fee plus the tip,
or the node's suggested tip, is over the cap nothing is signed (:class:`FeeOverCap`,
:class:`TipOverCap`, in words that say the fee needed, where its tip came from, the cap
and what to do; both are refusals before signing, :class:`UnsignedRefusal`, which a
command that signed something before rebuilds to say what). Of the node's fee
suggestions only its tip (``eth_maxPriorityFeePerGas``) is read, and only with no
``--chain`` preset and no ``--priority-fee-per-gas``. The MCP server's own fee
rules (a cancellation's, the gas paid) are :mod:`mech_catalogue_cli.mcp_server.fees`.
"""

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable, NamedTuple, Optional, Tuple

from mech_catalogue_core.chain.presets import (
    DEFAULT_MAX_FEE_PER_GAS,
    DEFAULT_MIN_PRIORITY_FEE_PER_GAS,
    GWEI,
)

from .raw_blocks import block_numbers, node_tip

#: the fee per gas signed is at most this many times the latest block's base fee (a
#: base fee rises at most 12.5 % a block under EIP-1559: twice it stays minable for
#: several blocks), and at most ``--max-fee-per-gas``
FEE_CAP_TIMES_BASE_FEE = 2


class MarketError(RuntimeError):
    """A chain read or a transaction to sign failed; the message names it (never the key).

    The MCP server's marketplace errors are its kinds
    (:mod:`mech_catalogue_cli.mcp_server.market_errors`), and so are the fee refusals
    here, which every command that signs raises.
    """


#: what a refusal before signing says the call signed, when it signed nothing before
#: (:class:`UnsignedRefusal`)
NOTHING_SIGNED_NOR_SENT = "nothing was signed nor sent"

#: where a signed tip came from (:attr:`Tip.source`): ``--priority-fee-per-gas``
TIP_TYPED = "typed"
#: ... the node's ``eth_maxPriorityFeePerGas`` (a custom ``--rpc``, nothing typed)
TIP_FROM_NODE = "node"
#: ... the chain's least (the ``--chain`` preset's, the devnet's 0, or 0 when a custom
#: node has no such method)
TIP_LEAST = "least"


class UnsignedRefusal(MarketError):
    """A transaction refused before it was signed: what happened, what was signed, what to do.

    Its sentence is ``"{why}: {signed}. {advice}"``, ``signed`` being
    :data:`NOTHING_SIGNED_NOR_SENT` when built. A command that signed something before
    it (the MCP server's token approval, an off-chain request its mech may settle;
    ``prepay``'s approval) says that instead, in the same sentence
    (:meth:`signed_before`): never "nothing was signed" beside it.

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
        """The same refusal, saying what the command signed before it (pure).

        :param signed: what was signed before this transaction, and that this one was
            not, in words (the MCP server's ``call_end_words.refusal_said``, ``prepay``'s
            ``approval_before_deposit``).
        :return: a copy of the same kind, its fields kept, its sentence saying
            ``signed`` where it said :data:`NOTHING_SIGNED_NOR_SENT`.
        """
        said = type(self).__new__(type(self), self._sentence(signed))
        said.__dict__.update(self.__dict__)
        return said


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
    :param tip_source: where the tip came from (:data:`TIP_TYPED`,
        :data:`TIP_FROM_NODE`, :data:`TIP_LEAST`; None: unsaid).
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


class Tip(NamedTuple):
    """A tip to sign and where it came from.

    :param wei: wei per gas.
    :param source: :data:`TIP_TYPED`, :data:`TIP_FROM_NODE` or :data:`TIP_LEAST`.
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
        than the chain's nodes take (the MCP server's ``fees.cancellation_fees`` also
        outbids the tip of the transaction it replaces).

        :return: wei per gas.
        """
        return max(self.typed or 0, self.least)


@dataclass(frozen=True)
class FeeBounds:
    """What a command's transactions are signed within: the cap and the tip chosen.

    :param max_fee_per_gas: ``--max-fee-per-gas``, wei per gas (the CLI's choice:
        typed, else the ``--chain`` preset's, else ``DEFAULT_MAX_FEE_PER_GAS``, 100 gwei).
    :param tips: which tip is signed (the CLI's choice: typed, else the preset's
        least, else the node's suggestion).
    """

    max_fee_per_gas: int = DEFAULT_MAX_FEE_PER_GAS
    tips: TipChoice = field(default_factory=TipChoice)


def request_fees(base_fee: int, where: str, cap: int, tip: Tip) -> Tuple[int, int]:
    """The fees to sign: twice the base fee plus the tip, within the cap (pure).

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


def latest_base_fee(w3: Any, node: str) -> Tuple[int, str]:
    """The latest block's base fee (its gas price before EIP-1559), and where read.

    Read raw (:func:`.raw_blocks.block_numbers`), so a Polygon block's long
    ``extraData`` does not refuse it (blocking). A node answering no block or no
    quantity raises ``raw_blocks.BlockUnread``; one that cannot be reached, what its
    provider raises (``OSError``, ``Web3Exception``).

    :param w3: a connected ``Web3``.
    :param node: its URL, redacted (for the words).
    :return: wei per gas, and the block and node it was read from (for errors).
    """
    block = block_numbers(w3, "latest", ("number", "baseFeePerGas"))
    read = block["baseFeePerGas"]
    where = f"block {block['number']} on {node}"
    if read is None:
        read, where = w3.eth.gas_price, f"{where} (its gas price)"
    return int(read), where


def fees_to_sign(w3: Any, tips: TipChoice, cap: int, node: str) -> Tuple[int, int]:
    """The fees to sign now: twice the latest base fee plus the tip, within the cap.

    A node lying about the base fee or its tip moves at most the fee signed, never
    past the cap (blocking: reads the node). Nothing is signed when the node's
    suggested tip is over ``cap`` (:class:`TipOverCap`) or the base fee plus the tip
    is (:class:`FeeOverCap`); a node answering no quantity raises
    ``raw_blocks.TipUnread`` or ``BlockUnread`` (``ValueError`` s), one that cannot be
    reached its provider's errors.

    :param w3: a connected ``Web3``.
    :param tips: which tip is signed (:meth:`TipChoice.tip`).
    :param cap: ``--max-fee-per-gas``, wei per gas.
    :param node: the node's URL, redacted (for the words).
    :return: ``(maxFeePerGas, maxPriorityFeePerGas)``, wei per gas.
    """
    tip = tips.tip(lambda: node_tip(w3), cap, node)
    base_fee, where = latest_base_fee(w3, node)
    return request_fees(base_fee, where, cap, tip)
