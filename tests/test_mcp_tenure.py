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

"""Since when a service declares a tool as it is now: the walk back through its updates.

``tenure.unchanged_since`` is the rule behind ``TenureReader`` (adversarial review
adv29b): a manifest update that leaves a tool's definition as it was keeps the tool's
tenure, a changed definition starts it again, an unreadable earlier manifest ends the
walk there. The reads themselves (events, IPFS) are tested on the devnet:
``tests/devnet/test_mcp_tenure_history.py``.
"""

import json
from typing import Dict, Mapping

import pytest
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    SHAPE_NAME_ONLY,
    Argument,
    MechRef,
    Provenance,
    Tool,
)

from mech_catalogue_cli.mcp_server.tenure import (
    ABSENT,
    definition_digest,
    definitions,
    unchanged_since,
)

SWAP = Tool(
    "swap", "Swaps.", (Argument("amount", "int", json.dumps({"type": "integer"})),)
)
QUOTE = Tool("quote", "Quotes.")


def _digest(n: int) -> str:
    return "0x" + f"{n:064x}"


def _defs(*tools: Tool) -> Dict[str, str]:
    return definitions(tools)


@pytest.mark.parametrize(
    "changed",
    [
        Tool("swap", "Swaps tokens."),  # another description
        Tool(
            "swap",
            "Swaps.",
            (Argument("amount", "str", json.dumps({"type": "string"})),),
        ),  # another argument type
        Tool(
            "swap",
            "Swaps.",
            (
                Argument("amount", "int", json.dumps({"type": "integer"})),
                Argument("wallet", "str", json.dumps({"type": "string"})),
            ),
        ),  # one argument more
        Tool(
            "swap",
            "Swaps.",
            (Argument("amount", "int", json.dumps({"type": "integer"})),),
            output_schema_json='{"type":"object"}',
        ),  # an output schema
    ],
)
def test_any_change_of_a_tool_changes_its_definition_digest(changed: Tool) -> None:
    """Everything the manifest says of a tool is in its definition digest.

    :param changed: SWAP with one thing changed.
    """
    assert definition_digest(changed) != definition_digest(SWAP)
    assert definition_digest(changed).startswith("sha256:")


def test_provenance_is_not_part_of_the_definition() -> None:
    """Where the tool was read from (its mech) does not change its definition."""
    ref = MechRef(100, REGISTRY_COMPLEMENTARY_SERVICE, "0x" + "cc" * 20, 7)
    moved = SWAP.with_provenance(Provenance(SHAPE_NAME_ONLY, mech=ref))
    assert definition_digest(moved) == definition_digest(SWAP)


def test_an_update_adding_another_tool_keeps_the_tenure() -> None:
    """Declared at 100, a tool added beside it at 900: still declared since 100."""
    now = _defs(SWAP, QUOTE)
    since = unchanged_since(
        [(100, _digest(1)), (900, _digest(2))], now, {_digest(1): _defs(SWAP)}
    )
    assert since == {"swap": 100, "quote": 900}


def test_the_same_hash_set_again_needs_no_manifest() -> None:
    """The current manifest set again: the tenure reaches back without any read."""
    now = _defs(SWAP)
    since = unchanged_since([(100, _digest(1)), (900, _digest(1))], now, {})
    assert since == {"swap": 100}


def test_a_changed_definition_starts_the_tenure_again() -> None:
    """The tool changed at 500: since 500, whatever was declared before."""
    older = Tool("swap", "Swaps (old).")
    now = _defs(SWAP)
    known: Mapping[str, Mapping[str, str]] = {
        _digest(1): _defs(SWAP),  # as now at 100
        _digest(2): _defs(older),  # changed at 300
        _digest(3): _defs(SWAP, QUOTE),  # back as now at 500
    }
    history = [
        (100, _digest(1)),
        (300, _digest(2)),
        (500, _digest(3)),
        (900, _digest(4)),
    ]
    assert unchanged_since(history, now, known) == {"swap": 500}


def test_a_tool_missing_from_an_earlier_manifest_starts_there() -> None:
    """Dropped at 300 and declared again at 500 (same definition): since 500."""
    now = _defs(SWAP)
    known = {_digest(1): _defs(SWAP), _digest(2): _defs(QUOTE)}
    history = [(100, _digest(1)), (300, _digest(2)), (500, _digest(3))]
    assert unchanged_since(history, now, known) == {"swap": 500}


def test_an_unreadable_earlier_manifest_ends_the_walk_there() -> None:
    """The manifest of 300 cannot be read: since 500 (as before this rule), not 100."""
    now = _defs(SWAP)
    known = {_digest(1): _defs(SWAP)}
    history = [(100, _digest(1)), (300, _digest(2)), (500, _digest(3))]
    assert unchanged_since(history, now, known) == {"swap": 500}


def test_each_tool_walks_on_its_own() -> None:
    """Two tools of one manifest: each keeps its own tenure."""
    now = _defs(SWAP, QUOTE)
    known = {
        _digest(1): _defs(SWAP),
        _digest(2): _defs(SWAP, Tool("quote", "Quotes (old).")),
        _digest(3): _defs(SWAP, QUOTE),
    }
    history = [
        (100, _digest(1)),
        (200, _digest(2)),
        (300, _digest(3)),
        (400, _digest(4)),
    ]
    assert unchanged_since(history, now, known) == {"swap": 100, "quote": 300}


def test_an_absent_name_is_never_a_definition() -> None:
    """A manifest that does not declare a tool never matches it (ABSENT is no digest)."""
    assert ABSENT not in _defs(SWAP, QUOTE).values()
    known = {_digest(1): {"swap": ABSENT}}
    assert unchanged_since(
        [(100, _digest(1)), (200, _digest(2))], _defs(SWAP), known
    ) == {"swap": 200}
