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

"""Which offer is paid, and the price checked right before sending (issue #29, 1 and 7).

Pure decisions (``mech_catalogue_cli/mcp_server/offers.py``), no chain: the devnet
side of both attacks is in ``tests/devnet/test_mcp_offer_choice.py``.
"""

from typing import Any, Dict

import pytest

from mech_catalogue_cli.mcp_server.offers import (
    NATIVE_PAYMENT_TYPE,
    NoOffer,
    Offer,
    choice_reason,
    choose_offer,
    rank_offers,
    send_time_refusal,
)


def offer(address: str, created: Any, **kw: Any) -> Offer:
    """A payable offer created at block ``created`` (None: unknown)."""
    values: Dict[str, Any] = {
        "mech_key": f"key-{address}",
        "address": address,
        "price": 5_000,
        "payment_type": NATIVE_PAYMENT_TYPE,
        "requests": 2,
        "deliveries": 2,
        "karma": 2,
        "confirmed": True,
        "created_block": created,
    }
    values.update(kw)
    return Offer(**values)


INCUMBENT = offer("0x0b", 120)


@pytest.mark.parametrize(
    "bought",
    [
        {"karma": 3, "requests": 3, "deliveries": 3},  # three self-delivered requests
        {"karma": 10**6, "requests": 10**6, "deliveries": 10**6},
        {"karma": 50, "price": 1},  # and undercutting the price
        {"deliveries": 900, "requests": 900, "price": 4_999},
    ],
)
def test_counters_a_mech_raises_by_paying_itself_buy_nothing(
    bought: Dict[str, Any],
) -> None:
    """A later mech with wash-traded karma, requests and deliveries stays behind."""
    stranger = offer("0x01", 4_000, **bought)  # lower address, too
    assert choose_offer([stranger, INCUMBENT]) == INCUMBENT
    assert rank_offers([stranger, INCUMBENT]) == [INCUMBENT, stranger]


def test_an_unknown_creation_block_never_beats_a_known_one() -> None:
    """Facts without a creation block (an old agent) rank after every dated offer."""
    undated = offer("0x01", None, karma=99, price=1)
    assert rank_offers([undated, INCUMBENT]) == [INCUMBENT, undated]


def test_a_mech_that_never_delivered_goes_after_those_that_did() -> None:
    """The oldest mech may be dead: a younger one that delivered goes first."""
    dead = offer("0x0a", 5, requests=4, deliveries=0)
    takeovers_only = offer("0x0c", 6, requests=0, deliveries=9)  # others' requests
    assert rank_offers([dead, takeovers_only, INCUMBENT]) == [
        INCUMBENT,
        dead,
        takeovers_only,
    ]
    assert "has never delivered" in choice_reason(dead, [dead])


def test_one_self_paid_delivery_only_enters_the_tier_where_age_decides() -> None:
    """A stranger proving it can deliver still ranks behind older proven mechs."""
    stranger = offer("0x01", 4_000, requests=1, deliveries=1, karma=1, price=1)
    dead = offer("0x0a", 5, requests=0, deliveries=0)
    assert rank_offers([dead, stranger, INCUMBENT]) == [INCUMBENT, stranger, dead]


@pytest.mark.parametrize(
    "old",
    [
        # bought: created long before, delivered back then, re-declared the tool now
        # and delivered once to itself
        {"declared_block": 5_000, "first_delivery_block": 5_001},
        # long idle: declared the tool long ago, delivered other work, never since
        {"declared_block": 40, "first_delivery_block": None},
        # re-declared now, wash-traded counters, cheaper, and not delivered since
        {"declared_block": 5_000, "karma": 10**6, "deliveries": 10**6, "price": 1},
    ],
)
def test_an_old_creation_block_bought_with_a_mech_does_not_take_the_default(
    old: Dict[str, Any],
) -> None:
    """Tenure for this tool decides, not the mech's age (issue #29, bought seniority).

    The incumbent declared the tool at block 300 and delivered at 320; the older mech
    (created at block 3, delivered before) offers it only since later, or has not
    delivered since it declared it.

    :param old: the older mech's tenure and counters.
    """
    incumbent = offer("0x0b", 290, declared_block=300, first_delivery_block=320)
    senior_by_age = offer("0x0a", 3, **old)
    assert rank_offers([senior_by_age, incumbent]) == [incumbent, senior_by_age]
    why = choice_reason(incumbent, [incumbent, senior_by_age])
    assert (
        "first delivered at block 320 since the tool was declared as it is now at block 300"
        in (why)
    )
    assert "nor by age alone" in why


def test_tenure_known_beats_unknown_and_earlier_tenure_wins() -> None:
    """Among dated offers the earlier first delivery; undated ones (no facts) go last."""
    first = offer("0x0c", 900, declared_block=10, first_delivery_block=11)
    later = offer("0x01", 1, declared_block=5, first_delivery_block=700, price=1)
    undated = offer("0x02", 0, karma=10**9)
    assert rank_offers([undated, later, first]) == [first, later, undated]


def test_same_block_or_undated_offers_go_cheaper_first() -> None:
    """Ties on age: the cheaper, then the lower address (deterministic)."""
    same = [offer("0x03", 7, price=9), offer("0x02", 7, price=3), offer("0x01", 7)]
    assert [o.address for o in rank_offers(same)] == ["0x02", "0x03", "0x01"]
    undated = [offer("0x05", None, price=9), offer("0x06", None, price=2)]
    assert [o.address for o in rank_offers(undated)] == ["0x06", "0x05"]


def test_the_allow_list_overrides_the_incumbent() -> None:
    """--allow-mech keeps only the listed mechs (address or key, any case)."""
    newer = offer("0x0c", 900)
    assert choose_offer([INCUMBENT, newer], allowed=("0x0C",)) == newer
    assert choose_offer([INCUMBENT, newer], allowed=("key-0x0c", "nope")) == newer
    with pytest.raises(NoOffer, match="not in --allow-mech"):
        choose_offer([INCUMBENT, newer], allowed=("0x0d",))


def test_the_allow_list_and_the_pin_both_apply() -> None:
    """A pinned mech outside the allow-list is not paid."""
    with pytest.raises(NoOffer, match="not in --allow-mech"):
        choose_offer([INCUMBENT], pinned="0x0b", allowed=("0x0c",))


def test_the_reason_says_who_chose_and_on_what() -> None:
    """_meta's "why": pinned / allow-listed / default, the rank, the creation block."""
    newer = offer("0x0c", 900)
    ranked = [INCUMBENT, newer]
    default = choice_reason(INCUMBENT, ranked)
    assert "no mech pinned or allowed" in default
    assert "the incumbent" in default and "block 120" in default
    assert "never by karma or request and delivery counts" in default
    assert "has delivered" in default
    fallback = choice_reason(newer, ranked, allowed=("0x0b", "0x0c"))
    assert "allow-listed by --allow-mech" in fallback
    assert "offer 2 in rank: the 1 before it refused at send time" in fallback
    assert "pinned by --mech 0x0b" in choice_reason(INCUMBENT, [INCUMBENT], "0x0b")


@pytest.mark.parametrize(
    "listed,now,cap,words",
    [
        (1_000, 1_003, 1_002, "from 1000 wei (listed) to 1003 wei (now)"),
        (1_000, 10**18, None, ""),  # no cap: --max-price is the only bound there is
        (1_000, 1_002, 1_002, ""),  # at the cap
        (1_000, 400, 1_002, ""),  # lowered: paid at 400 (the caller sends ``now``)
        (1_000, None, 1_002, "could not be read right before sending"),
        (1_000, 0, 1_002, "could not be read right before sending"),
    ],
)
def test_the_price_read_at_send_time(
    listed: int, now: Any, cap: Any, words: str
) -> None:
    """Over the cap or unread: a sentence naming both prices, in words; else none."""
    said = send_time_refusal(offer("0x0b", 1, price=listed), now, cap)
    assert (words in said) if words else said == ""
    assert "0x" + "0" * 8 not in said  # no contract error hex
