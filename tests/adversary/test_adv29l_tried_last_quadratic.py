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

"""Which mechs go last costs given-up acceptances times settled requests (adv29l).

Severity: MEDIUM (a stall: every session's ``tools/list`` and every call waits on the
server's event loop).

``unsettled.given_up_mechs`` (fix29l, adv29j) checks each acceptance given up within the
window against *every* journalled request known settled (``_taken_within_bound``: an
``any`` over the whole list, whatever its nonce), and the list of settled requests is
the whole journal's, of any age (up to ``spending.MAX_JOURNAL_ENTRIES``, 100,000). It
runs on the event loop, after the journal's records are read in a worker thread
(``MechToolServer._given_up_mechs``): at every ``tools/list`` and at every call.

A mech's endpoint that accepts every request and settles none adds one given-up
acceptance per call the agent sends it (a tool only that mech offers: it is tried last,
but it is the only offer); an agent that has read 50,000 off-chain answers over its life
has 50,000 settled requests. Measured here (quiet machine, this module's shapes): 0.9 s
for 50,000 settled x 100 given up, 3.7 s for 50,000 x 400, 14 s for 99,000 x 1,000, per
``tools/list`` and per call, during which no other session is answered.

The records are :class:`mech_catalogue_cli.mcp_server.spend_cap.PaidRecord` as
``spending.read_record`` gives them (a delivered call: its request in ``settled``; an
accepted, never settled one: in ``acceptances``), built directly rather than written as
50,000 journal files.

Expected: the cost grows with the acceptances plus the settled requests (for instance:
the settled ones indexed by nonce), so 16 times the given-up acceptances over the same
settled requests costs far less than 16 times as much. Checked as a ratio of two
measurements of the same run (no absolute time): observed on main 22 times (0.07 s,
1.4 s; 6 s for the module, shapes built included).
"""

import time
from typing import List

from mech_catalogue_cli.mcp_server.outstanding import Hold
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord
from mech_catalogue_cli.mcp_server.unsettled import given_up_mechs

#: the server's --timeout, seconds (each acceptance's bound)
BOUND = 60.0
#: journalled requests known settled (delivered calls of any age)
SETTLED = 30_000
#: given-up acceptances in the window: the baseline, and sixteen times it
FEW, MANY = 25, 400


def _records(now: float, given_up: int) -> List[PaidRecord]:
    """SETTLED delivered calls of an honest mech, then ``given_up`` unsettled ones.

    :param now: unix seconds.
    :param given_up: how many accepted requests of the hostile mech were never settled.
    :return: the journal's records, as ``spending.read_record`` would give them.
    """
    records = []
    for i in range(SETTLED):
        hold = Hold(f"{i:064x}", "0x" + "11" * 32, i, "0x" + "aa" * 20, True, now - 2e5)
        records.append(
            PaidRecord(
                hold.request_id,
                1,
                hold.since,
                asset="native",
                key=hold.key,
                settled=(hold,),
            )
        )
    for j in range(given_up):
        since = now - 3_000.0 - j  # within the window, long past its bound
        hold = Hold(
            f"{10**9 + j:064x}",
            "0x" + "22" * 32,
            10**6 + j,
            "0x" + "bb" * 20,
            True,
            since,
        )
        records.append(
            PaidRecord(
                hold.request_id,
                1,
                since,
                asset="native",
                key=hold.key,
                acceptances=(hold,),
            )
        )
    return records


def _seconds(records: List[PaidRecord], now: float) -> float:
    """The least of three runs of ``given_up_mechs`` over the records.

    :param records: the journal's records.
    :param now: unix seconds.
    :return: seconds.
    """
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        remembered = given_up_mechs(records, now, BOUND)
        best = min(best, time.perf_counter() - start)
        assert list(remembered) == ["0x" + "bb" * 20]  # the hostile mech goes last
    return best


def test_given_up_acceptances_do_not_multiply_with_settled_requests() -> None:
    """Sixteen times the given-up acceptances over the same settled requests."""
    now = time.time()
    few = _seconds(_records(now, FEW), now)
    many = _seconds(_records(now, MANY), now)
    observed = (
        f"{SETTLED} settled x {FEW} given up: {few:.3f} s; x {MANY}: {many:.3f} s "
        f"({many / few:.1f} times)"
    )
    # observed on main: 0.066 s and 1.442 s (21.9 times)
    assert many < 4 * few, observed
