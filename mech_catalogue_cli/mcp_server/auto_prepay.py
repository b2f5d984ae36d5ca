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

"""Prepay-then-retry after an off-chain 402 (``--auto-prepay ASSET=AMOUNT``, opt-in).

When a mech's endpoint answers a signed request with a *believed* ``olas-prepay``
challenge (``offchain.OffchainPoster``: its ``payTo`` is the tracker the marketplace
names, its chain ours), and the user opted in for the offer's asset, the server
deposits once for that call and posts the same signed request once more. What is
deposited is decided from the chain, never from the 402 body:

- **where**: the marketplace's balance tracker for the mech's payment type
  (``mapPaymentTypeBalanceTrackers``, read by :class:`.payment.TokenPayer`);
- **how much**: exactly ``AMOUNT`` (the user's opted-in top-up, in the asset's smallest
  units), and only when the shortfall ``price - prepaid`` (both read on chain) is
  above 0 and at most ``AMOUNT``; otherwise nothing (:func:`deposit_decision`);
- **within the caps**: the asset's ``--max-spend`` is required; the call's journal
  entry counts ``max(price, AMOUNT)`` against it (``spending.read_record``), so the
  deposit is counted, within ``--spend-window`` and across restarts, and the deposit is
  refused when it would bring the window's spending over the cap.

Never twice: the decision is written into the call's journal entry
(``extra.auto_prepay``: amount, tracker, idempotency key) before anything is signed,
and the deposit itself is :class:`.prepay.Prepayer`'s (each signed transaction
journalled in ``<state-dir>/prepay/`` before its broadcast, keyed by the call). A
second 402 for the same call, in this run or after a restart, finds the entry's
record: the same deposit is completed or said to be done, never another one.
"""

import logging
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

from mech_catalogue_core.model.payment import payment_terms, say_amount

from .journal import JournalEntry, JournalError
from .market import MarketError, Marketplace
from .offchain import POST_SECONDS, OffchainPoster, OffchainRefusal
from .prepay import Prepayer
from .settings import PhaseTimer
from .spend_cap import SpendLedger

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: the call journal entry's ``extra`` key recording the automatic deposit of the call
AUTO_PREPAY_KEY = "auto_prepay"
#: the prefix of the ``prepay`` journal's idempotency key of an automatic deposit
IDEMPOTENCY_PREFIX = "auto-prepay:"


class AutoPrepayRefusal(str):
    """Why no automatic deposit was made for a call (nothing was deposited by it)."""


def deposit_counted(extra: Mapping[str, Any]) -> int:
    """The amount a call's automatic deposit counts against ``--max-spend`` (pure).

    :param extra: a journal entry's ``extra``.
    :return: the deposit's amount, smallest units (0 when the call made none).
    :raises ValueError: when ``extra.auto_prepay`` is not one this server wrote.
    """
    record = extra.get(AUTO_PREPAY_KEY)
    if record is None:
        return 0
    amount = record.get("amount") if isinstance(record, dict) else None
    if not isinstance(amount, str) or not amount.isdigit() or len(amount) > 78:
        raise ValueError("its auto_prepay record is not one this server writes")
    return int(amount)


def deposit_decision(price: int, prepaid: int, opted: Optional[int]) -> Union[int, str]:
    """How much to deposit after a believed 402, or why nothing (pure).

    :param price: the signed delivery rate, smallest units.
    :param prepaid: the requester's prepaid balance on the tracker, read on chain now.
    :param opted: ``--auto-prepay`` amount of the asset (None: not opted in).
    :return: the amount to deposit (``opted``), or the reason in words.
    """
    if opted is None:
        return "--auto-prepay is not given for this asset"
    short = price - prepaid
    if short <= 0:
        return (
            f"the chain says the prepaid balance ({prepaid}) covers the price ({price}), "
            "yet the mech answered 402"
        )
    if short > opted:
        return (
            f"the shortfall ({short} smallest units) is more than the opted-in "
            f"--auto-prepay amount ({opted})"
        )
    return opted


class AutoPrepayer:
    """Makes at most one deposit per call, after a believed 402, within the caps."""

    def __init__(
        self,
        market: Marketplace,
        state_dir: Any,
        amounts: Mapping[str, int],
        wait: float = 60.0,
    ) -> None:
        """Use the marketplace's account and the state folder's prepay journal.

        :param market: the marketplace (its key stays inside it).
        :param state_dir: ``--state-dir`` (deposits journalled in its ``prepay/``).
        :param amounts: ``--auto-prepay``: asset -> amount per deposit, smallest units.
        :param wait: seconds per receipt.
        """
        self.prepayer = Prepayer(market, state_dir)
        self.amounts = dict(amounts)
        self.wait = wait

    def opted_for(self, payment_type: str) -> bool:
        """Whether the user opted in for this payment type's asset.

        :param payment_type: 0x + 64 hex.
        :return: True when ``--auto-prepay`` names its asset.
        """
        return payment_terms(payment_type).asset in self.amounts

    def deposit_for(
        self,
        entry: JournalEntry,
        ledger: SpendLedger,
        save: Any,
        wait: Optional[Callable[[], float]] = None,
    ) -> Union[Dict[str, Any], AutoPrepayRefusal]:
        """Deposit for a call whose signed request was answered by a believed 402.

        Blocking (chain reads, transactions). ``MarketError`` and ``JournalError`` from
        the deposit are returned as refusals in words, never raised.

        :param entry: the call's journal entry (``extra.offchain``; this adds
            ``extra.auto_prepay`` and saves it before signing anything).
        :param ledger: the ``--max-spend`` ledger of the entry's asset (this run's
            spending; the call counts at least the deposit in it from then on).
        :param save: ``Journal.save``.
        :param wait: gives the seconds a receipt is waited for when its wait begins
            (a paid call's time left; None: :attr:`wait`, ``--io-timeout``, each).
        :return: ``{"amount", "tracker", "tx_hash", "status": "deposited" |
            "already_deposited", "earlier": bool}`` (``earlier``: the deposit was decided
            by an earlier attempt of this call), or why nothing was deposited now.
        """
        payment_type = entry.payment_type
        asset = payment_terms(payment_type).asset
        record: Dict[str, Any] = entry.extra.get(AUTO_PREPAY_KEY) or {}
        earlier = bool(record)
        if earlier:
            try:
                amount = deposit_counted(entry.extra)
            except ValueError as exc:
                return AutoPrepayRefusal(f"the call's journal entry {exc}")
        else:
            try:
                funds = self.prepayer.payer.funds(payment_type)
            except MarketError as exc:
                return AutoPrepayRefusal(f"its funds could not be read ({exc})")
            decided = deposit_decision(
                entry.price, funds.prepaid, self.amounts.get(asset)
            )
            if isinstance(decided, str):
                return AutoPrepayRefusal(decided)
            amount = decided
            refusal = self._cap_refusal(
                ledger, ledger.deposit_excess(entry.key, amount)
            )
            if refusal:
                return AutoPrepayRefusal(
                    f"depositing {say_amount(amount, asset)} is over the cap: {refusal}"
                )
            record = {
                "amount": str(amount),
                "tracker": funds.tracker,
                "idempotency": IDEMPOTENCY_PREFIX + entry.key,
                "status": "prepared",
                "tx_hash": "",
            }
            entry.extra[AUTO_PREPAY_KEY] = record
            save(entry)  # before anything is signed: a retry never decides anew
            ledger.deposit(entry.key, amount)  # the call counts at least it
        try:
            done = self.prepayer.deposit(
                payment_type,
                amount,
                amount,
                record["idempotency"],
                self.wait if wait is None else wait,
            )
        except (MarketError, JournalError) as exc:
            return AutoPrepayRefusal(
                f"the deposit of {say_amount(amount, asset)} to tracker "
                f"{record['tracker']} failed: {exc}"
            )
        record.update(status="deposited", tx_hash=done["tx_hash"])
        save(entry)
        return {
            "amount": str(amount),
            "tracker": record["tracker"],
            "tx_hash": done["tx_hash"],
            "status": done["status"],
            "earlier": earlier,
        }

    @staticmethod
    def _cap_refusal(ledger: SpendLedger, excess: int) -> str:
        """Why the deposit would break the asset's ``--max-spend`` ("" when it fits).

        :param ledger: the asset's ledger (the call's requests already counted in it).
        :param excess: what the deposit adds to this run's spending
            (:meth:`.spend_cap.SpendLedger.deposit_excess`).
        :return: the reason, or "".
        """
        if ledger.max_spend is None:
            return f"--auto-prepay needs --max-spend for {ledger.asset}"
        if ledger.unreadable:
            return ledger.refusal(0) or ledger.unreadable
        return ledger.refusal(max(excess, 0)) or ""

    def prepay_and_retry(  # pylint: disable=too-many-arguments
        self,
        poster: OffchainPoster,
        entry: JournalEntry,
        payload: Dict[str, Any],
        challenge: OffchainRefusal,
        ledger: SpendLedger,
        save: Any,
        clock: Tuple[PhaseTimer, float],
    ) -> Optional[OffchainRefusal]:
        """After a believed 402: deposit for the call, then post the same request once.

        Blocking. The retry posts the journalled signed request unchanged (same id, same
        signature: a deposit does not move ``mapNonces``).

        :param poster: the off-chain poster.
        :param entry: the call's journalled entry (its request was just refused).
        :param payload: the request payload.
        :param challenge: the believed 402, in words.
        :param ledger: the ``--max-spend`` ledger of the entry's asset.
        :param save: ``Journal.save``.
        :param clock: the call's phase timer (laps ``auto_prepay`` and
            ``offchain_retry``) and its ``--timeout``: the deposit's receipts and the
            retry's post wait within what is left of it
            (:meth:`.settings.PhaseTimer.within`), never their own whole bounds.
        :return: None when the retry was accepted, else why not: the 402 and why
            nothing was deposited, or the deposit made and the retry's refusal
            (``deposited`` True).
        """
        asset = payment_terms(entry.payment_type).asset
        timer, timeout = clock
        done = self.deposit_for(
            entry, ledger, save, lambda: timer.within(timeout, self.wait)
        )
        timer.lap("auto_prepay")
        if isinstance(done, AutoPrepayRefusal):
            return OffchainRefusal(
                f"{challenge}; --auto-prepay deposited nothing: {done}"
            )
        deposit = (
            f"{say_amount(int(done['amount']), asset)} deposited to tracker "
            f"{done['tracker']} (tx {done['tx_hash']}"
            + (", by an earlier attempt of this call)" if done["earlier"] else ")")
        )
        LOGGER.info(
            "request %s: %s after mech %s's 402", entry.request_id, deposit, entry.mech
        )
        again = poster.post(entry, payload, timer.within(timeout, POST_SECONDS))
        timer.lap("offchain_retry")
        if again is None:
            return None
        refusal = OffchainRefusal(
            f"{deposit}, then the same signed request was posted once more and "
            f"refused: {again}. Nothing more is deposited for this call (the deposit "
            "stays in your prepaid balance; `mech-catalogue prepay --show` shows it)"
        )
        refusal.deposited = True
        return refusal
