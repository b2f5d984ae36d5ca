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

"""adv29zv2 Q2: burners cycling through the alone reads keep honest mechs unread for good.

Severity: MEDIUM (issue #29, the catalogue's honest data: on an agent that never
restarts, honest mechs beside a stranger's mechs stay unread 30 periods running and
more; the agent serves their last agreed facts, with that period's block, a new honest
mech none; the MCP server the same from its own last good read).

``chain.read_apart`` reads a burner told apart failing among the failing mechs for 16
reads, then alone once (it fails there: failing again). So 2,000 burners come back to
the alone reads about 118 a read, over ``MAX_READ_ALONE`` (64): the mechs to read
alone are never fewer than 64 again, and the queue never empties (about 1,000 waiting).
Mechs waiting are ordered by reads waited, then discovery: a burner back from the
failing mechs has waited 0 reads, as has an honest mech just left unread, and the
burners, registered first, win the tie; the burners waiting longer are ahead anyway. An
honest mech waiting is read among the failing mechs, a batch dense with burners, and
left unread there again. What puts honest mechs in the queue after the first reads:
a stranger's mechs among them that burn their gas unless read alone (they see it),
back in the pool after each read alone.

Observed on main (the model node of ``test_mechs_read_apart``, batch 200, one reader
from its first read, 60 reads): 2,000 burners registered first, then 200 honest mechs
each followed by such a mech: honest unread per read from read 21: 100, 92, 99 (x8),
92 (x4), 73, 41, 10 (x3), 3, 7 (x13), 8, 20, 24, 24, 20, 20, 21; the mechs to read alone
1,011 to 1,150 each read; one honest mech unread 30 reads running (to the last read).
(53 s under load.)

Expected: an honest mech left unread is read alone within a read or two however many
strangers' mechs wait (e.g. a mech back from the failing mechs, or one that failed when
read alone, waits behind every mech never told failing; or the places taken in turn).
"""

from typing import Dict, Set

from mech_catalogue_core.chain.marketplace import MechCreation
from mech_catalogue_core.chain.read_apart import (
    ALONE,
    MechsReadApart,
    own_getters_failed,
)
from mech_catalogue_core.model.market import MECH_KIND_MARKETPLACE
from mech_catalogue_core.tests.chain.test_failing_calls_isolated import FACTORY
from mech_catalogue_core.tests.chain.test_mechs_read_apart import (
    RecordingNode,
    mech_address,
)

from tests.adversary.test_adv29zv2_facts_follow_places import read_placed

BURNERS = 2_000
HONEST = 200
READS = 60
#: reads before the places settle (the first read's own losses are known, adv29zq)
SETTLING = 20


def test_no_honest_mech_stays_unread_once_the_places_settled() -> None:
    """2,000 burners, then 200 honest mechs each followed by a pool-only burner."""
    mechs = [
        MechCreation(mech_address(i + 1), MECH_KIND_MARKETPLACE, i + 1, FACTORY, 10)
        for i in range(BURNERS + 2 * HONEST)
    ]
    burners = {m.address for m in mechs[:BURNERS]}
    honest = {m.address for m in mechs[BURNERS::2]}
    pool_only: Set[str] = {m.address for m in mechs[BURNERS + 1 :: 2]}
    memory = MechsReadApart()
    running: Dict[str, int] = {}
    longest, per_read, waiting = 0, [], []
    for index in range(READS):
        kinds = {address: "burns" for address in burners}
        kinds.update(
            {a: "burns" for a in pool_only if memory.place(a) != ALONE}
        )  # they see the gas of a read alone, and answer there
        facts, _ = read_placed(mechs, RecordingNode(kinds), memory)
        unread = {
            f.address for f in facts if f.address in honest and own_getters_failed(f)
        }
        running = {address: running.get(address, 0) + 1 for address in unread}
        if index >= SETTLING:
            longest = max([longest, *running.values()])
            per_read.append(len(unread))
            waiting.append(len(memory.alone))
    print(
        f"from read {SETTLING + 1}: honest unread per read {per_read}; mechs to read "
        f"alone {min(waiting)}-{max(waiting)}; longest run one honest mech stayed "
        f"unread {longest} reads"
    )
    assert longest <= 2
