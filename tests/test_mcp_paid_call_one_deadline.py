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

"""Every wait inside a paid call shares the call's ``--timeout`` (fix29zd).

The off-chain post kept its own 10 s bound and an automatic deposit its own
``--io-timeout`` per receipt (approval, then deposit), whatever was left of the call.
Here without a chain: :meth:`.settings.PhaseTimer.within`, and
:meth:`.auto_prepay.AutoPrepayer.prepay_and_retry` with a stand-in prepayer and poster
that record the seconds each wait was given. The devnet test of a silent endpoint is
``tests/test_mcp_offchain_deadline_devnet.py``.
"""

import time
from types import SimpleNamespace
from typing import Any, Dict, List, Optional

import pytest

from mech_catalogue_cli.mcp_server.auto_prepay import AutoPrepayer
from mech_catalogue_cli.mcp_server.offchain import POST_SECONDS, OffchainRefusal
from mech_catalogue_cli.mcp_server.prepay import Wait, seconds
from mech_catalogue_cli.mcp_server.settings import LEAST_WAIT, PhaseTimer
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

IO_TIMEOUT = 30.0  # --io-timeout: what each receipt waited for before


def _timer(spent: float) -> PhaseTimer:
    """A call's clock that began ``spent`` seconds ago."""
    timer = PhaseTimer()
    timer.began -= spent
    return timer


@pytest.mark.parametrize(
    "spent, timeout, most, given",
    [
        (0.0, 60.0, 10.0, 10.0),  # the wait's own bound, the call young
        (55.0, 60.0, 10.0, 5.0),  # what is left of the call
        (60.0, 60.0, 10.0, LEAST_WAIT),  # spent: a second to see its answer
        (90.0, 60.0, 10.0, LEAST_WAIT),
        (59.5, 60.0, 0.2, 0.2),  # never more than the wait's own bound
    ],
)
def test_a_wait_is_its_own_bound_or_the_call_s_time_left(
    spent: float, timeout: float, most: float, given: float
) -> None:
    """``within``: the least of the two, a second at least."""
    assert _timer(spent).within(timeout, most) == pytest.approx(given, abs=0.11)


class _Prepayer:  # pylint: disable=too-few-public-methods
    """A prepayer whose deposit is an approval then a deposit, each a receipt wait."""

    def __init__(self) -> None:
        self.waits: List[float] = []
        self.payer = SimpleNamespace(
            funds=lambda _type: SimpleNamespace(prepaid=0, tracker="0x" + "77" * 20)
        )

    def deposit(  # pylint: disable=too-many-arguments
        self, payment_type: str, amount: int, cap: int, idempotency: str, wait: Wait
    ) -> Dict[str, Any]:
        """Two receipts, the second a little later: each asks its seconds then."""
        del payment_type, amount, cap, idempotency
        self.waits.append(seconds(wait))  # the approval's receipt
        time.sleep(0.3)
        self.waits.append(seconds(wait))  # the deposit's receipt
        return {"tx_hash": "0x" + "88" * 32, "status": "deposited"}


class _Poster:  # pylint: disable=too-few-public-methods
    """A poster recording the seconds its post was given; the retry is accepted."""

    def __init__(self) -> None:
        self.waits: List[float] = []

    def post(  # pylint: disable=useless-return
        self, entry: Any, payload: Dict[str, Any], wait: float = POST_SECONDS
    ) -> Optional[OffchainRefusal]:
        """Accepted: None."""
        del entry, payload
        self.waits.append(wait)
        return None


def _auto() -> AutoPrepayer:
    auto = AutoPrepayer.__new__(AutoPrepayer)
    auto.prepayer = _Prepayer()  # type: ignore[assignment]
    auto.amounts, auto.wait = {"native": 10**16}, IO_TIMEOUT
    return auto


@pytest.mark.parametrize(
    "spent, deposit_waits, post_wait",
    [
        (0.0, (IO_TIMEOUT, IO_TIMEOUT), POST_SECONDS),  # a young call: their own bounds
        (57.0, (3.0, 2.7), 2.7),  # three seconds left: shared, each asks what is left
        (65.0, (LEAST_WAIT, LEAST_WAIT), LEAST_WAIT),  # spent: a second each
    ],
)
def test_the_deposit_and_the_retry_wait_within_the_call(
    spent: float, deposit_waits: Any, post_wait: float
) -> None:
    """``--timeout 60``: the deposit's receipts and the retried post share its rest.

    :param spent: seconds of the call spent before the 402.
    :param deposit_waits: the seconds the approval's and the deposit's receipts get.
    :param post_wait: the seconds the retried post gets.
    """
    auto, poster = _auto(), _Poster()
    written = offchain_entry(dict(OFFCHAIN, accepted=False))
    refused = auto.prepay_and_retry(
        poster,  # type: ignore[arg-type]
        written,
        {"prompt": "p"},
        OffchainRefusal("402"),
        SpendLedger(max_spend=10**18),
        lambda _entry: None,
        (_timer(spent), 60.0),
    )
    assert refused is None
    prepayer: Any = auto.prepayer
    assert prepayer.waits == pytest.approx(list(deposit_waits), abs=0.15)
    assert poster.waits == pytest.approx([post_wait], abs=0.15)


def test_a_plain_number_is_a_wait_as_before() -> None:
    """``prepay`` (the command) passes seconds: each receipt waits that long."""
    assert seconds(12.5) == 12.5 and seconds(lambda: 3.0) == 3.0
