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

"""Prepaying a balance tracker: the deposit the library decides, sent at most once.

The decision is :func:`mech_catalogue_core.model.payment.plan_prepay`; the tracker is
the marketplace's for the payment type (``mapPaymentTypeBalanceTrackers``, read by
:class:`.payment.TokenPayer`, never a manifest's word). A deposit is journalled in
``<state-dir>/prepay/<key>.json`` (key: sha2-256 of chain, marketplace, tracker,
requester, payment type, amount and the idempotency key): each signed transaction (the
approval, then the deposit) is written there before it is broadcast, so running the same
prepay again re-broadcasts those bytes while their account nonce is unmined, says
"already deposited" once the deposit is mined, and never deposits twice. Another deposit
of the same amount needs another ``--idempotency-key``.
"""

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

from mech_catalogue_core.model.payment import (
    KNOWN_TERMS,
    Deposit,
    format_amount,
    plan_prepay,
)
from mech_catalogue_core.model.vocabulary import PaymentStatus
from web3 import Web3

from .journal import JournalError
from .market import MarketError, Marketplace, SignedRequest
from .market_errors import UnsignedRefusal
from .payment import ERC20_ABI, TokenPayer
from .whole_file import write_whole

#: the tracker functions a deposit calls (ai-registry-mech 0.8.28
#: BalanceTrackerFixedPriceNative.depositFor, BalanceTrackerFixedPriceToken.deposit)
DEPOSIT_ABI = [
    {
        "type": "function",
        "name": "depositFor",
        "stateMutability": "payable",
        "inputs": [{"type": "address", "name": "account"}],
        "outputs": [],
    },
    {
        "type": "function",
        "name": "deposit",
        "stateMutability": "nonpayable",
        "inputs": [{"type": "uint256", "name": "amount"}],
        "outputs": [],
    },
]
_TX_FIELDS = {
    "raw_tx": re.compile(r"0x(?:[0-9a-f]{2})+"),
    "tx_hash": re.compile(r"0x[0-9a-f]{64}"),
}
_ENTRY_FIELDS = {
    "key",
    "payment_type",
    "tracker",
    "amount",
    "status",
    "approval",
    "deposit",
}


class PrepayRefused(MarketError):
    """The deposit cannot be made now; the message says why (nothing was sent)."""


def approval_before_deposit(tx_hash: str) -> str:
    """What a deposit refused before signing says of the approval sent before it (pure).

    :param tx_hash: the approval's transaction hash (the prepay journal's).
    :return: that the deposit was not signed, the approval was, and that running the
        same deposit again reuses it.
    """
    return (
        f"the deposit itself was not signed, but its token approval (tx {tx_hash}) "
        "was signed, journalled and sent before it, and may be mined: the same "
        "deposit asked again reuses it (sent again only while its nonce is unmined, "
        "never approved twice)"
    )


def refuse_after_approval(
    refusal: MarketError, approval: Optional[Dict[str, Any]]
) -> None:
    """Raise a deposit's refusal before signing saying the approval sent before it.

    :param refusal: why the deposit could not be signed.
    :param approval: the prepay journal's approval record (None: none was sent).
    :raises MarketError: when ``refusal`` is a refusal before signing
        (:class:`.market_errors.UnsignedRefusal`: a fee, a tip or gas over its bound)
        and an approval was sent: its sentence names the approval
        (:func:`approval_before_deposit`), never "nothing was signed". Otherwise
        nothing is raised here.
    """
    if isinstance(refusal, UnsignedRefusal) and approval is not None:
        said = refusal.signed_before(approval_before_deposit(approval["tx_hash"]))
        raise MarketError(str(said)) from refusal


def _transaction_record(signed: SignedRequest) -> Dict[str, Any]:
    return {
        "raw_tx": signed.raw_tx,
        "tx_hash": signed.tx_hash,
        "account_nonce": signed.account_nonce,
    }


def _valid_transaction(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and set(record) == set(_TX_FIELDS) | {"account_nonce"}
        and all(
            isinstance(record[k], str) and p.fullmatch(record[k])
            for k, p in _TX_FIELDS.items()
        )
        and isinstance(record["account_nonce"], int)
        and not isinstance(record["account_nonce"], bool)
        and record["account_nonce"] >= 0
    )


#: seconds a receipt is waited for, or a function giving them when the wait begins
Wait = Union[float, Callable[[], float]]


def seconds(wait: Wait) -> float:
    """The seconds of a :data:`Wait` now (pure but for the function it may call).

    :param wait: seconds, or a function giving them.
    :return: seconds.
    """
    return wait() if callable(wait) else wait


class Prepayer:
    """Shows and makes deposits into one marketplace's balance trackers, for one account."""

    def __init__(self, market: Marketplace, state_dir: Path) -> None:
        """Use a marketplace (its key stays inside it) and a journal folder.

        :param market: the marketplace and paying account.
        :param state_dir: ``--state-dir``; deposits are journalled in its ``prepay/``.
        """
        self.market = market
        self.payer = TokenPayer(market)
        self.folder = Path(state_dir) / "prepay"

    def balances(self) -> List[Dict[str, Any]]:
        """Read, per payment type with a tracker, this account's standing there.

        :return: one dict per tracker: ``{"payment_type", "type_name", "way", "asset",
            "symbol", "tracker", "token", "prepaid", "wallet", "allowance"}`` (smallest
            units as decimal strings; ``*_units`` in whole units) and, for
            subscriptions, ``"credits", "plan"``; a type whose read failed has
            ``"error"``; types with no tracker are left out.
        """
        rows: List[Dict[str, Any]] = []
        for terms in KNOWN_TERMS:
            row: Dict[str, Any] = {
                "payment_type": terms.payment_type,
                "type_name": terms.name,
                "way": terms.way,
                "asset": terms.asset,
                "symbol": terms.symbol,
            }
            try:
                funds = self.payer.funds(terms.payment_type)
            except MarketError as exc:
                if "has no balance tracker" in str(exc):
                    continue
                rows.append({**row, "error": str(exc)})
                continue
            for name in ("prepaid", "wallet", "allowance"):
                amount = getattr(funds, name)
                row[name] = str(amount)
                row[f"{name}_units"] = format_amount(
                    amount, funds.decimals, terms.symbol
                )
            row.update(tracker=funds.tracker, token=funds.token)
            if funds.plan:
                row.update(credits=str(funds.credits), plan=funds.plan)
            rows.append(row)
        return rows

    def plan(self, payment_type: str, amount: int, cap: Optional[int]) -> Deposit:
        """Read the funds and decide (nothing is signed or sent).

        :param payment_type: 0x + 64 hex.
        :param amount: smallest units.
        :param cap: the most one deposit may be (None: none).
        :return: the decision; a failed read raises ``MarketError``.
        """
        return plan_prepay(payment_type, amount, self.payer.funds(payment_type), cap)

    def transactions(self, deposit: Deposit) -> List[Dict[str, Any]]:
        """The unsigned transactions a deposit sends, in order (for a dry run).

        :param deposit: a decision with a ``function``.
        :return: ``[{"to", "value", "data", "what"}]``: the approval (when any), the
            deposit.
        """
        out = []
        if deposit.approve:
            out.append({**self._approval(deposit), "what": "approve"})
        if deposit.function:
            out.append({**self._deposit_call(deposit), "what": deposit.function})
        return out

    def _contract(self, address: str, abi: List[Dict[str, Any]]) -> Any:
        return self.market.w3.eth.contract(
            address=Web3.to_checksum_address(address), abi=abi
        )

    def _approval(self, deposit: Deposit) -> Dict[str, Any]:
        funds = deposit.funds
        call = self._contract(funds.token, ERC20_ABI).functions.approve(
            Web3.to_checksum_address(funds.tracker), deposit.approve
        )
        return {
            "to": Web3.to_checksum_address(funds.token),
            "value": 0,
            "data": call._encode_transaction_data(),  # pylint: disable=W0212
        }

    def _deposit_call(self, deposit: Deposit) -> Dict[str, Any]:
        tracker = self._contract(deposit.funds.tracker, DEPOSIT_ABI).functions
        call = (
            tracker.depositFor(self.market.requester)
            if deposit.function == "depositFor"
            else tracker.deposit(deposit.amount)
        )
        return {
            "to": Web3.to_checksum_address(deposit.funds.tracker),
            "value": deposit.value,
            "data": call._encode_transaction_data(),  # pylint: disable=W0212
        }

    def _sign(self, transaction: Dict[str, Any]) -> SignedRequest:
        return self.market.sign(
            {
                "from": self.market.requester,
                **transaction,
                "chainId": self.market.chain_id(),
            }
        )

    def key(
        self, payment_type: str, tracker: str, amount: int, idempotency: str
    ) -> str:
        """The journal key of a deposit.

        :param payment_type: 0x + 64 hex.
        :param tracker: the tracker.
        :param amount: smallest units.
        :param idempotency: ``--idempotency-key`` ("" by default).
        :return: 64 hex.
        """
        identity = {
            "chain_id": self.market.chain_id(),
            "marketplace": self.market.address.lower(),
            "tracker": tracker.lower(),
            "requester": self.market.requester.lower(),
            "payment_type": payment_type.lower(),
            "amount": str(amount),
            "idempotency": idempotency,
        }
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def _load(self, key: str) -> Optional[Dict[str, Any]]:
        path = self.folder / f"{key}.json"
        if not path.exists():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise JournalError(
                f"the prepay journal entry {path} is unreadable ({exc})"
            ) from exc
        valid = (
            isinstance(entry, dict)
            and set(entry) == _ENTRY_FIELDS
            and entry["key"] == key
            and entry["status"] in ("prepared", "done")
            and all(
                entry[k] is None or _valid_transaction(entry[k])
                for k in ("approval", "deposit")
            )
        )
        if not valid:
            raise JournalError(
                f"the prepay journal entry {path} is not one this software wrote; "
                "nothing was sent. Check it, then move it away"
            )
        return dict(entry)

    def _save(self, entry: Dict[str, Any]) -> None:
        write_whole(self.folder / f"{entry['key']}.json", json.dumps(entry, indent=1))

    def _unmined(self, record: Optional[Dict[str, Any]]) -> bool:
        return (
            record is not None
            and self.market.confirmed_nonce() <= record["account_nonce"]
        )

    def _rebroadcast(self, record: Dict[str, Any], wait: "Wait") -> str:
        return self.market.broadcast(
            SignedRequest(record["raw_tx"], record["tx_hash"], record["account_nonce"]),
            seconds(wait),
        )

    def deposit(  # pylint: disable=too-many-arguments
        self,
        payment_type: str,
        amount: int,
        cap: Optional[int],
        idempotency: str = "",
        wait: "Wait" = 60.0,
    ) -> Dict[str, Any]:
        """Deposit ``amount`` into the payment type's tracker, at most once per key.

        :param payment_type: 0x + 64 hex.
        :param amount: smallest units.
        :param cap: the most one deposit may be (None: none).
        :param idempotency: another deposit of the same amount needs another key.
        :param wait: seconds per receipt, or a function giving them at each receipt
            (a paid call's time left: the approval and the deposit share it).
        :return: ``{"status": "deposited" | "already_deposited", "deposit":
            Deposit.to_dict() (as decided before sending), "tx_hash", "approval_tx"
            ("" when none), "prepaid_before", "prepaid_after", "journal"}``. A failed
            read or transaction raises ``MarketError`` (a deposit refused before
            signing after its approval names the approval: :func:`refuse_after_approval`),
            a journal entry this software did not write ``JournalError``.
        :raises PrepayRefused: when the deposit cannot be made now (nothing sent).
        """
        funds = self.payer.funds(payment_type)
        key = self.key(payment_type, funds.tracker, amount, idempotency)
        entry = self._load(key) or {
            "key": key,
            "payment_type": payment_type.lower(),
            "tracker": funds.tracker,
            "amount": str(amount),
            "status": "prepared",
            "approval": None,
            "deposit": None,
        }
        journal = str(self.folder / f"{key}.json")
        decided = plan_prepay(payment_type, amount, funds, cap)
        done = {
            "status": "already_deposited",
            "deposit": decided.to_dict(),
            "approval_tx": (entry["approval"] or {}).get("tx_hash", ""),
            "prepaid_before": str(funds.prepaid),
            "prepaid_after": str(funds.prepaid),
            "journal": journal,
        }
        if entry["deposit"] is not None:
            record = entry["deposit"]
            if self._unmined(record):
                self._rebroadcast(record, wait)
                reverted: Optional[bool] = False
            else:
                reverted = self.market.transaction_reverted(record["tx_hash"])
            if reverted is False:
                entry["status"] = "done"
                self._save(entry)
                after = self.payer.funds(payment_type).prepaid
                return {
                    **done,
                    "tx_hash": record["tx_hash"],
                    "prepaid_after": str(after),
                }
            entry["deposit"] = None  # never mined, or reverted: it deposited nothing
        if self._unmined(entry["approval"]):
            self._rebroadcast(entry["approval"], wait)
            funds = self.payer.funds(payment_type)
            decided = plan_prepay(payment_type, amount, funds, cap)
        before = funds.prepaid
        result = {**done, "status": "deposited", "deposit": decided.to_dict()}
        if decided.status is PaymentStatus.NEEDS_APPROVAL:
            signed = self._sign(self._approval(decided))
            entry["approval"] = _transaction_record(signed)
            self._save(entry)  # before the broadcast: a rerun re-sends these bytes
            result["approval_tx"] = self.market.broadcast(signed, seconds(wait))
            decided = self.plan(payment_type, amount, cap)
        if decided.status is not PaymentStatus.PAYABLE:
            raise PrepayRefused(
                f"{decided.reason or decided.status}; nothing was deposited"
            )
        try:
            signed = self._sign(self._deposit_call(decided))
        except MarketError as exc:
            again = self.plan(payment_type, amount, cap)
            if again.status is not PaymentStatus.PAYABLE:
                raise PrepayRefused(
                    f"{again.reason}; nothing was deposited (the funds changed after "
                    "they were read)"
                ) from exc
            refuse_after_approval(exc, entry["approval"])
            raise
        entry["deposit"] = _transaction_record(signed)
        self._save(entry)  # before the broadcast: a rerun re-sends these bytes
        result["tx_hash"] = self.market.broadcast(signed, seconds(wait))
        entry["status"] = "done"
        self._save(entry)
        result["prepaid_before"] = str(before)
        result["prepaid_after"] = str(self.payer.funds(payment_type).prepaid)
        return result
