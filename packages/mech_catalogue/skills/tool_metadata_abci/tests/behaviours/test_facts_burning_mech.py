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

"""The skill's facts read keeps every honest mech's facts beside a mech burning all gas.

A mech whose getters burn all the gas they are given makes the node answer a Multicall2
batch holding them with an error (anvil: ``EVM error OutOfGas``), or starves the calls
after them. Before the fix the error ended the read: the catalogue went without any
marketplace facts that period.
"""

from typing import Any, List, Tuple

from mech_catalogue_core.chain.marketplace import CREATE_MECH_TOPIC

from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviours import (
    test_fetch_manifests_marketplace as marketplace_case,
)

FACTORY, KARMA, MECH = (
    marketplace_case.FACTORY,
    marketplace_case.KARMA,
    marketplace_case.MECH,
)
NATIVE, SAFE, SERVICE = (
    marketplace_case.NATIVE,
    marketplace_case.SAFE,
    marketplace_case.SERVICE,
)
topic, word = marketplace_case.topic, marketplace_case.word

BURNER = "0x00000000000000000000000000000000000000fa"  # read after MECH
#: anvil's answer to an ``eth_call`` out of gas
OUT_OF_GAS = "{'code': -32603, 'message': 'EVM error OutOfGas'}"
FAILED = (False, b"")


def creation(mech: str) -> Any:
    """Return a ``CreateMech`` log of service 7.

    :param mech: the mech.
    :return: the log.
    """
    return {
        "address": "0x00000000000000000000000000000000000000ee",
        "topics": [CREATE_MECH_TOPIC, topic(mech), topic(7), topic(FACTORY)],
        "blockNumber": 5,
    }


def honest_getters(service: int = 7) -> List[Tuple[bool, bytes]]:
    """Return a mech's 8 round-one results.

    :param service: its ``serviceId()``.
    :return: factory, delivery count, service, price, payment type, requests,
        deliveries, operator.
    """
    return [
        word(FACTORY, "address"),
        word(4),
        word(service),
        word(3 * 10**16),
        word(NATIVE, "bytes32"),
        word(6),
        word(4),
        word(SAFE, "address"),
    ]


class TestFactsBesideABurningMech(marketplace_case.TestFetchWithMarketplace):
    """Service 7 has two mechs: an honest one and one whose getters burn all gas."""

    # the marketplace case's own tests run in their module, not again here
    test_facts_reach_the_catalogue_and_mechs_info = None  # type: ignore[assignment]
    test_a_too_wide_log_range_is_read_in_halves = None  # type: ignore[assignment]
    test_a_log_read_failure_leaves_the_catalogue_without_facts = None  # type: ignore[assignment]

    def discover_both(self) -> Any:
        """Start, and answer discovery with both mechs created.

        :return: the payload capture.
        """
        capture = self.fetch_manifest()
        self.answer_logs([creation(MECH), creation(BURNER)])
        self.answer_logs([])
        self.answer_logs([])
        return capture

    def agreed_facts(self, capture: Any) -> Any:
        """Agree on the payload and return service 7's facts by mech.

        :param capture: the payload capture.
        :return: address -> facts.
        """
        self.agree(capture.payloads[0])
        return {f.address: f for f in self.agreed_entry(SERVICE).marketplace}

    def test_a_batch_out_of_gas_is_split_and_starved_calls_asked_again(self) -> None:
        """The batch of 17 errs, its halves are read, the failed calls asked again."""
        capture = self.discover_both()
        self.answer_multicall(20, [], error=True, message=OUT_OF_GAS)
        self.answer_multicall(20, [word(KARMA, "address")] + honest_getters())
        # the burner's 8: its price burns, the 4 calls after it starve
        self.answer_multicall(20, honest_getters()[:3] + [FAILED] * 5)
        # asked again: the price alone fails, the node erring on it
        self.answer_multicall(20, [], error=True, message=OUT_OF_GAS)
        self.answer_multicall(20, [FAILED, word(NATIVE, "bytes32"), word(6)])
        self.answer_multicall(20, [word(4), word(SAFE, "address")])
        self.answer_multicall(
            20, [word(-2, "int256"), word(5), word(1, "int256"), word(5)]
        )
        facts = self.agreed_facts(capture)
        honest, burner = facts[MECH], facts[BURNER]
        assert honest.max_delivery_rate == 3 * 10**16 and honest.unread == ()
        assert burner.max_delivery_rate is None
        assert dict(burner.unread) == {"max_delivery_rate": "call_reverted"}
        assert burner.requests == 6 and burner.operator == SAFE
        # the next period reads the burner apart, among the failing mechs
        read_apart = self.skill.skill_context.state.mechs_read_apart
        assert read_apart.place(BURNER) == "failing"
        assert read_apart.place(MECH) == "pool"

    def test_a_call_the_node_errs_on_alone_is_that_mechs_when_the_probe_answers(
        self,
    ) -> None:
        """One call per batch: the burner's price errs alone, Multicall2's block read answers."""
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 1
        capture = self.discover_both()
        for result in [word(KARMA, "address")] + honest_getters():
            self.answer_multicall(20, [result])
        for result in honest_getters()[:3]:
            self.answer_multicall(20, [result])
        self.answer_multicall(20, [], error=True, message=OUT_OF_GAS)
        self.answer_multicall(20, [word(20)])  # the probe: getBlockNumber()
        for result in honest_getters()[4:]:
            self.answer_multicall(20, [result])
        for result in [word(-2, "int256"), word(5), word(1, "int256"), word(5)]:
            self.answer_multicall(20, [result])
        facts = self.agreed_facts(capture)
        assert facts[MECH].unread == () and facts[MECH].karma == -2
        assert dict(facts[BURNER].unread) == {"max_delivery_rate": "call_reverted"}
        read_apart = self.skill.skill_context.state.mechs_read_apart
        assert read_apart.apart() == {BURNER}

    def test_a_mech_left_unread_is_read_alone_the_next_period(self) -> None:
        """The burner's calls not told apart: said unread, and placed alone next period.

        Its batch errs, then the node limits the rate (which ends telling apart).
        """
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 200
        self.skill.skill_context.state.mechs_read_apart.failing[BURNER] = 1
        capture = self.discover_both()
        # the pool: karma() and the honest mech, answered
        self.answer_multicall(20, [word(KARMA, "address")] + honest_getters())
        # the burner among the failing, alone in its part: its batch and halves err
        # until the node limits the rate, which ends the telling apart for the read
        self.answer_multicall(20, [], error=True, message=OUT_OF_GAS)
        self.answer_multicall(20, [], error=True, message="429 Too Many Requests")
        # round two: both mechs' karma, the honest one's service deliveries
        self.answer_multicall(20, [word(-2, "int256"), word(5), word(1, "int256")])
        facts = self.agreed_facts(capture)
        assert facts[MECH].unread == ()
        assert facts[BURNER].max_delivery_rate is None
        assert self.skill.skill_context.state.mechs_read_apart.place(BURNER) == "alone"

    def test_a_node_erring_on_everything_leaves_the_catalogue_without_facts(
        self,
    ) -> None:
        """The probe erring too: the node's error, the read ends as before (no facts)."""
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 1
        capture = self.discover_both()
        self.answer_multicall(20, [], error=True)
        self.answer_multicall(20, [], error=True)  # the probe
        assert self.views_of(capture.payloads[0])["mechs_info"] == []
