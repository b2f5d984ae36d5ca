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

"""GET /mechs and GET /tools/<name> carry each mech contract's marketplace facts."""

import json
from dataclasses import replace
from typing import Any, Dict

from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Manifest,
    Mech,
    MechRef,
    Tool,
)
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    UNREAD_CALL_FAILED,
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
)

REGISTRY = "0x" + "cc" * 20
PRICED = MechFacts(
    address="0x" + "01" * 20,
    service_id=1,
    block=40,
    confirmed=True,
    max_delivery_rate=25 * 10**18,
    payment_type="0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1",
    requests=3,
    deliveries=2,
    marketplace_deliveries=2,
    karma=2,
)
UNREAD = MechFacts(
    address="0x" + "02" * 20,
    service_id=1,
    block=40,
    confirmed=True,
    unread=(("max_delivery_rate", UNREAD_CALL_FAILED), ("karma", UNREAD_CALL_FAILED)),
)


def get(path: str, catalogue: Catalogue) -> Dict[str, Any]:
    """Answer a GET with a view of ``catalogue``.

    :param path: the path.
    :param catalogue: the catalogue.
    :return: the decoded JSON body (status 200 asserted).
    """
    published = ExposedCatalogue(catalogue, catalogue.digest(), "", 40, 0.0, 1)
    result = route("GET", path, b"", CatalogueView.build(published), 0.0, 50, 60.0)
    assert result.status_code == 200, result.body
    return json.loads(result.body)


def catalogue() -> Catalogue:
    """Service 1 (two mech contracts) and service 2 (no facts) both offering ``predict``.

    :return: the catalogue.
    """
    mechs = [
        Mech.from_manifest(
            MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, i),
            Manifest(tools=(Tool(name="predict"),)),
            digest="0x" + "ab" * 32,
        )
        for i in (1, 2)
    ]
    mechs[0] = replace(mechs[0], marketplace=(PRICED, UNREAD))
    return Catalogue.build(mechs)


def test_mechs_lists_price_payment_counts_karma_and_reasons() -> None:
    """/mechs: price in wei as text, payment type by name, counts, karma, block; nulls with reasons."""
    body = get("/mechs", catalogue())
    first, second = body["mechs"]
    priced, unread = first["marketplace"]
    assert priced["address"] == PRICED.address
    assert priced["max_delivery_rate"] == str(25 * 10**18)
    assert priced["payment_type_name"] == "native"
    assert (priced["requests"], priced["deliveries"], priced["karma"]) == (
        "3",
        "2",
        "2",
    )
    assert priced["block"] == "40"
    assert unread["max_delivery_rate"] is None and unread["karma"] is None
    assert unread["unread"] == {
        "max_delivery_rate": UNREAD_CALL_FAILED,
        "karma": UNREAD_CALL_FAILED,
    }
    assert second["marketplace"] == []


def test_each_tool_offer_carries_its_mech_contracts() -> None:
    """/tools/predict: the offer of service 1 lists both contracts, service 2's lists none."""
    offers = get("/tools/predict", catalogue())["offers"]
    by_id = {offer["mech"]["mech_id"]: offer["marketplace"] for offer in offers}
    assert [f["address"] for f in by_id[1]] == [PRICED.address, UNREAD.address]
    assert by_id[2] == []


USDC_TYPE = "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3"
NVM_TYPE = "0x803dd08fe79d91027fc9024e254a0942372b92f3ccabc1bd19f4a5c2b251c316"


def test_each_contract_says_how_it_is_paid_in_its_own_units() -> None:
    """/mechs and /tools/<name>: way, asset, decimals and the price in whole units.

    A USDC mech's rate is in 1e-6 USDC (6 decimals), a subscription mech and one
    whose payment type was not read are named unsupported with why.
    """
    usdc = replace(PRICED, address="0x" + "03" * 20, payment_type=USDC_TYPE)
    usdc = replace(usdc, max_delivery_rate=1_250_000)
    nvm = replace(PRICED, address="0x" + "04" * 20, payment_type=NVM_TYPE)
    built = catalogue()
    first = replace(built.mechs[0], marketplace=(PRICED, UNREAD, usdc, nvm))
    built = Catalogue.build([first, built.mechs[1]])
    native, unread, paid_usdc, subscription = get("/mechs", built)["mechs"][0][
        "marketplace"
    ]
    assert native["payment"]["way"] == "native"
    assert native["payment"]["price_units"] == "25 native"
    assert native["payment"]["status"] == "unchecked"
    assert paid_usdc["payment"]["asset"] == "usdc"
    assert paid_usdc["payment"]["decimals"] == 6
    assert paid_usdc["payment"]["price_units"] == "1.25 USDC"
    assert paid_usdc["payment"]["way"] == "token"
    assert unread["payment"]["status"] == "unsupported"
    assert "paymentType() could not be read" in unread["payment"]["reason"]
    assert subscription["payment"]["status"] == "unchecked"  # no requester here
    assert "Nevermined subscription" in subscription["payment"]["reason"]
    offers = get("/tools/predict", built)["offers"]
    by_id = {offer["mech"]["mech_id"]: offer["marketplace"] for offer in offers}
    assert [f["payment"]["symbol"] for f in by_id[1]] == [
        "native",
        "",
        "USDC",
        "credits",
    ]


#: a payment type no ai-registry-mech mech declares: its asset, so its unit, is unknown
UNNAMED_TYPE = "0x" + "5a" * 32


def test_a_legacy_mech_s_price_reads_in_native_units_and_only_unknown_units_do_not() -> (
    None
):
    """A legacy AgentMech's ``price()`` is wei of the native token: "0.01 native".

    Issue (new-user trial): the page said "10000000000000000 (smallest unit)" for a legacy
    mech beside "0.01 native" for a marketplace one. An unread legacy price stays null; a
    marketplace mech whose payment type names no known asset keeps no whole-unit price
    (the page then says "(smallest unit)"), and so does one whose type was not read.
    """
    legacy = MechFacts(
        address="0x" + "05" * 20,
        kind=MECH_KIND_LEGACY,
        service_id=5,
        block=40,
        confirmed=True,
        max_delivery_rate=10**16,
    )
    tiny = replace(legacy, address="0x" + "06" * 20, max_delivery_rate=1)
    unread = replace(legacy, address="0x" + "07" * 20, max_delivery_rate=None)
    unnamed = replace(PRICED, address="0x" + "08" * 20, payment_type=UNNAMED_TYPE)
    untyped = replace(PRICED, address="0x" + "09" * 20, payment_type="")
    built = catalogue()
    first = replace(
        built.mechs[0], marketplace=(legacy, tiny, unread, unnamed, untyped)
    )
    built = Catalogue.build([first, built.mechs[1]])
    contracts = get("/mechs", built)["mechs"][0]["marketplace"]
    units = [contract["payment"]["price_units"] for contract in contracts]
    assert units == ["0.01 native", "0.000000000000000001 native", None, None, None]
    assert [c["payment_name"] for c in contracts[:3]] == ["legacy (native)"] * 3
    assert contracts[0]["payment"]["price"] == str(10**16)  # the exact wei stay
    assert contracts[3]["payment"]["price"] == str(25 * 10**18)
    offers = get("/tools/predict", built)["offers"]
    by_id = {offer["mech"]["mech_id"]: offer["marketplace"] for offer in offers}
    assert by_id[1][0]["payment"]["price_units"] == "0.01 native"
