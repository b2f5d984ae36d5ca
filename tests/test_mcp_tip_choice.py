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

"""The tip a paid call signs is the user's choice, else the chain's least, else the node's.

``--priority-fee-per-gas`` (every command that signs: ``mcp``, ``prepay``) sets the
``maxPriorityFeePerGas`` signed; without it a ``--chain`` preset's least tip is signed,
the devnet's 0, and with a custom ``--rpc`` and no preset the node's
``eth_maxPriorityFeePerGas`` read at each signing: a suggestion over
``--max-fee-per-gas`` is refused in words (nothing signed), a node without the method
gives the least tip (0). The fee signed stays ``min(2 x base fee + tip, cap)``.

The node is a loopback JSON-RPC server with canned answers (:class:`TipNode`); the
marketplace is the real :class:`Marketplace` on it.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Iterator, List, Optional

import click
import pytest
from click.testing import CliRunner
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes
from mech_catalogue_core.chain.presets import GWEI, PRESETS

from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.gas_options import choose_tip
from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace
from mech_catalogue_cli.mcp_server.market_errors import FeeOverCap, TipOverCap

MARKETPLACE = "0x" + "84" * 20
BASE_FEE = 10 * GWEI
CAP = 100 * GWEI
#: the node's answers by method: ("result", value) or ("error", value)
ANSWERS: Dict[str, Any] = {
    "eth_chainId": ("result", "0x1"),
    "eth_getTransactionCount": ("result", "0x3"),
    "eth_estimateGas": ("result", "0x5208"),
    "eth_getBlockByNumber": (
        "result",
        {"number": "0x20", "baseFeePerGas": hex(BASE_FEE)},
    ),
}
NO_SUCH_METHOD = ("error", {"code": -32601, "message": "the method does not exist"})


class TipNode:
    """A loopback JSON-RPC node: :data:`ANSWERS`, and ``tip`` for its suggestion.

    :param tip: ``eth_maxPriorityFeePerGas``'s answer, ("result" or "error", value).
    """

    def __init__(self, tip: Any) -> None:
        """Serve on a free loopback port (:meth:`close` stops it)."""
        self.answers = {**ANSWERS, "eth_maxPriorityFeePerGas": tip}
        self.asked: List[str] = []
        node = self

        class Handler(BaseHTTPRequestHandler):
            """One JSON-RPC call, answered at once."""

            def do_POST(self) -> None:  # pylint: disable=invalid-name
                """Answer the call."""
                call = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                node.asked.append(call["method"])
                kind, value = node.answers.get(call["method"], ("result", None))
                body = json.dumps(
                    {"jsonrpc": "2.0", "id": call["id"], kind: value}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def market(self, cap: int = CAP) -> Marketplace:
        """The real marketplace on this node, signing within ``cap`` wei per gas."""
        return Marketplace(
            self.url, MARKETPLACE, "0x" + "01" * 32, gas_bounds=(500_000, cap)
        )

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(name="nodes")
def _nodes() -> Iterator[List[TipNode]]:
    """The nodes a test starts (each stopped after it).

    :yield: the list to add them to.
    """
    started: List[TipNode] = []
    yield started
    for node in started:
        node.close()


def _node(nodes: List[TipNode], tip: Any = ("result", hex(2 * GWEI))) -> TipNode:
    nodes.append(TipNode(tip))
    return nodes[-1]


def _command(name: str) -> click.Command:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    return command


def _fees(market: Marketplace) -> Dict[str, int]:
    """Sign a transaction; its ``maxFeePerGas`` and ``maxPriorityFeePerGas``."""
    signed = market.sign(
        {"from": market.requester, "to": MARKETPLACE, "value": 0, "data": "0x"}
        | {"chainId": 1}
    )
    tx = dict(TypedTransaction.from_bytes(HexBytes(signed.raw_tx)).as_dict())
    return {"fee": int(tx["maxFeePerGas"]), "tip": int(tx["maxPriorityFeePerGas"])}


@pytest.mark.parametrize(
    "preset, on_devnet", [(None, False), (None, True), ("polygon", False)]
)
def test_the_tip_typed_is_signed_and_the_node_not_asked(
    nodes: List[TipNode], preset: Optional[str], on_devnet: bool
) -> None:
    """``--priority-fee-per-gas 3gwei``: 3 gwei signed, whatever the chain or node says.

    :param nodes: the started nodes.
    :param preset: the ``--chain`` preset (None: a custom ``--rpc`` or the devnet).
    :param on_devnet: whether the chain is the devnet.
    """
    node = _node(nodes, ("result", hex(40 * GWEI)))
    market = node.market()
    choose_tip(market, 3 * GWEI, PRESETS[preset] if preset else None, on_devnet)
    assert _fees(market) == {"fee": 2 * BASE_FEE + 3 * GWEI, "tip": 3 * GWEI}
    assert "eth_maxPriorityFeePerGas" not in node.asked


@pytest.mark.parametrize(
    "preset, on_devnet, tip",
    [("polygon", False, 25 * GWEI), ("mainnet", False, 1), ("arbitrum", False, 0)]
    + [(None, True, 0)],
)
def test_without_a_typed_tip_a_preset_or_the_devnet_signs_its_least(
    nodes: List[TipNode], preset: Optional[str], on_devnet: bool, tip: int
) -> None:
    """The preset's least tip (the devnet's 0); the node's suggestion never asked.

    :param nodes: the started nodes.
    :param preset: the ``--chain`` preset.
    :param on_devnet: whether the chain is the devnet.
    :param tip: the tip signed.
    """
    node = _node(nodes, ("result", hex(40 * GWEI)))
    market = node.market()
    choose_tip(market, None, PRESETS[preset] if preset else None, on_devnet)
    assert _fees(market) == {"fee": 2 * BASE_FEE + tip, "tip": tip}
    assert "eth_maxPriorityFeePerGas" not in node.asked


def test_a_custom_rpc_signs_the_node_s_suggestion_read_at_each_signing(
    nodes: List[TipNode],
) -> None:
    """No preset, no typed tip: the node's 2 gwei, asked once per signing.

    :param nodes: the started nodes.
    """
    node = _node(nodes)
    market = node.market()
    choose_tip(market, None, None, False)
    assert _fees(market) == {"fee": 2 * BASE_FEE + 2 * GWEI, "tip": 2 * GWEI}
    node.answers["eth_maxPriorityFeePerGas"] = ("result", hex(5 * GWEI))
    assert _fees(market) == {"fee": 2 * BASE_FEE + 5 * GWEI, "tip": 5 * GWEI}
    assert node.asked.count("eth_maxPriorityFeePerGas") == 2


def test_a_suggestion_cut_to_the_cap_still_pays_the_base_fee_and_tip(
    nodes: List[TipNode],
) -> None:
    """2 x 10 + 30 gwei is over a 45 gwei cap: 45 signed, which pays 10 + 30.

    :param nodes: the started nodes.
    """
    market = _node(nodes, ("result", hex(30 * GWEI))).market(cap=45 * GWEI)
    choose_tip(market, None, None, False)
    assert _fees(market) == {"fee": 45 * GWEI, "tip": 30 * GWEI}


@pytest.mark.parametrize("suggested", [CAP + 1, 10**6 * GWEI, 2**256 - 1])
def test_a_suggestion_over_the_cap_is_refused_in_words(
    nodes: List[TipNode], suggested: int
) -> None:
    """A hostile node's huge tip: nothing signed, its suggestion and the cap said.

    :param nodes: the started nodes.
    :param suggested: its suggestion, wei per gas.
    """
    market = _node(nodes, ("result", hex(suggested))).market()
    choose_tip(market, None, None, False)
    with pytest.raises(TipOverCap) as refused:
        _fees(market)
    said = str(refused.value)
    assert "nothing was signed nor sent" in said, said
    assert "over --max-fee-per-gas 100 gwei" in said, said
    assert "--priority-fee-per-gas" in said, said
    assert (refused.value.tip, refused.value.cap) == (suggested, CAP)


def test_a_suggestion_the_base_fee_leaves_no_room_for_is_refused(
    nodes: List[TipNode],
) -> None:
    """Base fee 10 gwei plus a 95 gwei suggestion over the 100 gwei cap: refused.

    :param nodes: the started nodes.
    """
    market = _node(nodes, ("result", hex(95 * GWEI))).market()
    choose_tip(market, None, None, False)
    with pytest.raises(FeeOverCap) as refused:
        _fees(market)
    assert "a transaction needs 105 gwei" in str(refused.value), refused.value
    assert "nothing was signed nor sent" in str(refused.value)
    # a tip is part of what is over the cap: a lower one is said as a way out
    # the node's suggestion, and how to choose the tip instead (fix29zzd)
    assert "the tip the node suggested (95 gwei" in str(refused.value)
    assert "set a lower tip with --priority-fee-per-gas" in str(refused.value)
    assert "--priority-fee-per-gas" not in str(FeeOverCap("block 1", 200 * GWEI, CAP))


@pytest.mark.parametrize(
    "answer",
    [NO_SUCH_METHOD, ("error", {"code": -32600, "message": "not allowed"})],
)
def test_a_node_without_the_method_gives_the_least_tip(
    nodes: List[TipNode], answer: Any
) -> None:
    """A node that answers the method an error: 0 signed (no preset, no least tip).

    :param nodes: the started nodes.
    :param answer: its answer.
    """
    node = _node(nodes, answer)
    market = node.market()
    choose_tip(market, None, None, False)
    assert _fees(market) == {"fee": 2 * BASE_FEE, "tip": 0}
    assert "eth_maxPriorityFeePerGas" in node.asked


@pytest.mark.parametrize(
    "answer", ["0xzz", "12", 12, None, "0x" + "f" * 65, {"tip": "0x1"}, "-0x1"]
)
def test_a_suggestion_that_is_no_quantity_signs_nothing(
    nodes: List[TipNode], answer: Any
) -> None:
    """A garbled answer is refused in words, quoted; nothing signed.

    :param nodes: the started nodes.
    :param answer: the node's ``result``.
    """
    market = _node(nodes, ("result", answer)).market()
    choose_tip(market, None, None, False)
    with pytest.raises(MarketError) as refused:
        _fees(market)
    said = str(refused.value)
    assert "eth_maxPriorityFeePerGas is no quantity" in said, said


@pytest.mark.parametrize("command", ["mcp", "prepay"])
@pytest.mark.parametrize(
    "typed", ["25 lightyears", "1.5", "-1", "1e-3", "25 ether", "gwei", "1e80"]
)
def test_a_bad_amount_or_unit_is_refused_before_anything(
    command: str, typed: str
) -> None:
    """Every command that signs refuses a tip it cannot read, naming the units.

    :param command: the command.
    :param typed: what ``--priority-fee-per-gas`` is given.
    """
    result = CliRunner().invoke(cli, [command, "--priority-fee-per-gas", typed])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "--priority-fee-per-gas" in said, said
    assert "units: wei, gwei" in said, said


@pytest.mark.parametrize(
    "typed, wei",
    [("0", 0), ("1", 1), ("2e9", 2 * GWEI), ("25gwei", 25 * GWEI)]
    + [("0.5 GWEI", GWEI // 2), ("1_000 wei", 1000)],
)
def test_the_tip_is_read_in_wei_or_gwei(typed: str, wei: int) -> None:
    """The amounts and units ``--priority-fee-per-gas`` takes (0 too).

    :param typed: as typed.
    :param wei: wei per gas read.
    """
    context = _command("prepay").make_context(
        "prepay", ["--priority-fee-per-gas", typed]
    )
    assert context.params["priority_fee_per_gas"] == wei


def test_the_cap_takes_the_same_units_but_never_zero() -> None:
    """``--max-fee-per-gas 150gwei`` reads 150 gwei; 0 is refused."""
    command = _command("mcp")
    context = command.make_context("mcp", ["--max-fee-per-gas", "150gwei"])
    assert context.params["max_fee_per_gas"] == 150 * GWEI
    result = CliRunner().invoke(cli, ["mcp", "--max-fee-per-gas", "0"])
    assert result.exit_code == 2 and "of at least 1" in result.output, result.output
