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

"""Look-alike tool names are said in ``tools/list`` itself (issue #29, second review).

Two mechs' manifests parsed and built into a catalogue by the library (marketplace facts
attached as the chain read would), served by the MCP server as ``tools/list`` pages.
"""

from dataclasses import replace
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.catalogue.fetching import FetchResult
from mech_catalogue_core.chain.registry import DigestRead
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.model.market import MechFacts

from mech_catalogue_cli.mcp_server.discovery import SearchArguments
from mech_catalogue_cli.mcp_server.names import LOOKALIKE_NOTE
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.source import served_from_catalogue
from tests.test_contract_guards import build, manifest, raw_digest, ref
from tests.test_mcp_untrusted_text import _server, _tool

META = "io.olas/mech-tool"


def _listed(first: str, second: str, all_tools: bool = False) -> Dict[str, Any]:
    """Two mechs offering one tool each (same arguments); the listed Tools by name."""
    return {t.name: t.tool for t in _serving(first, second, all_tools).listed.tools}


def _serving(first: str, second: str, all_tools: bool = False) -> Any:
    """Two mechs offering one tool each (same arguments); the MCP server over them."""
    docs = [
        manifest(_tool(n, "Forecasts a market.", prompt=("str", "the question")))
        for n in (first, second)
    ]
    digests = [raw_digest(d) for d in docs]
    catalogue = build(
        30,
        [DigestRead(ref(i + 1), d) for i, d in enumerate(digests)],
        {
            d: FetchResult.ok(d, f"bafk{i}", doc)
            for i, (d, doc) in enumerate(zip(digests, docs))
        },
    )
    mechs = []
    for i, mech in enumerate(catalogue.mechs):
        facts = MechFacts(
            address="0x" + f"{i + 12:02x}" * 20,
            service_id=mech.ref.mech_id,
            block=30,
            confirmed=True,
            max_delivery_rate=9,
            payment_type=NATIVE_PAYMENT_TYPE,
            requests=1,
            deliveries=1,
            karma=0,
        )
        mechs.append(replace(mech, marketplace=(facts,)))
    served = served_from_catalogue(Catalogue.build(mechs))
    return _server(served, all_tools)


def _codes(tool: Dict[str, Any]) -> List[str]:
    return [w["code"] for w in tool["_meta"][META].get("warnings") or []]


@pytest.mark.parametrize(
    "twin",
    [
        "forecast-onIine",
        "forecast-on|ine",
        "f\u043erecast-online",
        "forecast\u2010online",
    ],
)
@pytest.mark.parametrize("all_tools", [False, True])
def test_both_lookalikes_carry_the_warning_in_tools_list(
    twin: str, all_tools: bool
) -> None:
    """Capital I, a bar, a Cyrillic o, a Unicode hyphen: both tools flagged, said first."""
    tools = _listed("forecast-online", twin, all_tools)
    assert len(tools) == 2
    for name, tool in tools.items():
        assert "lookalike_tool_name" in _codes(tool), name
        description = tool["description"]
        assert LOOKALIKE_NOTE in description
        if (
            not all_tools
        ):  # priced: the server's facts, then its warning, then the mech's
            assert description.index("Paid call:") < description.index(LOOKALIKE_NOTE)
        assert description.index(LOOKALIKE_NOTE) < description.index(
            "Forecasts a market."
        )
        assert tool["title"] == name == tool["annotations"]["title"]
        assert name.isascii()


def test_distinct_names_are_not_flagged() -> None:
    """The control: two visibly different names keep their titles, no warning."""
    tools = _listed("forecast-online", "forecast-offline")
    for name, tool in tools.items():
        assert _codes(tool) == [] and LOOKALIKE_NOTE not in tool["description"]
        assert tool["title"] == name


def test_search_tools_and_describe_tool_carry_the_warning() -> None:
    """Discovery mode says it too: each match and each description (issue 29).

    Before, only ``tools/list`` carried it: a client in discovery mode (above 40
    tools) saw two matches with nothing between them.
    """
    server = _serving("forecast-online", "forecast-onIine")
    page = server.discovery.finder().page(
        SearchArguments.from_dict({"query": "forecast"})
    )
    assert len(page["matches"]) == 2
    for match in page["matches"]:
        (said,) = match["warnings"]
        assert said["code"] == "lookalike_tool_name"
        assert (
            said["message"]
            == server.listed.named(match["name"]).tool["_meta"][META]["warnings"][-1][
                "message"
            ]
        )
    described = server.discovery._described(  # pylint: disable=protected-access
        server.listed.named(page["matches"][0]["name"])
    )
    assert "lookalike_tool_name" in _codes((described.structured_content or {})["tool"])
    plain = _serving("forecast-online", "forecast-offline")
    control = plain.discovery.finder().page(
        SearchArguments.from_dict({"query": "forecast"})
    )
    assert all("warnings" not in m for m in control["matches"])
