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

"""The requester's rounds, router and composition, with the framework's round test tools.

The rounds run for real over a real ``AbciAppDB``; their skill context is an empty
stand-in (they read none of it); the catalogues are real ones built by the domain library.
"""

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, Optional

import pytest
from eth_abi import encode
from mech_catalogue_core.catalogue.request_payment import (
    PaymentReadError,
    RequestPayment,
    decimals_call,
    token_call,
    tracker_lookup_call,
)
from mech_catalogue_core.chain.marketplace import attach_facts
from mech_catalogue_core.model.canonical import canonical_text
from mech_catalogue_core.model.catalogue import STATUS_OK, Catalogue, Mech
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    Argument,
    MechRef,
    Tool,
)

# mech-interact's released skill is synced from its release folder (scripts/sync_packages.py);
# without that folder these tests cannot import the requester's composition: skip, saying so.
pytest.importorskip(
    "packages.valory.skills.mech_interact_abci",
    reason="mech-interact v0.32.3's skill valory/mech_interact_abci is not in packages/: "
    "provide mech-interact's released packages/ folder at "
    "../shared/third_party/mech-interact-v0.32.3/packages and run `make sync`",
)
# pylint: disable=wrong-import-position

from packages.mech_catalogue.skills.manifest_publish_abci.states.tx import (  # noqa: E402
    PublishTxRound,
)
from packages.mech_catalogue.skills.requester_chained_abci.behaviours import (  # noqa: E402
    PaidMechRequestBehaviour,
    RequesterConsensusBehaviour,
    choose,
    token_reads,
)
from packages.mech_catalogue.skills.requester_chained_abci.composition import (  # noqa: E402
    RequesterChainedAbciApp,
    abci_app_transition_mapping,
)
from packages.mech_catalogue.skills.requester_chained_abci.consumer import (  # noqa: E402
    Event,
    PostTxSettlementRound,
    RequesterAbciApp,
    ToolChoiceRound,
    settled_event,
)
from packages.mech_catalogue.skills.requester_chained_abci.handlers import (  # noqa: E402
    responses_view,
)
from packages.mech_catalogue.skills.requester_chained_abci.payloads import (  # noqa: E402
    ToolChoicePayload,
)
from packages.valory.skills.abstract_round_abci.base import (  # noqa: E402
    AbciAppDB,
    BaseSynchronizedData,
)
from packages.valory.skills.mech_interact_abci.behaviours.request import (  # noqa: E402
    MechRequestBehaviour,
)
from packages.valory.skills.mech_interact_abci.states.purchase_subscription import (  # noqa: E402
    MechPurchaseSubscriptionRound,
)
from packages.valory.skills.mech_interact_abci.states.request import (  # noqa: E402
    MechRequestRound,
)
from packages.valory.skills.mech_interact_abci.states.response import (  # noqa: E402
    MechResponseRound,
)

TOOL = "translate-text"
#: the one mech contract of :func:`catalogue`
MECH = "0x" + "12" * 20
#: ``paymentType()`` of OLAS fixed-price mechs (ai-registry-mech MechFixedPriceToken)
OLAS_PAYMENT_TYPE = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"


def catalogue(rate: int = 10**15, payment_type: str = "") -> Catalogue:
    """A catalogue with one ``ok`` entry offering a typed ``chat`` tool, with facts.

    :param rate: the mech's maxDeliveryRate (0: not rankable).
    :param payment_type: its paymentType() ("": a legacy-style native mech).
    :return: the catalogue.
    """
    tool = Tool(
        name=TOOL,
        kind="chat",
        arguments=(
            Argument("target", "str", canonical_text({"type": "string"}), True),
            Argument("prompt", "str", canonical_text({"type": "string"}), True),
        ),
    )
    mech = Mech(
        MechRef(100, REGISTRY_COMPLEMENTARY_SERVICE, "0x" + "ab" * 20, 9),
        digest="0x" + "cd" * 32,
        status=STATUS_OK,
        tools=(tool,),
    )
    facts = MechFacts(
        address="0x" + "12" * 20,
        service_id=9,
        block=3,
        confirmed=True,
        max_delivery_rate=rate,
        payment_type=payment_type,
        requests=0,
        deliveries=0,
        karma=0,
    )
    return attach_facts(Catalogue.build([mech]), [facts])


def params(tool: Optional[str] = TOOL, **arguments: Any) -> Any:
    """The requester parameters :func:`choose` reads.

    :param tool: ``requester_tool``.
    :param arguments: ``requester_arguments``.
    :return: a namespace with the five ``requester_*`` attributes (no kind, no file).
    """
    return SimpleNamespace(
        requester_tool=tool,
        requester_kind=None,
        requester_task_file=None,
        requester_prompt="Say hi",
        requester_arguments=arguments,
    )


def test_choose_votes_for_a_valid_request_of_the_agreed_catalogue() -> None:
    """Agreed digest, offered tool, valid arguments: the vote is mech-interact's keys."""
    built = catalogue()
    digest = built.digest()
    content, line = choose(built, digest, digest, 4, params(target="pt"))
    updates = json.loads(content)
    (request,) = json.loads(updates["mech_requests"])
    assert request["extra_attributes"] == {"target": "pt"}
    assert request["prompt"] == "Say hi" and updates["mech_tool"] == TOOL
    assert "requesting tool 'translate-text'" in line
    assert json.loads(updates["selected_mechs"]) == [MECH]
    # another agent computes the same vote (same nonce)
    assert choose(built, digest, digest, 4, params(target="pt"))[0] == content


@pytest.mark.parametrize(
    "case, reason",
    [
        ("not agreed", "does not hold the agreed catalogue"),
        ("no catalogue", "does not hold the agreed catalogue"),
        ("unknown tool", "no usable mech in the catalogue offers tool 'nope'"),
        ("bad arguments", "'target' is a required property"),
        ("no facts", "none with marketplace facts"),
    ],
)
def test_choose_votes_for_no_request_and_says_why(case: str, reason: str) -> None:
    """Each reason gives an empty vote (NoToolChoiceRound: reset and pause, no payment).

    :param case: what is wrong.
    :param reason: part of the expected log line.
    """
    built = catalogue(0 if case == "no facts" else 10**15)
    digest = built.digest()
    calls: Dict[str, Dict[str, Any]] = {
        "not agreed": {"catalogue": built, "catalogue_digest": digest, "agreed": "f"},
        "no catalogue": {"catalogue": None, "catalogue_digest": "", "agreed": digest},
    }
    call = calls.get(
        case, {"catalogue": built, "catalogue_digest": digest, "agreed": digest}
    )
    chosen = params("nope" if case == "unknown tool" else TOOL)
    if case not in ("bad arguments",):
        chosen.requester_arguments = {"target": "pt"}
    content, line = choose(
        call["catalogue"], call["catalogue_digest"], call["agreed"], 1, chosen
    )
    assert content == ""
    assert reason in line


def test_a_kind_replaces_the_tool_name_and_the_vote_names_the_chosen_tool() -> None:
    """``requester_kind`` set: the kind's senior offer is requested and pinned."""
    built = catalogue()
    digest = built.digest()
    by_kind = params(target="pt")
    by_kind.requester_kind = "chat"
    content, line = choose(built, digest, digest, 4, by_kind)
    updates = json.loads(content)
    assert updates["mech_tool"] == TOOL
    assert json.loads(updates["selected_mechs"]) == [MECH]
    assert f"requesting tool {TOOL!r} (tool kind 'chat') from mech {MECH}" in line
    # the nonce differs from the by-name request's: another request, never a replay
    by_name = json.loads(choose(built, digest, digest, 4, params(target="pt"))[0])
    assert by_name["mech_requests"] != updates["mech_requests"]
    by_kind.requester_kind = "prediction"
    content, line = choose(built, digest, digest, 4, by_kind)
    assert content == ""
    assert "no usable mech in the catalogue offers tool kind 'prediction'" in line
    assert "['chat']" in line


def test_a_tool_paid_only_in_olas_is_requested_only_under_a_task_cap(
    tmp_path: Path,
) -> None:
    """Without ``max_price`` only native is paid; a cap naming OLAS lets it be chosen.

    :param tmp_path: a folder for the task file.
    """
    built = catalogue(payment_type=OLAS_PAYMENT_TYPE)
    digest = built.digest()
    content, line = choose(built, digest, digest, 2, params(target="pt"))
    assert content == "" and "the task sets no max_price" in line
    assert f"mech {MECH}" in line
    task = tmp_path / "task.yaml"
    from_file = params("nope")
    from_file.requester_task_file = str(task)
    task.write_text(
        f"prompt: Hi\ntool: {TOOL}\narguments: {{target: fr}}\n"
        "max_price: {olas: 999999999999999}\n"
    )
    content, line = choose(built, digest, digest, 2, from_file)
    assert content == "" and "over the task's max_price olas" in line
    task.write_text(
        f"prompt: Hi\ntool: {TOOL}\narguments: {{target: fr}}\n"
        "max_price: {olas: 1000000000000000}\n"
    )
    content, line = choose(built, digest, digest, 2, from_file)
    payment = json.loads(json.loads(content)["requester_payment"])
    assert payment == {
        "mech": MECH,
        "payment_type": OLAS_PAYMENT_TYPE,
        "asset": "olas",
        "price": 10**15,
        "cap": 10**15,
        "tracker": "",  # read from the chain by the behaviour before the vote
        "token": "",
    }
    assert f"from mech {MECH}, paid in olas" in line


def test_the_task_file_replaces_the_parameters(tmp_path: Path) -> None:
    """Prompt, kind and arguments come from the file; the parameters are not read.

    :param tmp_path: a folder for the file.
    """
    task = tmp_path / "task.yaml"
    task.write_text("prompt: Bonjour\nkind: chat\narguments:\n  target: fr\n")
    from_file = params("nope")  # a tool no mech offers: must not be used
    from_file.requester_task_file = str(task)
    built = catalogue()
    digest = built.digest()
    content, _ = choose(built, digest, digest, 3, from_file)
    (request,) = json.loads(json.loads(content)["mech_requests"])
    assert request["prompt"] == "Bonjour" and request["tool"] == TOOL
    assert request["extra_attributes"] == {"target": "fr"}


@pytest.mark.parametrize(
    "text, reason",
    [
        # valid file, arguments that break the chosen tool's schema (checked later)
        ("prompt: Hi\nkind: chat\n", "(arguments): 'target' is a required property"),
        ("kind: chat\narguments: {target: fr}\n", "field 'prompt'"),
        ("prompt: Hi\ntool: x\nkind: chat\n", "fields 'tool' and 'kind'"),
        ("prompt: Hi\nkind: chat\nmech: '0xabc'\n", "field 'mech'"),
        ("prompt: Hi\nkind: chat\narguments: [1]\n", "field 'arguments'"),
        ("prompt: [\n", "not valid YAML or JSON"),
        (None, "cannot be read"),
    ],
)
def test_an_invalid_task_file_sends_no_request_and_names_the_field(
    tmp_path: Path, text: Optional[str], reason: str
) -> None:
    """Each fault gives an empty vote whose log line names the file and the field.

    :param tmp_path: a folder for the file.
    :param text: the file's text (None: no file at that path).
    :param reason: part of the expected log line.
    """
    task = tmp_path / "task.yaml"
    if text is not None:
        task.write_text(text)
    from_file = params()
    from_file.requester_task_file = str(task)
    built = catalogue()
    digest = built.digest()
    content, line = choose(built, digest, digest, 3, from_file)
    assert content == ""
    assert "requester: no request this period:" in line and reason in line
    if "(arguments)" not in reason:  # a fault of the file itself names the file
        assert f"task file {task}:" in line


@pytest.mark.parametrize(
    "submitter, event",
    [
        (MechRequestRound.auto_round_id(), Event.MECH_REQUEST_SETTLED),
        (MechPurchaseSubscriptionRound.auto_round_id(), Event.SUBSCRIPTION_SETTLED),
        (PublishTxRound.auto_round_id(), Event.PUBLISH_SETTLED),
        ("some_other_round", Event.UNKNOWN_SUBMITTER),
        (None, Event.UNKNOWN_SUBMITTER),
    ],
)
def test_the_router_sends_a_settled_transaction_back_to_its_submitter(
    submitter: Any, event: Event
) -> None:
    """Each submitter's settled transaction goes back to its app; others end the period.

    :param submitter: the agreed ``tx_submitter``.
    :param event: the expected event.
    """
    assert settled_event(submitter) is event
    data = BaseSynchronizedData(
        AbciAppDB(
            setup_data=AbciAppDB.data_to_lists(
                {"tx_submitter": submitter, "participants": ["a"]}
            )
        )
    )
    routed = PostTxSettlementRound(data, context=SimpleNamespace()).end_block()
    assert routed is not None and routed[1] is event


def test_the_composition_maps_the_request_settlement_to_mech_interact_s_response() -> (
    None
):
    """Settlement -> router -> MechResponseRound; the router's every final state is mapped."""
    table = RequesterChainedAbciApp.transition_function
    router = table[PostTxSettlementRound]
    assert router[Event.MECH_REQUEST_SETTLED] is MechResponseRound
    for final in RequesterAbciApp.final_states:
        assert final in abci_app_transition_mapping, final
    behaviours = {b.matching_round for b in RequesterConsensusBehaviour.behaviours}
    assert ToolChoiceRound in behaviours and PostTxSettlementRound in behaviours


def test_responses_view_shows_the_marketplace_request_id_and_first_line() -> None:
    """The bytes32 id comes from requestIds (requestId stays 0); pending ones show the error."""
    raw = json.dumps(
        [
            {
                "requestId": 0,
                "requestIds": ["0xab"],
                "nonce": "n",
                "result": "yes\nwhy",
            },
            {"requestId": 0, "requestIds": [], "nonce": "m", "error": "Unknown"},
        ]
    )
    assert responses_view(raw) == [
        {"request_id": "0xab", "nonce": "n", "answer": "yes", "error": None},
        {"request_id": "0", "nonce": "m", "answer": None, "error": "Unknown"},
    ]


def tool_choice(content: str, agents: int = 4) -> Any:
    """Run ToolChoiceRound with every agent voting ``content``.

    :param content: the vote.
    :param agents: how many agents.
    :return: the round's ``(synchronized data, event)``.
    """
    participants = [f"agent_{i}" for i in range(agents)]
    data = BaseSynchronizedData(
        AbciAppDB(
            setup_data=AbciAppDB.data_to_lists(
                {
                    "participants": participants,
                    "all_participants": participants,
                    "consensus_threshold": 3,
                }
            )
        )
    )
    test_round = ToolChoiceRound(data, context=SimpleNamespace())
    for agent in participants:
        test_round.process_payload(ToolChoicePayload(agent, content))
    return test_round.end_block()


def test_an_agreed_request_is_written_for_mech_interact() -> None:
    """DONE writes mech_requests, mech_tool and is_marketplace_v2 as agreed."""
    updates = {"is_marketplace_v2": True, "mech_requests": "[]", "mech_tool": TOOL}
    data, event = tool_choice(json.dumps(updates, sort_keys=True))
    assert event is Event.DONE
    for key, value in updates.items():
        assert data.db.get(key, None) == value


def test_an_agreed_empty_vote_makes_no_request() -> None:
    """NONE: nothing written, no request this period."""
    data, event = tool_choice("")
    assert event is Event.NONE
    assert data.db.get("mech_requests", None) is None


MARKET, TRACKER, TOKEN = ("0x" + "a1" * 20, "0x" + "b2" * 20, "0x" + "c3" * 20)


def drive(generator: Any) -> Any:
    """Run a behaviour generator whose I/O answers at once.

    :param generator: the generator.
    :return: its return value.
    """
    try:
        while True:
            next(generator)
    except StopIteration as stop:
        return stop.value


def chain(decimals: int = 6, tracker: str = TRACKER) -> Any:
    """A stand-in eth_call answering the three reads of a USDC payment.

    :param decimals: the token's decimals().
    :param tracker: the tracker the marketplace names.
    :return: ``(to, data) -> generator of return data``.
    """
    answers = {
        (MARKET, tracker_lookup_call(USDC_PAYMENT_TYPE)): encode(
            ["address"], [tracker]
        ),
        (TRACKER, token_call()): encode(["address"], [TOKEN]),
        (TOKEN, decimals_call()): encode(["uint256"], [decimals]),
    }

    def eth_call(to: str, data: bytes) -> Any:
        yield
        return answers[(to, data)]

    return eth_call


USDC_PAYMENT_TYPE = "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3"


def test_a_token_choice_is_completed_with_the_chain_s_tracker_and_token() -> None:
    """Tracker from the marketplace, token from the tracker, decimals checked."""
    chosen = RequestPayment(MECH, USDC_PAYMENT_TYPE, "usdc", 1_500_000, 2_000_000)
    paid = drive(token_reads(chain(), MARKET, chosen))
    assert (paid.tracker, paid.token) == (TRACKER, TOKEN)
    assert RequestPayment.from_json(paid.to_json()) == paid
    with pytest.raises(PaymentReadError, match="18 decimals, not the 6 of usdc"):
        drive(token_reads(chain(decimals=18), MARKET, chosen))
    with pytest.raises(PaymentReadError, match="zero address"):
        drive(token_reads(chain(tracker="0x" + "00" * 20), MARKET, chosen))


def test_mech_interact_s_request_behaviour_is_replaced_by_the_paying_one() -> None:
    """One behaviour for MechRequestRound: the subclass, mech-interact's code under it."""
    behaviours = RequesterConsensusBehaviour.behaviours
    assert PaidMechRequestBehaviour in behaviours
    assert MechRequestBehaviour not in behaviours
    assert issubclass(PaidMechRequestBehaviour, MechRequestBehaviour)
    assert [b for b in behaviours if b.matching_round is MechRequestRound] == [
        PaidMechRequestBehaviour
    ]
