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

"""The consumer's choice of one mech request (``catalogue/mech_request.py``): pure, no I/O."""

import json

import pytest
from mech_catalogue_core.catalogue.mech_request import (
    IS_MARKETPLACE_V2,
    MECH_REQUESTS,
    MECH_TOOL,
    SELECTED_MECHS,
    MechRequestError,
    call_arguments,
    choose_offer,
    mech_request,
    request_nonce,
)
from mech_catalogue_core.catalogue.request_payment import (
    REQUESTER_PAYMENT,
    RequestPayment,
)
from mech_catalogue_core.chain.marketplace import attach_facts
from mech_catalogue_core.model.canonical import canonical_text
from mech_catalogue_core.model.catalogue import (
    STATUS_INVALID,
    STATUS_OK,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    Argument,
    MechRef,
    Tool,
)

TOOL = "summarise-page"


def tool(with_prompt: bool = True) -> Tool:
    """A typed tool: ``url`` (required string), ``words`` (1..500), maybe ``prompt``.

    :param with_prompt: whether the schema declares a ``prompt`` input.
    :return: the tool.
    """
    arguments = [
        Argument("url", "str", canonical_text({"type": "string"}), required=True),
        Argument(
            "words",
            "int",
            canonical_text({"type": "integer", "minimum": 1, "maximum": 500}),
            required=False,
        ),
    ]
    if with_prompt:
        arguments.append(
            Argument("prompt", "str", canonical_text({"type": "string"}), required=True)
        )
    return Tool(name=TOOL, arguments=tuple(arguments))


def entry(service_id: int, status: str = STATUS_OK, with_prompt: bool = True) -> Mech:
    """One catalogue entry offering :func:`tool`.

    :param service_id: its service id.
    :param status: its status.
    :param with_prompt: passed to :func:`tool`.
    :return: the entry.
    """
    return Mech(
        MechRef(100, REGISTRY_COMPLEMENTARY_SERVICE, "0x" + "dd" * 20, service_id),
        digest="0x" + "ef" * 32,
        status=status,
        tools=(tool(with_prompt),),
    )


def facts(service_id: int, rate: int) -> MechFacts:
    """Confirmed marketplace facts of one mech of ``service_id``.

    :param service_id: the service id.
    :param rate: its maxDeliveryRate (wei); below 1 is not rankable.
    :return: the facts.
    """
    return MechFacts(
        address="0x" + f"{service_id + 7:040x}",
        service_id=service_id,
        block=5,
        confirmed=True,
        max_delivery_rate=rate,
        requests=1,
        deliveries=1,
        karma=0,
    )


def test_a_valid_call_writes_mech_interact_s_keys_with_the_prompt_apart() -> None:
    """The request is one MechMetadata; the typed arguments go to extra_attributes."""
    catalogue = attach_facts(Catalogue.build([entry(4)]), [facts(4, 10**15)])
    updates = mech_request(
        catalogue, TOOL, "Summarise it", {"url": "https://a.example", "words": 80}, "n1"
    )
    assert set(updates) == {
        MECH_REQUESTS,
        MECH_TOOL,
        IS_MARKETPLACE_V2,
        SELECTED_MECHS,
        REQUESTER_PAYMENT,
    }
    assert json.loads(updates[SELECTED_MECHS]) == [facts(4, 1).address]
    payment = RequestPayment.from_json(updates[REQUESTER_PAYMENT])
    assert payment is not None and not payment.by_token
    assert (payment.mech, payment.price, payment.cap) == (
        facts(4, 1).address,
        10**15,
        None,
    )
    assert updates[MECH_TOOL] == TOOL and updates[IS_MARKETPLACE_V2] is True
    (request,) = json.loads(updates[MECH_REQUESTS])
    assert request == {
        "prompt": "Summarise it",
        "tool": TOOL,
        "nonce": "n1",
        "extra_attributes": {"url": "https://a.example", "words": 80},
    }


def test_only_ok_entries_with_rankable_facts_count() -> None:
    """An invalid entry, or one whose rate is 0, offers nothing mech-interact can rank."""
    catalogue = Catalogue.build([entry(1, STATUS_INVALID), entry(2)])
    with pytest.raises(MechRequestError, match="none with marketplace facts"):
        choose_offer(catalogue, TOOL)
    zero = attach_facts(catalogue, [facts(2, 0)])
    with pytest.raises(MechRequestError, match="none with marketplace facts"):
        choose_offer(zero, TOOL)
    ranked = attach_facts(Catalogue.build([entry(1), entry(2)]), [facts(2, 9)])
    assert choose_offer(ranked, TOOL).facts.address == facts(2, 9).address
    with pytest.raises(MechRequestError, match=r"'no-such-tool'.*summarise-page"):
        choose_offer(ranked, "no-such-tool")


@pytest.mark.parametrize(
    "arguments, reason",
    [
        ({}, "'url' is a required property"),
        ({"url": 5}, "url: 5 is not of type 'string'"),
        ({"url": "u", "words": 501}, "words: 501 is greater than the maximum of 500"),
        ({"url": "u", "colour": "red"}, "Additional properties are not allowed"),
    ],
)
def test_arguments_that_break_the_schema_are_refused_with_the_reason(
    arguments: dict, reason: str
) -> None:
    """Every violation is named; no request is built.

    :param arguments: the call's typed arguments.
    :param reason: part of the expected message.
    """
    catalogue = attach_facts(Catalogue.build([entry(3)]), [facts(3, 10)])
    with pytest.raises(MechRequestError) as caught:
        mech_request(catalogue, TOOL, "p", arguments, "n")
    assert reason in str(caught.value)


def test_a_prompt_among_the_arguments_is_refused() -> None:
    """It would replace the payload's prompt in mech-interact's merge of extra_attributes."""
    with pytest.raises(MechRequestError, match="hold a 'prompt'"):
        call_arguments(tool(), "the text", {"prompt": "another text", "url": "u"})


def test_the_prompt_is_checked_only_when_the_schema_declares_it() -> None:
    """A schema without ``prompt`` with additionalProperties false still accepts the call."""
    assert call_arguments(tool(True), "t", {"url": "u"}) == {"prompt": "t", "url": "u"}
    assert call_arguments(tool(False), "t", {"url": "u"}) == {"url": "u"}
    catalogue = attach_facts(
        Catalogue.build([entry(6, with_prompt=False)]), [facts(6, 10)]
    )
    assert mech_request(catalogue, TOOL, "t", {"url": "u"}, "n")[MECH_TOOL] == TOOL


def test_the_nonce_is_the_same_for_every_agent_and_differs_per_period() -> None:
    """Agents agree only on byte-equal payloads: the nonce is derived, never random."""
    assert request_nonce("d1", 3, TOOL) == request_nonce("d1", 3, TOOL)
    assert len({request_nonce("d1", p, TOOL) for p in range(50)}) == 50
    assert request_nonce("d1", 3, TOOL) != request_nonce("d2", 3, TOOL)
    assert request_nonce("d1", 3, TOOL) != request_nonce("d1", 3, "other")
