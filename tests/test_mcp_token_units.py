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

"""Token amounts are said in their asset's units, never as wei (issue 31).

``search_tools`` (the MCP SDK's own client in process, as ``tests/test_mcp_discovery.py``;
one mech's tools priced 5 wei of the native token, another's 1.5 USDC, 1,500,000
smallest units) says each price with its asset and filters per asset; the send-time
refusal, the listed tool's "Paid call" facts and a paid request's errors name the asset.
"""

from dataclasses import replace
from typing import Any, List

import pytest

from mech_catalogue_cli.mcp_server.delivery import _paid
from mech_catalogue_cli.mcp_server.offers import send_time_refusal
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, described_with_cost
from tests.test_mcp_discovery import REALISTIC, _search, _server, _text
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_paid_answer_unit import _entry
from tests.test_mcp_untrusted_text import served_catalogue

USDC = "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3"
OLAS = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"


def _catalogue() -> ServedCatalogue:
    native = served_catalogue(*REALISTIC[:3], price=5)
    usdc = served_catalogue(*REALISTIC[3:], price=1_500_000, address="0x" + "0c" * 20)
    priced = tuple(
        replace(t, offers=tuple(replace(o, payment_type=USDC) for o in t.offers))
        for t in usdc.tools
    )
    return ServedCatalogue("two", native.tools + priced)


NATIVE_NAMES = sorted(t.name for t in served_catalogue(*REALISTIC[:3]).tools)
USDC_NAMES = sorted(t.name for t in served_catalogue(*REALISTIC[3:]).tools)


def _names(**arguments: Any) -> List[str]:
    result = _search(_server(_catalogue()), **arguments)
    assert not result.is_error, _text(result)
    return sorted(m["name"] for m in result.structured_content["matches"])


def test_each_match_says_its_price_with_asset_and_units() -> None:
    """A USDC tool's price is 1.5 USDC, never 1500000 "wei"; native keeps price_wei."""
    result = _search(_server(_catalogue()), limit=25)
    assert not result.is_error, _text(result)
    matches = {m["name"]: m for m in result.structured_content["matches"]}
    token = matches[USDC_NAMES[0]]
    assert token["price"] == {
        "amount": "1500000",
        "units": "1.5 USDC",
        "asset": "usdc",
        "symbol": "USDC",
        "decimals": 6,
        "way": "token",
    }
    assert token["price_wei"] is None and token["payment"] == "token_usdc"
    native = matches[NATIVE_NAMES[0]]
    assert native["price_wei"] == "5" and native["price"]["asset"] == "native"
    assert native["price"]["units"] == "0.000000000000000005 native"


def test_max_price_keeps_only_the_assets_offers_at_or_below_it() -> None:
    """An integer is native wei (a USDC price is no wei amount); text names the asset."""
    assert (
        _names(max_price=2_000_000) == NATIVE_NAMES
    )  # 1,500,000 USDC units kept before
    assert _names(max_price="1.5 usdc") == USDC_NAMES
    assert _names(max_price="1.499999 USDC") == []
    assert _names(max_price="0.01 native") == NATIVE_NAMES
    assert _names(max_price="5 wei") == NATIVE_NAMES
    assert _names(max_price="4 wei") == []
    assert _names(max_price="1e9 olas") == []


@pytest.mark.parametrize("limit", ["cheap", "1.5", "1 eth", "0.5 wei", "-1 usdc"])
def test_a_price_limit_without_a_known_asset_is_an_error_saying_the_form(
    limit: str,
) -> None:
    """Nothing is matched on a guess: the error shows the expected form."""
    result = _search(_server(_catalogue()), max_price=limit)
    assert result.is_error
    assert "search_tools:" in _text(result)
    assert "'1.5 usdc'" in _text(result) or "whole numbers" in _text(result)


def test_a_send_time_refusal_names_the_asset_in_its_units() -> None:
    """A USDC price raised past --max-price usdc=...: USDC amounts, no "wei"."""
    listed = offer("0x0b", 1, price=1_500_000, payment_type=USDC)
    said = send_time_refusal(listed, 2_000_000, 1_600_000)
    assert "from 1.5 USDC (1500000 smallest units) (listed)" in said
    assert "to 2 USDC (2000000 smallest units) (now)" in said
    assert "over --max-price usdc=1600000 (1.6 USDC" in said and "wei" not in said
    unread = send_time_refusal(
        offer("0x0b", 1, price=10**18, payment_type=OLAS), None, 1
    )
    assert "listed at 1 OLAS" in unread and "wei" not in unread
    native = send_time_refusal(offer("0x0b", 1, price=5_000), 6_000, 5_500)
    assert (
        "from 5000 wei (listed) to 6000 wei (now), over --max-price 5500 wei" in native
    )


def test_paid_call_facts_and_request_errors_name_a_tokens_units() -> None:
    """The listed facts and a paid request's sentences say 1.5 USDC, not 1500000 wei."""
    facts = described_with_cost(
        "d", offer("0x0b", 1, price=1_500_000, payment_type=USDC)
    )
    assert facts.startswith("Paid call: 1.5 USDC (1500000 smallest units, ERC-20) to")
    native = described_with_cost("d", offer("0x0b", 1, price=7))
    assert native.startswith("Paid call: 7 wei of the chain's native token to mech")
    assert _paid(_entry(price=2 * 10**18, payment_type=OLAS)) == (
        "2 OLAS (2000000000000000000 smallest units)"
    )
    assert _paid(_entry(price=10)) == "10 wei"
