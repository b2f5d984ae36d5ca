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

"""What other registrants add to a Tool's ``_meta`` is bounded, not counted in its cap.

``tools/list`` measures a Tool's own definition (its JSON without ``_meta``) against
``MAX_LISTED_TOOL_BYTES``; ``_meta``'s offers and mech lists are cut on their own, each
saying how many it left out, and the offer a call would pay is always listed (adv29v).
"""

import json
from dataclasses import replace
from typing import Dict

from mech_catalogue_core.exporters.mcp_tool import META_KEY
from mech_catalogue_core.model.catalogue import Catalogue

from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import (
    MAX_LISTED_TOOL_BYTES,
    MAX_META_MECHS,
    MAX_META_OFFERS,
    ServedTool,
    definition_bytes,
    served_from_catalogue,
)
from tests.test_contract_guards import manifest, ref
from tests.test_mcp_source import _FixedSource, _priced_catalogue, _typed

TOOL = "weather-now"


def _native(manifests: Dict[int, bytes]) -> Catalogue:
    """Mechs 1..n serving these manifests, each with one native offer."""
    return Catalogue.build(
        replace(
            mech,
            marketplace=tuple(
                replace(facts, payment_type=NATIVE_PAYMENT_TYPE)
                for facts in mech.marketplace
            ),
        )
        for mech in _priced_catalogue(manifests).mechs
    )


def _server(catalogue: Catalogue, settings: CallSettings) -> MechToolServer:
    app = MechToolServer(
        _FixedSource(served_from_catalogue(catalogue)), settings, None, None
    )
    app.refresh()
    return app


def _meta(tool: ServedTool) -> dict:
    return tool.tool["_meta"][META_KEY]


def test_a_hundred_conflicting_declarations_leave_the_tool_listed() -> None:
    """Mech 1's tool, then 150 mechs declaring its name with other arguments."""
    manifests = {1: manifest(_typed(TOOL, "city"))}
    manifests.update({i: manifest(_typed(TOOL, f"other{i}")) for i in range(2, 152)})
    app = _server(_native(manifests), CallSettings("g", "a"))
    [tool] = app.listed.tools
    meta = _meta(tool)
    assert [o["mech"] for o in meta["offers"]] == [ref(1).key]
    assert len(meta["conflicting_mechs"]) == MAX_META_MECHS
    assert meta["conflicting_mechs_left_out"] == 150 - MAX_META_MECHS
    assert ref(1).key in meta["mechs"]  # the listed offer's mech is named first
    assert meta["mechs_left_out"] == 151 - MAX_META_MECHS
    assert len(json.dumps(tool.tool)) < 3 * MAX_LISTED_TOOL_BYTES


def test_copies_are_listed_up_to_the_bound_with_the_count_left_out() -> None:
    """200 copies of one manifest: the tool listed, 8 offers named, 193 counted."""
    app = _server(
        _native({i: manifest(_typed(TOOL, "city")) for i in range(1, 202)}),
        CallSettings("g", "a"),
    )
    [tool] = app.listed.tools
    meta = _meta(tool)
    assert len(meta["offers"]) == MAX_META_OFFERS
    assert meta["offers_left_out"] == 201 - MAX_META_OFFERS
    assert len(meta["schema_mechs"]) == MAX_META_MECHS
    assert meta["schema_mechs_left_out"] == 201 - MAX_META_MECHS
    assert len(tool.offers) == 201  # a call may still try every one


def test_the_offer_a_call_would_pay_is_always_listed() -> None:
    """``--mech`` pins the last copy, which the ranking leaves out: listed first."""
    pinned = "0x" + f"{40:040x}"
    app = _server(
        _native({i: manifest(_typed(TOOL, "city")) for i in range(1, 41)}),
        CallSettings("g", "a", pinned=pinned),
    )
    [tool] = app.listed.tools
    meta = _meta(tool)
    assert meta["offers"][0]["address"] == pinned
    assert len(meta["offers"]) == MAX_META_OFFERS
    assert meta["offers_left_out"] == 40 - MAX_META_OFFERS
    assert pinned in tool.tool["description"].split("\n\n")[0]  # the server's facts
    unpinned = app.catalogue.named(TOOL)
    assert unpinned is not None
    assert pinned not in [o["address"] for o in _meta(unpinned)["offers"]]


def test_a_tool_whose_own_definition_is_over_the_cap_is_still_left_out() -> None:
    """Unhappy path: a registrant's own 100 long-winded arguments (about 110 KB)."""
    huge = {
        "name": TOOL,
        "kwargs": [
            {
                "identifier": f"argument_{i:03d}",
                "type": "str",
                "description": "an argument said at length. " * 40,
            }
            for i in range(100)
        ],
    }
    app = _server(_native({1: manifest(huge)}), CallSettings("g", "a"))
    assert app.listed.tools == ()
    tool = app.catalogue.named(TOOL)
    assert tool is not None and definition_bytes(tool.tool) > MAX_LISTED_TOOL_BYTES


def test_definition_bytes_leaves_out_meta_only() -> None:
    """The measure: the Tool's compact JSON (non-ASCII escaped) without ``_meta``."""
    tool = {"name": "é", "_meta": {"x": "y" * 1000}}
    assert definition_bytes(tool) == len(b'{"name":"\\u00e9"}')
