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

"""The MCP server's pure decisions (mech_catalogue_cli/mcp_server/: offers, definition checks, call identity, spend cap), no chain."""

import json
from typing import Any, Dict, Optional

import pytest
from mech_catalogue_core.model.market import (
    MechFacts,
)

from mech_catalogue_cli.mcp_server.call_identity import (
    call_key,
    normalised_arguments,
    payload_nonce,
    request_payload,
)
from mech_catalogue_cli.mcp_server.definition_checks import argument_errors
from mech_catalogue_cli.mcp_server.ipfs import IpfsError, directory_links
from mech_catalogue_cli.mcp_server.offers import (
    NATIVE_PAYMENT_TYPE,
    NoOffer,
    Offer,
    choose_offer,
    rank_offers,
)
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord, SpendLedger

NVM_PAYMENT = "0x803dd08fe79d91027fc9024e254a0942372b92f3ccabc1bd19f4a5c2b251c316"
TOKEN_PAYMENT = "0x" + "ab" * 32
OLAS_PAYMENT = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1},
        "filters": {
            "type": "object",
            "properties": {"chain": {"enum": ["gnosis", "base"]}},
        },
    },
    "required": ["prompt"],
    "additionalProperties": False,
}


def offer(address: str, price: Optional[int] = 10, karma: int = 0, **kw: Any) -> Offer:
    """Build an offer with defaults a payable mech has."""
    values: Dict[str, Any] = {
        "mech_key": f"key-{address}",
        "address": address,
        "price": price,
        "payment_type": NATIVE_PAYMENT_TYPE,
        "requests": 10,
        "deliveries": 5,
        "karma": karma,
        "confirmed": True,
    }
    values.update(kw)
    return Offer(**values)


def test_valid_arguments_have_no_errors() -> None:
    """Arguments matching the schema pass, nested ones included."""
    assert not argument_errors(
        SCHEMA, {"prompt": "q", "limit": 3, "filters": {"chain": "base"}}
    )


@pytest.mark.parametrize(
    "arguments,expected",
    [
        ({}, "missing required argument 'prompt'"),
        ({"prompt": 1}, "argument 'prompt': 1 is not of type 'string'"),
        (
            {"prompt": "q", "limit": 0},
            "argument 'limit': 0 is less than the minimum of 1",
        ),
        ({"prompt": "q", "colour": "red"}, "argument 'colour' is not accepted"),
        (
            {"prompt": "q", "filters": {"chain": "eth"}},
            # the schema's enum is quoted as tools/list shows text: its [ inert (adv29o)
            "argument 'filters/chain': 'eth' is not one of &#91;'gnosis', 'base']",
        ),
    ],
)
def test_invalid_arguments_are_named(arguments: Dict[str, Any], expected: str) -> None:
    """Each kind of schema violation comes back as a sentence naming the argument."""
    assert argument_errors(SCHEMA, arguments) == [expected]


def test_several_errors_are_all_reported() -> None:
    """Two bad arguments and a missing one: three sentences, sorted."""
    errors = argument_errors(SCHEMA, {"limit": "x", "extra": 1})
    assert errors == [
        "argument 'extra' is not accepted",
        "argument 'limit': 'x' is not of type 'integer'",
        "missing required argument 'prompt'",
    ]


def test_broken_schema_is_reported_not_raised() -> None:
    """A schema jsonschema rejects is an error sentence, not an exception."""
    assert argument_errors({"type": 5}, {})[0].startswith(
        "the tool's input schema is invalid"
    )


def test_max_price_excludes_and_explains() -> None:
    """Over the cap: the next one is chosen; all over: NoOffer naming price and cap."""
    assert (
        choose_offer(
            [offer("0x01", 50, karma=9), offer("0x02", 5)], max_price=10
        ).address
        == "0x02"
    )
    with pytest.raises(NoOffer, match="price 50 wei is over --max-price 10 wei"):
        choose_offer([offer("0x01", 50)], max_price=10)


def test_pinned_mech_by_address_or_key() -> None:
    """A pinned mech is the only candidate, matched by address or entry key, any case."""
    offers = [offer("0xaa", karma=9), offer("0xbb")]
    assert choose_offer(offers, pinned="0xBB").address == "0xbb"
    assert choose_offer(offers, pinned="key-0xbb").address == "0xbb"
    with pytest.raises(NoOffer, match="not the pinned mech 0xcc"):
        choose_offer(offers, pinned="0xcc")


@pytest.mark.parametrize(
    "changes,reason",
    [
        ({"confirmed": False}, "creation not confirmed"),
        ({"price": 0}, "price 0 \\(a request pays at least 1\\)"),
        ({"price": None, "payment_type": ""}, "paymentType\\(\\) could not be read"),
        ({"payment_type": "0x" + "5e" * 32}, "is none of the ai-registry-mech"),
        ({"payment_type": ""}, "paymentType\\(\\) could not be read \\(a legacy mech"),
    ],
)
def test_unpayable_offers_are_never_chosen(
    changes: Dict[str, Any], reason: str
) -> None:
    """Unconfirmed, unpriced, subscription and unknown-type mechs are refused, with why."""
    with pytest.raises(NoOffer, match=reason):
        choose_offer([offer("0x01", **changes)])


def test_an_unread_price_is_not_refused_and_goes_after_read_ones() -> None:
    """A price the facts read left unread: eligible (read right before sending).

    Within one seniority an unread price goes after every read one, so a stranger's
    mech failing its own price read cannot rank as the cheapest; the incumbent (an
    earlier first delivery) is first whatever its price's state (adv29zz I2).
    """
    unread = offer("0x01", price=None)
    assert choose_offer([unread], max_price=5).address == "0x01"  # capped at send
    assert [o.address for o in rank_offers([unread, offer("0x02", price=7)])] == [
        "0x02",
        "0x01",
    ]
    incumbent = offer("0x03", price=None, first_delivery_block=5, declared_block=1)
    newcomer = offer("0x04", price=1, declared_block=2)
    assert choose_offer([newcomer, incumbent]).address == "0x03"
    with pytest.raises(NoOffer, match="creation not confirmed"):
        choose_offer([offer("0x05", price=None, confirmed=False)])


def test_a_subscription_offer_is_paid_in_credits_within_their_own_cap() -> None:
    """Priced in credits: chosen under --max-price credits=..., refused over it (or 0)."""
    nvm = offer("0x01", price=10, payment_type=NVM_PAYMENT)
    assert choose_offer([nvm], token_max_price={"credits": 10}).address == "0x01"
    with pytest.raises(NoOffer, match="price 10 credits is over --max-price credits=0"):
        choose_offer([nvm], max_price=10**18, token_max_price={"credits": 0})


def test_no_offers_at_all() -> None:
    """A tool with no mech contract (no marketplace facts) cannot be paid."""
    with pytest.raises(NoOffer, match="no mech contract is known"):
        choose_offer([])


def test_offer_from_facts_keeps_unread_as_none() -> None:
    """Facts with unread fields become an offer with None, shown as null in _meta."""
    facts = MechFacts(
        address="0xABC",
        confirmed=True,
        max_delivery_rate=7,
        payment_type=NATIVE_PAYMENT_TYPE.upper().replace("0X", "0x"),
    )
    built = Offer.from_facts("k", facts)
    assert built.address == "0xabc" and built.price == 7 and built.karma is None
    assert built.payment_type == NATIVE_PAYMENT_TYPE
    assert built.to_meta()["karma"] is None and built.to_meta()["price_wei"] == "7"


def test_spend_ledger() -> None:
    """The run cap counts every paid request; exactly at the cap is allowed."""
    ledger = SpendLedger(max_spend=100)
    assert ledger.refusal(100) is None
    ledger.record(60, "0x1")
    assert ledger.refusal(40) is None
    refusal = ledger.refusal(41)
    assert refusal is not None and "101 wei, over --max-spend 100 wei" in refusal
    assert "60 wei spent on 1 request(s)" in refusal
    assert SpendLedger().refusal(10**30) is None


def test_the_cap_counts_journalled_requests_of_earlier_runs_within_the_window() -> None:
    """A restart does not reset --max-spend: the journal's recent requests count.

    Window 3,600 s at t = 10,000: the request written at 7,000 counts, the one at 6,000
    does not, and this run's own request is counted once (by the run, not again from the
    journal).
    """
    ledger = SpendLedger(max_spend=100, window=3600.0)
    ledger.record(10, "0xmine")
    records = [
        PaidRecord("0xold", 500, 6_000.0),
        PaidRecord("0xrecent", 70, 7_000.0),
        PaidRecord("0xmine", 10, 9_000.0),
    ]
    ledger.count_journal(records, 10_000.0)
    assert (ledger.earlier, ledger.earlier_requests) == (70, 1)
    assert ledger.refusal(20) is None
    refusal = ledger.refusal(21)
    assert refusal is not None and "101 wei, over --max-spend 100 wei" in refusal
    assert "the last 3600 s (--spend-window)" in refusal
    assert "70 wei on 1 journalled request(s) of earlier or other runs" in refusal
    ledger.refund(10, "0xmine")  # mined and reverted: counted neither way
    ledger.count_journal(records, 10_000.0)
    assert (ledger.spent, ledger.earlier) == (0, 70)
    run_only = SpendLedger(max_spend=100, window=None)
    run_only.count_journal(records, 10_000.0)
    assert run_only.refusal(100) is None


def test_an_unreadable_journal_entry_in_the_window_stops_paying() -> None:
    """An entry whose price cannot be read may hide spending: nothing is paid, it says why."""
    ledger = SpendLedger(max_spend=10**18, window=60.0)
    ledger.count_journal(
        [PaidRecord("", 0, 995.0, "journal entry /x.json is bad")], 1000.0
    )
    refusal = ledger.refusal(1)
    assert refusal is not None and "/x.json is bad" in refusal
    ledger.count_journal(
        [PaidRecord("", 0, 900.0, "journal entry /x.json is bad")], 1000.0
    )
    assert ledger.refusal(1) is None  # outside the window: it cannot matter


def test_call_key_is_deterministic_and_distinguishing() -> None:
    """Same call, same key (argument order irrelevant); any difference, another key."""
    base = call_key("t", {"a": 1, "b": [1, 2]}, "0xAbC")
    assert base == call_key("t", {"b": [1, 2], "a": 1}, "0xabc")
    others = {
        call_key("u", {"a": 1, "b": [1, 2]}, "0xabc"),
        call_key("t", {"a": 2, "b": [1, 2]}, "0xabc"),
        call_key("t", {"a": 1, "b": [2, 1]}, "0xabc"),
        call_key("t", {"a": 1, "b": [1, 2]}, "0xdef"),
        call_key("t", {"a": 1, "b": [1, 2]}, "0xabc", "again"),
    }
    assert base not in others and len(others) == 5
    assert payload_nonce(base) == payload_nonce(base) != payload_nonce(others.pop())


def test_request_payload_puts_typed_arguments_at_top_level() -> None:
    """prompt/tool/nonce plus every argument, typed, as mech-interact's request round does."""
    payload = request_payload(
        "prediction", {"prompt": "q", "limit": 3, "ok": True}, "n-1"
    )
    assert payload == {
        "prompt": "q",
        "tool": "prediction",
        "nonce": "n-1",
        "limit": 3,
        "ok": True,
    }


def test_request_payload_reserved_keys_win() -> None:
    """An argument named tool or nonce cannot replace what the mech dispatches on."""
    payload = request_payload("real", {"tool": "fake", "nonce": "x", "n": 1}, "n-1")
    assert payload["tool"] == "real" and payload["nonce"] == "n-1"
    assert json.loads(payload["prompt"]) == {"n": 1, "nonce": "x", "tool": "fake"}


def test_pages_and_cursors() -> None:
    """Stable pages; the last page has no cursor; a foreign cursor is refused."""
    tools = tuple(ServedTool(f"t{i}", f"t{i}", {}, ()) for i in range(5))
    served = ServedCatalogue("d", tools)
    first, cursor = served.page(None, 2)
    second, cursor2 = served.page(cursor, 2)
    last, end = served.page(cursor2, 2)
    assert [t.name for t in first + second + last] == ["t0", "t1", "t2", "t3", "t4"]
    assert end is None
    for bad in ("5", "-1", "abc", "99"):
        with pytest.raises(ValueError, match="list again without a cursor"):
            served.page(bad, 2)
    assert served.named("t3") is tools[3] and served.named("nope") is None


def test_directory_links_by_name_and_refusals() -> None:
    """A hand-written directory: links by name; foreign link CIDs and truncation refused.

    CIDv0 and v1 hashes are read; a link that is not a sha2-256 dag-pb/raw CID or a
    truncated block is refused.
    """
    v0 = b"\x12\x20" + bytes(range(32))
    v1_raw = b"\x01\x55\x12\x20" + bytes(32)

    def link(cid: bytes, name: bytes) -> bytes:
        body = (
            b"\x0a"
            + bytes([len(cid)])
            + cid
            + b"\x12"
            + bytes([len(name)])
            + name
            + b"\x18\x05"
        )
        return b"\x12" + bytes([len(body)]) + body

    directory = b"\x0a\x02\x08\x01"
    links = directory_links(link(v0, b"7") + link(v1_raw, b"8") + directory)
    assert set(links) == {"7", "8"}
    assert links["7"].startswith("bafybei") and links["8"].startswith("bafkrei")
    dag_cbor = b"\x01\x71\x12\x20" + bytes(32)
    with pytest.raises(IpfsError, match="not a sha2-256"):
        directory_links(link(dag_cbor, b"7") + directory)
    with pytest.raises(IpfsError, match="not a readable directory"):
        directory_links(b"\x12\xff")  # truncated


#: pairs of arguments that mean the same (one key), each as a model may send them
SAME_MEANING = [
    ({"days": 1}, {"days": 1.0}),
    ({"days": 0}, {"days": -0.0}),
    ({"big": 10**20}, {"big": 1e20}),
    ({"a": "x", "b": 2}, {"b": 2.0, "a": "x"}),
    ({"city": "Caf\u00e9"}, {"city": "Cafe\u0301"}),
    ({"nest": [{"k": 3, "s": "\u00c5"}]}, {"nest": [{"s": "A\u030a", "k": 3.0}]}),
]
#: pairs that differ in meaning (two keys)
OTHER_MEANING = [
    ({"flag": True}, {"flag": 1}),
    ({"flag": False}, {"flag": 0}),
    ({"n": "1"}, {"n": 1}),
    ({"n": 1.5}, {"n": 1}),
    ({"n": None}, {}),
    ({"list": [1, 2]}, {"list": [2, 1]}),
    ({"Caf\u00e9": 1}, {"Cafe\u0301": 1}),  # argument names are kept as sent
    ({"s": "\ufb01"}, {"s": "fi"}),  # compatibility forms (NFKC) are not merged
]


@pytest.mark.parametrize("one,other", SAME_MEANING)
def test_equivalent_arguments_are_one_call(one: Any, other: Any) -> None:
    """Arguments equal as JSON Schema instances (and NFC strings): one key, one nonce.

    :param one: arguments as one model sends them.
    :param other: the same meaning sent otherwise.
    """
    assert call_key("t", one, "0xAb") == call_key("t", other, "0xab")
    assert request_payload("t", normalised_arguments(one), "n") == request_payload(
        "t", normalised_arguments(other), "n"
    )


@pytest.mark.parametrize("one,other", OTHER_MEANING)
def test_arguments_that_differ_in_meaning_are_two_calls(one: Any, other: Any) -> None:
    """A boolean is no number, a string no number, order of a list matters...

    :param one: arguments.
    :param other: arguments of another meaning.
    """
    assert call_key("t", one, "0xab") != call_key("t", other, "0xab")


def test_offer_meta_says_the_asset_and_units_of_a_token_priced_mech() -> None:
    """An OLAS mech's _meta offer: rate in 1e-18 OLAS, way token, price in whole OLAS."""
    olas = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
    facts = MechFacts(
        address="0xdef",
        confirmed=True,
        max_delivery_rate=15 * 10**17,
        payment_type=olas,
    )
    payment = Offer.from_facts("k", facts).to_meta()["payment"]
    assert (payment["way"], payment["asset"], payment["decimals"]) == (
        "token",
        "olas",
        18,
    )
    assert payment["price_units"] == "1.5 OLAS"
    assert payment["status"] == "unchecked" and payment["approve"] == "0"


def test_token_offers_are_chosen_within_their_assets_cap() -> None:
    """An OLAS offer is eligible; its cap is --max-price olas=..., not the native one."""
    olas = offer("0x0a", 5 * 10**17, payment_type=OLAS_PAYMENT)
    assert choose_offer([olas], max_price=1).address == "0x0a"
    capped = rank_offers([olas], token_max_price={"olas": 5 * 10**17})
    assert [o.address for o in capped] == ["0x0a"]
    with pytest.raises(NoOffer, match="price 0.5 OLAS is over --max-price olas=1000"):
        rank_offers([olas], token_max_price={"olas": 1000})
