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

"""The spending cap: what was paid within ``--spend-window``, against ``--max-spend``.

:class:`SpendLedger` counts this run's requests as they are sent and the journal's
requests of earlier runs (:class:`PaidRecord`, read by :mod:`.spending`), so a
restart does not reset the cap. No I/O.
"""

from dataclasses import dataclass, field
from typing import List, Optional, Sequence

#: ``--spend-window`` by default: what ``--max-spend`` caps is the spending of the last
#: 24 hours, across restarts of the server on the same ``--state-dir``
DEFAULT_SPEND_WINDOW_SECONDS = 24 * 3600.0


@dataclass(frozen=True)
class PaidRecord:
    """One journalled request, as the spending cap reads it.

    :param request_id: 0x + 64 hex ("" for an entry that could not be read).
    :param price: wei paid (0 for an unreadable entry).
    :param written_at: unix seconds the request was paid (the entry's ``paid_at``; its
        file's mtime for entries older than that field).
    :param problem: why the entry could not be read ("" when it was).
    """

    request_id: str
    price: int
    written_at: float
    problem: str = ""


@dataclass
class SpendLedger:
    """What was paid within ``--spend-window``, against ``--max-spend``.

    This run's requests are counted as they are sent (:meth:`record`); requests that
    earlier or other server processes journalled in the same ``--state-dir`` are counted
    from the journal (:meth:`count_journal`), so a restart does not reset the cap.

    :param max_spend: the cap in wei (None: no cap).
    :param spent: wei paid by this run so far (requests sent, delivered or not).
    :param requests: request ids paid for by this run, in order.
    :param window: seconds of spending the cap covers (None: this run only).
    :param earlier: wei of the journal's other requests within the window.
    :param earlier_requests: how many requests those are.
    :param unreadable: why a journal entry within the window could not be read ("":
        none); nothing is paid while one stays, since its price is unknown.
    :param refunded: this run's requests that were mined and reverted (their journal
        entries stay, and are not counted; an earlier run's reverted request is, to be
        safe: the journal does not say it reverted).
    """

    max_spend: Optional[int] = None
    spent: int = 0
    requests: List[str] = field(default_factory=list)
    window: Optional[float] = DEFAULT_SPEND_WINDOW_SECONDS
    earlier: int = 0
    earlier_requests: int = 0
    unreadable: str = ""
    refunded: List[str] = field(default_factory=list)

    def count_journal(self, records: Sequence[PaidRecord], now: float) -> None:
        """Count the journal's requests written within the window, except this run's.

        :param records: every journal entry (:class:`PaidRecord`).
        :param now: unix seconds.
        """
        if self.window is None:
            return
        since = now - self.window
        mine = set(self.requests) | set(self.refunded)
        recent = [r for r in records if r.written_at >= since]
        others = [r for r in recent if not r.problem and r.request_id not in mine]
        self.earlier = sum(r.price for r in others)
        self.earlier_requests = len(others)
        self.unreadable = next((r.problem for r in recent if r.problem), "")

    def _window_words(self) -> str:
        if self.window is None:
            return "this run's spending"
        return f"the spending of the last {self.window:g} s (--spend-window)"

    def refusal(self, price: int) -> Optional[str]:
        """Say why paying ``price`` now would break the cap, or None when it fits.

        :param price: the request's price, wei.
        :return: a sentence, or None.
        """
        if self.max_spend is None:
            return None
        if self.unreadable:
            return (
                f"the spending within --spend-window cannot be counted: "
                f"{self.unreadable}; check the entry, then move it away"
            )
        total = self.earlier + self.spent + price
        if total > self.max_spend:
            return (
                f"paying {price} wei would bring {self._window_words()} to "
                f"{total} wei, over --max-spend {self.max_spend} wei "
                f"({self.spent} wei spent on {len(self.requests)} request(s) by this "
                f"run, {self.earlier} wei on {self.earlier_requests} journalled "
                "request(s) of earlier or other runs)"
            )
        return None

    def record(self, price: int, request_id: str) -> None:
        """Count a paid request.

        :param price: wei paid.
        :param request_id: the marketplace request id (0x hex).
        """
        self.spent += price
        self.requests.append(request_id)

    def refund(self, price: int, request_id: str) -> None:
        """Take back a request counted by :meth:`record` that was mined and reverted.

        :param price: wei counted for it.
        :param request_id: its request id.
        """
        if request_id in self.requests:
            self.requests.remove(request_id)
            self.spent -= price
            self.refunded.append(request_id)
