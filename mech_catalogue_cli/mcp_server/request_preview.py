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

"""The request a paid call would send: its value argument, and what ``--dry-run`` shows."""

import json
from typing import Any, Dict, Optional

import mcp_types as types
from mech_catalogue_core.ipfs.unixfs import root_digest
from mech_catalogue_core.model.payment import Payment, payment_terms
from mech_catalogue_core.model.vocabulary import PaymentStatus, PaymentWay

from .ipfs import payload_bytes
from .market import MarketError, Marketplace
from .offers import Offer
from .payment import TokenPayer
from .results import REQUEST_META_KEY, text_content
from .source import ServedTool


def request_value(offer: Offer, payment: Optional[Payment] = None) -> Dict[str, int]:
    """``request_transaction``'s value argument.

    :param offer: the offer.
    :param payment: its plan with this requester's funds (None: not read).
    :return: ``{"value": 0}`` for token and subscription offers (their trackers revert
        on any value); for native the value of a payable plan (what the prepaid balance
        lacks), else ``{}`` (the price, as before prepaid balances were read).
    """
    if payment_terms(offer.payment_type).way is not PaymentWay.NATIVE:
        return {"value": 0}
    if payment is None or payment.status is not PaymentStatus.PAYABLE:
        return {}
    return {"value": payment.value}


def dry_run_result(  # pylint: disable=too-many-arguments
    tool: ServedTool,
    offer: Offer,
    payload: Dict[str, Any],
    key: str,
    market: Optional[Marketplace],
    payer: Optional[TokenPayer],
) -> types.CallToolResult:
    """Describe the request a call would send, sending nothing (blocking: funds read).

    :param tool: the tool called.
    :param offer: the offer that would be paid.
    :param payload: the request payload.
    :param key: the call key.
    :param market: the marketplace (None: no transaction shown).
    :param payer: reads this requester's funds (None: no payment plan shown).
    :return: an ``isError`` result (the tool did not run) with the transaction,
        payload and ``payment`` (``model.payment.Payment.to_dict`` with this
        requester's funds read: payable, approve how much, or why not) in its text
        and ``_meta``.
    """
    data = payload_bytes(payload)
    _, digest = root_digest(data, raw_leaves=False, cid_version=0)
    body: Dict[str, Any] = {
        "dry_run": True,
        "tool": tool.mech_tool,
        "call_key": key,
        "mech": offer.to_meta(),
        "payload": payload,
        "request_data": (
            "0x" + digest.hex() if isinstance(digest, bytes) else str(digest)
        ),
    }
    plan: Optional[Payment] = None
    if payer is not None and offer.price:
        # how this requester would pay now: funds read, nothing approved or sent
        try:
            plan = payer.plan(offer.payment_type, offer.price)
            body["payment"] = plan.to_dict()
        except MarketError as exc:
            body["payment"] = {"error": str(exc)}
    if market is not None:
        body["transaction"] = {
            k: (hex(v) if isinstance(v, int) and k == "value" else v)
            for k, v in market.request_transaction(
                offer.address,
                bytes.fromhex(body["request_data"][2:]),
                int(offer.price or 0),
                offer.payment_type,
                market.longest_response_timeout(),
                **request_value(offer, plan),
            ).items()
        }
    # isError: the tool did not run, so there is no output to match its outputSchema
    # (the SDK client refuses a success without structured content for such tools)
    return types.CallToolResult(
        content=[
            text_content(
                "dry run: nothing was uploaded or sent; this is the request "
                "transaction and payload that would be:\n" + json.dumps(body, indent=1)
            )
        ],
        is_error=True,
        _meta={REQUEST_META_KEY: body},
    )
