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

"""adv29zz I2: one burning mech per batch leaves every later batch's honest mechs unread.

Severity: MEDIUM (issue #29 (a)/(e): a stranger's mechs whose getters burn the gas
they are given (adv29zv G1's premise) leave honest mechs' prices unread every period:
their offers are refused "price unread" (``offers._refusal``; the MCP server keeps no
earlier period's facts), so a stranger's offer of the same tool is the one paid).

fix29zn bounds telling failing calls apart: ``isolation_calls(n)`` runs a batch and
``MAX_ISOLATION_CALLS`` (128) a facts read, shared by all its batches. One burning
mech at the start of a batch of 200 calls takes ~25 runs to tell apart, so five such
batches spend the read's runs; from the sixth on, a burner first in its batch makes the
whole ``eth_call`` fail and every call of the batch is left unread. Mechs are read in
creation order (``discover_mechs``): a stranger places one by creating it after each
~24 honest ones.

Observed on main (``marketplace.facts_reader`` through ``isolate_failing_calls`` over
the library's Multicall2 63/64 model ``GasNode``, ``multicall_batch_size`` 200 = 25
mechs a batch): a burning mech first in each batch, 325 mechs (13 burners): 146
``eth_call`` runs, 155 of 312 honest mechs' prices unread (6 batches: 0; 8 batches:
35; each further burner about 24 more, without bound). Cheapest found: 3 burners in
each of the first two batches spend the 128 runs, then one a batch: 200 mechs, 12
burners: 120 of 188 honest unread; 325 mechs, 17 burners: 240 of 308. Within one batch
8 burning mechs of 25 leave all 17 honest mechs unread (6: 9 of 19; 5: 4 of 20). The
known form took 10 spread burners for 142 of 190 honest single calls.

Fixed (fix29zt): a read's runs (``rpc_limits.MAX_ISOLATION_CALLS``, now 512) are
brought by its batches as they are sent, each 1/``READ_SHARES`` (8) of what is not yet
brought, so a batch spends its share and what earlier ones left, never a later one's;
parts are halved between two contracts' calls and a part of one contract's calls
failing whole is that contract's failure. Measured: 13 burners first in each batch: 0
unread, 175 runs; the cheapest placement: 0 unread, 211 runs; 8 burners among 25 mechs:
0 unread (55 runs for the batch).
"""

from typing import Set, Tuple

from mech_catalogue_core.chain.marketplace import (
    MECH_KIND_MARKETPLACE,
    MechCreation,
    facts_reader,
)
from mech_catalogue_core.chain.registry import ChainReadError
from mech_catalogue_core.chain.rpc_limits import isolate_failing_calls
from mech_catalogue_core.driver import drive
from mech_catalogue_core.tests.chain.test_failing_calls_isolated import (
    FACTORY,
    MARKET,
    MULTICALL,
    PROBE,
    GasNode,
)

BATCH = 200  # multicall_batch_size's default: 25 mechs of 8 calls


def _address(index: int) -> str:
    """Return mech ``index``'s address."""
    return "0x" + f"{index:040x}"


def _honest_unread(mechs: int, burners: Set[int]) -> Tuple[int, int]:
    """Read ``mechs`` mechs' facts in one read; return (runs, honest prices unread)."""
    created = [
        MechCreation(_address(i), MECH_KIND_MARKETPLACE, i, FACTORY, 10 + i)
        for i in range(1, mechs + 1)
    ]
    node = GasNode({_address(i): "burns" for i in burners})
    _, facts = drive(
        facts_reader(MARKET, MULTICALL, created, BATCH),
        isolate_failing_calls(node, (ChainReadError,), PROBE),
    )
    unread = [
        fact
        for fact in facts
        if fact.max_delivery_rate is None and int(fact.address, 16) not in burners
    ]
    return len(node.requests), len(unread)


def test_one_burner_per_batch_leaves_later_batches_unread() -> None:
    """13 batches, a burning mech first in each: every honest mech's price is read."""
    runs, unread = _honest_unread(325, {1 + 25 * j for j in range(13)})
    # observed on main: 146 runs, 155 honest mechs unread; fixed: 175 runs, 0
    assert unread == 0, f"{unread} honest mechs' prices unread ({runs} runs)"


def test_the_cheapest_placement() -> None:
    """3 burners in each of two batches, then one a batch: every honest price read."""
    burners = {x + 25 * j for j in range(2) for x in (1, 9, 17)}
    burners |= {1 + 25 * j for j in range(2, 13)}
    runs, unread = _honest_unread(325, burners)
    # observed on main: 145 runs, 240 honest mechs unread; fixed: 211 runs, 0
    assert unread == 0, f"{unread} honest mechs' prices unread ({runs} runs)"


def test_eight_burning_mechs_in_a_batch() -> None:
    """8 burning mechs spread among 25: the 17 honest mechs' prices are read."""
    runs, unread = _honest_unread(25, {1, 4, 7, 10, 13, 16, 19, 22})
    # observed on main: 19 runs, 17 honest mechs unread; fixed: 105 runs, 0
    assert unread == 0, f"{unread} honest mechs' prices unread ({runs} runs)"


def test_the_model_reads_honest_batches_whole() -> None:
    """Control: without burners nothing is unread, one run a batch (and the block)."""
    assert _honest_unread(325, set()) == (19, 0)
