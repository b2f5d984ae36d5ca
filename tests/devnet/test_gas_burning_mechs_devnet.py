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

"""Mechs running code of their own cannot take the other mechs' facts (anvil, Multicall2).

Seeded mechs are given code (``anvil_setCode``) that burns all gas it is given, loops,
reverts with a 1 MiB reason or returns 1 MiB, whatever is called; the CLI's and the MCP
server's facts read (``MarketplaceReader``) keeps every other mech's facts, equal to a
read of the same block without the strangers' code, and the price read before a payment
(``Marketplace.mech_price``) answers None at once.
"""

import time
from dataclasses import replace
from typing import Any, Dict, Iterator, List, Optional

import pytest
from aea_ledger_ethereum import EthereumApi
from mech_catalogue_core.chain.marketplace import (
    DiscoveryCheckpoint,
    MarketplaceSource,
    MechCreation,
)
from mech_catalogue_core.chain.registry import decode_batch, encode_batch, encode_call
from mech_catalogue_core.chain.rpc_limits import batch_gas
from mech_catalogue_core.model.market import MECH_KIND_MARKETPLACE, MechFacts
from requests import Session
from web3.types import RPCEndpoint

from packages.mech_catalogue.contracts.multicall_reader.contract import (
    MulticallReaderContract,
)

from mech_catalogue_cli.devnet_options import DevnetSettings
from mech_catalogue_cli.marketplace_driver import MarketplaceReader
from mech_catalogue_cli.mcp_server.market import Marketplace
from mech_catalogue_cli.sync_driver import SyncConfig
from scripts.devnet import Devnet

#: JUMPDEST; PUSH2 0x8000; PUSH1 0; KECCAK256; POP; PUSH1 0; JUMP: burns all its gas
BURNS = "0x5b61800060002050600056"
#: JUMPDEST; PUSH1 0; JUMP: loops until its gas is gone
LOOPS = "0x5b600056"
#: PUSH3 0x100000; PUSH1 0; REVERT: a 1 MiB reason
REVERTS_HUGE = "0x62100000" + "6000fd"
#: PUSH3 0x100000; PUSH1 0; RETURN: a 1 MiB value
RETURNS_HUGE = "0x62100000" + "6000f3"
#: any field the chain gives (what a read without the strangers' code is compared on)
FIELDS = (
    "service_id",
    "max_delivery_rate",
    "payment_type",
    "requests",
    "deliveries",
    "marketplace_deliveries",
    "service_deliveries",
    "karma",
    "operator",
    "confirmed",
    "unread",
)


def reader(devnet: Devnet, batch_size: int = 200) -> MarketplaceReader:
    """Return the MCP server's facts reader on the devnet (what ``--devnet`` builds).

    :param devnet: the devnet.
    :param batch_size: calls per ``eth_call``.
    :return: the reader.
    """
    settings = DevnetSettings(devnet.info)
    config = SyncConfig(
        devnet.info.rpc_url, "", (), settings.multicall, batch_size=batch_size
    )
    source = MarketplaceSource(
        devnet.info.chain_id,
        devnet.info.contracts["MechMarketplace"],
        confirmations=0,
    )
    return MarketplaceReader(config, source, Session())


def set_code(devnet: Devnet, mech: str, code: str) -> None:
    """Give a mech contract other code.

    :param devnet: the devnet.
    :param mech: its address.
    :param code: 0x + the runtime bytecode.
    """
    devnet.w3.provider.make_request(RPCEndpoint("anvil_setCode"), [mech, code])


def seen(facts: List[MechFacts]) -> Dict[str, Dict[str, object]]:
    """Return each mech's chain values.

    :param facts: a read.
    :return: address -> field -> value.
    """
    return {f.address: {k: getattr(f, k) for k in FIELDS} for f in facts}


@pytest.fixture(name="honest")
def _honest(chain_snapshot: Devnet) -> Iterator[Dict[str, Dict[str, object]]]:
    """The seeded mechs' facts at the head, before any gets code of its own.

    :param chain_snapshot: the devnet, reverted afterwards.
    :yield: address -> field -> value.
    """
    facts = reader(chain_snapshot).facts()
    for fact in facts:  # every getter fits the bound: nothing unread but what is absent
        assert set(dict(fact.unread)) <= {"service_deliveries"}, fact
    yield seen(facts)


def strangers(devnet: Devnet, count: int) -> List[str]:
    """Return the addresses of ``count`` seeded marketplace mechs, spread over the list.

    :param devnet: the devnet.
    :param count: how many.
    :return: lowercase addresses.
    """
    mechs = [
        m["address"].lower() for m in devnet.info.mechs if m["kind"] == "marketplace"
    ]
    assert len(mechs) >= 2 * count + 1
    return [mechs[1 + 2 * i] for i in range(count)]


def assert_others_unchanged(
    honest: Dict[str, Dict[str, object]], facts: List[MechFacts], bad: List[str]
) -> None:
    """Every mech but the strangers has the facts it had without their code.

    :param honest: the read before.
    :param facts: the read now.
    :param bad: the strangers.
    """
    now = seen(facts)
    assert set(now) == set(honest)
    for address, values in honest.items():
        if address not in bad:
            assert now[address] == values, address


@pytest.mark.parametrize(
    "code", [BURNS, LOOPS, REVERTS_HUGE], ids=["burns", "loops", "reverts_huge"]
)
def test_one_strangers_code_loses_its_own_facts_only(
    chain_snapshot: Devnet, honest: Dict[str, Dict[str, object]], code: str
) -> None:
    """A burner, a loop or a 1 MiB revert among the seeded mechs.

    :param chain_snapshot: the devnet.
    :param honest: the facts before.
    :param code: the stranger's code.
    """
    (bad,) = strangers(chain_snapshot, 1)
    set_code(chain_snapshot, bad, code)
    facts = reader(chain_snapshot).facts()
    assert_others_unchanged(honest, facts, [bad])
    own = next(f for f in facts if f.address == bad)
    assert own.max_delivery_rate is None and own.service_deliveries is None
    assert dict(own.unread)["max_delivery_rate"] == "call_reverted"


def test_a_huge_return_loses_no_other_mechs_facts(
    chain_snapshot: Devnet, honest: Dict[str, Dict[str, object]]
) -> None:
    """A getter returning 1 MiB: the others' facts kept, its own whatever it decodes to.

    :param chain_snapshot: the devnet.
    :param honest: the facts before.
    """
    (bad,) = strangers(chain_snapshot, 1)
    set_code(chain_snapshot, bad, RETURNS_HUGE)
    assert_others_unchanged(honest, reader(chain_snapshot).facts(), [bad])


@pytest.mark.parametrize("batch_size", [1, 9, 200])
def test_two_burners_lose_their_own_facts_only(
    chain_snapshot: Devnet, honest: Dict[str, Dict[str, object]], batch_size: int
) -> None:
    """Two burners, batches of one call, of about one mech, of everything.

    :param chain_snapshot: the devnet.
    :param honest: the facts before.
    :param batch_size: calls per ``eth_call``.
    """
    bad = strangers(chain_snapshot, 2)
    for mech in bad:
        set_code(chain_snapshot, mech, BURNS)
    facts = reader(chain_snapshot, batch_size).facts()
    assert_others_unchanged(honest, facts, bad)
    assert all(f.max_delivery_rate is None for f in facts if f.address in bad)


def test_a_burner_read_alone(
    chain_snapshot: Devnet, honest: Dict[str, Dict[str, object]]
) -> None:
    """The only mech read burns: its facts unread, no error.

    :param chain_snapshot: the devnet.
    :param honest: the facts before.
    """
    (bad,) = strangers(chain_snapshot, 1)
    set_code(chain_snapshot, bad, BURNS)
    whole = reader(chain_snapshot)
    whole.facts()
    assert whole.checkpoint is not None
    alone = reader(chain_snapshot)
    alone.checkpoint = replace(
        whole.checkpoint,
        mechs=tuple(m for m in whole.checkpoint.mechs if m.address == bad),
    )
    (own,) = alone.facts()
    assert own.address == bad and own.max_delivery_rate is None
    assert honest[bad]["max_delivery_rate"] is not None


def timed_read(devnet: Devnet, checkpoint: Optional[DiscoveryCheckpoint]) -> float:
    """Return the seconds one facts read takes.

    :param devnet: the devnet.
    :param checkpoint: the mechs to read.
    :return: seconds.
    """
    facts = reader(devnet)
    facts.checkpoint = checkpoint
    started = time.monotonic()
    facts.facts()
    return time.monotonic() - started


def test_a_burner_among_four_mechs_costs_a_bounded_time(
    chain_snapshot: Devnet,
) -> None:
    """The read of 4 mechs, one burning, against the same read with none (same run).

    :param chain_snapshot: the devnet.
    """
    whole = reader(chain_snapshot)
    whole.facts()
    assert whole.checkpoint is not None
    (bad,) = strangers(chain_snapshot, 1)
    mechs = [m for m in whole.checkpoint.mechs if m.kind == MECH_KIND_MARKETPLACE]
    four = tuple(
        [m for m in mechs if m.address == bad]
        + [m for m in mechs if m.address != bad][:3]
    )
    checkpoint = replace(whole.checkpoint, mechs=four)
    clean = min(timed_read(chain_snapshot, checkpoint) for _ in range(3))
    set_code(chain_snapshot, bad, BURNS)
    burning = min(timed_read(chain_snapshot, checkpoint) for _ in range(3))
    print(f"facts of 4 mechs: {clean:.3f} s, one burning: {burning:.3f} s")
    assert burning < 3.0


def test_a_burning_price_read_answers_none_at_once(chain_snapshot: Devnet) -> None:
    """``maxDeliveryRate()`` read before a payment: None, in well under a second.

    :param chain_snapshot: the devnet.
    """
    (bad,) = strangers(chain_snapshot, 1)
    key = str(chain_snapshot.info.accounts["stranger"]["private_key"])
    market = Marketplace(
        chain_snapshot.info.rpc_url,
        chain_snapshot.info.contracts["MechMarketplace"],
        key,
    )
    assert market.mech_price(bad) is not None
    set_code(chain_snapshot, bad, BURNS)
    started = time.monotonic()
    assert market.mech_price(bad) is None
    took = time.monotonic() - started
    print(f"a burning mech's price read: {took:.3f} s")
    assert took < 0.5


def test_the_skills_multicall_reader_bounds_the_gas(chain_snapshot: Devnet) -> None:
    """The skill's contract package passes the bound: a burner alone answers (False).

    :param chain_snapshot: the devnet.
    """
    (bad,) = strangers(chain_snapshot, 1)
    set_code(chain_snapshot, bad, BURNS)
    ledger = EthereumApi(
        address=chain_snapshot.info.rpc_url, chain_id=chain_snapshot.info.chain_id
    )
    calls = [encode_call(bad, "maxDeliveryRate()", (), (), ("uint256",))]
    data = "0x" + encode_batch(calls).hex()
    multicall = DevnetSettings(chain_snapshot.info).multicall
    started = time.monotonic()
    body = MulticallReaderContract.call(ledger, multicall, data, None, batch_gas(1))
    bounded = time.monotonic() - started
    reply = decode_batch(bytes.fromhex(str(body["data"])[2:]), 1)
    assert reply[1] == [(False, b"")]
    started = time.monotonic()
    MulticallReaderContract.call(ledger, multicall, data, None)  # the node's cap
    print(
        f"one burning call: {bounded:.3f} s bounded, {time.monotonic() - started:.3f} s not"
    )
    assert bounded < 0.3


def test_burners_dense_among_the_seeded_mechs_leave_none_unread_next_period(
    chain_snapshot: Devnet, honest: Dict[str, Dict[str, object]]
) -> None:
    """Every other marketplace mech burns: from the second read the others' facts are read.

    Each other mech's facts equal a read without the code, and the runs settle
    (``chain.read_apart``).

    :param chain_snapshot: the devnet.
    :param honest: the facts before.
    """
    mechs = [
        m["address"].lower()
        for m in chain_snapshot.info.mechs
        if m["kind"] == "marketplace"
    ]
    bad = mechs[1::2]
    for mech in bad:
        set_code(chain_snapshot, mech, BURNS)
    server = reader(chain_snapshot)
    runs: List[int] = []
    batch = server._batch  # pylint: disable=protected-access

    def counted(request: Any) -> Any:
        runs[-1] += 1
        return batch(request)

    server._batch = counted  # type: ignore[method-assign]  # pylint: disable=protected-access
    unread_honest = []
    for _ in range(3):
        runs.append(0)
        facts = seen(server.facts())
        unread_honest.append(
            sum(1 for a, v in facts.items() if a not in bad and v != honest[a])
        )
    print(
        f"{len(bad)} burners of {len(honest)} mechs: honest mechs unread per read "
        f"{unread_honest}, eth_calls {runs}"
    )
    assert unread_honest[1:] == [0, 0]
    assert set(server.read_apart.failing) == set(bad)
    assert runs[2] <= runs[0]


#: PUSH1 7; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN: any getter answers 7
ANSWERS_SEVEN = "0x600760005260206000f3"


@pytest.mark.parametrize("burners", [10, 30])
def test_burners_spread_among_200_mechs_leave_none_unread_next_period(  # pylint: disable=too-many-locals
    chain_snapshot: Devnet, burners: int
) -> None:
    """200 contracts answering every getter, burners spread among them (anvil_setCode).

    Period 1 left honest mechs unread with the read's runs taken first-come (fix29zq:
    72 and 151); each batch now brings its share (fix29zt), so none is unread in any
    period (10: 123/52/52 ``eth_call`` s, 30: 300/97/97).

    :param chain_snapshot: the devnet.
    :param burners: how many burn.
    """
    whole = reader(chain_snapshot)
    whole.facts()
    assert whole.checkpoint is not None
    total = 200 + burners
    spots = {(i + 1) * total // (burners + 1) for i in range(burners)}
    mechs = []
    for index in range(total):
        address = f"0x{0x5eed0000 + index:040x}"
        set_code(chain_snapshot, address, BURNS if index in spots else ANSWERS_SEVEN)
        mechs.append(
            MechCreation(address, MECH_KIND_MARKETPLACE, 1, "0x" + "00" * 20, 1)
        )
    bad = {mechs[i].address for i in spots}
    server = reader(chain_snapshot)
    server.checkpoint = replace(whole.checkpoint, mechs=tuple(mechs))
    runs: List[int] = []
    batch = server._batch  # pylint: disable=protected-access

    def counted(request: Any) -> Any:
        runs[-1] += 1
        return batch(request)

    server._batch = counted  # type: ignore[method-assign]  # pylint: disable=protected-access
    unread_honest, seconds = [], []
    for _ in range(3):
        runs.append(0)
        started = time.monotonic()
        facts = server.facts()
        seconds.append(round(time.monotonic() - started, 2))
        assert all(f.max_delivery_rate is None for f in facts if f.address in bad)
        unread_honest.append(
            sum(1 for f in facts if f.address not in bad and f.max_delivery_rate != 7)
        )
    print(
        f"{burners} burners among 200: honest unread per period {unread_honest}, "
        f"eth_calls {runs}, seconds {seconds}"
    )
    assert unread_honest == [0, 0, 0]
    assert runs[2] <= runs[0]
