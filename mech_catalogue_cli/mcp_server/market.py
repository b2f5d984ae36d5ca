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

"""The MechMarketplace request and its delivery, over web3.

Request id: ``MechMarketplace.getRequestId(mech, requester, data, deliveryRate,
paymentType, nonce)`` where ``nonce`` is ``mapNonces(requester)``, the requester's count
of requests (the contract increments it per request). So the id of the next request is
known before it is sent: :meth:`Marketplace.next_request_id`. The call journal
(:mod:`.journal`, one JSON file per call key) records it before the transaction is
sent; a retry of the same call reads ``getRequestStatus(id)`` first, and pays only when
the chain has never seen that request. The signed transaction, its hash and its account
nonce are journalled before it is broadcast: while that account nonce is not mined, a
retry broadcasts the same transaction again instead of signing a new one (a new one took
the next pending nonce, and both were mined: paid twice).

Delivery: ``getRequestStatus`` turns ``Delivered`` (3); the data is in the delivering
mech's ``Deliver`` event (``mapRequestIdInfos(id).deliveryMech``, which after the request's
response timeout may be another mech than the one paid): the ai-registry-mech
``Deliver(address indexed mech, address indexed mechServiceMultisig, bytes32 requestId,
uint256 deliveryRate, bytes data)`` or the devnet fixture's ``Deliver(address indexed
sender, bytes32 requestId, bytes data)``. :meth:`Marketplace.delivery` returns the data
with that delivering mech (:class:`Delivered`).

Log reads (``Deliver`` events, and this requester's ``MarketplaceRequest`` events) span
numbered blocks up to the head read just before (never ``latest``: hosted RPCs count it as
the head too), and a range the RPC refuses as too wide is read in halves
(:func:`mech_catalogue_core.chain.rpc_limits.narrow_log_range`, as the agent does).

A call whose journal entry is missing is looked up on chain first
(:meth:`Marketplace.own_request`: this requester's request with the same request data in the last
:data:`REQUEST_LOOKBACK_BLOCKS` blocks) and resumed instead of paid again.

The signing key stays inside :class:`Marketplace` (``eth_account``); nothing here logs,
returns or puts it in an error.
"""

import logging
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from eth_abi import decode as abi_decode
from eth_account import Account
from eth_account.typed_transactions import TypedTransaction
from eth_typing import HexStr
from hexbytes import HexBytes
from mech_catalogue_core.chain.marketplace import LogQuery
from mech_catalogue_core.chain.presets import DEFAULT_MAX_FEE_PER_GAS
from mech_catalogue_core.chain.revert import revert_words
from mech_catalogue_core.chain.rpc_limits import narrow_log_range
from web3 import Web3
from web3.exceptions import (
    ContractLogicError,
    TimeExhausted,
    TransactionNotFound,
    Web3Exception,
    Web3RPCError,
)

from mech_catalogue_cli.adapters.http import DeadlineExceeded, deadline
from mech_catalogue_cli.keys import redacted_url, without_url

from ..fee_caps import TipChoice, fees_to_sign, latest_base_fee
from .fees import TRANSFER_GAS, cancellation_fees, gas_paid
from .finality import FinalBlock, final_block, finalized_number
from .market_abi import DELIVER_TOPICS, MARKETPLACE_ABI, MECH_PRICE_ABI, REQUEST_TOPICS
from .market_errors import (
    DEFAULT_MAX_GAS,
    OUT_OF_GAS,
    EstimateReverted,
    GasOverBound,
    MarketError,
    RequestReverted,
    StateUnavailable,
)
from .node_deadline import CallBoundSession, failure_words, reads_within, refuse_spent
from .node_words import node_said

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: MechMarketplace.RequestStatus
STATUS_DOES_NOT_EXIST = 0
STATUS_REQUESTED_PRIORITY = 1
STATUS_REQUESTED_EXPIRED = 2
STATUS_DELIVERED = 3

#: how far back (blocks) a call with no journal entry is looked for on chain before it is
#: paid: about 5.8 days on Gnosis (5 s blocks), 2.3 days on Base (2 s blocks)
REQUEST_LOOKBACK_BLOCKS = 100_000
#: gas a mech's ``maxDeliveryRate()`` is read with at most: the getter reads one slot
#: (under 10,000 gas); a mech whose code burns what it is given then costs the node
#: milliseconds under the send lock, not its whole cap (30 million gas, 1.2 s on anvil)
PRICE_READ_GAS = 1_000_000


@dataclass(frozen=True)
class Delivered:
    """A delivered request's data and who delivered it.

    :param data: the ``Deliver`` event's data (by convention a 32-byte IPFS digest).
    :param mech: ``mapRequestIdInfos(id).deliveryMech``, lowercase 0x hex, the emitter of
        that ``Deliver`` event.
    :param block: the block of the ``Deliver`` event.
    :param requester: ``mapRequestIdInfos(id).requester``, lowercase 0x hex.
    """

    data: bytes
    mech: str
    block: int
    requester: str


@dataclass(frozen=True)
class OwnRequest:
    """One of this requester's requests found on chain.

    :param request_id: 0x + 64 hex.
    :param mech: the priority mech, lowercase 0x hex.
    :param data: the request data, 0x hex.
    :param block: the block of its ``MarketplaceRequest`` event.
    :param tx_hash: its transaction, 0x + 64 hex.
    """

    request_id: str
    mech: str
    data: str
    block: int
    tx_hash: str


@dataclass(frozen=True)
class SignedRequest:
    """A signed request transaction, journalled before it is broadcast.

    :param raw_tx: 0x + hex of the signed transaction.
    :param tx_hash: 0x + 64 hex.
    :param account_nonce: the requester account's nonce in it.
    """

    raw_tx: str
    tx_hash: str
    account_nonce: int


class SentTransaction(str):
    """A mined transaction's hash (0x + 64 hex); ``gas``: what it cost, from its receipt.

    ``gas`` is :meth:`Marketplace.gas_paid`'s record (None when not read).
    """

    gas: Optional[Dict[str, Any]] = None


def _hex32(value: bytes) -> str:
    return "0x" + bytes(value).hex()


class Marketplace:  # pylint: disable=too-many-public-methods
    """One MechMarketplace on one chain, paid from one account."""

    def __init__(  # pylint: disable=too-many-arguments
        self,
        rpc_url: str,
        marketplace: str,
        private_key: str,
        timeout: float = 30.0,
        gas_bounds: Tuple[int, Optional[int]] = (DEFAULT_MAX_GAS, None),
    ) -> None:
        """Connect.

        :param rpc_url: the chain's JSON-RPC URL.
        :param marketplace: the MechMarketplace address.
        :param private_key: the paying account's key (kept in this object only).
        :param timeout: seconds per RPC request, answer included (web3's own timeout is
            per socket read), within a paid call's time left (:mod:`.node_deadline`).
        :param gas_bounds: ``(--max-gas, --max-fee-per-gas)``: the most gas a signed
            transaction may use, and the most wei per gas it may pay (None:
            :data:`~mech_catalogue_core.chain.presets.DEFAULT_MAX_FEE_PER_GAS`; the
            CLI passes the ``--chain`` preset's ``max_fee_per_gas``).
        """
        self.max_gas = gas_bounds[0]
        self.max_fee_per_gas = (
            DEFAULT_MAX_FEE_PER_GAS if gas_bounds[1] is None else gas_bounds[1]
        )
        self.w3 = Web3(
            Web3.HTTPProvider(
                rpc_url,
                request_kwargs={"timeout": timeout},
                session=CallBoundSession(timeout),
            )
        )
        self.rpc_url = rpc_url
        self.address = Web3.to_checksum_address(marketplace)
        self.contract = self.w3.eth.contract(address=self.address, abi=MARKETPLACE_ABI)
        self._account = Account.from_key(  # pylint: disable=no-value-for-parameter
            private_key
        )
        self.requester = self._account.address
        # own_request's memory: this requester's requests by request data, and the last
        # block read for them (-1: none yet)
        self._own_by_data: Dict[str, OwnRequest] = {}
        self._scanned_to = -1
        # which block is final: the node's "finalized" tag first (False: the depth
        # only, as ``--final-depth`` given asks)
        self.finalized_tag = True
        # the tip signed (the CLI sets it: :func:`.gas_options.choose_tip`)
        self.tips = TipChoice()

    def __repr__(self) -> str:
        """Name the marketplace and requester only (never the key).

        :return: the text.
        """
        return (
            f"Marketplace({self.address} on {redacted_url(self.rpc_url)}, "
            f"requester {self.requester})"
        )

    def _call(self, name: str, *args: Any, block: Optional[int] = None) -> Any:
        try:
            function = getattr(self.contract.functions, name)(*args)
            if block is None:
                return function.call()
            return function.call(block_identifier=block)
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # ContractLogicError, ValueError, OSError, and web3 7's Web3RPCError
            raise MarketError(
                f"MechMarketplace {self.address}.{name} failed through "
                f"{redacted_url(self.rpc_url)}: "
                f"{failure_words(exc)}"
            ) from exc

    def sign_hash(self, digest: bytes) -> str:
        """Sign a digest as is (no EIP-191 prefix): the marketplace ``ecrecover``s it.

        :param digest: 32 bytes (a request id).
        :return: 0x + 130 hex, ``r || s || v`` (low s, v 27 or 28).
        """
        return "0x" + bytes(self._account.unsafe_sign_hash(digest).signature).hex()

    def market_nonce(self, block: Optional[int] = None) -> int:
        """Return ``mapNonces(requester)``.

        :param block: the block read at (None: the latest).
        :return: the requester's request count.
        """
        return int(self._call("mapNonces", self.requester, block=block))

    def next_request_id(
        self, mech: str, data: bytes, price: int, payment_type: str, nonce: int
    ) -> str:
        """Derive the id the marketplace will give this request (``getRequestId``).

        :param mech: the mech contract.
        :param data: the request data.
        :param price: the delivery rate paid.
        :param payment_type: 0x + 64 hex.
        :param nonce: ``mapNonces(requester)`` now.
        :return: 0x + 64 hex.
        """
        raw = self._call(
            "getRequestId",
            Web3.to_checksum_address(mech),
            self.requester,
            data,
            price,
            bytes.fromhex(payment_type[2:]),
            nonce,
        )
        return _hex32(raw)

    def status(self, request_id: str, block: Optional[int] = None) -> int:
        """Return ``getRequestStatus(id)`` (:data:`STATUS_DELIVERED` etc.).

        :param request_id: 0x + 64 hex.
        :param block: the block read at (None: the latest).
        :return: the status.
        """
        return int(
            self._call("getRequestStatus", bytes.fromhex(request_id[2:]), block=block)
        )

    def request_info(self, request_id: str) -> Dict[str, Any]:
        """Return ``mapRequestIdInfos(id)``: who sent it, to whom, at what rate.

        :param request_id: 0x + 64 hex.
        :return: ``{"priority_mech", "delivery_mech", "requester"}`` (lowercase 0x hex),
            ``"delivery_rate"`` (wei) and ``"payment_type"`` (0x + 64 hex).
        """
        info = self._call("mapRequestIdInfos", bytes.fromhex(request_id[2:]))
        return {
            "priority_mech": str(info[0]).lower(),
            "delivery_mech": str(info[1]).lower(),
            "requester": str(info[2]).lower(),
            "delivery_rate": int(info[4]),
            "payment_type": _hex32(info[5]),
        }

    def longest_response_timeout(self) -> int:
        """Return the marketplace's ``maxResponseTimeout()``: the request's priority window.

        Until ``block.timestamp`` passes the request's response timeout only its priority
        mech (the one paid) may deliver; after it any mech may, and the marketplace pays
        the delivering mech (ai-registry-mech ``MechMarketplace.deliverMarketplace``).
        The longest window the contract accepts gives the paid mech the most time alone.

        :return: seconds.
        """
        return int(self._call("maxResponseTimeout"))

    def head(self) -> int:
        """Return the latest block number.

        :return: the number.
        :raises MarketError: when the node cannot be reached or answers an error
            (:meth:`_node_error`: what was read and the error, in words).
        """
        try:
            return int(self.w3.eth.block_number)
        except (ValueError, OSError, Web3Exception) as exc:
            raise MarketError(self._node_error("the latest block number", exc)) from exc

    def chain_id(self) -> int:
        """Return the chain id the node reports (``eth_chainId``).

        :return: the id.
        :raises MarketError: when the node cannot be reached or answers an error.
        """
        try:
            return int(self.w3.eth.chain_id)
        except (ValueError, OSError, Web3Exception) as exc:
            raise MarketError(self._node_error("the chain id", exc)) from exc

    def mech_price(self, mech: str) -> Optional[int]:
        """Read a mech's ``maxDeliveryRate()`` at the latest block (its price now).

        :param mech: the mech contract address.
        :return: wei per request, or None when the call fails (its gas bounded by
            :data:`PRICE_READ_GAS`) or does not decode (an unread price: not paid);
            the call's time ending is raised (:func:`.node_deadline.refuse_spent`).
        """
        contract = self.w3.eth.contract(
            address=Web3.to_checksum_address(mech), abi=MECH_PRICE_ABI
        )
        try:
            return int(
                contract.functions.maxDeliveryRate().call({"gas": PRICE_READ_GAS})
            )
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # ContractLogicError, BadFunctionCallOutput, ValueError, OSError, Web3RPCError
            refuse_spent(exc, f"mech {mech}'s price")  # the call's end: not the mech's
            return None

    def request_transaction(  # pylint: disable=too-many-arguments
        self,
        mech: str,
        data: bytes,
        price: int,
        payment_type: str,
        response_timeout: int,
        value: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Build the unsigned ``request`` transaction (value = the price, native payment).

        :param mech: the priority mech.
        :param data: the request data.
        :param price: the rate in the payment asset's smallest unit.
        :param payment_type: 0x + 64 hex.
        :param response_timeout: seconds.
        :param value: wei sent with it (None: the price, as native mechs take it; 0 for
            token mechs, whose tracker reverts on any value).
        :return: ``{"from", "to", "value", "data", "chainId"}`` (hex data).
        """
        call = self.contract.functions.request(
            data,
            price,
            bytes.fromhex(payment_type[2:]),
            Web3.to_checksum_address(mech),
            response_timeout,
            b"",
        )
        return {
            "from": self.requester,
            "to": self.address,
            "value": price if value is None else value,
            "data": call._encode_transaction_data(),  # pylint: disable=protected-access
            "chainId": self.chain_id(),
        }

    def sign(self, transaction: Dict[str, Any]) -> SignedRequest:
        """Sign a transaction at the account's next pending nonce (nothing is sent).

        Its gas is the node's estimate plus 20 %, at most ``max_gas``: whatever the
        contracts it calls do (a mech's code runs inside a request), it cannot use
        more. The estimate itself is asked within ``max_gas`` (``eth_estimateGas``'s
        ``gas``): a contract burning gas costs the node's search no more than the
        bound (adv29zp: 2.75 to 4.07 s at 29 M gas on anvil, under the send lock). Its
        fee per gas is at most twice the latest block's base fee plus the tip, and at
        most ``max_fee_per_gas`` (:meth:`_fees`); so one transaction costs at most
        ``max_gas`` times that.

        :param transaction: from :meth:`request_transaction` (or an approval, a deposit).
        :return: the signed transaction, to journal before :meth:`broadcast`.
        :raises EstimateReverted: when the gas estimate reverts (nothing signed).
        :raises GasOverBound: when the estimate is over ``max_gas`` (nothing signed).
        :raises MarketError: when gas cannot be estimated otherwise (the node
            unreachable or refusing), or a :class:`FeeOverCap` when the latest base
            fee plus the tip is over ``max_fee_per_gas`` (nothing signed).
        """
        tx = dict(transaction)
        try:
            tx["nonce"] = self.w3.eth.get_transaction_count(self.requester, "pending")
            estimate = self._estimate(tx)
            if estimate > self.max_gas:
                raise GasOverBound(str(tx.get("to")), estimate, self.max_gas)
            tx["gas"] = min(int(estimate * 1.2), self.max_gas)
            tx["maxFeePerGas"], tx["maxPriorityFeePerGas"] = self._fees()
            signed = self._account.sign_transaction(tx)
        except ContractLogicError as exc:
            raise EstimateReverted(self.address, exc.data, self.max_gas) from exc
        except (ValueError, OSError, Web3Exception) as exc:  # a node's JSON-RPC error
            raise MarketError(
                f"the request transaction to {self.address} failed: "
                f"{node_said(exc, self.rpc_url)}"
            ) from exc
        return SignedRequest(
            "0x" + bytes(signed.raw_transaction).hex(),
            _hex32(signed.hash),
            int(tx["nonce"]),
        )

    def _estimate(self, tx: Dict[str, Any]) -> int:
        """The node's gas estimate of ``tx``, searched within ``max_gas`` only.

        :param tx: the transaction to sign (its ``gas`` is not set).
        :return: gas.
        :raises GasOverBound: when the node answers that it runs out of gas within the
            bound (its words: "gas required exceeds allowance", "out of gas").
        :raises ContractLogicError: when it reverts otherwise (``sign`` says why).
        """
        bounded = {**tx, "gas": self.max_gas}
        try:
            return int(self.w3.eth.estimate_gas(bounded))  # type: ignore[arg-type]
        except ContractLogicError:
            raise
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # web3 7's Web3RPCError (no ValueError) and ValueError: the node's answer
            if OUT_OF_GAS.search(str(exc)):
                raise GasOverBound(str(tx.get("to")), None, self.max_gas) from exc
            raise

    def _fees(self) -> Tuple[int, int]:
        """The fees to sign: twice the latest base fee plus the tip, within the cap.

        The tip is :attr:`tips`' (:meth:`~mech_catalogue_cli.fee_caps.TipChoice.tip`).

        :return: ``(maxFeePerGas, maxPriorityFeePerGas)``, wei per gas
            (:func:`~mech_catalogue_cli.fee_caps.fees_to_sign`: ``FeeOverCap`` when
            base fee plus tip is over ``max_fee_per_gas``, saying where the tip came
            from; ``TipOverCap`` when the node's suggestion is).
        """
        return fees_to_sign(
            self.w3, self.tips, self.max_fee_per_gas, redacted_url(self.rpc_url)
        )

    def _base_fee(self) -> Tuple[int, str]:
        """The latest block's base fee, and where read (:func:`.fee_caps.latest_base_fee`).

        :return: wei per gas, and the block and node it was read from (for errors).
        """
        return latest_base_fee(self.w3, redacted_url(self.rpc_url))

    def gas_paid(self, receipt: Any) -> Dict[str, Any]:
        """What a mined transaction cost in gas (:func:`.fees.gas_paid`).

        :param receipt: its receipt.
        :return: gas used, the bound, fee per gas and fee paid (and an L1 data fee).
        """
        return gas_paid(receipt, self.max_gas)

    def sign_cancel(self, pending: SignedRequest) -> SignedRequest:
        """Sign a zero-value transfer to this account at a pending transaction's nonce.

        It replaces the pending transaction wherever a node still holds it: the fees are
        at least twice the pending one's (nodes take a replacement from a 10 % raise) and
        twice the latest base fee, plus a tip; whichever of the two is mined, the other
        never is. They are cut to ``max_fee_per_gas`` (``--max-fee-per-gas``), and the
        cancellation is signed only when that still outbids the pending transaction
        by the 10 % a replacement needs and pays the base fee (adv29zp F1: no
        transaction is ever signed over the cap).

        :param pending: the signed transaction to cancel (its raw bytes give its fees).
        :return: the signed cancellation, to journal before :meth:`broadcast`
            (:func:`.fees.cancellation_fees` raises ``CancelOverCap`` when a
            replacement within ``max_fee_per_gas`` cannot be mined: the pending one was
            signed within 10 % of the cap, or the base fee is over it; nothing signed,
            the message says what to do).
        :raises MarketError: when the pending bytes or the base fee cannot be read.
        """
        try:
            old = TypedTransaction.from_bytes(HexBytes(pending.raw_tx)).as_dict()
            old_fees = (
                int(old.get("maxFeePerGas", 0)),
                int(old.get("maxPriorityFeePerGas", 0)),
            )
            fee_cap, tip = cancellation_fees(
                (pending.tx_hash, pending.account_nonce),
                old_fees,
                self._base_fee()[0],
                self.tips.cancel_least,
                self.max_fee_per_gas,
            )
            signed = self._account.sign_transaction(
                {
                    "from": self.requester,
                    "to": self.requester,
                    "value": 0,
                    "nonce": pending.account_nonce,
                    "gas": TRANSFER_GAS,
                    "maxFeePerGas": fee_cap,
                    "maxPriorityFeePerGas": tip,
                    "chainId": self.chain_id(),
                }
            )
        except (ValueError, TypeError, KeyError, OSError, Web3Exception) as exc:
            raise MarketError(
                f"the cancellation of transaction {pending.tx_hash} could not be "
                f"signed: {node_said(exc, self.rpc_url)}"
            ) from exc
        return SignedRequest(
            "0x" + bytes(signed.raw_transaction).hex(),
            _hex32(signed.hash),
            pending.account_nonce,
        )

    def confirmed_nonce(self) -> int:
        """Return the requester account's mined transaction count.

        :return: the nonce the next mined transaction will have.
        :raises MarketError: when the node cannot be reached or answers an error (a
            JSON-RPC error, e.g. a rate limit, -32005): :meth:`_node_error`.
        """
        try:
            return int(self.w3.eth.get_transaction_count(self.requester, "latest"))
        except (ValueError, OSError, Web3Exception) as exc:
            raise MarketError(
                self._node_error("the account's transaction count", exc)
            ) from exc

    def _node_error(self, what: str, exc: Exception) -> str:
        """A failed read of the node in the server's words (a ``MarketError``'s).

        web3 7 raises a node's JSON-RPC error as ``Web3RPCError`` (a ``Web3Exception``,
        no ``ValueError``); every read of this class says it as a ``MarketError``,
        which each caller handles (a request's fate stays unknown: the safe side).

        :param what: what was read, for the message.
        :param exc: the node's error (``ValueError``, ``OSError``, ``Web3Exception``).
        :return: what was read, from which node (its URL redacted), the error's type and
            the node's words quoted as the node's (:func:`.node_words.node_said`: the
            URL taken out, cut to 200 characters; adv29zx N1).
        """
        return (
            f"{what} could not be read from {redacted_url(self.rpc_url)}: "
            f"{node_said(exc, self.rpc_url)}"
        )

    def final_block(self, depth: int) -> FinalBlock:
        """Return the newest final block (:func:`.finality.final_block`).

        :param depth: blocks below the head that count as final when the node answers
            no ``finalized`` block (or :attr:`finalized_tag` is False).
        :return: the final block and the head.
        :raises MarketError: when the node cannot be reached.
        """
        try:
            finalized = finalized_number(self.w3) if self.finalized_tag else None
            return final_block(finalized, self.head(), depth)
        except OSError as exc:
            raise MarketError(
                f"the final block could not be read from {redacted_url(self.rpc_url)}: "
                f"{failure_words(exc)}"
            ) from exc
        except (ValueError, Web3Exception) as exc:  # the head's read: a node's error
            raise MarketError(self._node_error("the final block", exc)) from exc

    def final_nonce(self, depth: int) -> int:
        """Return the requester account's transaction count at the final block.

        A nonce below it was taken by a transaction in a final block (:meth:`final_block`:
        the node's ``finalized`` block, else ``depth`` below the head): no reorg gives
        it back. On a chain of ``depth`` blocks or fewer without the tag the count is
        read at its genesis (block 0), the only block final there.

        :param depth: blocks below the head (:data:`.dropped.FINAL_DEPTH`, or the
            chain's ``final_depth``) when the node has no ``finalized`` block.
        :return: the account's mined transaction count at the final block.
        :raises StateUnavailable: when the node answers that block with an error (it
            prunes state that old): the error names the node, the block and what to do.
        :raises MarketError: when the node cannot be reached.
        """
        final = self.final_block(depth)
        block = final.number
        try:
            return int(self.w3.eth.get_transaction_count(self.requester, block))
        except OSError as exc:
            raise MarketError(
                f"the account's transaction count at block {block} could not be read "
                f"from {redacted_url(self.rpc_url)}: {failure_words(exc)}"
            ) from exc
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # ValueError, and web3 7's Web3RPCError (no ValueError): the node's answer
            raise StateUnavailable(
                f"the node {redacted_url(self.rpc_url)} answered no account state at "
                f"block {block} ({final.says()}): "
                f"{node_said(exc, self.rpc_url, 160)}. "
                f"Whether a nonce is final ({final.depth} blocks deep) cannot be read "
                "there, "
                "so no other request is paid for a call whose request is not on chain "
                "(nothing more is spent; a call with the same arguments reads it "
                "again). Either point --rpc at a node that keeps account state at "
                f"least {final.depth} blocks back (an archive node: many full nodes "
                "keep only the last 128 blocks), or give --final-depth N of at most "
                "what the node keeps (its finalized block is then not read), "
                "accepting that a reorg deeper than N blocks could then pay a second "
                "request for the call"
            ) from exc

    def mined_block(self, tx_hash: str) -> Optional[int]:
        """Return the block a transaction was mined in (:meth:`receipt_now`'s errors).

        :param tx_hash: 0x hex.
        :return: its receipt's block number, or None when it has no receipt.
        """
        receipt = self.receipt_now(tx_hash)
        return None if receipt is None else int(receipt["blockNumber"])

    def receipt_now(self, tx_hash: str) -> Optional[Any]:
        """Read a transaction's receipt now, without waiting.

        :param tx_hash: 0x hex.
        :return: the receipt, or None when it has none (not mined, or its nonce went to
            another transaction).
        :raises MarketError: when the RPC cannot be read.
        """
        try:
            return self.w3.eth.get_transaction_receipt(HexStr(tx_hash))
        except TransactionNotFound:
            return None
        except (ValueError, OSError, Web3Exception) as exc:
            # e.g. TransactionIndexingInProgress: a geth node for hours after a restart
            raise MarketError(
                self._node_error(f"the receipt of transaction {tx_hash}", exc)
            ) from exc

    def transaction_reverted(self, tx_hash: str) -> Optional[bool]:
        """Whether a transaction reverted, read now (:meth:`receipt_now`'s errors).

        :param tx_hash: 0x hex.
        :return: True when it was mined and reverted, False when mined and succeeded,
            None when no receipt exists (not mined, or its nonce went to another
            transaction).
        """
        receipt = self.receipt_now(tx_hash)
        return None if receipt is None else int(receipt["status"]) != 1

    def send(self, transaction: Dict[str, Any], wait: float = 60.0) -> str:
        """Sign, broadcast and wait for a transaction; raise when it reverts.

        :param transaction: from :meth:`request_transaction`.
        :param wait: seconds to wait for the receipt.
        :return: the transaction hash.
        """
        return self.broadcast(self.sign(transaction), wait)

    def broadcast(self, signed: SignedRequest, wait: float = 60.0) -> str:
        """Broadcast a signed transaction (again, if need be) and wait for its receipt.

        Broadcasting the same bytes twice is harmless: a node that holds them answers
        "already known", and the wait is for the one hash.

        :param signed: from :meth:`sign` (or the journal).
        :param wait: seconds the broadcast and the wait for its receipt take in all,
            the node's answers included (:func:`~mech_catalogue_cli.adapters.http.
            deadline`: a node that accepts the connection and never answers holds it
            no longer).
        :return: the transaction hash, a :class:`SentTransaction` (its ``gas`` from
            the receipt, :meth:`gas_paid`).
        :raises MarketError: when it is not mined in time or cannot be sent.
        :raises RequestReverted: when it was mined and reverted (only gas was spent).
        """
        tx_hash = signed.tx_hash
        try:
            with deadline(wait), reads_within(wait):
                self._send_raw(signed.raw_tx)
                receipt = self.w3.eth.wait_for_transaction_receipt(
                    tx_hash, timeout=wait  # type: ignore[arg-type]
                )
        except (TimeExhausted, DeadlineExceeded) as exc:
            raise MarketError(
                f"transaction {tx_hash} was not mined within "
                f"{wait:g} s (its broadcast and receipt included); it may still be: "
                "call again with the same arguments to check (that will not pay twice)"
            ) from exc
        except ContractLogicError as exc:  # its message quotes a reason raw
            raise MarketError(
                f"the request transaction to {self.address} failed: "
                f"{revert_words(exc.data)}"
            ) from exc
        except (ValueError, OSError, Web3Exception) as exc:
            # a node refusing the bytes (a JSON-RPC error: fee under the base fee,
            # nonce too low, funds) is said, never an internal error of the call
            raise MarketError(
                f"the request transaction to {self.address} failed: "
                f"{node_said(exc, self.rpc_url)}"
            ) from exc
        if receipt["status"] != 1:
            raise RequestReverted(
                f"the request transaction {tx_hash} reverted on {self.address}"
            )
        sent = SentTransaction(tx_hash)
        sent.gas = self.gas_paid(receipt)
        return sent

    def _send_raw(self, raw_tx: str) -> None:
        try:
            self.w3.eth.send_raw_transaction(HexStr(raw_tx))
        except (
            ValueError,
            Web3RPCError,
        ) as exc:  # a node holding these very bytes says "already known"
            if "already known" not in str(exc).lower():
                raise

    def _narrowed(self, query: LogQuery, why: str) -> None:
        LOGGER.warning(
            "eth_getLogs %s-%s on %s was refused as too wide (%s); it is read in halves",
            query.from_block,
            query.to_block,
            query.address,
            without_url(why, self.rpc_url)[:200],
        )

    def logs(
        self, query: LogQuery, *more_topics: Optional[str]
    ) -> List[Dict[str, Any]]:
        """Read ``eth_getLogs`` over a numbered range, in halves when the RPC refuses it.

        :param query: the emitter, ``topics[0]`` and inclusive numbered block range.
        :param more_topics: ``topics[1:]`` (None: any).
        :return: the logs, in block order.
        :raises MarketError: when the RPC refuses even one block, or fails otherwise
            (its words, without the RPC URL).
        """

        def answer(one: LogQuery) -> List[Any]:
            return list(
                self.w3.eth.get_logs(
                    {
                        "address": Web3.to_checksum_address(one.address),
                        "topics": [one.topic, *more_topics],  # type: ignore[list-item]
                        "fromBlock": one.from_block,
                        "toBlock": one.to_block,
                    }
                )
            )

        reader: Callable[[LogQuery], List[Any]] = narrow_log_range(
            answer, (Exception,), self._narrowed
        )
        try:
            return [dict(log) for log in reader(query)]
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # web3 7's Web3RPCError is no ValueError; a mech flooding logs past the RPC's
            # limit must give an error result, not end the call's task
            raise MarketError(
                f"the events of {query.address} in blocks {query.from_block}-"
                f"{query.to_block} could not be read ({node_said(exc, self.rpc_url, 160)}); "
                "call again later"
            ) from exc

    def delivery(self, request_id: str, from_block: int) -> Optional[Delivered]:
        """Return the delivered data and the delivering mech, or None while undelivered.

        The ``Deliver`` events are read from the marketplace's ``deliveryMech`` for the
        request, over ``from_block`` .. the head (numbered, in halves when refused).

        :param request_id: 0x + 64 hex.
        :param from_block: a block at or before the request.
        :return: the delivery.
        :raises MarketError: when the marketplace says delivered but no event holds it,
            or the events cannot be read.
        """
        if self.status(request_id) != STATUS_DELIVERED:
            return None
        info = self.request_info(request_id)
        mech = info["delivery_mech"]
        head = self.head()
        for topic, types in DELIVER_TOPICS.items():
            for log in self.logs(LogQuery(mech, topic, from_block, head)):
                try:
                    values = abi_decode(types, bytes(log["data"]))
                except Exception:  # pylint: disable=broad-exception-caught
                    continue  # a malformed Deliver event from the mech: not the answer
                if _hex32(values[0]) == request_id.lower():
                    return Delivered(
                        bytes(values[-1]),
                        mech,
                        int(log["blockNumber"]),
                        info["requester"],
                    )
        raise MarketError(
            f"request {request_id} is delivered but mech {mech} emitted no Deliver "
            f"event for it in blocks {from_block}-{head}"
        )

    def _request_data(self, log: Dict[str, Any], index: int, has_datas: bool) -> str:
        """The request data of the ``index``-th request of a ``MarketplaceRequest`` log.

        :param log: the log.
        :param index: which of its requests.
        :param has_datas: the event carries ``requestDatas``.
        :return: 0x hex.
        :raises MarketError: when the node cannot give the log's transaction (the
            request is then unknown, never taken for another's).
        """
        if has_datas:
            types = REQUEST_TOPICS["0x" + bytes(log["topics"][0]).hex()][0]
            return "0x" + bytes(abi_decode(types, bytes(log["data"]))[2][index]).hex()
        try:
            transaction = self.w3.eth.get_transaction(log["transactionHash"])
        except (ValueError, OSError, Web3Exception) as exc:
            raise MarketError(
                self._node_error(
                    f"the request transaction of a {self.address} log", exc
                )
            ) from exc
        _, arguments = self.contract.decode_function_input(transaction["input"])
        return "0x" + bytes(arguments["requestData"]).hex()

    def _own_requests(self, query: LogQuery) -> List[OwnRequest]:
        """This requester's requests in a range, of one ``MarketplaceRequest`` shape.

        :param query: the marketplace, the event's topic and the numbered range.
        :return: the requests, in log order (an undecodable one is skipped).
        """
        requester_topic = "0x" + bytes(12).hex() + self.requester[2:].lower()
        found: List[OwnRequest] = []
        for log in self.logs(query, None, requester_topic):
            found.extend(self._requests_of_log(log, requester_checked=True))
        return found

    def _requests_of_log(
        self, log: Dict[str, Any], requester_checked: bool = False
    ) -> List[OwnRequest]:
        """The requests one ``MarketplaceRequest`` log of this requester holds.

        :param log: a log of the marketplace (any event: others hold none).
        :param requester_checked: the log was read filtered on this requester's topic.
        :return: its requests ([] when it is no such log, another requester's, or
            undecodable: not a request this server sent).
        :raises MarketError: when the node cannot give what the log leaves out (its
            transaction's input): a request unread is never a request not sent.
        """
        topics = [bytes(topic) for topic in log.get("topics", ())]
        shape = REQUEST_TOPICS.get("0x" + topics[0].hex()) if topics else None
        requester = bytes(12) + bytes.fromhex(self.requester[2:])
        if shape is None or len(topics) < 2:
            return []
        if not requester_checked and requester not in topics[2:]:
            return []
        types, has_datas = shape
        try:
            ids = abi_decode(types, bytes(log["data"]))[1]
            return [
                OwnRequest(
                    _hex32(raw_id),
                    "0x" + topics[1][-20:].hex(),
                    self._request_data(log, index, has_datas),
                    int(log["blockNumber"]),
                    _hex32(log["transactionHash"]),
                )
                for index, raw_id in enumerate(ids)
            ]
        except MarketError:
            raise
        except Exception:  # pylint: disable=broad-exception-caught
            return []

    def mined_request_id(self, tx_hash: str, data: str) -> Optional[str]:
        """The id the marketplace gave this requester's request of ``data`` in a transaction.

        The id a request is journalled under is derived before sending from
        ``mapNonces(requester)``; another request of the same account mined in between
        (a second server, mech-client on the same key) moves that nonce, so the request
        is mined under another id. The receipt's ``MarketplaceRequest`` event says which.

        :param tx_hash: the request transaction, 0x + 64 hex.
        :param data: the request data, 0x + 64 hex.
        :return: 0x + 64 hex, or None when there is no receipt (not mined), it cannot be
            read, or it holds no request of this data from this requester.
        """
        try:
            receipt = self.w3.eth.get_transaction_receipt(HexStr(tx_hash))
        except TransactionNotFound:
            return None
        except (ValueError, OSError, Web3Exception) as exc:
            LOGGER.warning(
                "the receipt of %s could not be read: %s",
                tx_hash,
                without_url(str(exc), self.rpc_url)[:200],
            )
            return None
        try:
            for log in receipt.get("logs", ()):
                if str(log.get("address", "")).lower() != str(self.address).lower():
                    continue
                for request in self._requests_of_log(dict(log)):
                    if request.data.lower() == data.lower():
                        return request.request_id
        except MarketError as exc:
            LOGGER.warning("the request of %s could not be read: %s", tx_hash, exc)
        return None

    def own_request(
        self, data: str, lookback: int = REQUEST_LOOKBACK_BLOCKS
    ) -> Optional[OwnRequest]:
        """Find this requester's latest request with the given request data on chain.

        Reads ``MarketplaceRequest`` events whose ``requester`` is this account
        (numbered ranges, in halves when refused): the last ``lookback`` blocks the
        first time, then only the blocks after those already read (what was found is
        kept in this object). A call's request data is the digest of its payload, whose
        nonce is derived from the call key, so the same data is the same call.

        The events that cannot be read raise :class:`MarketError` (:meth:`logs`); the
        blocks read so far are then read again next time.

        :param data: the request data, 0x + 64 hex.
        :param lookback: blocks before the head to search the first time.
        :return: the request, or None when there is none in the blocks read.
        """
        head = self.head()
        start = (
            max(0, head - lookback) if self._scanned_to < 0 else self._scanned_to + 1
        )
        if start <= head:
            found = [
                request
                for topic in REQUEST_TOPICS
                for request in self._own_requests(
                    LogQuery(self.address, topic, start, head)
                )
            ]
            for request in sorted(found, key=lambda r: r.block):
                self._own_by_data[request.data] = request
            self._scanned_to = head
        return self._own_by_data.get(data.lower())

    def balance(self) -> int:
        """Return the requester's balance.

        :return: wei.
        :raises MarketError: when the node cannot be reached or answers an error.
        """
        try:
            return int(self.w3.eth.get_balance(self.requester))
        except (ValueError, OSError, Web3Exception) as exc:
            raise MarketError(self._node_error("the requester's balance", exc)) from exc
