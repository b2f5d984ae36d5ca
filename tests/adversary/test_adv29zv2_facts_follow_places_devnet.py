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

"""adv29zv2 P1 on the devnet: one block, one node, two memories, two prices.

Severity: MEDIUM (issue #29 (e): agents whose read-apart memories differ build
different catalogues at the same block; see ``test_adv29zv2_facts_follow_places``).

Anvil with the real MechMarketplace and the seeded mechs; two seeded mechs are given
code of a stranger's (``anvil_setCode``): the first burns all its gas in every getter,
the second ("gauge") answers ``gasleft()`` in every getter (``GAS; PUSH1 0; MSTORE;
PUSH1 32; PUSH1 0; RETURN``). The facts reader the MCP server and the agent share
(``facts_reader`` through ``MarketplaceReader``) reads the head block twice, with no
block mined between: once by a reader that read once before (the burner learnt to be
failing, ``chain.read_apart``: read after the pool), once by a fresh one (a restarted
agent, or one whose node limited its rate: every mech in the pool).

Observed on main: the gauge's ``max_delivery_rate`` differs between the two reads of
the same block (block 75: 2,038,405 read by the running reader, 1,289,765 by the
fresh one), so two agents in those two states send two
catalogues for the period.

Expected: the same block read through the same node gives the same facts whatever the
reader learnt before.
"""

from typing import Dict, List, Optional

import pytest
from mech_catalogue_core.model.market import MechFacts

from scripts.devnet import Devnet
from tests.devnet.test_gas_burning_mechs_devnet import BURNS, reader, set_code

#: GAS; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN: every getter answers its gas left
GAUGE = "0x5a60005260206000f3"


def prices(facts: List[MechFacts]) -> Dict[str, Optional[int]]:
    """Each mech's price read.

    :param facts: a read.
    :return: address -> ``max_delivery_rate``.
    """
    return {fact.address: fact.max_delivery_rate for fact in facts}


@pytest.mark.xfail(
    strict=True,
    reason="by design (fix29zzf): the gauge's facts at one block follow the reader's "
    "places; agents converge by reading afresh after a period not agreed",
)
def test_one_block_read_by_a_running_and_a_fresh_reader_gives_one_price(
    chain_snapshot: Devnet,
) -> None:
    """A reader that learnt the burner's place and a fresh one read the same block.

    :param chain_snapshot: the devnet, reverted afterwards.
    """
    mechs = [
        m["address"].lower()
        for m in chain_snapshot.info.mechs
        if m["kind"] == "marketplace"
    ]
    assert len(mechs) >= 3
    burner, gauge = mechs[0], mechs[-1]
    set_code(chain_snapshot, burner, BURNS)
    set_code(chain_snapshot, gauge, GAUGE)
    running = reader(chain_snapshot)
    running.facts()  # learns: the burner among the failing
    assert burner in running.read_apart.failing
    block = chain_snapshot.w3.eth.block_number
    seen_running = prices(running.facts())
    seen_fresh = prices(reader(chain_snapshot).facts())
    assert chain_snapshot.w3.eth.block_number == block  # one block read twice
    print(
        f"block {block}: the gauge's price read by the running reader "
        f"{seen_running[gauge]}, by a fresh one {seen_fresh[gauge]}"
    )
    assert seen_running[gauge] is not None
    assert seen_running == seen_fresh
