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

"""A call pays no second mech while its first request could be mined in a fork (adv29u).

Without a chain: the depth each chain counts final (its preset, ``--final-depth``),
the call's wait for it (within ``--timeout``, saying why and until which block), the
pruned node's error said, and the memory of mechs reverting when mined read under the
send lock. The reproductions are ``tests/adversary/test_adv29u_*.py``.
"""

from pathlib import Path
from typing import Any, List

import anyio
import pytest
from mech_catalogue_core.chain.presets import (
    DEFAULT_FINAL_DEPTH,
    PRESETS,
    SOURCES,
    chain_preset,
)

from mech_catalogue_cli.commands.mcp_cmd import chosen_final_depth
from mech_catalogue_cli.mcp_server.dropped import NotFinal, chain_fate
from mech_catalogue_cli.mcp_server.journal import JournalEntry
from mech_catalogue_cli.mcp_server.market import (
    MarketError,
    StateUnavailable,
)
from mech_catalogue_cli.mcp_server.offchain_sending import PriceRefusal
from mech_catalogue_cli.mcp_server.refused_offers import RevertRefusal, revert_refusal
from mech_catalogue_cli.mcp_server.settings import CallSettings, PhaseTimer
from tests.adversary.test_adv29u_mined_revert_not_final import (
    HEAD,
    FrontRunChain,
    sent_to,
)
from tests.test_mcp_dropped_request_unit import (  # noqa: F401 # pylint: disable=unused-import
    ReorgedMarket,
    _call,
    _gone,
    _server,
    delivered_body,
)
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    PRICE,
    _Market,
    _no_upload,
    _sender,
    _tool,
)


def test_every_preset_has_a_sourced_final_depth() -> None:
    """L1 epochs for Ethereum and Gnosis, L1's finality for L2s, checkpoints for Polygon."""
    for preset in PRESETS.values():
        assert preset.final_depth > 0 and preset.sources["final_depth"] in SOURCES
        assert preset.sources["final_depth"] != "default", preset.name  # all read
    assert chain_preset("mainnet").final_depth == 96  # three epochs of 32 slots
    assert chain_preset("gnosis").final_depth == 48  # three epochs of 16 slots
    for l2 in ("base", "optimism"):  # 30 min of 2-second blocks: L1 finality
        assert chain_preset(l2).final_depth == 900
        assert chain_preset(l2).sources["final_depth"] == "op_finality"
    assert chain_preset("arbitrum").final_depth == 7200  # 30 min of 250 ms blocks
    assert chain_preset("celo").final_depth == 1800  # 30 min of 1-second blocks
    assert chain_preset("polygon").final_depth == 256  # a checkpoint's blocks
    rows = {row[0]: row for row in chain_preset("base").rows()}
    assert rows["final_depth"][1] == "900" and "optimism" in rows["final_depth"][2]
    rows = {row[0]: row for row in chain_preset("arbitrum").rows()}
    assert rows["final_depth"][1] == "7200" and "arbitrum" in rows["final_depth"][2]


@pytest.mark.parametrize(
    ("chain", "seconds"),
    [
        ("mainnet", 12),
        ("gnosis", 5),
        ("base", 2),
        ("optimism", 2),
        ("arbitrum", 0.25),
        ("celo", 1),
    ],
)
def test_an_l1_backed_depth_covers_three_epochs_of_ethereum_slots(
    chain: str, seconds: float
) -> None:
    """Each Ethereum-finalized chain's depth lasts at least L1's worst finality.

    Three epochs of 32 twelve-second slots (19.2 minutes), at the chain's fastest
    block rate (Celo's OP Stack blocks: 1 second); Gnosis's own beacon chain: three
    epochs of 16 five-second slots.

    :param chain: the preset.
    :param seconds: its shortest block time.
    """
    worst = 3 * 16 * 5 if chain == "gnosis" else 3 * 32 * 12
    assert chain_preset(chain).final_depth * seconds >= worst


@pytest.mark.parametrize(
    ("flag", "preset", "depth"),
    [
        (None, None, DEFAULT_FINAL_DEPTH),  # the devnet, a custom --rpc
        (None, "base", 900),
        (12, "base", 12),  # --final-depth wins
        (200, None, 200),
    ],
)
def test_the_depth_is_the_flag_else_the_preset_else_the_default(
    flag: Any, preset: Any, depth: int
) -> None:
    """``--final-depth``, else the ``--chain`` preset's, else 64."""
    chosen = chosen_final_depth(flag, chain_preset(preset) if preset else None)
    assert chosen == depth


@pytest.mark.usefixtures("no_upload")
def test_the_sender_waits_for_its_chain_depth(tmp_path: Path) -> None:
    """A chain counting 900 blocks final: the wait is until block 100 + 900."""
    chain = FrontRunChain()
    sender = _sender(tmp_path, chain)
    sender.settings = CallSettings("g", "a", io_timeout=0.05, final_depth=900)
    assert isinstance(sent_to(sender, MECH), RevertRefusal)
    held = sent_to(sender, HONEST)
    assert isinstance(held, NotFinal) and held.final_at == HEAD + 900, held
    assert "taken by the request itself, mined and reverted" in held
    assert f"in block {HEAD}" in held and "at the latest" not in held
    assert set(chain.depths) == {900}
    chain.head_block = HEAD + 899  # one block short: still held
    assert isinstance(sent_to(sender, HONEST), NotFinal)
    assert chain.broadcasts == ["0x03"]


def test_a_call_waits_within_its_timeout_then_says_until_when(tmp_path: Path) -> None:
    """NotFinal: the call polls, with progress, up to --timeout, then ends with it."""
    app = _server(tmp_path, ReorgedMarket())
    held = NotFinal("held until block 9")
    held.final_at, held.progress = 9, "waiting for block 9"
    answers: List[Any] = [held, held, _gone()]
    progress: List[str] = []

    async def ensure_sent(*_args: Any) -> Any:
        return answers.pop(0)

    async def noted(_session: Any, _done: float, _total: float, said: str) -> None:
        progress.append(said)

    app.sender.ensure_sent = ensure_sent  # type: ignore[method-assign,assignment]
    app.reader.progress = noted  # type: ignore[union-attr,method-assign]
    call = (_gone().key, PhaseTimer(), [offer(MECH, 1)])
    wait = app._sent_when_free  # pylint: disable=protected-access
    got = anyio.run(wait, _tool(), offer(MECH, 1), {}, call, None)
    assert isinstance(got, JournalEntry) and progress == ["waiting for block 9"] * 2
    app.settings.timeout = 0.1  # never final within the call: it ends saying so
    answers[:] = [held] * 100
    call = (_gone().key, PhaseTimer(), [offer(MECH, 1)])  # a new call, its own clock
    got = anyio.run(wait, _tool(), offer(MECH, 1), {}, call, None)
    assert got is held and len(answers) < 100


def test_a_pruned_node_ends_the_wait_for_a_dropped_request_saying_why(
    tmp_path: Path,
) -> None:
    """Its nonce taken, the count deep unreadable: the call says the node's error."""
    market: Any = ReorgedMarket(confirmed=5)

    def pruned(depth: int) -> int:
        raise StateUnavailable(f"the node https://n.example/… holds no state {depth}")

    market.final_nonce = pruned
    with pytest.raises(StateUnavailable):
        chain_fate(market, _gone())
    text = str(_call(_server(tmp_path, market)).content[0].text)
    assert "holds no state 64" in text and "stays paid" not in text, text


@pytest.mark.parametrize("failure", [MarketError("rpc down"), OSError("reset")])
def test_any_other_failed_read_keeps_waiting(failure: BaseException) -> None:
    """Unsure (not a pruned node): the request may be on chain, nothing said gone."""
    market: Any = ReorgedMarket(confirmed=5)

    def down(_depth: int) -> int:
        raise failure

    market.final_nonce = down
    assert chain_fate(market, _gone()) is None


@pytest.mark.usefixtures("no_upload")
def test_a_mech_remembered_since_the_call_ranked_is_skipped_at_send(
    tmp_path: Path,
) -> None:
    """Mined revert remembered: refused under the lock; estimate revert: still sent."""
    market = _Market(None, [PRICE])
    sender = _sender(tmp_path, market)
    sender.reverting.remember(revert_refusal(HONEST, "at its gas estimate", "x"))
    sender.reverting.remember(revert_refusal(MECH, "when mined", "x", mined=True))
    said = anyio.run(
        sender.ensure_sent, _tool(), offer(MECH, 1), {}, "1" * 64, PhaseTimer()
    )
    assert isinstance(said, PriceRefusal) and "not sent another request" in said
    assert not market.broadcasts and market.signed == 0
    said = anyio.run(
        sender.ensure_sent, _tool(), offer(HONEST, 1), {}, "2" * 64, PhaseTimer()
    )
    assert isinstance(said, RevertRefusal) and market.broadcasts == ["0x02"]
    assert "not sent another request" in str(sender.reverting.why(HONEST))
