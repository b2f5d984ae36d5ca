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

"""Paying mechs from a balance tracker: the reads and the ERC-20 approval, journalled.

The decision is :func:`mech_catalogue_core.model.payment.plan_payment`; this module only
reads what it needs and sends the one approval it asks for:

- :meth:`TokenPayer.funds`: the payment type's tracker
  (``MechMarketplace.mapPaymentTypeBalanceTrackers(type)``, never a manifest's word), its
  ``token()``, the token's ``decimals()``, the requester's ``balanceOf``, its
  ``allowance(requester, tracker)`` and the tracker's ``mapRequesterBalances(requester)``;
  for a subscription tracker its plan (``subscriptionNFT()``, ``subscriptionTokenId()``,
  ai-registry-mech ``BalanceTrackerNvmSubscription*``) and the requester's credits
  (the ERC-1155 ``balanceOf(requester, id)``);
- :meth:`TokenPayer.ensure_allowance`: when the plan says ``needs_approval``, an ERC-20
  ``approve(tracker, shortfall)`` of exactly what the prepaid balance lacks, signed and
  recorded in the call's journal entry (``extra["approval"]``) before it is broadcast,
  so a retry re-broadcasts the same bytes while their account nonce is unmined instead
  of approving again. ``approve`` sets the allowance (it does not add), so even a second
  approval could never let the tracker pull more than the shortfall.

The request itself then carries no value (the token tracker reverts on any): the
tracker pulls the shortfall with ``transferFrom`` during ``MechMarketplace.request``.
"""

import re
from typing import Any, Dict, List, Optional

from mech_catalogue_core.model.payment import (
    Funds,
    Payment,
    format_amount,
    plan_payment,
)
from mech_catalogue_core.model.vocabulary import PaymentStatus, PaymentWay
from web3 import Web3

from .journal import JournalEntry, JournalError
from .market import MarketError, Marketplace, SignedRequest
from .node_deadline import failure_words

#: ``extra`` key of a journal entry holding the call's approval
APPROVAL_KEY = "approval"


def _view(name: str, inputs: List[str], output: str) -> Dict[str, Any]:
    return {
        "type": "function",
        "name": name,
        "stateMutability": "view",
        "inputs": [{"type": t, "name": f"a{i}"} for i, t in enumerate(inputs)],
        "outputs": [{"type": output, "name": ""}],
    }


#: MechMarketplace.mapPaymentTypeBalanceTrackers (ai-registry-mech 0.8.28)
TRACKER_LOOKUP_ABI = [_view("mapPaymentTypeBalanceTrackers", ["bytes32"], "address")]
#: BalanceTrackerFixedPriceToken: token(), mapRequesterBalances(address)
TRACKER_ABI = [
    _view("token", [], "address"),
    _view("mapRequesterBalances", ["address"], "uint256"),
]
#: BalanceTrackerNvmSubscription{Native,Token}: the plan whose credits it burns
SUBSCRIPTION_ABI = [
    _view("subscriptionNFT", [], "address"),
    _view("subscriptionTokenId", [], "uint256"),
]
#: the ERC-1155 balance read (EIP-1155)
ERC1155_ABI = [_view("balanceOf", ["address", "uint256"], "uint256")]
#: the ERC-20 calls used (EIP-20)
ERC20_ABI = [
    _view("decimals", [], "uint8"),
    _view("balanceOf", ["address"], "uint256"),
    _view("allowance", ["address", "address"], "uint256"),
    {
        "type": "function",
        "name": "approve",
        "stateMutability": "nonpayable",
        "inputs": [
            {"type": "address", "name": "spender"},
            {"type": "uint256", "name": "amount"},
        ],
        "outputs": [{"type": "bool", "name": ""}],
    },
]
_APPROVAL_FIELDS = {
    "token": re.compile(r"0x[0-9a-f]{40}"),
    "tracker": re.compile(r"0x[0-9a-f]{40}"),
    "raw_tx": re.compile(r"0x(?:[0-9a-f]{2})+"),
    "tx_hash": re.compile(r"0x[0-9a-f]{64}"),
}


def approval_record(entry: JournalEntry) -> Optional[Dict[str, Any]]:
    """Read the approval a journal entry records, strictly.

    :param entry: the call's entry.
    :return: ``{"token", "tracker", "amount", "raw_tx", "tx_hash", "account_nonce"}``,
        or None when it records none.
    :raises JournalError: when the record is not one this server wrote (nothing is
        sent for the call then).
    """
    record = entry.extra.get(APPROVAL_KEY)
    if record is None:
        return None
    ints = ("amount", "account_nonce")
    wrong = (
        not isinstance(record, dict)
        or set(record) != set(_APPROVAL_FIELDS) | set(ints)
        or any(
            not isinstance(record[k], str) or not p.fullmatch(record[k])
            for k, p in _APPROVAL_FIELDS.items()
        )
        or any(
            isinstance(record[k], bool)
            or not isinstance(record[k], int)
            or record[k] < 0
            for k in ints
        )
    )
    if wrong:
        raise JournalError(
            f"the call journal entry {entry.key} holds an approval record this server "
            "did not write; nothing was sent. Check it, then move the entry away"
        )
    return dict(record)


class TokenPayer:
    """Reads a requester's token funds and approves a tracker, for one marketplace."""

    def __init__(self, market: Marketplace) -> None:
        """Use the marketplace's connection and paying account.

        :param market: the marketplace (its key stays inside it).
        """
        self.market = market

    def _contract(self, address: str, abi: List[Dict[str, Any]]) -> Any:
        return self.market.w3.eth.contract(
            address=Web3.to_checksum_address(address), abi=abi
        )

    def funds(self, payment_type: str) -> Funds:
        """Read what this requester holds for a payment type's asset, at the latest block.

        :param payment_type: ``paymentType()``, 0x + 64 hex.
        :return: the funds (token "" and the account's native balance for native).
        :raises MarketError: when a read fails or the type has no tracker (the error
            names the type; nothing is sent).
        """
        market = self.market
        try:
            lookup = self._contract(market.address, TRACKER_LOOKUP_ABI)
            tracker = str(
                lookup.functions.mapPaymentTypeBalanceTrackers(
                    bytes.fromhex(payment_type[2:])
                ).call()
            ).lower()
            if int(tracker, 16) == 0:
                raise MarketError(
                    f"the marketplace {market.address} has no balance tracker for "
                    f"payment type {payment_type}; nothing was sent"
                )
            requester = market.requester
            tracked = self._contract(tracker, TRACKER_ABI)
            prepaid = int(tracked.functions.mapRequesterBalances(requester).call())
            way = plan_payment(payment_type, 1).terms.way
            if way is PaymentWay.SUBSCRIPTION:
                return self._subscription_funds(tracker, prepaid)
            if way is not PaymentWay.TOKEN:
                return Funds(tracker, "", 18, market.balance(), 0, prepaid)
            token = str(tracked.functions.token().call()).lower()
            erc20 = self._contract(token, ERC20_ABI)
            return Funds(
                tracker=tracker,
                token=token,
                decimals=int(erc20.functions.decimals().call()),
                wallet=int(erc20.functions.balanceOf(requester).call()),
                allowance=int(
                    erc20.functions.allowance(
                        requester, Web3.to_checksum_address(tracker)
                    ).call()
                ),
                prepaid=prepaid,
            )
        except MarketError:
            raise
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # ContractLogicError, BadFunctionCallOutput, ValueError, OSError, Web3RPCError
            raise MarketError(
                f"the funds for payment type {payment_type} could not be read "
                f"({failure_words(exc)}); nothing was sent: call again later"
            ) from exc

    def _subscription_funds(self, tracker: str, prepaid: int) -> Funds:
        """Read a subscription tracker's plan and this requester's credits of it.

        :param tracker: the tracker (lowercase 0x hex).
        :param prepaid: its ``mapRequesterBalances(requester)``, credits.
        :return: the funds (credits and plan set; wallet, allowance 0).
        """
        plan = self._contract(tracker, SUBSCRIPTION_ABI).functions
        nft = str(plan.subscriptionNFT().call()).lower()
        token_id = int(plan.subscriptionTokenId().call())
        held = self._contract(nft, ERC1155_ABI).functions.balanceOf(
            self.market.requester, token_id
        )
        return Funds(
            tracker, "", 0, 0, 0, prepaid, int(held.call()), f"{nft}/{token_id}"
        )

    def plan(self, payment_type: str, price: int) -> Payment:
        """Read the funds and decide.

        :param payment_type: ``paymentType()``.
        :param price: the price read now, smallest units.
        :return: :func:`plan_payment`'s decision.
        """
        return plan_payment(payment_type, price, self.funds(payment_type))

    def _rebroadcast(self, record: Dict[str, Any], wait: float) -> None:
        """Broadcast a journalled approval again while its account nonce is unmined.

        Once that nonce is mined (by the approval or by another transaction) nothing is
        sent: the funds read next say whether the allowance is in place.

        :param record: :func:`approval_record`.
        :param wait: seconds for its receipt.
        """
        if self.market.confirmed_nonce() <= record["account_nonce"]:
            self.market.broadcast(
                SignedRequest(
                    record["raw_tx"], record["tx_hash"], record["account_nonce"]
                ),
                wait,
            )

    def ensure_allowance(
        self,
        entry: JournalEntry,
        previous: Optional[JournalEntry],
        save: Any,
        wait: float,
    ) -> str:
        """Make the allowance cover what the call's price lacks, approving at most once.

        :param entry: the call's prepared entry (price and payment type set).
        :param previous: the call's earlier entry, when a retry (its approval is reused).
        :param save: ``Journal.save``, called with ``entry`` before any broadcast.
        :param wait: seconds for a receipt.
        :return: "" when the request can be sent now, else why not (short balance,
            or an approval that did not take), in words with amounts in whole units.
            A failed read or approval transaction raises ``MarketError``; an earlier
            approval record this server did not write, ``JournalError``.
        """
        earlier = approval_record(previous) if previous is not None else None
        if earlier is not None:
            entry.extra[APPROVAL_KEY] = earlier
            save(entry)
            self._rebroadcast(earlier, wait)
        plan = self.plan(entry.payment_type, entry.price)
        if plan.status is PaymentStatus.NEEDS_APPROVAL and plan.funds is not None:
            signed = self._sign_approval(plan.funds, plan.approve)
            entry.extra[APPROVAL_KEY] = {
                "token": plan.funds.token,
                "tracker": plan.funds.tracker,
                "amount": plan.approve,
                "raw_tx": signed.raw_tx,
                "tx_hash": signed.tx_hash,
                "account_nonce": signed.account_nonce,
            }
            save(entry)  # before the broadcast: a retry re-sends these bytes
            self.market.broadcast(signed, wait)
            approved = plan.approve
            plan = self.plan(entry.payment_type, entry.price)
            if plan.status is PaymentStatus.NEEDS_APPROVAL and plan.funds is not None:
                symbol, decimals = plan.terms.symbol, plan.funds.decimals
                return (
                    f"the approval of exactly {format_amount(approved, decimals, symbol)}"
                    f" to {plan.funds.tracker} was mined, but the allowance is now "
                    f"{format_amount(plan.funds.allowance, decimals, symbol)} (revoked "
                    "or spent by another transaction since); the request was not sent "
                    "(it would revert); calling again approves exactly the shortfall "
                    "again"
                )
        if plan.status is PaymentStatus.PAYABLE:
            return ""
        return plan.reason or f"the payment is {plan.status}"

    def _sign_approval(self, funds: Funds, amount: int) -> SignedRequest:
        """Sign ``token.approve(tracker, amount)`` (nothing is sent).

        :param funds: the funds read (token and tracker from the chain).
        :param amount: exactly the shortfall.
        :return: the signed transaction.
        """
        erc20 = self._contract(funds.token, ERC20_ABI)
        call = erc20.functions.approve(Web3.to_checksum_address(funds.tracker), amount)
        return self.market.sign(
            {
                "from": self.market.requester,
                "to": Web3.to_checksum_address(funds.token),
                "value": 0,
                "data": call._encode_transaction_data(),  # pylint: disable=W0212
                "chainId": self.market.chain_id(),
            }
        )
