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

"""The base behaviour's chain reads, as the ledger connection receives them.

The ledger connection is the framework's test harness: every request the behaviour sends
is recorded and its arguments checked (the contract, the ``eth_getLogs`` topic and block
range, the Multicall2 calldata), so an answer the test writes cannot hide a wrong
request. The refusals are written here in the words public RPCs use ("request entity too
large", "block range is too wide"); a batch or range refused for size is sent again in
halves and the operator is told which parameter to lower.
"""

from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

from eth_abi import decode, encode
from mech_catalogue_core.chain.marketplace import (
    CREATE_MECH_TOPIC,
    MECH_KIND_MARKETPLACE,
    DiscoveryCheckpoint,
    MarketplaceSource,
    MechCreation,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    digest_to_cid,
)
from mech_catalogue_core.model.catalogue import (
    MechRef,
)

from packages.mech_catalogue.contracts.multicall_reader.contract import (
    PUBLIC_ID as MULTICALL_READER_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    CHAIN_ID,
    CSM,
    LEGACY,
    FetchCase,
    ToolMetadataBehaviourCase,
    _CapturePayload,
    dag_pb_digest,
    manifest,
)
from packages.valory.protocols.contract_api import ContractApiMessage
from packages.valory.protocols.contract_api.custom_types import State

MARKET = "0x00000000000000000000000000000000000000e7"
LEGACY_FACTORY = "0x00000000000000000000000000000000000000e8"
MECH_AT_18 = "0x00000000000000000000000000000000000000e9"
MECH_AT_19 = "0x00000000000000000000000000000000000000ea"
FACTORY = "0x00000000000000000000000000000000000000eb"
SERVICE_7 = MechRef(CHAIN_ID, "complementary_service_metadata", CSM, 7)
#: an RPC's refusal longer than the 200 characters a log line quotes of it
LONG_TAIL = "x" * 300


class RecordingCase(ToolMetadataBehaviourCase):
    """Record every message taken from the outbox; answer a request with an RPC error."""

    sent: List[Any]

    def setup_method(self, **kwargs: Any) -> None:
        """Wrap the outbox reader."""
        super().setup_method(**kwargs)
        self.sent = self.record_outbox()

    def refuse(self, contract_callable: str, message: Optional[str]) -> None:
        """Answer the pending contract API request with an ERROR carrying ``message``.

        :param contract_callable: ``call`` (Multicall2) or ``get_logs``.
        :param message: the RPC's error text; None sends an ERROR without one (the
            protocol makes it optional).
        """
        error: Dict[str, Any] = {"message": message} if message is not None else {}
        self.mock_contract_api_request(
            contract_id=str(MULTICALL_READER_ID),
            request_kwargs={
                "performative": ContractApiMessage.Performative.GET_STATE,
                "callable": contract_callable,
            },
            response_kwargs={
                "performative": ContractApiMessage.Performative.ERROR,
                "code": 1,
                "data": b"",
                **error,
            },
        )

    def batch_calls(self, index: int) -> List[Tuple[str, bytes]]:
        """Decode the calls of the ``index``-th request sent (a Multicall2 batch).

        :param index: which request.
        :return: ``[(target, calldata)]``.
        """
        data = bytes.fromhex(self.sent[index].kwargs.body["data"][2:])
        _, calls = decode(["bool", "(address,bytes)[]"], data[4:])
        return [(target.lower(), bytes(call)) for target, call in calls]


class TestOversizedBatch(RecordingCase):
    """A Multicall2 batch the RPC refuses as too large."""

    def test_is_sent_again_in_halves_at_the_same_block_and_logged(self) -> None:
        """Two digests refused together are read one by one at the same block.

        One warning names the size and the parameter to lower; then each call is sent
        alone, both at block 20; the snapshot holds both digests.
        """
        self.use_registries(
            [{"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1, 2]}]
        )
        self.go_to(RegistrySnapshotBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        logger = self.skill.skill_context.logger
        one, two = b"\x01" * 32, b"\x02" * 32
        with mock.patch.object(logger, "warning") as warning:
            self.behaviour.act_wrapper()
            self.answer_multicall(27, [(True, encode(["uint256"], [27]))])
            self.refuse("call", "413 request entity too large " + LONG_TAIL)
            self.answer_multicall(
                20, [(True, encode(["uint256", "bytes32[]"], [1, [one]]))]
            )
            self.answer_multicall(
                20, [(True, encode(["uint256", "bytes32[]"], [1, [two]]))]
            )
        multicall2 = self.skill.skill_context.params.multicall2_address
        why = (
            f"eth_call to Multicall2 at {multicall2} failed: 413 request entity too large "
            f"{LONG_TAIL}; check the RPC and multicall2_address"
        )[:200]
        warning.assert_called_once_with(
            f"the RPC refused a batch of 2 calls as too large ({why}); it is sent again "
            "in halves: lower multicall_batch_size to avoid this"
        )
        refused = self.batch_calls(1)
        assert len(refused) == 2
        assert [self.batch_calls(2), self.batch_calls(3)] == [
            refused[:1],
            refused[1:],
        ]
        assert [m.kwargs.body.get("block_identifier") for m in self.sent[1:]] == [
            20,
            20,
            20,
        ]
        snapshot = self.kept_snapshot(capture.payloads[0].snapshot_digest)
        assert [(r.ref.mech_id, r.digest) for r in snapshot.reads] == [
            (1, "0x" + one.hex()),
            (2, "0x" + two.hex()),
        ]
        self.finish_round()


class TestMulticallRequest(RecordingCase):
    """The Multicall2 request as the contract package receives it, and its failures."""

    def start_legacy(self) -> _CapturePayload:
        """Read legacy mech 1 with a snapshot interval of 10.

        :return: the payload capture.
        """
        self.use_registries(
            [{"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1]}]
        )
        self.go_to(RegistrySnapshotBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def test_each_batch_goes_to_multicall2_as_0x_calldata_and_is_logged(self) -> None:
        """Both batches go to multicall2_address with 0x-prefixed calldata.

        0x as the contract package's ``call`` documents; one info line per snapshot.
        """
        capture = self.start_legacy()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "info") as info:
            self.answer_multicall(27, [(True, encode(["uint256"], [27]))])
            self.answer_multicall(
                20, [(True, encode(["uint256", "bytes32[]"], [1, [b"\x01" * 32]]))]
            )
        multicall2 = self.skill.skill_context.params.multicall2_address
        assert [m.contract_address for m in self.sent] == [multicall2, multicall2]
        assert all(m.kwargs.body["data"].startswith("0x") for m in self.sent)
        digest = capture.payloads[0].snapshot_digest
        info.assert_any_call(
            f"registry snapshot at block 20: 1 ids, 1 distinct digests, digest {digest}"
        )
        self.finish_round()

    def test_a_failed_call_is_logged_with_the_address_and_what_to_check(self) -> None:
        """The ledger connection fails: one error line naming Multicall2's address."""
        capture = self.start_legacy()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            self.refuse("call", "connection refused")
        multicall2 = self.skill.skill_context.params.multicall2_address
        error.assert_called_once_with(
            f"registry snapshot not taken: eth_call to Multicall2 at {multicall2} "
            "failed: connection refused; check the RPC and multicall2_address"
        )
        assert capture.payloads[0].values == (None, None)
        self.finish_round()

    def test_an_error_without_a_message_is_a_failed_read_not_a_crash(self) -> None:
        """An ERROR whose optional ``message`` is unset: the same line, naming the answer.

        Reading the unset field raised inside the behaviour's act and stopped the round.
        """
        capture = self.start_legacy()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            self.refuse("call", None)
        multicall2 = self.skill.skill_context.params.multicall2_address
        error.assert_called_once_with(
            f"registry snapshot not taken: eth_call to Multicall2 at {multicall2} "
            "failed: the ledger connection answered error; check the RPC and "
            "multicall2_address"
        )
        assert capture.payloads[0].values == (None, None)
        self.finish_round()

    def test_a_state_without_data_is_not_a_multicall2_return(self) -> None:
        """A STATE answer without return data: the snapshot is not taken.

        The line says the return does not decode and to check multicall2_address.
        """
        capture = self.start_legacy()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            self.mock_contract_api_request(
                contract_id=str(MULTICALL_READER_ID),
                request_kwargs={
                    "performative": ContractApiMessage.Performative.GET_STATE,
                    "callable": "call",
                },
                response_kwargs={
                    "performative": ContractApiMessage.Performative.STATE,
                    "state": State(ledger_id="ethereum", body={}),
                },
            )
        error.assert_called_once_with(
            "registry snapshot not taken: the Multicall2 return data does not decode; "
            "is multicall2_address right?"
        )
        assert capture.payloads[0].values == (None, None)
        self.finish_round()


class TestLogReads(RecordingCase, FetchCase):
    """``eth_getLogs`` of marketplace discovery: the query sent and a too-wide range."""

    def setup_method(self, **kwargs: Any) -> None:
        """A marketplace from block 3, two confirmations; no checkpoint yet."""
        super().setup_method(**kwargs)
        self.skill.skill_context.params.__dict__["marketplace"] = MarketplaceSource(
            CHAIN_ID, MARKET, first_block=3, confirmations=2, max_range=100
        )
        self.skill.skill_context.state.marketplace_checkpoint = None

    def answer_logs(self, logs: List[Any]) -> None:
        """Answer the pending ``get_logs`` request with ``logs``.

        :param logs: the logs.
        """
        self.mock_contract_api_request(
            contract_id=str(MULTICALL_READER_ID),
            request_kwargs={
                "performative": ContractApiMessage.Performative.GET_STATE,
                "callable": "get_logs",
            },
            response_kwargs={
                "performative": ContractApiMessage.Performative.STATE,
                "state": State(ledger_id="ethereum", body={"logs": logs}),
            },
        )

    def log_query(self, index: int) -> Tuple[str, str, int, int]:
        """The ``index``-th request sent, as an ``eth_getLogs`` query.

        :param index: which request.
        :return: ``(contract, topic, from_block, to_block)``.
        """
        message = self.sent[index]
        assert message.callable == "get_logs"
        body = message.kwargs.body
        return (
            message.contract_address,
            body["topic"],
            body["from_block"],
            body["to_block"],
        )

    def test_a_refused_range_is_asked_again_in_halves_with_its_topic(self) -> None:
        """The CreateMech topic over blocks 3..18, refused, then 3..10 and 11..18.

        18 is the snapshot block 20 less two confirmations. One warning names the range
        and ``marketplace_max_log_range``.
        """
        self.fetch_service_7()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "warning") as warning:
            self.refuse("get_logs", "block range is too wide " + LONG_TAIL)
            self.answer_logs([])
            self.answer_logs([])
        sent_logs = [m for m in self.sent if getattr(m, "callable", "") == "get_logs"]
        first = len(self.sent) - len(sent_logs)
        assert [self.log_query(first + i) for i in range(3)] == [
            (MARKET, CREATE_MECH_TOPIC, 3, 18),
            (MARKET, CREATE_MECH_TOPIC, 3, 10),
            (MARKET, CREATE_MECH_TOPIC, 11, 18),
        ]
        why = (
            f"eth_getLogs of {MARKET} for blocks 3..18 failed: block range is too wide "
            f"{LONG_TAIL}; check the RPC (some refuse wide ranges: lower "
            "marketplace_max_log_range)"
        )[:200]
        warning.assert_any_call(
            f"eth_getLogs of {MARKET} for blocks 3..18 was refused as too wide ({why}); "
            "it is read in halves: lower marketplace_max_log_range to avoid this"
        )

    def test_a_failed_log_read_is_logged_with_the_query_and_what_to_check(self) -> None:
        """An RPC error that is not about the range: not retried, one error line.

        It names the marketplace, the block range, the RPC's words, what to check and
        that the catalogue goes without facts this period.
        """
        self.fetch_service_7()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            self.refuse("get_logs", "connection refused")
        error.assert_called_once_with(
            f"marketplace facts (marketplace {MARKET}, legacy factory none) not read at "
            f"block 20: eth_getLogs of {MARKET} for blocks 3..18 failed: connection "
            "refused; check the RPC (some refuse wide ranges: lower "
            "marketplace_max_log_range); the catalogue goes without them this period"
        )

    def fetch_service_7(self) -> _CapturePayload:
        """Start at snapshot block 20 with service 7's manifest, served by the gateway.

        :return: the payload capture.
        """
        data = manifest("predict")
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(SERVICE_7, digest)])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, data)
        return capture

    def test_a_failed_legacy_log_read_names_the_factory(self) -> None:
        """Only a legacy factory configured: the line says "marketplace none"."""
        self.skill.skill_context.params.__dict__["marketplace"] = MarketplaceSource(
            CHAIN_ID, "", legacy_factory=LEGACY_FACTORY, legacy_first_block=3
        )
        self.fetch_service_7()
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "error") as error:
            self.refuse("get_logs", "connection refused")
        (line,), _ = error.call_args
        assert line.startswith(
            f"marketplace facts (marketplace none, legacy factory {LEGACY_FACTORY}) "
            f"not read at block 20: eth_getLogs of {LEGACY_FACTORY} for blocks 3.."
        )

    def test_only_mechs_created_by_the_confirmed_block_are_read(self) -> None:
        """A checkpoint read further in an earlier period holds mechs of blocks 18 and 19.

        At snapshot block 20 with two confirmations only the mech of block 18 is read
        (every agent reading block 20 reads the same mechs, whatever its checkpoint); no
        log is read, the checkpoint being past block 18 already.
        """
        mech = MechCreation(MECH_AT_18, MECH_KIND_MARKETPLACE, 7, FACTORY, 18)
        later = MechCreation(MECH_AT_19, MECH_KIND_MARKETPLACE, 8, FACTORY, 19)
        self.skill.skill_context.state.marketplace_checkpoint = DiscoveryCheckpoint(
            30, 0, (mech, later)
        )
        capture = self.fetch_service_7()
        word = encode
        self.answer_multicall(
            20,
            [
                (True, word(["address"], [MARKET])),  # karma
                (True, word(["address"], [FACTORY])),
                (True, word(["uint256"], [4])),
                (True, word(["uint256"], [7])),
                (True, word(["uint256"], [10**16])),
                (True, word(["bytes32"], [b"\x00" * 32])),
                (True, word(["uint256"], [6])),
                (True, word(["uint256"], [4])),
                (True, word(["address"], [FACTORY])),
            ],
        )
        targets = {target for target, _ in self.batch_calls(-1)}
        assert MECH_AT_18 in targets and MECH_AT_19 not in targets
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "info") as info:
            self.answer_multicall(
                20, [(True, word(["int256"], [1])), (True, word(["uint256"], [5]))]
            )
        info.assert_any_call("marketplace facts at block 20: 1 mechs, 1 rankable")
        assert not [m for m in self.sent if getattr(m, "callable", "") == "get_logs"]
        self.agree(capture.payloads[0])
        (facts,) = self.agreed_entry(SERVICE_7).marketplace
        assert (facts.address, facts.block, facts.rankable) == (MECH_AT_18, 20, True)
