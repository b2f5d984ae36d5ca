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

"""Issue #29, attacks 1 and 7, on the devnet through the ``mcp`` SDK's own client.

1. A stranger serves a copy of an honest manifest from a new service, creates a cheaper
   mech, sends it requests from its own account and delivers them itself (wash trading):
   its karma and deliveries pass the honest mechs'. The call still pays the incumbent
   (the seeded ``deployed`` mech: the earliest created of those that ever delivered; the
   older ``market`` mech never delivered, and its service has no Safe to deliver from).
2. The chosen mech's price moves after the client listed the tools: raised over
   ``--max-price``, the next offer is paid; lowered, the lower price is sent; every offer
   over the cap, the refusal names the old and the new price in words, nothing is sent.

The chain is anvil with the marketplace's real bytecode (``scripts/devnet``); deliveries
come from ``scripts/devnet/responder.py``.
"""

from pathlib import Path
from typing import Any, Dict, Tuple

import anyio

from scripts.devnet import Devnet
from scripts.devnet.marketplace import SEED_MECHS
from tests.devnet.mcp_helpers import (
    checksum,
    market_nonce,
    request_info,
    responder,
    stdio_client,
)

TOOL = "prediction-online"
REQUEST_META = "io.olas/mech-request"
WASH_PRICE = 1_000  # wei: the stranger undercuts the honest mechs too


def seed_mech(devnet: Devnet, key: str) -> Dict[str, Any]:
    """The seeded marketplace mech of one seed service (``market``, ``deployed``...)."""
    mechs = [m for m in devnet.info.mechs if m["kind"] == "marketplace"]
    return next(m for m, (k, _) in zip(mechs, SEED_MECHS) if k == key)


def call(
    devnet: Devnet, state: Path, extra: Tuple[str, ...], before_call: Any = None
) -> Any:
    """List the tools, run ``before_call`` (blocking, in a thread), call TOOL once."""

    async def main() -> Any:
        async with stdio_client(devnet, state, *extra) as client:
            await client.list_tools()
            if before_call is not None:
                await anyio.to_thread.run_sync(before_call)
            return await client.call_tool(TOOL, {"prompt": "Rain in Porto on Friday?"})

    return anyio.run(main)


def wash_trading_stranger(devnet: Devnet, rounds: int = 4) -> str:
    """A new service copying the ``market`` manifest, its mech paid and delivered by itself.

    :param devnet: the devnet.
    :param rounds: requests sent to its own mech and delivered by its own Safe.
    :return: the stranger's mech address.
    """
    owner = devnet.address("owner_3")
    honest = int(seed_mech(devnet, "market")["service_id"])
    metadata = devnet.contract("ComplementaryServiceMetadata")
    digest = metadata.functions.mapServiceHashes(honest).call()
    service = devnet.register_service(owner, deploy=True)
    devnet.change_service_hash(service, digest)
    mech = devnet.create_mech(service, WASH_PRICE, owner)
    ids = [
        devnet.request_mech(mech, bytes([n]) * 32, owner) for n in range(1, rounds + 1)
    ]
    devnet.deliver(mech, ids)
    return mech


def counters(devnet: Devnet, mech: str) -> Tuple[int, int]:
    """``(karma, deliveries)`` as the chain says."""
    karma = devnet.contract("FixtureKarma").functions.mapMechKarma(mech).call()
    deliveries = devnet.mech(mech).functions.numTotalDeliveries().call()
    return karma, deliveries


def test_wash_traded_counters_do_not_buy_the_choice(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The stranger tops karma and deliveries and is cheaper: the incumbent is paid."""
    devnet = chain_snapshot
    stranger = wash_trading_stranger(devnet)
    incumbent = seed_mech(devnet, "deployed")["address"]
    honest = [seed_mech(devnet, k)["address"] for k in ("market", "deployed")]
    assert all(
        counters(devnet, stranger) > counters(devnet, mech) for mech in honest
    ), "the wash trading did not take the counters' lead"

    with responder(devnet) as answering:
        result = call(devnet, tmp_path, ("--timeout", "60"))
    assert not result.is_error, (result.content[0].text, answering.errors)
    meta = result.meta[REQUEST_META]
    paid = request_info(devnet, meta["request_id"])["priorityMech"]
    assert paid == checksum(incumbent) != checksum(stranger)
    assert meta["choice"]["address"] == incumbent.lower()
    assert "the incumbent" in meta["choice"]["why"]


def test_a_bought_old_mech_does_not_take_the_default_offer(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """An older mech that starts offering the tool later stays behind (issue #29).

    The old mech is created first and delivers other work; an honest newcomer then
    declares the tool and delivers it; then the old mech (bought, or back from idling)
    re-declares the same manifest, undercuts, and delivers a request it paid itself.
    Both have delivered and the old one was created earlier (the rule before: paid);
    the honest one has offered the tool for longer, so it is paid. Both are allowed,
    so the seeded mechs stay out of the comparison.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    owner = devnet.address("owner_3")
    honest_owner = devnet.address("owner_2")
    digest = (
        devnet.contract("ComplementaryServiceMetadata")
        .functions.mapServiceHashes(int(seed_mech(devnet, "market")["service_id"]))
        .call()
    )
    old_service = devnet.register_service(owner, deploy=True)
    old = devnet.create_mech(old_service, WASH_PRICE, owner)
    devnet.deliver(old, [devnet.request_mech(old, b"\x07" * 32, owner)])
    honest_service = devnet.register_service(honest_owner, deploy=True)
    devnet.change_service_hash(honest_service, digest)
    honest = devnet.create_mech(honest_service, 10**15, honest_owner)
    devnet.deliver(honest, [devnet.request_mech(honest, b"\x08" * 32, honest_owner)])
    devnet.change_service_hash(old_service, digest)
    devnet.deliver(old, [devnet.request_mech(old, b"\x09" * 32, owner)])

    allowed = ("--allow-mech", old, "--allow-mech", honest)
    with responder(devnet) as answering:
        result = call(devnet, tmp_path, ("--timeout", "60", *allowed))
    assert not result.is_error, (result.content[0].text, answering.errors)
    meta = result.meta[REQUEST_META]
    paid = request_info(devnet, meta["request_id"])["priorityMech"]
    assert paid == checksum(honest) != checksum(old)
    choice = meta["choice"]
    assert choice["address"] == honest.lower()
    assert int(choice["first_delivery_block"]) >= int(choice["declared_block"])
    assert f"first delivered at block {choice['first_delivery_block']}" in (
        choice["why"]
    )


def test_the_allow_list_pays_the_mech_the_user_chose(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """--allow-mech overrides the default: the allowed mech is paid (it never delivers)."""
    devnet = chain_snapshot
    allowed = seed_mech(devnet, "market")["address"]
    result = call(devnet, tmp_path, ("--timeout", "2", "--allow-mech", allowed))
    assert "was not delivered within" in result.content[0].text
    meta = result.meta[REQUEST_META]
    assert request_info(devnet, meta["request_id"])["priorityMech"] == checksum(allowed)
    assert "allow-listed by --allow-mech" in meta["choice"]["why"]


def test_a_price_raised_after_listing_moves_to_the_next_offer(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The incumbent raises its price over --max-price once listed: the next one is paid.

    The next one (``market``) has no Safe to deliver from: the call times out, paid once.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    incumbent = seed_mech(devnet, "deployed")
    other = seed_mech(devnet, "market")
    cap = int(other["rate"])
    nonce = market_nonce(devnet)

    def raise_price() -> None:
        devnet.change_max_delivery_rate(checksum(incumbent["address"]), cap + 1)

    result = call(
        devnet, tmp_path, ("--timeout", "2", "--max-price", str(cap)), raise_price
    )
    assert "was not delivered within" in result.content[0].text
    meta = result.meta[REQUEST_META]
    info = request_info(devnet, meta["request_id"])
    assert info["priorityMech"] == checksum(other["address"])
    assert info["deliveryRate"] == int(other["rate"]) == int(meta["price_wei"])
    assert market_nonce(devnet) == nonce + 1  # one request, the refused one never sent
    assert "refused at send time" in meta["choice"]["why"]


def test_a_price_lowered_after_listing_is_paid_as_it_is_now(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The incumbent lowers its price once listed: the lower price is what is sent."""
    devnet = chain_snapshot
    incumbent = seed_mech(devnet, "deployed")
    lower = int(incumbent["rate"]) // 3

    def lower_price() -> None:
        devnet.change_max_delivery_rate(checksum(incumbent["address"]), lower)

    with responder(devnet) as answering:
        result = call(devnet, tmp_path, ("--timeout", "60"), lower_price)
    assert not result.is_error, (result.content[0].text, answering.errors)
    meta = result.meta[REQUEST_META]
    info = request_info(devnet, meta["request_id"])
    assert info["priorityMech"] == checksum(incumbent["address"])
    assert info["deliveryRate"] == lower == int(meta["price_wei"])


def test_every_offer_over_the_cap_at_send_time_is_said_in_words(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Both payable offers raise over --max-price once listed: prices in words, no hex.

    Each old and new price is named, nothing is sent (``market`` is over the cap).

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    stranger = wash_trading_stranger(devnet, rounds=1)
    deployed = seed_mech(devnet, "deployed")
    offers = [(deployed["address"], int(deployed["rate"])), (stranger, WASH_PRICE)]
    cap = int(deployed["rate"])
    nonce = market_nonce(devnet)
    balance = devnet.w3.eth.get_balance(checksum(devnet.address("stranger")))

    def raise_both() -> None:
        for address, _ in offers:
            devnet.change_max_delivery_rate(checksum(address), cap + 7)

    result = call(devnet, tmp_path, ("--max-price", str(cap)), raise_both)
    text = result.content[0].text
    assert result.is_error
    for address, listed in offers:
        assert (
            f"mech {address.lower()} raised its price from {listed} wei (listed) to "
            f"{cap + 7} wei (now), over --max-price {cap} wei"
        ) in text, text
    assert "nothing was sent" in text and "CustomError" not in text
    assert market_nonce(devnet) == nonce
    assert devnet.w3.eth.get_balance(checksum(devnet.address("stranger"))) == balance
