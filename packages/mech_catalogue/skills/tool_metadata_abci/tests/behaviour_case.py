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

"""The behaviour test case of the tool metadata skill (FSMBehaviourBaseCase) and its helpers.

The ledger connection, the http_client connection and Tendermint are replaced by the
framework's test harness (messages are checked in the outbox and answered by the test);
the answers are real Multicall2 return data encoded with eth_abi and real manifest bytes
hashed as kubo would. End-to-end reads against anvil live in tests/test_tool_metadata_devnet.py.
"""

import hashlib
import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Type, TypeVar

from aea.protocols.base import Message
from eth_abi import encode
from mech_catalogue_core.catalogue.exposure import (
    SHARED_STATE_KEY,
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.fetching import (
    ManifestCache,
)
from mech_catalogue_core.catalogue.store import (
    CatalogueFile,
    DigestStore,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
    parse_registry_sources,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.ipfs.cid import DAG_PB, RAW, digest_to_cid
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
    MechRef,
)

from packages.mech_catalogue.connections.capped_http_client.connection import (
    PUBLIC_ID as CAPPED_HTTP_CLIENT_ID,
)
from packages.mech_catalogue.contracts.multicall_reader.contract import (
    PUBLIC_ID as MULTICALL_READER_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    VIEWS_CHUNK_CHARS,
    CataloguePayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.fetch_manifests import (
    FetchManifestsRound,
)
from packages.valory.protocols.contract_api import ContractApiMessage
from packages.valory.protocols.contract_api.custom_types import State
from packages.valory.protocols.http import HttpMessage

# also for manifest_publish_abci's tests: that skill's own code reaches IPFS and the
# ledger only through this skill's FrameworkCalls, so it declares neither protocol (the
# agent refuses an unused dependency), and its tests may then not import them directly
from packages.valory.protocols.ipfs import (  # noqa: F401  # pylint: disable=unused-import
    IpfsMessage,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB
from packages.valory.skills.abstract_round_abci.behaviour_utils import (
    IPFS_CONNECTION_ID,
    BaseBehaviour,
)
from packages.valory.skills.abstract_round_abci.test_tools.base import (
    FSMBehaviourBaseCase,
)

PACKAGE_DIR = Path(__file__).parents[1]
CHAIN_ID = 31337
LEGACY = "0x00000000000000000000000000000000000000aa"
OLAS = "0x00000000000000000000000000000000000000bb"
CSM = "0x00000000000000000000000000000000000000cc"
SERVICE_REGISTRY = "0x00000000000000000000000000000000000000dd"
GATEWAY = "http://127.0.0.2:8080"
FALLBACK = "http://127.0.0.3:8080"

MessageT = TypeVar("MessageT", bound=Message)


def manifest(*tools: str) -> bytes:
    """Build a manifest in today's shape (tools + toolMetadata) with the given tools.

    :param tools: the tool names.
    :return: a manifest in today's shape (tools + toolMetadata) with the given tools.
    """
    return json.dumps(
        {
            "name": "Behaviour test mech",
            "description": "written for these tests",
            "tools": list(tools),
            "toolMetadata": {
                t: {
                    "name": t,
                    "description": f"{t} tool",
                    "input": {"type": "text", "description": "prompt"},
                    "output": {
                        "type": "object",
                        "description": "result",
                        "schema": {"type": "object"},
                    },
                }
                for t in tools
            },
        }
    ).encode()


def dag_pb_digest(data: bytes) -> str:
    """Compute the digest kubo's ``ipfs add`` (CIDv0 defaults) gives these bytes.

    :param data: the file bytes.
    :return: the digest kubo's ``ipfs add`` (CIDv0 defaults) gives these bytes, 0x-hex.
    """
    return "0x" + root_digest(data, raw_leaves=False, cid_version=0)[1].hex()


def raw_digest(data: bytes) -> str:
    """Compute the raw-block digest of small bytes.

    :param data: the file bytes (one chunk).
    :return: the digest of the bytes as one raw block (``--raw-leaves``, single chunk), 0x-hex.
    """
    return "0x" + hashlib.sha256(data).hexdigest()


def multicall_return(block: int, results: List[Tuple[bool, bytes]]) -> str:
    """Encode ``tryBlockAndAggregate``'s return data as the contract package sends it.

    :param block: the block number returned.
    :param results: ``(success, return data)`` per call.
    :return: ``tryBlockAndAggregate``'s return data as the contract package sends it.
    """
    return (
        "0x"
        + encode(
            ["uint256", "bytes32", "(bool,bytes)[]"], [block, b"\x00" * 32, results]
        ).hex()
    )


class ToolMetadataBehaviourCase(FSMBehaviourBaseCase):
    """Shared set-up: devnet-like parameters and helpers answering the connections."""

    path_to_skill = PACKAGE_DIR

    def setup_method(self, **kwargs: Any) -> None:
        """Point the parameters at fake loopback addresses, reset caches and shared state."""
        super().setup_method(**kwargs)
        params = self.skill.skill_context.params
        params.__dict__.update(
            chain_id=CHAIN_ID,
            multicall2_address="0x00000000000000000000000000000000000000ff",
            ipfs_gateway_url=GATEWAY,
            ipfs_fetch_mode="gateway",
            fetch_concurrency=1,
            fetch_retries=1,
            fetch_backoff_initial_seconds=0.01,
            fetch_backoff_max_seconds=0.01,
            fetch_timeout_seconds=5.0,
            snapshot_block_interval=10,
            max_manifest_bytes=4096,
            multicall_batch_size=200,
        )
        state = self.skill.skill_context.state
        state.manifest_cache = ManifestCache()
        state.exposed = None
        state.candidate = None
        state.kept_catalogue, state.kept_catalogue_digest = None, ""
        state.catalogue_file = CatalogueFile(
            None
        )  # nothing written where the tests run
        state.snapshots = DigestStore()
        state.views = DigestStore()
        self.skill.skill_context.shared_state.pop(SHARED_STATE_KEY, None)

    def current(self) -> BaseBehaviour:
        """Get the behaviour the FSM is in.

        :return: the current behaviour (the test fails when there is none).
        """
        current = self.behaviour.current_behaviour
        assert current is not None
        return current

    def act_until(self, condition: Any, seconds: float = 10.0) -> None:
        """Tick the behaviour until ``condition()`` holds.

        :param condition: the condition.
        :param seconds: the most to wait (the test fails after).
        """
        limit = time.monotonic() + seconds
        while not condition():
            assert time.monotonic() < limit, "condition never held"
            self.behaviour.act_wrapper()
            time.sleep(0.01)

    def record_outbox(self) -> List[Any]:
        """Keep every message taken from the outbox from now on, in order.

        :return: the list the messages are appended to.
        """
        sent: List[Any] = []
        take = self.get_message_from_outbox

        def recording() -> Optional[Any]:
            message = take()
            sent.append(message)
            return message

        self.get_message_from_outbox = recording  # type: ignore[method-assign]
        return sent

    def outbox_message(self, message_type: Type[MessageT]) -> MessageT:
        """Take the next message from the outbox.

        :param message_type: the protocol's message class the message must be.
        :return: the message (the test fails when the outbox is empty or holds another kind).
        """
        message = self.get_message_from_outbox()
        assert isinstance(message, message_type), message
        return message

    def use_registries(self, registries: List[Dict[str, Any]]) -> None:
        """Use another ``registries`` parameter.

        :param registries: the ``registries`` parameter value to use.
        """
        self.skill.skill_context.params.__dict__["registry_sources"] = (
            parse_registry_sources(registries, CHAIN_ID)
        )

    def go_to(self, behaviour: Any, data: Dict[str, Any]) -> None:
        """Fast-forward to a behaviour with the given database content."""
        agent = self.skill.skill_context.agent_address
        setup = {
            "all_participants": (agent,),
            "participants": (agent,),
            "consensus_threshold": 1,
            **data,
        }
        self.fast_forward_to_behaviour(
            self.behaviour,
            behaviour.auto_behaviour_id(),
            SynchronizedData(AbciAppDB(setup_data=AbciAppDB.data_to_lists(setup))),
        )
        assert self.current().behaviour_id == behaviour.auto_behaviour_id()

    def answer_multicall(
        self,
        block: int,
        results: List[Tuple[bool, bytes]],
        error: bool = False,
        message: str = "connection refused",
    ) -> None:
        """Answer the pending contract API request for a Multicall2 batch.

        :param block: the block the batch ran at.
        :param results: each call's ``(success, data)``.
        :param error: answer with an error instead.
        :param message: the error's text.
        """
        if error:
            response = {
                "performative": ContractApiMessage.Performative.ERROR,
                "code": 1,
                "message": message,
                "data": b"",
            }
        else:
            response = {
                "performative": ContractApiMessage.Performative.STATE,
                "state": State(
                    ledger_id="ethereum",
                    body={"data": multicall_return(block, results)},
                ),
            }
        self.mock_contract_api_request(
            contract_id=str(MULTICALL_READER_ID),
            request_kwargs={
                "performative": ContractApiMessage.Performative.GET_STATE,
                "callable": "call",
            },
            response_kwargs=response,
        )

    def answer_ipfs_files(self, files: Dict[str, str]) -> None:
        """Answer the pending GET_FILES request as the valory/ipfs connection would.

        :param files: CID -> file text.
        """
        request = self.outbox_message(IpfsMessage)
        self.skill.skill_context.handlers.ipfs.handle(
            self.build_incoming_message(
                message_type=IpfsMessage,
                dialogue_reference=(request.dialogue_reference[0], "stub"),
                performative=IpfsMessage.Performative.FILES,
                target=request.message_id,
                message_id=-1,
                to=str(self.skill.skill_context.skill_id),
                sender=str(IPFS_CONNECTION_ID),
                files=files,
            )
        )

    def answer_gateway(self, cid: str, status: int, body: bytes) -> None:
        """Answer the pending gateway GET for ``cid`` as the capped_http_client connection.

        Checks the request first: a GET of ``<gateway>/ipfs/<cid>`` sent to
        ``mech_catalogue/capped_http_client``, then delivers the response (the same steps
        as ``FSMBehaviourBaseCase.mock_http_request``, which only knows ``valory/http_client``).

        :param cid: the CID requested.
        :param status: the HTTP status to answer.
        :param body: the body to answer.
        """
        self.assert_quantity_in_outbox(1)
        request = self.outbox_message(HttpMessage)
        has_attributes, error = self.message_has_attributes(
            actual_message=request,
            message_type=HttpMessage,
            performative=HttpMessage.Performative.REQUEST,
            to=str(CAPPED_HTTP_CLIENT_ID),
            sender=str(self.skill.skill_context.skill_id),
            method="GET",
            url=f"{GATEWAY}/ipfs/{cid}",
        )
        assert has_attributes, error
        self.behaviour.act_wrapper()
        self.assert_quantity_in_outbox(0)
        self.deliver_gateway_response(request, status, "", body)
        self.behaviour.act_wrapper()

    def answer_both_codecs_twice(self, digest: str, status: int, body: bytes) -> None:
        """Answer a digest's dag-pb then raw CID, wait the backoff, answer both again.

        The fetch policy of these tests: one retry round (``fetch_retries=1``, a short
        backoff); the raw CID is asked right after the dag-pb CID, with no wait between.

        :param digest: the on-chain digest.
        :param status: the HTTP status of every answer.
        :param body: the body of every answer.
        """
        for retry in (False, True):
            if retry:
                time.sleep(0.02)  # the backoff, then the behaviour asks again
                self.behaviour.act_wrapper()
            for codec in (DAG_PB, RAW):
                self.answer_gateway(digest_to_cid(digest, codec), status, body)

    def deliver_gateway_response(
        self, request: Message, status: int, headers: str, body: bytes
    ) -> None:
        """Hand the skill's HTTP handler a gateway response to ``request``.

        :param request: the request from the outbox.
        :param status: the HTTP status.
        :param headers: the header lines.
        :param body: the body.
        """
        self.http_handler.handle(
            self.build_incoming_message(
                message_type=HttpMessage,
                dialogue_reference=(request.dialogue_reference[0], "stub"),
                performative=HttpMessage.Performative.RESPONSE,
                target=request.message_id,
                message_id=-1,
                to=str(self.skill.skill_context.skill_id),
                sender=str(CAPPED_HTTP_CLIENT_ID),
                version="",
                status_code=status,
                status_text="",
                headers=headers,
                body=body,
            )
        )

    def keep_snapshot(self, snapshot: RegistrySnapshot) -> str:
        """Give this agent a snapshot, as RegistrySnapshotBehaviour does.

        :param snapshot: the snapshot.
        :return: its digest.
        """
        digest = snapshot.digest()
        self.skill.skill_context.state.snapshots.put(digest, snapshot)
        return digest

    def kept_snapshot(self, digest: Optional[str]) -> RegistrySnapshot:
        """Get the snapshot this agent keeps under a digest.

        :param digest: the digest.
        :return: the snapshot (the test fails when the agent holds none).
        """
        snapshot = self.skill.skill_context.state.snapshots.get(str(digest))
        assert snapshot is not None, digest
        return snapshot

    def views_of(self, payload: Any) -> Dict[str, Any]:
        """Get the views document this agent keeps for a CataloguePayload.

        :param payload: the payload.
        :return: ``{"mechs_info": [...], "mech_tools": [...]}``.
        """
        document = self.skill.skill_context.state.views.get(payload.views_digest)
        assert document is not None and len(document) <= VIEWS_CHUNK_CHARS * (
            payload.views_chunks
        )
        return json.loads(document)

    def sent_payload(self) -> Any:
        """Get payload the behaviour is sending (read from the pending signing request).

        :return: the payload the behaviour is sending (read from the pending signing request).
        """
        return self.current()._payload  # type: ignore[attr-defined]  # pylint: disable=protected-access

    def finish_round(self) -> None:
        """Sign and deliver the payload, end the round with DONE, check the behaviour is done."""
        self.mock_a2a_transaction()
        self._test_done_flag_set()
        self.end_round(Event.DONE)


class _CapturePayload:
    """Capture the payload given to send_a2a_transaction."""

    def __init__(self, behaviour: Any) -> None:
        self.payloads: List[Any] = []
        original = behaviour.send_a2a_transaction

        def capture(payload: Any, *args: Any, **kwargs: Any) -> Any:
            self.payloads.append(payload)
            return original(payload, *args, **kwargs)

        behaviour.send_a2a_transaction = capture


def ref(mech_id: int) -> MechRef:
    """Get a legacy-registry mech ref.

    :param mech_id: the agent id.
    :return: a legacy-registry mech ref.
    """
    return MechRef(CHAIN_ID, "legacy_mech_registry", LEGACY, mech_id)


class FetchCase(ToolMetadataBehaviourCase):
    """FetchManifestsBehaviour set-up: enter it with an agreed snapshot, agree, read what was exposed."""

    def start(
        self, reads: List[DigestRead], catalogue_digest: str = ""
    ) -> _CapturePayload:
        """Enter the behaviour with an agreed snapshot and start it."""
        snapshot = RegistrySnapshot.build(20, reads)
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": snapshot.block_number,
                "registry_snapshot_digest": self.keep_snapshot(snapshot),
                "catalogue_digest": catalogue_digest,
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def agree(self, payload: CataloguePayload) -> None:
        """Deliver the payload, then run the real FetchManifestsRound on it (single agent), whose DONE exposes."""
        self.mock_a2a_transaction()
        synchronized_data = (
            self.skill.skill_context.state.round_sequence.abci_app.synchronized_data
        )
        fetch_round = FetchManifestsRound(
            synchronized_data=SynchronizedData(synchronized_data.db),
            context=self.skill.skill_context,
        )
        fetch_round.process_payload(payload)
        result = fetch_round.end_block()
        assert result is not None and result[1] in (Event.DONE, Event.VIEWS_UNCHANGED)

    def exposed(self) -> Optional[ExposedCatalogue]:
        """Get what the skill put in the agent-wide shared state.

        :return: what the skill put in the agent-wide shared state.
        """
        return self.skill.skill_context.shared_state.get(SHARED_STATE_KEY)

    def agreed_catalogue(self) -> Catalogue:
        """Get the exposed catalogue.

        :return: the catalogue the skill exposed (the test fails when there is none).
        """
        exposed = self.exposed()
        assert exposed is not None
        return exposed.catalogue

    def agreed_entry(self, mech_ref: MechRef) -> Mech:
        """Get a mech's entry in the exposed catalogue.

        :param mech_ref: the mech.
        :return: its entry (the test fails when the catalogue has none).
        """
        mech = self.agreed_catalogue().mech(mech_ref)
        assert mech is not None, mech_ref
        return mech
