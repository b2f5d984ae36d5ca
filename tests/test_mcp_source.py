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

"""The MCP server's catalogue: offers that take other arguments under a served name are no offers."""

import http.server
import threading
import time
from dataclasses import replace
from typing import Dict, Optional, Tuple

import pytest
from mech_catalogue_core.catalogue.fetching import (
    FetchResult,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.exporters.js_integers import (
    DECIMAL_PATTERN,
    INTEGER_TEXT_NOTE,
)
from mech_catalogue_core.http_api.routes import CatalogueView, route
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)

from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer, Tenure
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import (
    UNTRUSTED_HEADING,
    AgentSource,
    ServedCatalogue,
    ServedTool,
    served_from_catalogue,
)
from tests.test_contract_guards import build, manifest, raw_digest, ref


def _typed(name: str, *arguments: str) -> dict:
    return {
        "name": name,
        "kwargs": [{"identifier": i, "type": "str"} for i in arguments],
    }


def _facts(mech_id: int) -> MechFacts:
    return MechFacts(
        address="0x" + f"{mech_id:040x}",
        service_id=mech_id,
        block=20,
        confirmed=True,
        max_delivery_rate=10,
        requests=1,
        deliveries=1,
        karma=mech_id,  # the squatter (3) would rank first on karma
    )


def _priced_catalogue(manifests: Dict[int, bytes]) -> Catalogue:
    """Build the catalogue of mechs 1..n serving these manifests, each with one offer."""
    fetched = {
        raw_digest(data): FetchResult.ok(raw_digest(data), f"bafk{i}", data)
        for i, data in manifests.items()
    }
    catalogue = build(
        20, [DigestRead(ref(i), raw_digest(d)) for i, d in manifests.items()], fetched
    )
    return Catalogue.build(
        replace(m, marketplace=(_facts(m.ref.mech_id),)) for m in catalogue.mechs
    )


def test_a_squatters_offer_under_a_served_name_is_never_an_offer() -> None:
    """Mech 3 registers 'swap' with other arguments and more karma: not an offer of 'swap'."""
    manifests = {
        1: manifest(_typed("swap", "sender", "amount")),
        2: manifest(_typed("swap", "sender", "amount")),
        3: manifest(_typed("swap", "recipient"), _typed("quote", "pair")),
    }
    catalogue = _priced_catalogue(manifests)
    served = {tool.mech_tool: tool for tool in served_from_catalogue(catalogue).tools}
    assert sorted(served["swap"].tool["inputSchema"]["properties"]) == [
        "amount",
        "sender",
    ]
    assert [offer.mech_key for offer in served["swap"].offers] == [
        ref(1).key,
        ref(2).key,
    ]
    assert [offer.mech_key for offer in served["quote"].offers] == [ref(3).key]


@pytest.mark.parametrize("squatter_first_delivery", [400, None])
def test_a_lower_id_re_declaring_a_name_does_not_take_its_schema(
    squatter_first_delivery: Optional[int],
) -> None:
    """The served schema is the senior offer's, not the lowest registry id's (issue #29).

    Mech 1 (the lowest id) re-declares 'swap' with other arguments at block 390; mechs
    2 and 3 declared it with (sender, amount) at block 50 and delivered from block 60.
    Mech 1 delivered later (block 400) or not at all since: the model still sees
    (sender, amount), and mech 1 is listed apart and never paid.

    :param squatter_first_delivery: mech 1's first delivery since (None: none).
    """
    swap = _typed("swap", "sender", "amount")
    manifests = {1: manifest(_typed("swap", "wallet_note")), 2: manifest(swap)}
    manifests[3] = manifest(swap)
    catalogue = _priced_catalogue(manifests)
    tenures = {
        (_facts(1).address, "swap"): Tenure(390, squatter_first_delivery),
        (_facts(2).address, "swap"): Tenure(50, 60),
        (_facts(3).address, "swap"): Tenure(50, 70),
    }
    (served,) = served_from_catalogue(catalogue, tenures).tools
    meta = served.tool["_meta"]["io.olas/mech-tool"]
    assert sorted(served.tool["inputSchema"]["properties"]) == ["amount", "sender"]
    assert [offer.mech_key for offer in served.offers] == [ref(2).key, ref(3).key]
    assert meta["conflicting_mechs"] == [ref(1).key]
    assert served.offers[0].first_delivery_block == 60


def test_the_senior_schema_owns_the_name_even_at_a_higher_id() -> None:
    """The same rule the other way round: the later-registered senior declaration wins.

    Mech 3 delivered 'swap' first (block 15): its arguments are served although mechs
    1 and 2 (lower ids, other arguments) registered earlier and delivered later.
    """
    manifests = {
        1: manifest(_typed("swap", "recipient")),
        2: manifest(_typed("swap", "recipient")),
        3: manifest(_typed("swap", "pair")),
    }
    tenures = {
        (_facts(1).address, "swap"): Tenure(10, 30),
        (_facts(2).address, "swap"): Tenure(10, 20),
        (_facts(3).address, "swap"): Tenure(12, 15),
    }
    (served,) = served_from_catalogue(_priced_catalogue(manifests), tenures).tools
    assert list(served.tool["inputSchema"]["properties"]) == ["pair"]
    assert [offer.mech_key for offer in served.offers] == [ref(3).key]


def test_the_server_pays_exactly_the_mechs_the_agents_tools_call_schema_mechs() -> None:
    """One squatting rule: the server's offers are `/tools`' `schema_mechs`.

    Mech 2 declares the same argument names with another type label ("int" for "str"),
    mech 3 the same arguments in another order: neither takes exactly the served
    arguments, so neither is payable, whatever their exported JSON schemas look like.
    """
    swap = _typed("swap", "sender", "amount")
    relabelled = dict(swap, kwargs=[dict(k, type="int") for k in swap["kwargs"]])
    reordered = dict(swap, kwargs=list(reversed(swap["kwargs"])))
    manifests = {
        1: manifest(swap),
        2: manifest(relabelled),
        3: manifest(reordered),
        4: manifest(swap),
    }
    catalogue = _priced_catalogue(manifests)
    (served,) = served_from_catalogue(catalogue).tools
    meta = served.tool["_meta"]["io.olas/mech-tool"]
    assert meta["schema_mechs"] == [ref(1).key, ref(4).key]
    assert [offer.mech_key for offer in served.offers] == meta["schema_mechs"]
    assert meta["conflicting_mechs"] == sorted([ref(2).key, ref(3).key])


def _offer(address: int, price: Optional[int], payment_type: str) -> Offer:
    return Offer(
        mech_key=f"mech{address}",
        address="0x" + f"{address:040x}",
        price=price,
        payment_type=payment_type,
        requests=1,
        deliveries=1,
        karma=address,
        confirmed=True,
    )


def _served(*offer_lists: Tuple[Offer, ...]) -> ServedCatalogue:
    tools = tuple(
        ServedTool(
            f"t{i}",
            f"t{i}",
            {"name": f"t{i}", "description": f"Tool {i}.", "inputSchema": {}},
            offers,
        )
        for i, offers in enumerate(offer_lists)
    )
    return ServedCatalogue("digest", tools)


TOKEN = "0x" + "ab" * 32


def test_only_payable_tools_are_listed_each_with_its_price() -> None:
    """Token-paid, legacy (no offers) and over-cap tools go; the rest say their price.

    An offer whose price the facts read left unread is listed (adv29zz I2): its price is
    read right before sending and paid only within the cap, as its listing says.
    """
    served = _served(
        (_offer(1, 5, NATIVE_PAYMENT_TYPE),),
        (_offer(2, 5, TOKEN),),
        (_offer(3, None, NATIVE_PAYMENT_TYPE),),
        (),
        (_offer(5, 900, NATIVE_PAYMENT_TYPE), _offer(6, 7, TOKEN)),
        (_offer(7, 9, NATIVE_PAYMENT_TYPE), _offer(8, 3, NATIVE_PAYMENT_TYPE)),
    )
    kept = served.payable_only()
    assert [t.name for t in kept.tools] == ["t0", "t2", "t4", "t5"]
    assert kept.digest == served.digest
    described = {t.name: t.tool["description"] for t in kept.tools}
    # the server's facts first, the manifest's text after (issue 29, attack 3)
    assert described["t0"].startswith("Paid call: 5 wei")
    assert described["t0"].endswith(f"{UNTRUSTED_HEADING}\n> Tool 0.")
    assert "0x" + f"{1:040x}" in described["t0"]
    assert described["t2"].startswith(
        "Paid call: an amount of the chain's native token not read in the last facts "
        "read (read right before sending, paid only within --max-price)"
    )
    # the offer choose_offer takes (karma first): mech 8, not the cheaper-looking order
    assert (
        "Paid call: 3 wei" in described["t5"] and "0x" + f"{8:040x}" in described["t5"]
    )
    capped = served.payable_only(max_price=100)
    assert [t.name for t in capped.tools] == ["t0", "t2", "t5"]
    pinned = served.payable_only(pinned="0x" + f"{7:040x}")
    assert [t.name for t in pinned.tools] == ["t5"]
    assert "Paid call: 9 wei" in pinned.tools[0].tool["description"]
    assert served.tools[0].tool["description"] == "Tool 0."  # the source is not changed


class _FixedSource:  # pylint: disable=too-few-public-methods
    def __init__(self, served: ServedCatalogue) -> None:
        self.served = served
        self.reads = 0

    def read(self) -> ServedCatalogue:
        """Return the same catalogue every time, counting the reads."""
        self.reads += 1
        return self.served


def test_the_server_lists_payable_tools_unless_all_tools() -> None:
    """tools/list serves payable tools (every tool with --all-tools); calls see all."""
    served = _served((_offer(1, 5, NATIVE_PAYMENT_TYPE),), (_offer(2, 5, TOKEN),))
    default = MechToolServer(_FixedSource(served), CallSettings("g", "a"), None, None)
    assert default.refresh() is True
    assert [t.name for t in default.listed.tools] == ["t0"]
    assert [t.name for t in default.catalogue.tools] == ["t0", "t1"]  # still callable
    every = MechToolServer(
        _FixedSource(served), CallSettings("g", "a", all_tools=True), None, None
    )
    every.refresh()
    assert [t.name for t in every.listed.tools] == ["t0", "t1"]


def test_an_unchanged_catalogue_with_nothing_payable_is_not_announced_again() -> None:
    """Nothing payable: the first read changes the catalogue, the next reads do not."""
    source = _FixedSource(_served((_offer(2, 5, TOKEN),)))
    app = MechToolServer(source, CallSettings("g", "a"), None, None)
    assert app.refresh() is True and app.listed.tools == ()
    assert app.refresh() is False and app.refresh() is False
    assert source.reads == 3


class _AgentRouter(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the agent's own router (the skill's HttpHandler calls it)."""

    view: Optional[CatalogueView] = None

    def log_message(self, *args: object) -> None:  # pylint: disable=arguments-differ
        """Keep the test output quiet."""

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        """Route the request as the agent does."""
        result = route("GET", self.path, b"", self.view, time.time(), 50, 60.0)
        self.send_response(result.status_code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(result.body)))
        self.end_headers()
        self.wfile.write(result.body)


def test_an_agent_not_ready_yet_is_an_empty_catalogue_not_an_error() -> None:
    """Before its first agreement the agent answers 503 no_catalogue: nothing to serve yet.

    The MCP server started beside a new agent must wait for it, not stop with a source
    error (the agent's lists answer 503 since "not ready" stopped reading as "no tools").
    """
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AgentRouter)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        agent = AgentSource(f"http://127.0.0.1:{server.server_address[1]}")
        served = agent.read()
        assert served.digest == "" and not served.tools
    finally:
        server.shutdown()
        server.server_close()


def test_a_listed_output_schema_says_large_integers_are_strings() -> None:
    """Issue #34 item 11: the served outputSchema takes the decimal strings results give.

    mech-server's response document declares ``requestId`` an integer; results give the
    77-digit id as a string, so the listed schema must accept (and say) that.
    """
    output = {
        "type": "object",
        "properties": {
            "requestId": {"type": "integer", "description": "Request id"},
            "result": {"type": "string"},
            "fee": {"type": "number"},
        },
        "required": ["requestId", "result"],
    }
    tool = dict(_typed("forecast", "prompt"), output={"schema": output})
    catalogue = _priced_catalogue({1: manifest(tool)})
    (served,) = served_from_catalogue(catalogue).tools
    envelope = served.tool["outputSchema"]  # the server's note, then the answer
    assert list(envelope["properties"]) == ["server_note", "answer"]
    assert envelope["required"] == ["server_note", "answer"]
    assert envelope["additionalProperties"] is False
    listed = envelope["properties"]["answer"]["anyOf"][0]["properties"]
    assert listed["requestId"]["type"] == ["integer", "string"]
    # the pattern is the server's check only: Python's "$" also matches before a final
    # line break, ECMA-262's does not (portable_schema); the description says nothing
    assert "pattern" not in listed["requestId"]
    assert served.answer_schema is not None
    whole = served.answer_schema["properties"]["requestId"]
    assert whole["pattern"] == DECIMAL_PATTERN
    assert "output schema also asks" not in served.tool["description"]
    assert INTEGER_TEXT_NOTE in listed["requestId"]["description"]
    assert listed["fee"]["type"] == ["number", "string"]
    assert listed["result"] == {"type": "string"}
