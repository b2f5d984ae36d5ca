"""A sample mech tool package (mech-catalogue's tutorial): token facts from a price API.

Shaped like the tools of Olas mechs (valory-xyz/mech ``packages/<author>/customs/``): a
``component.yaml`` naming the entry point and callable, ``ALLOWED_TOOLS``, and a ``run``
that reads its request's fields from ``kwargs``. mech-catalogue only reads this file
(static analysis); it never imports or runs it.
"""

from typing import Any, Dict, Optional, Tuple

import requests

ALLOWED_TOOLS = ["token-oracle-summary", "token-oracle-price"]
DEFAULT_CURRENCY = "usd"
DEFAULT_CHAIN_ID = 100
PRICE_API = "https://api.example.org/v1/tokens/{chain_id}/{address}"
TIMEOUT = 10

MechResponse = Tuple[str, Optional[str], Optional[Dict[str, Any]], Any]


def _token(address: str, chain_id: int, api_key: str) -> Dict[str, Any]:
    response = requests.get(
        PRICE_API.format(chain_id=chain_id, address=address),
        headers={"Authorization": f"Bearer {api_key}"},
        timeout=TIMEOUT,
    )
    response.raise_for_status()
    return response.json()


def summary(**kwargs: Any) -> Dict[str, Any]:
    """Describe the token: name, symbol, supply, price and (optionally) its history."""
    token = _token(
        kwargs["token_address"],
        int(kwargs.get("chain_id", DEFAULT_CHAIN_ID)),
        kwargs["api_keys"]["prices"],
    )
    currency = kwargs.get("vs_currency", DEFAULT_CURRENCY)
    result = {
        "name": token["name"],
        "symbol": token["symbol"],
        "supply": token["total_supply"],
        "price": token["prices"][currency],
    }
    if kwargs.get("include_history", False):
        result["history"] = token["history"][currency]
    return result


def price(**kwargs: Any) -> Dict[str, Any]:
    """Quote the token's price in one currency."""
    token = _token(
        kwargs["token_address"],
        int(kwargs.get("chain_id", DEFAULT_CHAIN_ID)),
        kwargs["api_keys"]["prices"],
    )
    currency = kwargs.get("vs_currency", DEFAULT_CURRENCY)
    return {"price": token["prices"][currency], "currency": currency}


TOOLS = {
    "token-oracle-summary": summary,
    "token-oracle-price": price,
}


def run(**kwargs: Any) -> MechResponse:
    """Answer one mech request.

    :param prompt: what the requester asked, kept in the response.
    :param token_address: the ERC-20 token's contract address.
    :param chain_id: the chain the token lives on.
    :param vs_currency: the currency prices are quoted in.
    :param include_history: also return the last 30 days of prices.
    :return: the mech response tuple (result JSON, prompt, transaction, callback).
    """
    tool = kwargs["tool"]
    prompt = kwargs["prompt"]
    counter_callback = kwargs.get("counter_callback", None)
    if tool not in ALLOWED_TOOLS:
        return f"Tool {tool} is not in {ALLOWED_TOOLS}", prompt, None, counter_callback
    try:
        result = TOOLS[tool](**kwargs)
    except (requests.RequestException, KeyError, ValueError) as error:
        return f"{tool} failed: {error}", prompt, None, counter_callback
    return str(result), prompt, None, counter_callback
