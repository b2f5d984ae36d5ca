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

"""``publish`` signs within ``--max-fee-per-gas`` with the tip chosen, as ``mcp`` does.

It signed a legacy ``gasPrice``, the node's ``eth_gasPrice`` as answered, with no cap
and no tip option: a node (or a fee spike) set what the owner paid. Now its update is
signed with every signing command's fees (:func:`mech_catalogue_cli.fee_caps.fees_to_sign`):
twice the latest base fee plus the tip, within the cap; over it nothing is signed
(``publish_fee_over_cap``, in words). The node is a loopback JSON-RPC server with canned
answers (:class:`tests.test_mcp_tip_choice.TipNode`); the publisher is the real one on it.
"""

from typing import Any, Iterator, List, Optional, Tuple

import click
import pytest
from click.testing import CliRunner
from eth_account import Account
from eth_account.signers.local import LocalAccount
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes
from mech_catalogue_core.chain.presets import GWEI, PRESETS
from mech_catalogue_core.chain.registry import Call
from mech_catalogue_core.publish.publish import (
    FEE_OVER_CAP,
    RPC_UNAVAILABLE,
    PublishError,
)
from web3 import Web3

from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.gas_options import tip_choice
from mech_catalogue_cli.fee_caps import FeeBounds, TipChoice
from mech_catalogue_cli.publisher.ipfs import IpfsApi
from mech_catalogue_cli.publisher.publisher import Publisher
from tests.test_mcp_tip_choice import BASE_FEE, CAP, TipNode

#: the registry call the publisher would send (its target answers the canned estimate)
CALL = Call("0x" + "52" * 20, b"\x01\x02", signature="updateHash(uint256,bytes32)")
#: a signing account (a throwaway key: the node is canned)
OWNER: LocalAccount = Account.from_key(  # pylint: disable=no-value-for-parameter
    "0x" + "07" * 32
)


@pytest.fixture(name="nodes")
def _nodes() -> Iterator[List[TipNode]]:
    """The nodes a test starts (each stopped after it).

    :yield: the list to add them to.
    """
    started: List[TipNode] = []
    yield started
    for node in started:
        node.close()


def _publisher(
    nodes: List[TipNode],
    tips: TipChoice,
    cap: int = CAP,
    tip_answer: Any = ("result", hex(2 * GWEI)),
) -> Tuple[TipNode, Publisher]:
    """A canned node and the real publisher on it, signing within ``cap``."""
    nodes.append(TipNode(tip_answer))
    w3 = Web3(Web3.HTTPProvider(nodes[-1].url))
    bounds = FeeBounds(cap, tips)
    publisher = Publisher(w3, IpfsApi("http://127.0.0.1:9"), fee_bounds=bounds)
    return nodes[-1], publisher


@pytest.mark.parametrize(
    "typed, preset, on_devnet, tip",
    [(3 * GWEI, "polygon", False, 3 * GWEI), (0, None, False, 0)]
    + [(None, "polygon", False, 25 * GWEI), (None, "arbitrum", False, 0)]
    + [(None, "mainnet", False, 1), (None, None, True, 0)],
)
def test_the_tip_typed_else_the_chain_s_least_is_signed_and_the_node_not_asked(
    nodes: List[TipNode],
    typed: Optional[int],
    preset: Optional[str],
    on_devnet: bool,
    tip: int,
) -> None:
    """``--priority-fee-per-gas`` wins; without it a preset's least, the devnet's 0.

    :param nodes: the started nodes.
    :param typed: ``--priority-fee-per-gas`` (None: not typed).
    :param preset: the ``--chain`` preset (None: none).
    :param on_devnet: whether the chain is the devnet.
    :param tip: the tip signed.
    """
    choice = tip_choice(typed, PRESETS[preset] if preset else None, on_devnet)
    node, publisher = _publisher(nodes, choice, tip_answer=("result", hex(40 * GWEI)))
    assert publisher.fees() == (2 * BASE_FEE + tip, tip)
    assert "eth_maxPriorityFeePerGas" not in node.asked
    assert "eth_gasPrice" not in node.asked  # the legacy price is no longer read


def test_a_custom_rpc_signs_the_node_s_tip_and_the_fee_is_cut_to_the_cap(
    nodes: List[TipNode],
) -> None:
    """No preset, nothing typed: the node's 30 gwei; 2 x 10 + 30 cut to a 45 gwei cap.

    :param nodes: the started nodes.
    """
    node, publisher = _publisher(
        nodes, tip_choice(None, None, False), 45 * GWEI, ("result", hex(30 * GWEI))
    )
    assert publisher.fees() == (45 * GWEI, 30 * GWEI)
    assert publisher.fee_report(publisher.fees()) == {
        "maxFeePerGas": str(45 * GWEI),
        "maxPriorityFeePerGas": str(30 * GWEI),
        "maxFeePerGasCap": str(45 * GWEI),
    }
    assert node.asked.count("eth_maxPriorityFeePerGas") == 2


@pytest.mark.parametrize(
    "cap, typed, needed",
    [(BASE_FEE - 1, None, "over --max-fee-per-gas 9.999999999 gwei")]
    + [(BASE_FEE, 1, "a transaction needs 10.000000001 gwei")]
    + [(CAP, 95 * GWEI, "a transaction needs 105 gwei")],
)
def test_a_fee_over_the_cap_signs_nothing_and_says_so(
    nodes: List[TipNode], cap: int, typed: Optional[int], needed: str
) -> None:
    """The base fee, or it plus the tip typed, over the cap: ``publish_fee_over_cap``.

    :param nodes: the started nodes.
    :param cap: ``--max-fee-per-gas``.
    :param typed: ``--priority-fee-per-gas`` (None: the devnet's 0).
    :param needed: what the refusal says.
    """
    node, publisher = _publisher(nodes, tip_choice(typed, None, True), cap)
    with pytest.raises(PublishError) as refused:
        publisher.send(CALL, OWNER)
    said = str(refused.value)
    assert refused.value.code == FEE_OVER_CAP, said
    assert needed in said, said
    assert "the base fee of block 32" in said and "is 10 gwei" in said, said
    assert "nothing was signed nor sent" in said, said
    assert "eth_sendRawTransaction" not in node.asked
    assert "eth_getTransactionCount" not in node.asked  # refused before a nonce


@pytest.mark.parametrize("suggested", [CAP + 1, 2**256 - 1])
def test_a_node_s_tip_over_the_cap_signs_nothing(
    nodes: List[TipNode], suggested: int
) -> None:
    """A custom node suggesting a huge tip: refused, the way to choose one said.

    :param nodes: the started nodes.
    :param suggested: its ``eth_maxPriorityFeePerGas``.
    """
    node, publisher = _publisher(
        nodes, tip_choice(None, None, False), tip_answer=("result", hex(suggested))
    )
    with pytest.raises(PublishError) as refused:
        publisher.send(CALL, OWNER)
    said = str(refused.value)
    assert refused.value.code == FEE_OVER_CAP, said
    assert "eth_maxPriorityFeePerGas" in said and "--priority-fee-per-gas" in said
    assert "eth_sendRawTransaction" not in node.asked


@pytest.mark.parametrize(
    "block",
    [None, "not a block", {"number": "0x20", "baseFeePerGas": "0xzz"}]
    + [{"number": "0x20", "baseFeePerGas": -1}],
)
def test_a_base_fee_that_is_no_quantity_is_the_rpc_s_failure_not_a_crash(
    nodes: List[TipNode], block: Any
) -> None:
    """A node answering no block or a garbled base fee: ``publish_rpc_unavailable``.

    :param nodes: the started nodes.
    :param block: its ``eth_getBlockByNumber`` result.
    """
    node, publisher = _publisher(nodes, TipChoice())
    node.answers["eth_getBlockByNumber"] = ("result", block)
    with pytest.raises(PublishError) as refused:
        publisher.send(CALL, OWNER)
    assert refused.value.code == RPC_UNAVAILABLE, refused.value
    assert "nothing was sent" in str(refused.value)
    assert "eth_sendRawTransaction" not in node.asked


def test_a_node_s_tip_that_is_no_quantity_is_the_rpc_s_failure(
    nodes: List[TipNode],
) -> None:
    """``eth_maxPriorityFeePerGas`` answering ``"0xzz"``: refused in words, quoted.

    :param nodes: the started nodes.
    """
    _, publisher = _publisher(
        nodes, tip_choice(None, None, False), CAP, ("result", "0xzz")
    )
    with pytest.raises(PublishError) as refused:
        publisher.fees()
    assert refused.value.code == RPC_UNAVAILABLE
    assert "eth_maxPriorityFeePerGas is no quantity" in str(refused.value)


def test_a_node_that_cannot_be_reached_is_the_rpc_s_failure() -> None:
    """Nothing listening: ``publish_rpc_unavailable``, nothing sent."""
    w3 = Web3(Web3.HTTPProvider("http://127.0.0.1:9", request_kwargs={"timeout": 2}))
    publisher = Publisher(w3, IpfsApi("http://127.0.0.1:9"))
    with pytest.raises(PublishError) as refused:
        publisher.fees()
    assert refused.value.code == RPC_UNAVAILABLE


def test_a_chain_before_eip_1559_is_read_by_its_gas_price_within_the_cap(
    nodes: List[TipNode],
) -> None:
    """A block without ``baseFeePerGas``: its ``eth_gasPrice`` is the base fee read.

    :param nodes: the started nodes.
    """
    node, publisher = _publisher(nodes, TipChoice())
    node.answers["eth_getBlockByNumber"] = ("result", {"number": "0x20"})
    node.answers["eth_gasPrice"] = ("result", hex(7 * GWEI))
    assert publisher.fees() == (14 * GWEI, 0)
    node.answers["eth_gasPrice"] = ("result", hex(CAP + 1))
    with pytest.raises(PublishError) as refused:
        publisher.fees()
    assert refused.value.code == FEE_OVER_CAP and "(its gas price)" in str(
        refused.value
    )


def test_the_update_is_signed_with_those_fees_as_an_eip_1559_transaction(
    nodes: List[TipNode],
) -> None:
    """The transaction sent is type 2 with the fees read, never a ``gasPrice``.

    :param nodes: the started nodes.
    """
    node, publisher = _publisher(nodes, TipChoice(typed=3 * GWEI))
    sent: List[bytes] = []

    def send_raw(raw: bytes) -> bytes:
        sent.append(bytes(raw))
        raise OSError("the canned node takes no transaction")

    publisher.w3.eth.send_raw_transaction = send_raw  # type: ignore[method-assign,assignment]
    with pytest.raises(PublishError):
        publisher.send(CALL, OWNER)
    # pylint: disable-next=no-value-for-parameter
    signed = Account.recover_transaction(sent[0])
    assert signed == OWNER.address and sent[0][0] == 2  # EIP-1559's type byte
    decoded = TypedTransaction.from_bytes(HexBytes(sent[0])).as_dict()
    assert decoded["maxFeePerGas"] == 2 * BASE_FEE + 3 * GWEI
    assert decoded["maxPriorityFeePerGas"] == 3 * GWEI
    assert "gasPrice" not in decoded
    assert "eth_gasPrice" not in node.asked


def _command(name: str) -> click.Command:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    return command


REQUIRED = [
    "--kind",
    "legacy_mech_registry",
    "--id",
    "1",
    "--registry",
    "0x" + "11" * 20,
]


@pytest.mark.parametrize("typed", ["25 lightyears", "1.5", "-1", "25 ether", "1e80"])
@pytest.mark.parametrize("option", ["--priority-fee-per-gas", "--max-fee-per-gas"])
def test_publish_refuses_a_fee_it_cannot_read_before_anything(
    option: str, typed: str
) -> None:
    """The fee options ``mcp`` and ``prepay`` take, with the same refusals (exit 2).

    :param option: the fee option.
    :param typed: what it is given.
    """
    result = CliRunner().invoke(cli, ["publish", *REQUIRED, option, typed])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert option in said and "units: wei, gwei" in said, said


def test_publish_reads_the_fees_in_wei_or_gwei() -> None:
    """``--max-fee-per-gas 150gwei --priority-fee-per-gas 0``; a 0 cap is refused."""
    context = _command("publish").make_context(
        "publish",
        [*REQUIRED, "--max-fee-per-gas", "150gwei", "--priority-fee-per-gas", "0"],
    )
    assert context.params["max_fee_per_gas"] == 150 * GWEI
    assert context.params["priority_fee_per_gas"] == 0
    result = CliRunner().invoke(cli, ["publish", *REQUIRED, "--max-fee-per-gas", "0"])
    assert result.exit_code == 2 and "of at least 1" in result.output, result.output
