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

"""One set of fee refusals for every command that signs, with the tip's source.

``publish`` signs within ``--max-fee-per-gas`` by the rule ``mcp`` and ``prepay`` use
(:mod:`mech_catalogue_cli.fee_caps`), and the MCP server's refusals before signing say
where the tip came from and, after something was signed, what
(:class:`~mech_catalogue_cli.fee_caps.UnsignedRefusal`). Both were written apart; these
tests hold them to one implementation: the server's names are the same classes, a
publish refused for its fee names its tip by source, and a tip typed under a preset's
least is warned of by ``publish`` too, in its own words. The node is the loopback
JSON-RPC server with canned answers (:class:`tests.test_mcp_tip_choice.TipNode`); the
publisher is the real one on it.
"""

import subprocess  # nosec: the test's own interpreter, fixed arguments
import sys
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

import pytest
from click.testing import CliRunner, Result
from mech_catalogue_core.chain.presets import GWEI, PRESETS
from mech_catalogue_core.publish.publish import FEE_OVER_CAP, PublishError

from mech_catalogue_cli import fee_caps
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.gas_options import tip_choice, tip_warning
from mech_catalogue_cli.mcp_server import market_errors
from tests.test_mcp_tip_choice import BASE_FEE, CAP, TipNode
from tests.test_publish_fee_caps import CALL, OWNER, _publisher

#: the fee refusals and what they are built from, by the names the server imports
SHARED = [
    "MarketError",
    "UnsignedRefusal",
    "FeeOverCap",
    "TipOverCap",
    "NOTHING_SIGNED_NOR_SENT",
    "TIP_TYPED",
    "TIP_FROM_NODE",
    "TIP_LEAST",
    "say_gwei",
    "FEE_CAP_TIMES_BASE_FEE",
]


@pytest.fixture(name="nodes")
def _nodes() -> Iterator[List[TipNode]]:
    """The nodes a test starts (each stopped after it).

    :yield: the list to add them to.
    """
    started: List[TipNode] = []
    yield started
    for node in started:
        node.close()


@pytest.mark.parametrize("name", SHARED)
def test_the_server_s_fee_refusals_are_the_signing_commands_own(name: str) -> None:
    """``market_errors`` names the very objects ``fee_caps`` defines: one implementation.

    :param name: a shared name.
    """
    assert getattr(market_errors, name) is getattr(fee_caps, name)


def test_the_fee_rules_load_without_the_mcp_server() -> None:
    """``fee_caps`` and the publisher import no module of the server (a fresh process)."""
    loaded = subprocess.run(  # nosec: fixed arguments
        [
            sys.executable,
            "-c",
            "import sys, mech_catalogue_cli.fee_caps, "
            "mech_catalogue_cli.publisher.publisher; "
            "print(sorted(m for m in sys.modules if 'mcp_server' in m))",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert loaded.stdout.strip() == "[]", loaded.stdout + loaded.stderr


@pytest.mark.parametrize(
    "refusal",
    [
        fee_caps.FeeOverCap("block 7 on http://n", 90 * GWEI, CAP, 30 * GWEI, "typed"),
        fee_caps.FeeOverCap("block 7 on http://n", 120 * GWEI, CAP),
        fee_caps.TipOverCap("http://n", CAP + 1, CAP),
    ],
)
def test_a_refusal_after_a_signature_says_what_was_signed_in_its_own_sentence(
    refusal: fee_caps.UnsignedRefusal,
) -> None:
    """``signed_before`` takes the words as a string: the kind, fields and advice kept.

    :param refusal: a fee refusal as the fee rule raises it.
    """
    said = refusal.signed_before("only the approval (tx 0xab) was signed")
    assert type(said) is type(refusal) and said.__dict__ == refusal.__dict__
    assert str(refusal).count(fee_caps.NOTHING_SIGNED_NOR_SENT) == 1
    assert fee_caps.NOTHING_SIGNED_NOR_SENT not in str(said)
    assert str(said) == str(refusal).replace(
        fee_caps.NOTHING_SIGNED_NOR_SENT, "only the approval (tx 0xab) was signed"
    )


#: ``(--priority-fee-per-gas, --chain, --max-fee-per-gas, the node's tip (None: 40
#: gwei, never to be signed))``: the tip typed on a custom --rpc and on a preset (10 +
#: 95 > 100 gwei), Polygon's least (10 + 25 > 30), a custom node's suggestion
BOUNDS = [
    (95 * GWEI, None, CAP, None),
    (95 * GWEI, "gnosis", CAP, None),
    (None, "polygon", 30 * GWEI, None),
    (None, None, CAP, 95 * GWEI),
]
#: how each one's refusal names the tip, and the way out it says
SAID = [
    ("the tip you gave (--priority-fee-per-gas 95 gwei", "or a lower --priority-fee"),
    (
        "the tip you gave (--priority-fee-per-gas 95",
        "or a lower --priority-fee-per-gas",
    ),
    ("the chain's least tip (25 gwei", "set another tip with --priority-fee-per-gas"),
    ("the tip the node suggested (95 gwei", "signed only when none is given"),
]


@pytest.mark.parametrize("bounds, words", list(zip(BOUNDS, SAID)))
def test_publish_refused_for_its_fee_names_where_the_tip_came_from(
    nodes: List[TipNode],
    bounds: Tuple[Optional[int], Optional[str], int, Optional[int]],
    words: Tuple[str, str],
) -> None:
    """``publish_fee_over_cap`` says the tip by its source, with the way out that fits.

    :param nodes: the started nodes.
    :param bounds: the tip typed, the preset, the cap and the node's suggestion.
    :param words: how the refusal names the tip, and its advice.
    """
    typed, preset, cap, tip_answer = bounds
    named, advice = words
    choice = tip_choice(typed, PRESETS[preset] if preset else None, False)
    node, publisher = _publisher(
        nodes, choice, cap, ("result", hex(tip_answer or 40 * GWEI))
    )
    with pytest.raises(PublishError) as refused:
        publisher.send(CALL, OWNER)
    said = str(refused.value)
    assert refused.value.code == FEE_OVER_CAP, said
    assert named in said and advice in said, said
    assert "the tip signed (" not in said  # the words for a tip of no known source
    assert said.count("nothing was signed nor sent") == 1, said
    assert "eth_sendRawTransaction" not in node.asked
    assert ("eth_maxPriorityFeePerGas" in node.asked) == (tip_answer is not None)


def test_publish_over_the_cap_with_no_tip_says_no_tip(nodes: List[TipNode]) -> None:
    """The devnet's 0 tip: the base fee alone over the cap, no tip named, no tip advice.

    :param nodes: the started nodes.
    """
    _, publisher = _publisher(nodes, tip_choice(None, None, True), BASE_FEE - 1)
    with pytest.raises(PublishError) as refused:
        publisher.send(CALL, OWNER)
    said = str(refused.value)
    assert refused.value.code == FEE_OVER_CAP, said
    assert "tip" not in said and "--priority-fee-per-gas" not in said, said


@pytest.mark.parametrize(
    "typed, preset, warned",
    [
        (1 * GWEI, "polygon", True),
        (0, "mainnet", True),
        (25 * GWEI, "polygon", False),
        (0, "arbitrum", False),
        (0, None, False),
        (None, "polygon", False),
    ],
)
def test_publish_s_warning_names_no_cancellation(
    typed: Optional[int], preset: Optional[str], warned: bool
) -> None:
    """``publish`` cancels nothing: its warning says the transaction, not requests.

    :param typed: ``--priority-fee-per-gas``.
    :param preset: the ``--chain`` preset.
    :param warned: whether a warning is due.
    """
    chain = PRESETS[preset] if preset else None
    warning = tip_warning(typed, chain, cancels=False)
    assert bool(warning) == warned, warning
    assert warning == "" or (
        "\n" not in warning
        and "cancellation" not in warning
        and "the transaction or leave it unmined" in warning
    ), warning
    assert bool(tip_warning(typed, chain)) == warned  # the server's, the same cases


def _publish(tmp_path: Path, *options: str) -> Result:
    """Run ``publish --json`` against a node that does not listen (options after)."""
    manifest = tmp_path / "manifest.json"
    manifest.write_text("{}")
    (tmp_path / "owner.key").write_text("0x" + "07" * 32)
    args = ["--json", "publish", "--manifest", str(manifest)]
    args += ["--rpc", "http://127.0.0.1:9", "--ipfs-api", "http://127.0.0.1:9"]
    args += ["--kind", "legacy_mech_registry", "--registry", "0x" + "11" * 20]
    args += ["--id", "1", "--timeout", "0.5", *options]
    return CliRunner().invoke(cli, args, obj={})


def test_publish_warns_of_a_tip_under_the_preset_s_least_on_stderr(
    tmp_path: Path,
) -> None:
    """One line on stderr, before anything is read; stdout keeps only the JSON.

    :param tmp_path: pytest's folder for the manifest and the key.
    """
    key = str(tmp_path / "owner.key")
    low = _publish(
        tmp_path,
        "--chain",
        "polygon",
        "--priority-fee-per-gas",
        "1gwei",
        "--key-file",
        key,
    )
    warnings = [line for line in low.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 1, low.stderr
    assert "polygon preset's least tip, 25 gwei" in warnings[0], warnings[0]
    assert "cancellation" not in warnings[0], warnings[0]
    assert "warning:" not in low.stdout
    assert "07" * 32 not in low.stderr + low.stdout  # the key never said
    at_least = _publish(
        tmp_path,
        "--chain",
        "polygon",
        "--priority-fee-per-gas",
        "25gwei",
        "--key-file",
        key,
    )
    assert "warning:" not in at_least.stderr, at_least.stderr


def test_publish_without_a_key_signs_no_tip_and_warns_of_none(tmp_path: Path) -> None:
    """No key: nothing is signed here, so a low tip is not warned of.

    :param tmp_path: pytest's folder for the manifest.
    """
    keyless = _publish(tmp_path, "--chain", "polygon", "--priority-fee-per-gas", "0")
    assert "warning:" not in keyless.stderr, keyless.stderr
