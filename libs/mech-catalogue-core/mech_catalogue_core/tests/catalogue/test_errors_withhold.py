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

"""Errors withhold, warnings inform (issue #12, item 5 of the issue; item 3 of the task).

A tool with an error-level problem is not offered with a guessed schema: it is left out of
``/tools``, the shared-state catalogue's tools, the mech-interact views and the exports,
and stays listed under its mech in ``/mechs`` with its problems.
"""

import json
from dataclasses import replace
from typing import Any, Dict

from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.views import (
    mech_tools_view,
    mechs_info_view,
)
from mech_catalogue_core.exporters import (
    catalogue_to_mcp_tools,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
    MechRef,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)

REF = MechRef(100, "legacy_mech_registry", "0x" + "11" * 20, 7)
#: facts mech-interact can rank (without them an entry is not in mechs_info)
RANKABLE_FACTS = MechFacts(
    address="0x" + "22" * 20,
    service_id=7,
    block=1,
    confirmed=True,
    max_delivery_rate=10,
    requests=1,
    deliveries=1,
    karma=0,
)
CLASH = {  # `amount` declared twice with different types: which one would a caller get?
    "name": "transfer",
    "kwargs": [
        {"identifier": "to", "type": "hexAddress"},
        {"identifier": "amount", "type": "int"},
        {"identifier": "amount", "type": "str"},
    ],
}
GOOD = {"name": "quote", "kwargs": [{"identifier": "market", "type": "str"}]}
UNTYPED = {"name": "chat", "input": {"type": "text"}}


def _catalogue(document: Dict[str, Any]) -> Catalogue:
    result = parse_document(document)
    return Catalogue.build([Mech.from_manifest(REF, result.manifest, result.problems)])


def _get(catalogue: Catalogue, path: str) -> Any:
    view = CatalogueView.build(
        ExposedCatalogue(catalogue, catalogue.digest(), "s", 1, 0.0, 1)
    )
    response = route("GET", path, b"", view, 0.0, 100, 60.0)
    assert response.status_code in (200, 404), response.body
    return response.status_code, json.loads(response.body)


def test_tool_with_an_error_is_not_offered_anywhere() -> None:
    """The clashing tool is in no offer: catalogue, /tools, views, MCP export."""
    catalogue = _catalogue({"name": "m", "tools": [CLASH, GOOD, UNTYPED]})
    assert catalogue.tool_names() == ("chat", "quote")
    _, listed = _get(catalogue, "/tools")
    assert sorted(t["name"] for t in listed["tools"]) == ["chat", "quote"]
    status, _ = _get(catalogue, "/tools/transfer")
    assert status == 404
    assert mech_tools_view(catalogue) == ["chat", "quote"]
    with_facts = Catalogue.build(
        replace(m, marketplace=(RANKABLE_FACTS,)) for m in catalogue.mechs
    )
    assert mechs_info_view(with_facts)[0]["relevant_tools"] == ["chat", "quote"]
    assert "transfer" not in {t["name"] for t in catalogue_to_mcp_tools(catalogue)}


def test_withheld_tool_stays_visible_under_its_mech_with_the_problem() -> None:
    """/mechs lists the withheld tool and the problems that explain it."""
    catalogue = _catalogue({"name": "m", "tools": [CLASH, GOOD]})
    _, body = _get(catalogue, "/mechs")
    (mech,) = body["mechs"]
    assert mech["tools"] == ["quote"] and mech["withheld"] == ["transfer"]
    codes = [(p["code"], p["path"], p["severity"]) for p in mech["problems"]]
    assert (P.DUPLICATE_ARGUMENT, "/tools/0/kwargs/2", "error") in codes
    assert (P.TOOL_WITHHELD, "/tools/0", "error") in codes
    assert mech["status"] == "ok"


def test_warnings_inform_the_tool_is_offered() -> None:
    """An untyped tool or an unknown type term is a warning: the tool is offered."""
    odd = {"name": "odd", "kwargs": [{"identifier": "x", "type": "quaternion"}]}
    catalogue = _catalogue({"name": "m", "tools": [UNTYPED, odd]})
    assert catalogue.tool_names() == ("chat", "odd")
    assert catalogue.mechs[0].withheld == ()


def test_withheld_round_trips_and_leaves_other_digests_alone() -> None:
    """`withheld` survives JSON; a catalogue with none serialises without the key."""
    with_clash = _catalogue({"name": "m", "tools": [CLASH, GOOD]})
    assert Catalogue.from_json(with_clash.to_json()) == with_clash
    clean = _catalogue({"name": "m", "tools": [GOOD]})
    assert "withheld" not in clean.to_dict()["mechs"][0]
    assert "withheld" in with_clash.to_dict()["mechs"][0]
