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

from dataclasses import replace

from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.fetching import (
    FetchResult,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.registry import (
    DigestRead,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.catalogue import (
    Catalogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.market import (
    MechFacts,
)

from mech_catalogue_cli.mcp_server.source import served_from_catalogue
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


def test_a_squatters_offer_under_a_served_name_is_never_an_offer() -> None:
    """Mech 3 registers 'swap' with other arguments and more karma: not an offer of 'swap'."""
    manifests = {
        1: manifest(_typed("swap", "sender", "amount")),
        2: manifest(_typed("swap", "sender", "amount")),
        3: manifest(_typed("swap", "recipient"), _typed("quote", "pair")),
    }
    fetched = {
        raw_digest(data): FetchResult.ok(raw_digest(data), f"bafk{i}", data)
        for i, data in manifests.items()
    }
    catalogue = build(
        20, [DigestRead(ref(i), raw_digest(d)) for i, d in manifests.items()], fetched
    )
    catalogue = Catalogue.build(
        replace(m, marketplace=(_facts(m.ref.mech_id),)) for m in catalogue.mechs
    )
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
    fetched = {
        raw_digest(data): FetchResult.ok(raw_digest(data), f"bafk{i}", data)
        for i, data in manifests.items()
    }
    catalogue = build(
        20, [DigestRead(ref(i), raw_digest(d)) for i, d in manifests.items()], fetched
    )
    catalogue = Catalogue.build(
        replace(m, marketplace=(_facts(m.ref.mech_id),)) for m in catalogue.mechs
    )
    (served,) = served_from_catalogue(catalogue).tools
    meta = served.tool["_meta"]["io.olas/mech-tool"]
    assert meta["schema_mechs"] == [ref(1).key, ref(4).key]
    assert [offer.mech_key for offer in served.offers] == meta["schema_mechs"]
    assert meta["conflicting_mechs"] == sorted([ref(2).key, ref(3).key])
