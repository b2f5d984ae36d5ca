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

"""adv29zv G1: one mech whose getters burn all gas ends every catalogue read.

Severity: HIGH by its effect, given a mech running code of its own (the premise of the
mined-revert and gas-burner reproductions adv29r, adv29yp, adv29zp: ``anvil_setCode``):
issue #29 (e), every MCP server on that chain exits at start ("no_catalogue_source")
and an agent's catalogue read fails, for every user, by one stranger's mech; nothing is
paid, nothing lost.

The catalogue reads each mech's facts (``serviceId()``, ``maxDeliveryRate()``,
``paymentType()`` ...) in Multicall2 batches, one ``eth_call`` each, with no gas bound
per call. A mech whose getters burn all the gas they are given takes 63/64 of the call's
gas at its first getter, so the batch's later calls, and then Multicall2 itself, run
out of gas: the node answers the whole ``eth_call`` with an error, whatever its words.

1. The MCP server's facts read (``marketplace_driver.MarketplaceReader.facts``) drives
   ``facts_reader`` with bare ``eth_call``s: no ``split_oversized`` at all, so the
   error ends the read (``source.DirectSource.catalogue``: ``SourceError``, the server
   exits at start; a later refresh fails each time). The skill's ``_read_facts`` is
   bare too (the agent's catalogue then goes without any marketplace facts).
2. Where batches are split (the registries' reads: ``sync_driver``, the skill's
   ``_read_snapshot``), ``rpc_limits.TOO_LARGE`` reads "out of gas" with spaces only:
   anvil answers ``EVM error OutOfGas``, not read as a size refusal (a split would
   isolate such a call: alone in a batch, Multicall2's ``tryAggregate`` keeps the 1/64
   left and answers it as a failed call).

Observed on main: ``MarketplaceReader.facts`` raises ``ChainReadError`` for a node
answering "out of gas" (geth's words) to every batch holding the burning mech's calls
with others; ``batch_too_large`` is False for anvil's
``{'code': -32603, 'message': 'EVM error OutOfGas'}``. On the devnet
(``test_adv29zv_gas_burning_mech_catalogue_devnet``) the MCP server, the second of the
seven seeded mechs given a gas-burning code, exits before the SDK's client can list its
tools. Both changes together (checked: ``split_oversized`` around the facts read and
``out ?of ?gas``) make the unit and devnet reproductions pass.

Expected: the batch is split (anvil's and any node's out-of-gas wording read as one),
the burning mech's calls fail alone, every other mech's facts are read; better still,
each mech's call is given a bounded share of gas (Multicall3's ``aggregate3`` with a
per-call gas cap, or a ``gas`` bound per batch and a fallback) so that no mech can
starve the others whatever the node's words.
"""

import json
from typing import Any, Generator, List, Optional

import pytest
from mech_catalogue_core.chain.marketplace import (
    MECH_KIND_MARKETPLACE,
    DiscoveryCheckpoint,
    MarketplaceSource,
    MechCreation,
)
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    ChainReadError,
    encode_call,
)
from mech_catalogue_core.chain.rpc_limits import batch_too_large, split_oversized
from mech_catalogue_core.driver import drive
from requests import Session

from mech_catalogue_cli import marketplace_driver
from mech_catalogue_cli.marketplace_driver import MarketplaceReader
from mech_catalogue_cli.sync_driver import SyncConfig

#: anvil's answer to an eth_call that runs out of gas (seen on the devnet)
ANVIL_OUT_OF_GAS = "{'code': -32603, 'message': 'EVM error OutOfGas'}"
BURNER = "0x" + "0b" * 20
CALLS = [
    encode_call(address, "maxDeliveryRate()", (), (), ("uint256",))
    for address in ["0x" + "0a" * 20, BURNER, "0x" + "0c" * 20, "0x" + "0d" * 20]
]


class BurningNode:  # pylint: disable=too-few-public-methods
    """A node running Multicall2 batches, one mech of which burns all gas it is given."""

    def __init__(self) -> None:
        """No batch seen yet."""
        self.seen: List[int] = []

    def __call__(self, request: BatchRequest) -> BatchReply:
        """Answer one batch as the devnet's anvil does.

        :param request: the batch.
        :return: the reply.
        :raises ChainReadError: the whole call out of gas, when the burning mech's call
            shares the batch with others (they get 1/64 of the gas, then nothing).
        """
        calls, block = request
        self.seen.append(len(calls))
        targets = [call.target.lower() for call in calls]
        if BURNER in targets and len(calls) > 1:
            raise ChainReadError(
                f"eth_call to http://127.0.0.1:8545 returned an error: {ANVIL_OUT_OF_GAS}",
                ANVIL_OUT_OF_GAS,
            )
        return (block or 100), [(target != BURNER, b"") for target in targets]


def _batch() -> Generator[BatchRequest, BatchReply, BatchReply]:
    return (yield CALLS, None)


def test_anvils_out_of_gas_is_a_size_refusal() -> None:
    """The node's out-of-gas answer, in anvil's words, splits a batch."""
    assert batch_too_large(ChainReadError("eth_call failed", ANVIL_OUT_OF_GAS))


def test_a_gas_burning_mech_fails_alone() -> None:
    """The batch holding the burner is split: every other mech's call is answered."""
    node = BurningNode()
    results = drive(_batch(), split_oversized(node, (ChainReadError,)))
    assert [ok for ok, _ in results[1]] == [True, False, True, True]


def test_geths_wording_is_a_size_refusal() -> None:
    """Control: geth's "out of gas" is read as one (the split exists for it)."""
    assert batch_too_large(ChainReadError("eth_call failed", "out of gas"))


MARKET = "0x" + "84" * 20
HONEST = ["0x" + "0a" * 20, "0x" + "0c" * 20, "0x" + "0d" * 20]
HEAD = 1_000


def test_the_servers_facts_read_survives_a_gas_burning_mech(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every honest mech's facts are read; the burning mech's alone are unread.

    :param monkeypatch: pytest's.
    """
    mechs = tuple(
        MechCreation(address, MECH_KIND_MARKETPLACE, i + 1, "0x" + "fa" * 20, 10 + i)
        for i, address in enumerate([HONEST[0], BURNER, *HONEST[1:]])
    )
    source = MarketplaceSource(chain_id=100, marketplace=MARKET)
    config = SyncConfig("http://127.0.0.2:1", "", (), "0x" + "ca" * 20)
    reader = MarketplaceReader(
        config, source, Session(), DiscoveryCheckpoint(HEAD + 1, HEAD + 1, mechs)
    )
    batches: List[List[str]] = []
    bounds: List[Optional[int]] = []

    def encode_batch(calls: List[Any]) -> bytes:
        targets = [str(call.target).lower() for call in calls]
        batches.append(targets)
        return json.dumps(targets).encode()

    def eth_call(
        _rpc: Any, _to: str, data: bytes, _block: Optional[int], gas: Optional[int]
    ) -> bytes:
        bounds.append(gas)
        targets = json.loads(data)
        if BURNER in targets and len(targets) > 1:  # 63/64 each: the rest starve
            raise ChainReadError("eth_call failed: out of gas", "out of gas")
        return data

    def decode_batch(data: bytes, _expected: int) -> BatchReply:
        return HEAD, [(target != BURNER, b"\x00" * 32) for target in json.loads(data)]

    monkeypatch.setattr(marketplace_driver, "encode_batch", encode_batch)
    monkeypatch.setattr(marketplace_driver, "eth_call", eth_call)
    monkeypatch.setattr(marketplace_driver, "decode_batch", decode_batch)
    monkeypatch.setattr(marketplace_driver, "block_number", lambda _rpc: HEAD)
    facts = reader.facts()
    assert any(BURNER in batch for batch in batches)  # premise: its getters were asked
    assert [f.address for f in facts] == [m.address for m in mechs]
    assert all(gas is not None and gas <= 10_000_000 for gas in bounds), bounds
