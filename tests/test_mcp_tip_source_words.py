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


"""Where a fee over the cap's tip came from; a low typed tip warned; cancellations.

``FeeOverCap`` names the tip it counted: the node's suggestion (a custom ``--rpc``,
nothing typed) with its value and that ``--priority-fee-per-gas`` sets it; the tip the
user typed, said as theirs; the ``--chain`` preset's least. A ``--priority-fee-per-gas``
under a preset's least is signed as typed after one line on stderr (never refused),
and a cancellation tips at least the larger of the typed tip and the preset's least,
and outbids the tip of the transaction it replaces.

The node is the loopback JSON-RPC server of ``tests/test_mcp_tip_choice.py`` (the real
:class:`Marketplace` on it) or the stand-in of ``tests/test_mcp_gas_bound.py``.
"""

from typing import Any, Dict, List, Optional

import pytest
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes
from mech_catalogue_core.chain.presets import GWEI, PRESETS

from mech_catalogue_cli.commands.gas_options import choose_tip, tip_warning
from mech_catalogue_cli.fee_caps import TipChoice
from mech_catalogue_cli.mcp_server.fees import cancellation_fees
from mech_catalogue_cli.mcp_server.market_errors import (
    TIP_FROM_NODE,
    TIP_LEAST,
    TIP_TYPED,
    FeeOverCap,
    TipOverCap,
)
from tests.test_mcp_gas_bound import _market
from tests.test_mcp_gas_bound_more import _request
from tests.test_mcp_tip_choice import NO_SUCH_METHOD, TipNode, _fees, _node

__all__ = ["nodes_fixture"]


@pytest.fixture(name="nodes")
def nodes_fixture() -> Any:
    """The nodes a test starts (each stopped after it).

    :yield: the list to add them to.
    """
    started: List[TipNode] = []
    yield started
    for node in started:
        node.close()


def _refusal(market: Any) -> FeeOverCap:
    with pytest.raises(FeeOverCap) as refused:
        _fees(market)
    return refused.value


def test_a_node_s_suggested_tip_over_the_cap_is_said_as_the_node_s(
    nodes: List[TipNode],
) -> None:
    """Custom ``--rpc``, nothing typed: the node's 95 gwei, and how to set the tip.

    :param nodes: the started nodes.
    """
    market = _node(nodes, ("result", hex(95 * GWEI))).market()
    choose_tip(market, None, None, False)
    refused = _refusal(market)
    said = str(refused)
    assert refused.tip_source == TIP_FROM_NODE and refused.tip == 95 * GWEI
    assert "the tip the node suggested (95 gwei (95,000,000,000 wei)" in said, said
    assert "eth_maxPriorityFeePerGas" in said
    assert "no --priority-fee-per-gas was given" in said
    assert "set a lower tip with --priority-fee-per-gas" in said
    assert "you gave" not in said and "preset" not in said


@pytest.mark.parametrize("preset", [None, "gnosis", "polygon"])
def test_a_typed_tip_over_the_cap_is_said_as_the_user_s(
    nodes: List[TipNode], preset: Optional[str]
) -> None:
    """``--priority-fee-per-gas 95gwei``: said as typed, whatever the node suggests.

    :param nodes: the started nodes.
    :param preset: the ``--chain`` preset (None: a custom ``--rpc``).
    """
    node = _node(nodes, ("result", hex(1 * GWEI)))
    market = node.market()
    choose_tip(market, 95 * GWEI, PRESETS[preset] if preset else None, False)
    refused = _refusal(market)
    said = str(refused)
    assert refused.tip_source == TIP_TYPED
    assert "the tip you gave (--priority-fee-per-gas 95 gwei" in said, said
    assert "a lower --priority-fee-per-gas" in said
    assert "suggested" not in said and "eth_maxPriorityFeePerGas" not in said
    assert "eth_maxPriorityFeePerGas" not in node.asked


def test_a_preset_s_least_tip_over_the_cap_is_said_as_the_chain_s(
    nodes: List[TipNode],
) -> None:
    """Polygon's 25 gwei least, the cap 30 gwei, base fee 10: the chain's least said.

    :param nodes: the started nodes.
    """
    market = _node(nodes).market(cap=30 * GWEI)
    choose_tip(market, None, PRESETS["polygon"], False)
    refused = _refusal(market)
    said = str(refused)
    assert refused.tip_source == TIP_LEAST
    assert "the chain's least tip (25 gwei" in said and "--chain preset" in said
    assert "you gave" not in said and "suggested" not in said


def test_a_node_without_the_method_signs_the_least_and_says_no_tip(
    nodes: List[TipNode],
) -> None:
    """No such method: the least (0) signed, a fee over the cap says the base fee only.

    :param nodes: the started nodes.
    """
    market = _node(nodes, NO_SUCH_METHOD).market(cap=5 * GWEI)
    choose_tip(market, None, None, False)
    said = str(_refusal(market))
    assert "tip" not in said and "--priority-fee-per-gas" not in said, said


def test_a_suggestion_alone_over_the_cap_says_none_was_typed(
    nodes: List[TipNode],
) -> None:
    """The node's suggestion over the cap by itself: said the node's, nothing typed.

    :param nodes: the started nodes.
    """
    market = _node(nodes, ("result", hex(101 * GWEI))).market()
    choose_tip(market, None, None, False)
    with pytest.raises(TipOverCap) as refused:
        _fees(market)
    said = str(refused.value)
    assert "no --priority-fee-per-gas was given" in said
    assert "Give --priority-fee-per-gas WEI" in said


def test_a_refusal_of_an_unsaid_source_keeps_the_general_words() -> None:
    """Built with a tip but no source (older callers): the general words."""
    said = str(FeeOverCap("block 1", 90 * GWEI, 100 * GWEI, 20 * GWEI))
    assert "the tip signed (20 gwei" in said and "--priority-fee-per-gas" in said


@pytest.mark.parametrize(
    "typed, preset, warned",
    [
        (1 * GWEI, "polygon", True),  # under Bor's 25 gwei
        (0, "polygon", True),
        (0, "gnosis", True),  # under geth's 1 wei
        (25 * GWEI, "polygon", False),  # the least itself
        (30 * GWEI, "polygon", False),
        (0, "arbitrum", False),  # its least is 0
        (0, None, False),  # a custom --rpc or the devnet: no least known
        (None, "polygon", False),  # nothing typed: the least is signed
    ],
)
def test_a_typed_tip_under_the_preset_s_least_is_warned_in_one_line(
    typed: Optional[int], preset: Optional[str], warned: bool
) -> None:
    """One line: what was typed, the least, what may happen, what to do.

    :param typed: ``--priority-fee-per-gas``.
    :param preset: the ``--chain`` preset.
    :param warned: whether a warning is due.
    """
    chain = PRESETS[preset] if preset else None
    warning = tip_warning(typed, chain)
    assert bool(warning) == warned, warning
    if warned:
        assert chain is not None and typed is not None
        assert "\n" not in warning and warning.startswith("warning: ")
        assert f"--priority-fee-per-gas {chain.min_priority_fee_wei} or more" in warning
        assert chain.name in warning and "unmined" in warning


def test_a_low_typed_tip_is_warned_on_stderr_and_signed_as_typed(
    nodes: List[TipNode], capsys: pytest.CaptureFixture[str]
) -> None:
    """Warned once on stderr (stdout is the protocol's), then signed as typed.

    :param nodes: the started nodes.
    :param capsys: the captured streams.
    """
    market = _node(nodes).market()
    choose_tip(market, 1 * GWEI, PRESETS["polygon"], False)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "25 gwei" in captured.err, captured.err
    assert _fees(market)["tip"] == 1 * GWEI  # the user's choice, not refused
    choose_tip(market, 25 * GWEI, PRESETS["polygon"], False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "typed, least, expected",
    [
        (None, 25 * GWEI, 25 * GWEI),
        (1 * GWEI, 25 * GWEI, 25 * GWEI),  # typed under the least: the least
        (30 * GWEI, 25 * GWEI, 30 * GWEI),  # typed over it: the typed tip
        (3 * GWEI, 1, 3 * GWEI),
        (0, 0, 0),
    ],
)
def test_a_cancellation_s_least_tip_is_the_larger_of_typed_and_least(
    typed: Optional[int], least: int, expected: int
) -> None:
    """:attr:`TipChoice.cancel_least`.

    :param typed: ``--priority-fee-per-gas``.
    :param least: the preset's least.
    :param expected: the least a cancellation tips.
    """
    assert TipChoice(least=least, typed=typed).cancel_least == expected


def _tx(raw_tx: str) -> Dict[str, Any]:
    return dict(TypedTransaction.from_bytes(HexBytes(raw_tx)).as_dict())


@pytest.mark.parametrize(
    "signed_with, typed, least",
    [
        (40 * GWEI, 40 * GWEI, 1),  # the replaced tipped the typed tip: outbid
        (1 * GWEI, 40 * GWEI, 1),  # signed before the tip was raised: >= 40 gwei
        (1 * GWEI, 1 * GWEI, 25 * GWEI),  # under polygon's least: >= 25 gwei
        (None, None, 25 * GWEI),
        (None, 0, 0),  # the devnet: 1 gwei (CANCEL_LEAST_TIP) still
    ],
)
def test_a_cancellation_tips_at_least_typed_least_and_over_the_replaced(
    signed_with: Optional[int], typed: Optional[int], least: int
) -> None:
    """Signed by the real market: never under the typed tip, the least, the replaced.

    :param signed_with: the tip the replaced request was signed with (None: least).
    :param typed: ``--priority-fee-per-gas`` when the cancellation is signed.
    :param least: the preset's least.
    """
    market = _market(300_000, base_fee=1 * GWEI, fee_cap=1000 * GWEI)
    market.tips = TipChoice(least=least, typed=signed_with)
    request = _request(market)
    replaced_tip = _tx(request.raw_tx)["maxPriorityFeePerGas"]
    market.tips = TipChoice(least=least, typed=typed)
    cancel = _tx(market.sign_cancel(request).raw_tx)
    tip = cancel["maxPriorityFeePerGas"]
    assert tip >= max(typed or 0, least, GWEI), tip
    assert tip >= 2 * replaced_tip, tip
    assert cancel["maxFeePerGas"] >= tip


def test_a_cancellation_whose_tip_the_cap_cuts_under_the_replaced_is_refused() -> None:
    """The cap leaves less than 10 % over the replaced tip: refused, nothing signed."""
    with pytest.raises(FeeOverCap) as refused:
        cancellation_fees(
            ("0x" + "aa" * 32, 4), (50 * GWEI, 49 * GWEI), GWEI, 0, 52 * GWEI
        )
    assert "the cancellation was not signed" in str(refused.value)
