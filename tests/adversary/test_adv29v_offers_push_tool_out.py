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

"""Strangers' copies of an honest tool push it out of ``tools/list`` (adv29v).

Severity: MEDIUM (hides a tool from every client: a call is stopped before it is made;
anyone with about 40 registrations, one manifest pinned).

``tools/list`` leaves out a tool whose MCP Tool JSON is over ``MAX_LISTED_TOOL_BYTES``
(32 KiB; ``ServedCatalogue.within_bytes``, docs/mcp.md: against "one registrant's 1 MB
tool"). But the JSON measured holds ``_meta[...]["offers"]``, one entry of about 880
bytes per mech offering the tool (every mech that declares it with the served
arguments) and ``conflicting_mechs`` (every mech that declares the name with others).
Neither is the tool's registrant's: a stranger copies the honest manifest onto about
40 services with a mech each (or declares the name with other arguments on a few
hundred), and the honest tool, small as its manifest made it, is over the cap; the
server logs "1 tools not listed: each Tool is over 32768 bytes" and no client, model
or discovery search sees it again while the copies stand.

Observed on main f50e9323 (no chain: ``served_from_catalogue`` of an honest mech and
its copies, each with one native marketplace offer, then ``MechToolServer.refresh`` as
the server runs it): with 10 copies the tool is listed (its Tool 10.3 KB), with 35 too
(32.3 KB); with 40 (36.7 KB) and 60 (54.2 KB) it is not, and the listing is empty.

Expected: what other registrants add to a tool (its offers, its conflicting mechs)
does not count against that tool's size cap: the tool stays listed (its offers in
``_meta`` bounded or summarised instead).
"""

import json
from dataclasses import replace

from mech_catalogue_core.model.catalogue import Catalogue

from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import (
    MAX_LISTED_TOOL_BYTES,
    served_from_catalogue,
)
from tests.test_contract_guards import manifest
from tests.test_mcp_source import _FixedSource, _priced_catalogue, _typed

TOOL = "prediction-online"


def _listed_with_copies(copies: int) -> MechToolServer:
    """The server after one read of the honest mech 1 and ``copies`` copies of it."""
    honest = manifest(_typed(TOOL, "prompt"))
    catalogue = Catalogue.build(
        replace(
            mech,
            marketplace=tuple(
                replace(facts, payment_type=NATIVE_PAYMENT_TYPE)
                for facts in mech.marketplace
            ),
        )
        for mech in _priced_catalogue({i: honest for i in range(1, copies + 2)}).mechs
    )
    app = MechToolServer(
        _FixedSource(served_from_catalogue(catalogue)),
        CallSettings("g", "a"),
        None,
        None,
    )
    app.refresh()
    return app


def _size(app: MechToolServer) -> int:
    tool = app.catalogue.named(TOOL)
    assert tool is not None
    return len(json.dumps(tool.tool, separators=(",", ":")).encode())


def test_a_few_copies_leave_the_tool_listed() -> None:
    """Control: ten copies; the tool is listed with its eleven offers."""
    app = _listed_with_copies(10)
    assert _size(app) < MAX_LISTED_TOOL_BYTES
    assert [t.name for t in app.listed.tools] == [TOOL]


def test_sixty_copies_do_not_push_the_honest_tool_out_of_the_listing() -> None:
    """Sixty copies: the honest tool must stay listed."""
    app = _listed_with_copies(60)
    # observed on main: about 38 KB, over the cap, so nothing is listed
    assert [t.name for t in app.listed.tools] == [TOOL], f"{_size(app)} bytes"
