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


"""``GET /offers``: one page of matching offers with the chain facts a person picks by.

The catalogue page's search (``http_api/page/``) asks this route: ``/tools?q=`` answers
MCP Tools, one per name, without prices; a person choosing a mech wants each offer (one
mech's tool) with its price, payment way, karma and liveness. The query is the same as
``/tools?q=``'s (:mod:`..search`, every filter and the cursor parsed by
:func:`.request.parse_request`); the body::

    {"offers": [{"tool", "kind", "description", "typed", "mech", "score", "price",
                 "payments", "callable", "delivering", "last_delivery_block",
                 "contract"}],
     "total": int, "nextCursor"?: str,
     "choices": {"payment": [...], "sort": [...], "registry": [...]}}

``price`` is the lowest ``maxDeliveryRate`` among the mech's callable contracts (of the
payment asked; none asked: of its first payment type, ``payments[0]``), in the asset's
smallest unit as decimal text (null: none callable); ``last_delivery_block`` the block
of the mech's latest marketplace delivery known (``search.query.latest_delivery``, decimal
text; null: none known);
``contract`` is that contract's facts (``MechFacts.to_dict()`` with ``payment``,
``model.payment.Payment.to_dict()``: way, asset, decimals, price in whole units, and
``liveness``, ``model.vocabulary.MechLiveness``), else the mech's first contract, else
null. Every fact comes from the chain, never from a manifest's text. ``description`` is
the tool's, cleaned as every exporter shows it (``model.untrusted_text.for_model``) and
cut to :data:`SUMMARY_CHARS`, so a page of at most ``search.query.MAX_PAGE_SIZE`` offers
is bounded (names at most 128 characters, kinds 64). ``choices`` lists the values the
closed filters take, so the page defines none of them itself.
"""

from dataclasses import replace
from typing import Any, Dict, Optional

from mech_catalogue_core.http_api.request import (
    INVALID_CURSOR,
    INVALID_SEARCH_PARAMETER,
    HttpResult,
    error_result,
    json_result,
)
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    PAYMENT_TYPE_NAMES,
    MechFacts,
)
from mech_catalogue_core.model.payment import (
    ASSET_NATIVE,
    asset_terms,
    format_amount,
    plan_payment,
)
from mech_catalogue_core.model.untrusted_text import prose_for_model
from mech_catalogue_core.model.vocabulary import RegistryKind, SearchSort
from mech_catalogue_core.search.index import InvalidCursor, SearchHit, SearchIndex
from mech_catalogue_core.search.query import (
    MAX_PAGE_SIZE,
    InvalidQuery,
    SearchQuery,
    callable_contracts,
)

#: characters of a tool's description in an offer (the tool page has it whole)
SUMMARY_CHARS = 280
#: the values of the closed filters, for the page's choosers
CHOICES: Dict[str, Any] = {
    "payment": sorted(set(PAYMENT_TYPE_NAMES.values())),
    "sort": [order.value for order in SearchSort],
    "registry": [kind.value for kind in RegistryKind],
}


def contract_view(facts: MechFacts) -> Dict[str, Any]:
    """Return one mech contract's facts as the page shows them.

    :param facts: the facts read from chain.
    :return: ``MechFacts.to_dict()`` plus ``payment`` (``Payment.to_dict()``, no
        requester looked at; a legacy mech's ``price_units`` from
        :func:`legacy_price_units`), ``payment_name`` (``MechFacts.payment_name``: the
        words ``list`` prints) and ``liveness``; ``last_delivery_block`` always (the
        agreed block of the mech's latest delivery that ``delivered_within`` and
        ``recent`` read, decimal text; null: none known).
    """
    payment = plan_payment(facts.payment_type, facts.max_delivery_rate).to_dict()
    if payment["price_units"] is None:
        payment["price_units"] = legacy_price_units(facts)
    last = facts.last_delivery_block
    return {
        **facts.to_dict(),
        "last_delivery_block": None if last is None else str(last),
        "payment": payment,
        "payment_name": facts.payment_name,
        "liveness": str(facts.liveness),
    }


def legacy_price_units(facts: MechFacts) -> Optional[str]:
    """Return a legacy mech's price in whole native units, as marketplace prices read.

    A legacy AgentMech has no ``paymentType()``, but its unit is known: its ``request(bytes
    data)`` is ``payable`` and reverts ``NotEnoughPaid(uint256 provided, uint256
    expected)`` when ``msg.value < price()``, so ``price()`` is in wei of the chain's
    native token (the AgentMech ABI in mech-interact v0.32.3,
    ``packages/valory/contracts/mech/build/mech.json``; valory-xyz/ai-registry-mech's
    ``AgentMech.sol``).

    :param facts: a mech contract's facts.
    :return: e.g. ``"0.01 native"`` (18 decimals: ``model.payment``'s native terms) for a
        legacy mech whose ``price()`` was read; None otherwise (a marketplace mech's unit
        is its ``paymentType()``'s, or unknown).
    """
    native = asset_terms(ASSET_NATIVE)
    if facts.kind != MECH_KIND_LEGACY or facts.max_delivery_rate is None or not native:
        return None
    return format_amount(facts.max_delivery_rate, native.decimals, native.symbol)


def _priced_contract(hit: SearchHit, payment: str) -> Optional[MechFacts]:
    """The contract whose rate is the offer's price, else the mech's first one."""
    priced_in = payment or (hit.payments[0] if hit.payments else "")
    for facts in callable_contracts(hit.mech, priced_in):
        if facts.max_delivery_rate == hit.price:
            return facts
    return hit.mech.marketplace[0] if hit.mech.marketplace else None


def offer_view(hit: SearchHit, payment: str) -> Dict[str, Any]:
    """Return one matching offer as ``/offers`` answers it.

    :param hit: the match.
    :param payment: the query's payment filter ("" for any).
    :return: the entry (see the module doc).
    """
    contract = _priced_contract(hit, payment)
    return {
        "tool": hit.tool.name,
        "kind": hit.tool.kind,
        "description": prose_for_model(hit.tool.description, SUMMARY_CHARS),
        "typed": hit.tool.is_typed,
        "mech": hit.mech.ref.key,
        "score": hit.score,
        "price": None if hit.price is None else str(hit.price),
        "payments": list(hit.payments),
        "callable": hit.callable_now,
        "delivering": hit.delivering,
        "last_delivery_block": (
            None if hit.last_delivery_block is None else str(hit.last_delivery_block)
        ),
        "contract": None if contract is None else contract_view(contract),
    }


def search_offers(
    index: SearchIndex, query: SearchQuery, cursor: str, page_size: int
) -> HttpResult:
    """Answer ``GET /offers``: one page of offers, best match first.

    :param index: the served catalogue's search index.
    :param query: the parsed search (its page size is replaced by the server's).
    :param cursor: a previous page's ``nextCursor`` ("": the first page).
    :param page_size: offers per page (capped at ``search.query.MAX_PAGE_SIZE``).
    :return: the body of the module doc; 400 ``invalid_cursor`` for a cursor of another
        query or catalogue, 400 ``invalid_search_parameter`` for a query the engine
        refuses.
    """
    try:
        query = replace(query, page_size=min(page_size, MAX_PAGE_SIZE))
        page = index.search(query, cursor or None)
    except InvalidCursor as exc:
        return error_result(INVALID_CURSOR, str(exc))
    except InvalidQuery as exc:
        return error_result(INVALID_SEARCH_PARAMETER, str(exc))
    body: Dict[str, Any] = {
        "offers": [offer_view(hit, query.payment) for hit in page.hits],
        "total": page.total,
        "choices": CHOICES,
    }
    if page.next_cursor is not None:
        body["nextCursor"] = page.next_cursor
    return json_result(200, body)
