# pylint: disable=too-many-lines
"""Behaviour tests (FSMBehaviourBaseCase): every branch of both behaviours.

The ledger connection, the http_client connection and Tendermint are replaced by the
framework's test harness (messages are checked in the outbox and answered by the test);
the answers are real Multicall2 return data encoded with eth_abi and real manifest bytes
hashed as kubo would. End-to-end reads against anvil live in tests/test_devnet_reads.py.
"""

import hashlib
import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Type, TypeVar

from aea.protocols.base import Message
from eth_abi import encode

from packages.mech_catalogue.connections.capped_http_client.connection import (
    PUBLIC_ID as CAPPED_HTTP_CLIENT_ID,
)
from packages.mech_catalogue.contracts.multicall_reader.contract import (
    PUBLIC_ID as MULTICALL_READER_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.exposure import (
    SHARED_STATE_KEY,
    PublishedCatalogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.fetching import (
    KEPT_LAST_GOOD,
    ManifestCache,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.store import (
    CatalogueFile,
    DigestStore,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.registry import (
    DigestRead,
    parse_registry_sources,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.snapshot import (
    RegistrySnapshot,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.ipfs.cid import (
    DAG_PB,
    RAW,
    digest_to_cid,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.ipfs.unixfs import (
    root_digest,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.catalogue import (
    STATUS_HASH_MISMATCH,
    STATUS_INVALID,
    STATUS_NO_HASH,
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Catalogue,
    Mech,
    MechRef,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    VIEWS_CHUNK_CHARS,
    CataloguePayload,
    RegistrySnapshotPayload,
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
from packages.valory.protocols.ipfs import IpfsMessage
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
        state.published = None
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
        self, block: int, results: List[Tuple[bool, bytes]], error: bool = False
    ) -> None:
        """Answer the pending contract API request for a Multicall2 batch."""
        if error:
            response = {
                "performative": ContractApiMessage.Performative.ERROR,
                "code": 1,
                "message": "connection refused",
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
                headers="",
                body=body,
            )
        )
        self.behaviour.act_wrapper()

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


class TestRegistrySnapshotBehaviour(ToolMetadataBehaviourCase):
    """RegistrySnapshotBehaviour."""

    def start(self) -> _CapturePayload:
        """Enter the behaviour and start it."""
        self.go_to(RegistrySnapshotBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def test_reads_listed_ids_at_an_aligned_block(self) -> None:
        """Legacy + Olas ids: one block read, one batch; latest digests, zero hash is 'no hash'."""
        self.use_registries(
            [
                {"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1, 2]},
                {"kind": "olas_agent_registry", "address": OLAS, "ids": [7]},
            ]
        )
        capture = self.start()
        self.answer_multicall(27, [(True, encode(["uint256"], [27]))])
        a, b, unit = b"\x01" * 32, b"\x02" * 32, b"\x03" * 32
        self.answer_multicall(
            20,
            [
                (
                    True,
                    encode(["uint256", "bytes32[]"], [2, [a, b]]),
                ),  # legacy id 1: last of getHashes
                (True, encode(["uint256", "bytes32[]"], [0, []])),  # legacy id 2: none
                (
                    True,
                    encode(["uint256", "bytes32[]"], [0, []]),
                ),  # olas id 7: no updates...
                (True, encode(["bytes32"], [unit])),  # ...so the unit hash
            ],
        )
        payload = capture.payloads[0]
        assert isinstance(payload, RegistrySnapshotPayload)
        assert payload.snapshot_digest is not None and payload.block_number == 20
        snapshot = self.kept_snapshot(payload.snapshot_digest)
        assert snapshot.block_number == 20
        assert payload.snapshot_digest == snapshot.digest()
        digests = {
            (r.ref.registry_kind, r.ref.mech_id): r.digest for r in snapshot.reads
        }
        assert digests == {
            ("legacy_mech_registry", 1): "0x" + b.hex(),
            ("legacy_mech_registry", 2): "",
            ("olas_agent_registry", 7): "0x" + unit.hex(),
        }
        self.finish_round()

    def test_reads_all_service_ids_through_the_service_registry(self) -> None:
        """Read all service ids: block number with serviceRegistry(), then its totalSupply() with the hashes."""
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 2
        self.use_registries(
            [{"kind": "complementary_service_metadata", "address": CSM, "ids": "all"}]
        )
        capture = self.start()
        self.answer_multicall(
            10,
            [
                (True, encode(["uint256"], [10])),
                (True, encode(["address"], [SERVICE_REGISTRY])),
            ],
        )
        self.answer_multicall(
            10,
            [
                (True, encode(["uint256"], [2])),
                (True, encode(["bytes32"], [b"\x05" * 32])),
                (False, b""),
            ],
        )
        snapshot = self.kept_snapshot(capture.payloads[0].snapshot_digest)
        assert [(r.ref.mech_id, r.digest, r.error) for r in snapshot.reads] == [
            (1, "0x" + "05" * 32, ""),
            (2, "", "registry_call_failed"),
        ]
        self.finish_round()

    def test_rpc_failure_sends_an_empty_payload(self) -> None:
        """The ledger connection reports an error: the payload carries None (NONE event)."""
        self.use_registries(
            [{"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1]}]
        )
        capture = self.start()
        self.answer_multicall(0, [], error=True)
        assert (
            capture.payloads[0].snapshot_digest is None
            and capture.payloads[0].block_number is None
        )
        self.finish_round()

    def test_supply_revert_sends_an_empty_payload(self) -> None:
        """totalSupply() reverts (wrong address or kind): no snapshot rather than a wrong one."""
        self.use_registries(
            [{"kind": "olas_agent_registry", "address": OLAS, "ids": "all"}]
        )
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 2
        capture = self.start()
        self.answer_multicall(5, [(True, encode(["uint256"], [5]))])
        self.answer_multicall(0, [(False, b"")] + [(True, b"")] * 2)
        assert capture.payloads[0].values == (None, None)
        self.finish_round()

    def test_garbage_return_sends_an_empty_payload(self) -> None:
        """The address is not Multicall2 (return does not decode): no snapshot."""
        self.use_registries(
            [{"kind": "olas_agent_registry", "address": OLAS, "ids": [1]}]
        )
        capture = self.start()
        self.mock_contract_api_request(
            contract_id=str(MULTICALL_READER_ID),
            request_kwargs={"performative": ContractApiMessage.Performative.GET_STATE},
            response_kwargs={
                "performative": ContractApiMessage.Performative.STATE,
                "state": State(ledger_id="ethereum", body={"data": "0x1234"}),
            },
        )
        assert capture.payloads[0].values == (None, None)
        self.finish_round()


def ref(mech_id: int) -> MechRef:
    """Get a legacy-registry mech ref.

    :param mech_id: the agent id.
    :return: a legacy-registry mech ref.
    """
    return MechRef(CHAIN_ID, "legacy_mech_registry", LEGACY, mech_id)


class FetchCase(ToolMetadataBehaviourCase):
    """FetchManifestsBehaviour set-up: enter it with an agreed snapshot, agree, read what was published."""

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
        """Deliver the payload, then run the real FetchManifestsRound on it (single agent), whose DONE publishes."""
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

    def published(self) -> Optional[PublishedCatalogue]:
        """Get what the skill put in the agent-wide shared state.

        :return: what the skill put in the agent-wide shared state.
        """
        return self.skill.skill_context.shared_state.get(SHARED_STATE_KEY)

    def agreed_catalogue(self) -> Catalogue:
        """Get the published catalogue.

        :return: the catalogue the skill published (the test fails when there is none).
        """
        published = self.published()
        assert published is not None
        return published.catalogue

    def agreed_entry(self, mech_ref: MechRef) -> Mech:
        """Get a mech's entry in the published catalogue.

        :param mech_ref: the mech.
        :return: its entry (the test fails when the catalogue has none).
        """
        mech = self.agreed_catalogue().mech(mech_ref)
        assert mech is not None, mech_ref
        return mech


class TestFetchManifestsBehaviour(FetchCase):
    """FetchManifestsBehaviour."""

    def test_fetches_verifies_parses_and_publishes(self) -> None:
        """dag-pb manifest: fetched once, verified, parsed; payload views; published after agreement."""
        data = manifest("summarise", "translate")
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest), DigestRead(ref(2), "")])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, data)
        payload = capture.payloads[0]
        assert self.views_of(payload)["mech_tools"] == ["summarise", "translate"]
        info = self.views_of(payload)["mechs_info"]
        assert info == [
            {
                "id": "1",
                "address": "",
                "karma": 0,
                "received_requests": 0,
                "self_delivered": 0,
                "max_delivery_rate": 0,
                "service": {"metadata": [{"metadata": digest}], "deliveries": []},
                "relevant_tools": ["summarise", "translate"],
            }
        ]
        self.agree(payload)
        published = self.published()
        assert (
            published is not None
            and published.catalogue_digest == payload.catalogue_digest
        )
        assert self.agreed_entry(ref(2)).status == STATUS_NO_HASH
        assert [t.name for t in published.catalogue.tools_of(ref(1))] == [
            "summarise",
            "translate",
        ]

    def test_cache_hit_makes_no_request(self) -> None:
        """A CID already verified is never fetched again: the payload is sent straight away."""
        data = manifest("summarise")
        digest = dag_pb_digest(data)
        self.skill.skill_context.state.manifest_cache.put(
            digest_to_cid(digest, DAG_PB), data
        )
        capture = self.start([DigestRead(ref(1), digest)])
        assert capture.payloads and self.views_of(capture.payloads[0])[
            "mech_tools"
        ] == ["summarise"]

    def test_raw_leaves_manifest_falls_back_to_the_raw_cid(self) -> None:
        """The dag-pb CID fails at the gateway (raw block), every retry; the raw CID verifies."""
        data = manifest("summarise")
        digest = raw_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 500, b"invalid wireType")
        time.sleep(0.02)
        self.behaviour.act_wrapper()
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 500, b"invalid wireType")
        self.answer_gateway(digest_to_cid(digest, RAW), 200, data)
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["summarise"]

    def test_wrong_bytes_are_a_hash_mismatch(self) -> None:
        """A gateway serving other bytes: never trusted; the mech is quarantined as hash_mismatch."""
        digest = dag_pb_digest(manifest("summarise"))
        capture = self.start([DigestRead(ref(1), digest)])
        evil = manifest("steal_keys")
        for cid in (digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)):
            self.answer_gateway(cid, 200, evil)
            time.sleep(0.02)
            self.behaviour.act_wrapper()
            self.answer_gateway(cid, 200, evil)
        payload = capture.payloads[0]
        assert self.views_of(payload)["mech_tools"] == []
        self.agree(payload)
        assert self.agreed_entry(ref(1)).status == STATUS_HASH_MISMATCH

    def test_too_large_is_rejected_without_parsing(self) -> None:
        """Bytes over max_manifest_bytes are rejected with too_large."""
        digest = dag_pb_digest(b"x" * 5000)
        capture = self.start([DigestRead(ref(1), digest)])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, b"x" * 5000)
        self.agree(capture.payloads[0])
        mech = self.agreed_entry(ref(1))
        assert mech.status == STATUS_INVALID and mech.problems[0].code == "too_large"

    def test_broken_manifest_keeps_the_last_good_one(self) -> None:
        """Period 2 serves a broken manifest: the period-1 tools stay, marked stale, with the reason."""
        good = manifest("summarise")
        good_digest = dag_pb_digest(good)
        capture = self.start([DigestRead(ref(1), good_digest)])
        self.answer_gateway(digest_to_cid(good_digest, DAG_PB), 200, good)
        first = capture.payloads[0]
        self.agree(first)
        broken = b'{"tools": [1, 2'
        broken_digest = dag_pb_digest(broken)
        capture = self.start(
            [DigestRead(ref(1), broken_digest)], catalogue_digest=first.catalogue_digest
        )
        self.answer_gateway(digest_to_cid(broken_digest, DAG_PB), 200, broken)
        second = capture.payloads[0]
        assert self.views_of(second)["mech_tools"] == ["summarise"]
        self.agree(second)
        catalogue = self.agreed_catalogue()
        mech = self.agreed_entry(ref(1))
        assert mech.status == STATUS_OK and mech.digest == good_digest
        assert KEPT_LAST_GOOD in [p.code for p in mech.problems]
        assert catalogue.stale(21) == (mech,)

    def test_unreachable_ipfs_marks_unavailable(self) -> None:
        """No answer at all (gateway down): unavailable with fetch_failed after the retries."""
        digest = dag_pb_digest(manifest("summarise"))
        capture = self.start([DigestRead(ref(1), digest)])
        for cid in (digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)):
            self.answer_gateway(cid, 502, b"")
            time.sleep(0.02)
            self.behaviour.act_wrapper()
            self.answer_gateway(cid, 502, b"")
        self.agree(capture.payloads[0])
        mech = self.agreed_entry(ref(1))
        assert (
            mech.status == STATUS_UNAVAILABLE
            and mech.problems[0].code == "fetch_failed"
        )

    def test_disagreement_keeps_the_previous_publication(self) -> None:
        """The agents agreed on another digest: this agent does not publish its own catalogue."""
        data = manifest("summarise")
        digest = dag_pb_digest(data)
        self.skill.skill_context.state.manifest_cache.put(
            digest_to_cid(digest, DAG_PB), data
        )
        capture = self.start([DigestRead(ref(1), digest)])
        payload = capture.payloads[0]
        self.agree(CataloguePayload(payload.sender, "ee" * 32, "ff" * 32, 1))
        assert self.published() is None

    def test_no_snapshot_sends_an_empty_payload(self) -> None:
        """Without an agreed snapshot nothing is built: payload of Nones (NONE event)."""
        self.go_to(FetchManifestsBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        assert capture.payloads[0].values == (None, None, None)


class TestFetchConcurrencyAndIpfsConnection(ToolMetadataBehaviourCase):
    """Several requests in flight; the valory/ipfs connection as the source."""

    def start(self, reads: List[DigestRead]) -> _CapturePayload:
        """Enter FetchManifestsBehaviour with an agreed snapshot and start it.

        :param reads: the snapshot's reads.
        :return: the payload capture.
        """
        snapshot = RegistrySnapshot.build(20, reads)
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": snapshot.block_number,
                "registry_snapshot_digest": self.keep_snapshot(snapshot),
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def test_requests_are_in_flight_together(self) -> None:
        """With fetch_concurrency=2 both gateway GETs leave before any answer arrives."""
        self.skill.skill_context.params.__dict__["fetch_concurrency"] = 2
        first, second = manifest("one"), manifest("two")
        digests = {dag_pb_digest(first): first, dag_pb_digest(second): second}
        capture = self.start([DigestRead(ref(i + 1), d) for i, d in enumerate(digests)])
        self.assert_quantity_in_outbox(2)
        requests = [self.outbox_message(HttpMessage) for _ in range(2)]
        by_url = {
            f"{GATEWAY}/ipfs/{digest_to_cid(d, DAG_PB)}": data
            for d, data in digests.items()
        }
        for request in requests:
            self.answer(request, by_url[request.url])
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["one", "two"]

    def answer(
        self, request: HttpMessage, body: bytes, status: int = 200, headers: str = ""
    ) -> None:
        """Deliver a gateway response to a request from the outbox.

        :param request: the request.
        :param body: the response body.
        :param status: the HTTP status.
        :param headers: ``Name: value`` lines.
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

    def test_a_slot_refills_as_soon_as_one_answer_arrives(self) -> None:
        """Window of 2 over 3 CIDs: the third GET leaves once the first is answered, the second still pending."""
        self.skill.skill_context.params.__dict__["fetch_concurrency"] = 2
        datas = [manifest(name) for name in ("one", "two", "three")]
        by_url = {
            f"{GATEWAY}/ipfs/{digest_to_cid(dag_pb_digest(d), DAG_PB)}": d
            for d in datas
        }
        capture = self.start(
            [DigestRead(ref(i + 1), dag_pb_digest(d)) for i, d in enumerate(datas)]
        )
        self.assert_quantity_in_outbox(2)
        first, second = [self.outbox_message(HttpMessage) for _ in range(2)]
        self.answer(first, by_url[first.url])
        self.behaviour.act_wrapper()
        self.assert_quantity_in_outbox(1)
        third = self.outbox_message(HttpMessage)
        assert third.url not in (first.url, second.url)
        self.answer(third, by_url[third.url])
        self.answer(second, by_url[second.url])
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == [
            "one",
            "three",
            "two",
        ]

    def test_a_429_sends_the_cid_to_the_fallback_gateway(self) -> None:
        """429 + Retry-After from the preferred gateway: the same CID goes to the fallback at once; the window halves."""
        self.skill.skill_context.params.__dict__.update(
            fetch_concurrency=2, ipfs_fallback_gateway_urls=(FALLBACK,)
        )
        data = manifest("one")
        cid = digest_to_cid(dag_pb_digest(data), DAG_PB)
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        first = self.outbox_message(HttpMessage)
        assert first.url == f"{GATEWAY}/ipfs/{cid}"
        self.answer(first, b"slow down", 429, "Retry-After: 30\n")
        self.behaviour.act_wrapper()
        second = self.outbox_message(HttpMessage)
        assert second.url == f"{FALLBACK}/ipfs/{cid}"
        pool = self.skill.skill_context.state.gateways  # halved from 2, held 30 s:
        assert pool.window() == 1
        assert pool.gateways[0].held_until - time.monotonic() > 20
        self.answer(second, data)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["one"]

    def test_a_failing_gateway_hands_over_to_the_fallback(self) -> None:
        """502 from the preferred gateway: the fallback is asked for the CID in the same window."""
        self.skill.skill_context.params.__dict__.update(
            ipfs_fallback_gateway_urls=(FALLBACK,)
        )
        data = manifest("two")
        cid = digest_to_cid(dag_pb_digest(data), DAG_PB)
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        first = self.outbox_message(HttpMessage)
        self.answer(first, b"", 502)
        self.behaviour.act_wrapper()
        second = self.outbox_message(HttpMessage)
        assert first.url == f"{GATEWAY}/ipfs/{cid}"
        assert second.url == f"{FALLBACK}/ipfs/{cid}"
        self.answer(second, data)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["two"]

    def test_fetches_through_the_ipfs_connection(self) -> None:
        """ipfs_fetch_mode=ipfs_connection: a GET_FILES request; the single file's bytes are verified."""
        self.skill.skill_context.params.__dict__["ipfs_fetch_mode"] = "ipfs_connection"
        data = manifest("summarise")
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        self.assert_quantity_in_outbox(1)
        request = self.outbox_message(IpfsMessage)
        assert request.performative == IpfsMessage.Performative.GET_FILES
        assert request.ipfs_hash == digest_to_cid(digest, DAG_PB)
        response = self.build_incoming_message(
            message_type=IpfsMessage,
            dialogue_reference=(request.dialogue_reference[0], "stub"),
            performative=IpfsMessage.Performative.FILES,
            target=request.message_id,
            message_id=-1,
            to=str(self.skill.skill_context.skill_id),
            sender=str(IPFS_CONNECTION_ID),
            files={digest_to_cid(digest, DAG_PB): data.decode()},
        )
        self.skill.skill_context.handlers.ipfs.handle(response)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["summarise"]


class TestFetchSizeCap(ToolMetadataBehaviourCase):
    """max_manifest_bytes applies while reading: ranged gateway GETs, capped replies."""

    CAP = 4096

    def start(self, reads: List[DigestRead]) -> _CapturePayload:
        """Enter FetchManifestsBehaviour with an agreed snapshot and start it.

        :param reads: the snapshot's reads.
        :return: the payload capture.
        """
        snapshot = RegistrySnapshot.build(20, reads)
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": snapshot.block_number,
                "registry_snapshot_digest": self.keep_snapshot(snapshot),
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def reply(self, request: Message, status: int, headers: str, body: bytes) -> None:
        """Deliver a gateway response with any status and headers.

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

    def candidate_mech(self) -> Mech:
        """Get mech 1 of this agent's candidate catalogue.

        :return: the entry (the test fails when there is none).
        """
        candidate = self.skill.skill_context.state.candidate
        assert candidate is not None
        mech = candidate[0].mech(ref(1))
        assert mech is not None
        return mech

    def test_gateway_get_asks_for_one_byte_past_the_cap(self) -> None:
        """The GET carries Range: bytes=0-<max_manifest_bytes>; a 206 within it is the manifest."""
        self.skill.skill_context.params.__dict__["max_manifest_bytes"] = self.CAP
        data = manifest("summarise")
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        request = self.outbox_message(HttpMessage)
        assert "Range: bytes=0-4096" in request.headers.splitlines()
        total = len(data)
        self.reply(request, 206, f"Content-Range: bytes 0-{total - 1}/{total}\n", data)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == ["summarise"]

    def test_over_the_cap_by_range_is_too_large(self) -> None:
        """A 206 of cap + 1 bytes from a far larger file: too_large, naming the CID and the cap."""
        self.skill.skill_context.params.__dict__["max_manifest_bytes"] = self.CAP
        data = b"{" + b" " * 100_000 + b"}"
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
        request = self.outbox_message(HttpMessage)
        self.reply(
            request,
            206,
            f"Content-Range: bytes 0-{self.CAP}/{len(data)}\n",
            data[: self.CAP + 1],
        )
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == []
        mech = self.candidate_mech()
        assert mech.status == STATUS_INVALID and mech.problems[0].code == "too_large"
        assert digest_to_cid(digest, DAG_PB) in mech.problems[0].message
        assert "max_manifest_bytes=4096" in mech.problems[0].message
        assert "larger than" in mech.problems[0].message

    def test_gateway_ignoring_range_gets_the_same_verdict(self) -> None:
        """A 200 with the whole file (Range ignored): cut to cap + 1, the same too_large sentence."""
        self.skill.skill_context.params.__dict__["max_manifest_bytes"] = self.CAP
        data = b"{" + b" " * 100_000 + b"}"
        capture = self.start([DigestRead(ref(1), dag_pb_digest(data))])
        request = self.outbox_message(HttpMessage)
        # the connection that cuts a body at the Range even when the gateway ignores it
        assert request.to == str(CAPPED_HTTP_CLIENT_ID)
        self.reply(request, 200, "", data)
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == []
        problem = self.candidate_mech().problems[0]
        assert (
            problem.code == "too_large" and "max_manifest_bytes=4096" in problem.message
        )

    def test_ipfs_connection_reply_is_cut_to_the_limit(self) -> None:
        """GET_FILES answered with a file over the cap: kept to cap + 1 bytes, too_large."""
        self.skill.skill_context.params.__dict__["ipfs_fetch_mode"] = "ipfs_connection"
        self.skill.skill_context.params.__dict__["max_manifest_bytes"] = self.CAP
        data = b"[" + "é".encode() * 50_000 + b"]"
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(ref(1), digest)])
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
                files={digest_to_cid(digest, DAG_PB): data.decode()},
            )
        )
        self.behaviour.act_wrapper()
        assert self.views_of(capture.payloads[0])["mech_tools"] == []
        problem = self.candidate_mech().problems[0]
        assert (
            problem.code == "too_large" and "max_manifest_bytes=4096" in problem.message
        )
