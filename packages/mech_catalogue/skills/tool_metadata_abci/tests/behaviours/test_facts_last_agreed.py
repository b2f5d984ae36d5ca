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

"""A mech whose calls a period's read leaves unread keeps the facts last agreed.

Telling strangers' failing getters apart is bounded, and a node may limit the rate: a
facts read then leaves honest mechs' calls unread. Before the fix such a mech lost its
price, karma and counts for the period: out of ``mechs_info`` and unrankable in the
agreed catalogue. Now it keeps its facts of the last agreed catalogue (the same on
every agent), with their block; a mech whose own getter was told apart failing, or
with no facts agreed before, shows this read's.

Period 1 reads both mechs of service 7 at block 20 and is agreed; period 2 reads at
block 30, where ``NEIGHBOUR``'s calls are left unread (its batch errs, then the node
limits the rate) and ``MECH`` is read again (its requests 6 -> 9).
"""

import copy
import json
from typing import Any, Dict, List, Tuple
from unittest import mock

import pytest
from mech_catalogue_core.catalogue.exposure import SHARED_STATE_KEY
from mech_catalogue_core.catalogue.fetching import ManifestCache
from mech_catalogue_core.chain.marketplace import CREATE_MECH_TOPIC
from mech_catalogue_core.chain.read_apart import MechsReadApart
from mech_catalogue_core.chain.registry import DigestRead
from mech_catalogue_core.chain.snapshot import RegistrySnapshot
from mech_catalogue_core.ipfs.cid import DAG_PB, digest_to_cid
from mech_catalogue_core.model.market import MechFacts

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    _CapturePayload,
    dag_pb_digest,
    manifest,
)
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

NEIGHBOUR = "0x00000000000000000000000000000000000000f9"  # read after MECH
OUT_OF_GAS = "{'code': -32603, 'message': 'EVM error OutOfGas'}"
RATE_LIMITED = "429 Too Many Requests"
FAILED = (False, b"")
DATA = manifest("predict")


def creation(mech: str) -> Any:
    """Return a ``CreateMech`` log of service 7 at block 5.

    :param mech: the mech.
    :return: the log.
    """
    return {
        "address": marketplace_case.MARKET,
        "topics": [CREATE_MECH_TOPIC, topic(mech), topic(7), topic(FACTORY)],
        "blockNumber": 5,
    }


def getters(requests: int) -> List[Tuple[bool, bytes]]:
    """Return an honest mech's 8 round-one results.

    :param requests: its ``numTotalRequests()``.
    :return: factory, delivery count, service, price, payment type, requests,
        deliveries, operator.
    """
    return [
        word(FACTORY, "address"),
        word(4),
        word(7),
        word(3 * 10**16),
        word(NATIVE, "bytes32"),
        word(requests),
        word(4),
        word(SAFE, "address"),
    ]


class TestFactsLastAgreed(marketplace_case.TestFetchWithMarketplace):
    """Two honest mechs of service 7; the second period leaves one's calls unread."""

    # the marketplace case's own tests run in their module, not again here
    test_facts_reach_the_catalogue_and_mechs_info = None  # type: ignore[assignment]
    test_a_too_wide_log_range_is_read_in_halves = None  # type: ignore[assignment]
    test_a_log_read_failure_leaves_the_catalogue_without_facts = None  # type: ignore[assignment]

    def setup_method(self, **kwargs: Any) -> None:
        """Forget the places learnt by an earlier test's reads."""
        super().setup_method(**kwargs)
        self.skill.skill_context.state.mechs_read_apart = MechsReadApart()

    def start_at(
        self,
        block: int,
        catalogue_digest: str = "",
        data: bytes = DATA,
        mechs_info: str = "[]",
    ) -> _CapturePayload:
        """Enter FetchManifestsBehaviour with an agreed snapshot of service 7 at ``block``.

        :param block: the agreed snapshot's block.
        :param catalogue_digest: the catalogue the agents last agreed on.
        :param data: service 7's manifest (fetched when not cached).
        :param mechs_info: the agreed views' ``mechs_info`` (JSON).
        :return: the payload capture.
        """
        digest = dag_pb_digest(data)
        snapshot = RegistrySnapshot.build(block, [DigestRead(SERVICE, digest)])
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": block,
                "registry_snapshot_digest": self.keep_snapshot(snapshot),
                "catalogue_digest": catalogue_digest,
                "mechs_info": mechs_info,
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        cid = digest_to_cid(digest, DAG_PB)
        if self.skill.skill_context.state.manifest_cache.get(cid) is None:
            self.answer_gateway(cid, 200, data)
        return capture

    def first_period(self) -> str:
        """Read both mechs whole at block 20 and agree.

        :return: the agreed catalogue digest.
        """
        capture = self.start_at(20)
        self.answer_logs([creation(MECH), creation(NEIGHBOUR)])
        self.answer_logs([])
        self.answer_logs([])
        self.answer_multicall(
            20, [word(KARMA, "address")] + getters(requests=6) + getters(requests=6)
        )
        self.answer_multicall(
            20, [word(-2, "int256"), word(5), word(1, "int256"), word(5)]
        )
        payload = capture.payloads[0]
        self.agree(payload)
        assert {f.block for f in self.agreed_entry(SERVICE).marketplace} == {20}
        return str(payload.catalogue_digest)

    def second_period(
        self, agreed: str, read_apart: MechsReadApart
    ) -> Tuple[Any, Dict[str, MechFacts]]:
        """Read at block 30: MECH in the pool, NEIGHBOUR's batch erring then rate limited.

        NEIGHBOUR is read apart (as after a read that left it unread beside a stranger's
        burning getters), so only its calls are left unread.

        :param agreed: the catalogue digest agreed in period 1 (the synchronized data).
        :param read_apart: this agent's places for the read.
        :return: the payload, and the candidate catalogue's facts of service 7 by mech.
        """
        state = self.skill.skill_context.state
        state.mechs_read_apart = read_apart
        state.candidate = None  # this agent's last catalogue was the agreed one
        capture = self.start_at(30, catalogue_digest=agreed)
        for _ in range(3):  # creations and both delivery events of blocks 19..28
            self.answer_logs([])
        self.answer_multicall(30, [word(KARMA, "address")] + getters(requests=9))
        self.answer_multicall(30, [], error=True, message=OUT_OF_GAS)
        self.answer_multicall(30, [], error=True, message=RATE_LIMITED)
        self.answer_multicall(30, [word(-2, "int256"), word(5), word(1, "int256")])
        catalogue, _ = state.candidate
        entry = catalogue.mech(SERVICE)
        return capture.payloads[0], {f.address: f for f in entry.marketplace}

    def neighbour_read_apart(self) -> MechsReadApart:
        """Return the places of period 2: NEIGHBOUR among the failing.

        :return: a fresh memory.
        """
        return MechsReadApart(failing={NEIGHBOUR: 1})

    def test_a_mech_left_unread_keeps_the_facts_last_agreed_with_their_block(
        self,
    ) -> None:
        """NEIGHBOUR keeps block 20's facts, MECH has block 30's; both stay in mechs_info.

        The log names the mech kept and the block of its facts.
        """
        agreed = self.first_period()
        before = {f.address: f for f in self.agreed_entry(SERVICE).marketplace}
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "warning") as warning:
            payload, facts = self.second_period(agreed, self.neighbour_read_apart())
        assert facts[NEIGHBOUR] == before[NEIGHBOUR]
        assert facts[NEIGHBOUR].block == 20 and facts[NEIGHBOUR].requests == 6
        assert facts[MECH].block == 30 and facts[MECH].requests == 9
        assert facts[MECH].unread == ()
        infos = {i["address"].lower(): i for i in self.views_of(payload)["mechs_info"]}
        assert set(infos) == {MECH, NEIGHBOUR}
        assert infos[NEIGHBOUR]["received_requests"] == 6
        assert infos[MECH]["received_requests"] == 9
        warning.assert_any_call(
            "1 mech(s) keep the facts last agreed (this read left their calls "
            f"unread): {NEIGHBOUR} (block 20)"
        )
        self.agree(payload)
        kept = {f.address: f for f in self.agreed_entry(SERVICE).marketplace}
        assert kept[NEIGHBOUR].block == 20
        # the read's own facts still teach where NEIGHBOUR is read next
        assert self.skill.skill_context.state.mechs_read_apart.place(NEIGHBOUR) == (
            "alone"
        )

    def test_an_agent_whose_catalogue_was_not_agreed_reads_afresh(self) -> None:
        """After a period that did not agree on its catalogue, no memory, no kept facts.

        Period 2's candidate (NEIGHBOUR kept) is never agreed (no majority); period 2
        again: this agent reads with a new memory (both mechs in one pool batch, as any
        agent with no memory sends it) and NEIGHBOUR shows this read's facts, so every
        agent reads the period alike whatever each remembered (adv29zv2 P1).
        """
        agreed = self.first_period()
        state = self.skill.skill_context.state
        checkpoint = state.marketplace_checkpoint
        not_agreed, facts = self.second_period(agreed, self.neighbour_read_apart())
        assert facts[NEIGHBOUR].block == 20  # kept: this candidate is never agreed
        assert state.candidate is not None
        state.marketplace_checkpoint = checkpoint
        state.mechs_read_apart = self.neighbour_read_apart()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "warning") as warning:
            capture = self.start_at(30, catalogue_digest=agreed)
            for _ in range(3):
                self.answer_logs([])
            self.answer_multicall(
                30,
                [word(KARMA, "address")] + getters(requests=9) + getters(requests=8),
            )
            self.answer_multicall(
                30, [word(-2, "int256"), word(5), word(1, "int256"), word(5)]
            )
        warning.assert_any_call(
            "this agent's last catalogue was not the agreed one: its facts are read "
            "with a new read-apart memory and no kept facts this period"
        )
        catalogue, _ = state.candidate
        afresh = {f.address: f for f in catalogue.mech(SERVICE).marketplace}
        assert afresh[NEIGHBOUR].block == 30 and afresh[NEIGHBOUR].requests == 8
        assert afresh[MECH].block == 30 and afresh[MECH].requests == 9
        assert state.mechs_read_apart.apart() == frozenset()
        assert capture.payloads[0].catalogue_digest != not_agreed.catalogue_digest

    def test_the_agreed_views_mechs_are_the_read_apart_incumbents(self) -> None:
        """The agreed views (the same on every agent) name the mechs read alone first."""
        views = json.dumps(
            [{"id": "7", "address": NEIGHBOUR.upper().replace("0X", "0x")}]
            + [{"id": 8, "address": MECH}, "not an item"]
        )
        self.start_at(20, mechs_info=views)
        self.answer_logs([creation(MECH), creation(NEIGHBOUR)])
        self.answer_logs([])
        self.answer_logs([])
        self.answer_multicall(
            20, [word(KARMA, "address")] + getters(requests=6) + getters(requests=6)
        )
        self.answer_multicall(
            20, [word(-2, "int256"), word(5), word(1, "int256"), word(5)]
        )
        assert self.skill.skill_context.state.mechs_read_apart.incumbents == {NEIGHBOUR}

    def test_agents_holding_the_agreed_catalogue_send_the_same_payload(self) -> None:
        """One agent holds it in memory, one restarted with it on disk: one payload.

        A third whose catalogue in memory is not the agreed one keeps nothing: its
        NEIGHBOUR is unread and its payload differs (nothing local stands in for the
        agreed data).
        """
        agreed = self.first_period()
        state = self.skill.skill_context.state
        checkpoint = state.marketplace_checkpoint
        agreed_catalogue = self.agreed_catalogue()
        in_memory, _ = self.second_period(agreed, self.neighbour_read_apart())

        state.exposed = None  # restarted: the agreed catalogue read back from disk
        self.skill.skill_context.shared_state.pop(SHARED_STATE_KEY, None)
        state.kept_catalogue = copy.deepcopy(agreed_catalogue)
        state.kept_catalogue_digest = agreed
        state.manifest_cache = ManifestCache()
        state.marketplace_checkpoint = checkpoint
        restarted, facts = self.second_period(agreed, self.neighbour_read_apart())
        assert facts[NEIGHBOUR].block == 20
        assert (restarted.catalogue_digest, restarted.views_digest) == (
            in_memory.catalogue_digest,
            in_memory.views_digest,
        )

        state.kept_catalogue_digest = "0x" + "ab" * 32  # not what the agents agreed
        state.marketplace_checkpoint = checkpoint
        stray, facts = self.second_period(agreed, self.neighbour_read_apart())
        assert facts[NEIGHBOUR].block == 30 and not facts[NEIGHBOUR].rankable
        assert stray.catalogue_digest != in_memory.catalogue_digest
        infos = self.views_of(stray)["mechs_info"]
        assert [i["address"].lower() for i in infos] == [MECH]

    def test_a_mech_left_unread_with_no_facts_agreed_before_shows_unread(self) -> None:
        """No catalogue agreed yet: NEIGHBOUR's fields are unread, it leaves mechs_info."""
        state = self.skill.skill_context.state
        state.marketplace_checkpoint = None
        state.mechs_read_apart = self.neighbour_read_apart()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "warning") as warning:
            capture = self.start_at(30)
            self.answer_logs([creation(MECH), creation(NEIGHBOUR)])
            self.answer_logs([])
            self.answer_logs([])
            self.answer_multicall(30, [word(KARMA, "address")] + getters(requests=9))
            self.answer_multicall(30, [], error=True, message=OUT_OF_GAS)
            self.answer_multicall(30, [], error=True, message=RATE_LIMITED)
            self.answer_multicall(30, [word(-2, "int256"), word(5), word(1, "int256")])
        payload = capture.payloads[0]
        infos = self.views_of(payload)["mechs_info"]
        assert [i["address"].lower() for i in infos] == [MECH]
        warning.assert_any_call(
            "1 mech(s) left unread by this read have no facts agreed before: "
            f"{NEIGHBOUR}"
        )
        self.agree(payload)
        facts = {f.address: f for f in self.agreed_entry(SERVICE).marketplace}
        assert facts[NEIGHBOUR].block == 30
        assert facts[NEIGHBOUR].max_delivery_rate is None

    def test_a_mech_told_apart_failing_shows_this_reads_facts(self) -> None:
        """The price of NEIGHBOUR errs alone while the block read answers: its own doing.

        It had facts agreed at block 20; it shows block 30's, price unread, and leaves
        mechs_info.
        """
        agreed = self.first_period()
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 1
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "warning") as warning:
            capture = self.start_at(30, catalogue_digest=agreed)
            for _ in range(3):
                self.answer_logs([])
            for result in [word(KARMA, "address")] + getters(requests=9):
                self.answer_multicall(30, [result])
            for result in getters(requests=9)[:3]:
                self.answer_multicall(30, [result])
            self.answer_multicall(30, [], error=True, message=OUT_OF_GAS)
            self.answer_multicall(30, [word(30)])  # the probe: getBlockNumber()
            for result in getters(requests=9)[4:]:
                self.answer_multicall(30, [result])
            for result in [word(-2, "int256"), word(5), word(1, "int256"), word(5)]:
                self.answer_multicall(30, [result])
        payload = capture.payloads[0]
        infos = self.views_of(payload)["mechs_info"]
        assert [i["address"].lower() for i in infos] == [MECH]
        self.agree(payload)
        facts = {f.address: f for f in self.agreed_entry(SERVICE).marketplace}
        assert facts[NEIGHBOUR].block == 30
        assert dict(facts[NEIGHBOUR].unread) == {"max_delivery_rate": "call_reverted"}
        assert not any(
            "keep the facts last agreed" in str(call) for call in warning.call_args_list
        )

    @pytest.mark.parametrize("data", [DATA, manifest("predict", "summarise")])
    def test_a_read_failing_whole_keeps_every_mechs_facts_last_agreed(
        self, data: bytes
    ) -> None:
        """The node limits the rate at the first batch: the read fails, the facts stay.

        Both mechs keep block 20's facts and their place in mechs_info, the service's
        manifest unchanged or updated this period; the error says so.

        :param data: service 7's manifest in period 2.
        """
        agreed = self.first_period()
        before = {f.address: f for f in self.agreed_entry(SERVICE).marketplace}
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            capture = self.start_at(30, catalogue_digest=agreed, data=data)
            for _ in range(3):
                self.answer_logs([])
            self.answer_multicall(30, [], error=True, message=RATE_LIMITED)
        payload = capture.payloads[0]
        infos = self.views_of(payload)["mechs_info"]
        assert {i["address"].lower() for i in infos} == {MECH, NEIGHBOUR}
        (line,), _ = error.call_args
        assert line.endswith(
            "the 2 mech(s) of the last agreed catalogue keep its facts this period"
        )
        self.agree(payload)
        facts = {f.address: f for f in self.agreed_entry(SERVICE).marketplace}
        assert facts == before
