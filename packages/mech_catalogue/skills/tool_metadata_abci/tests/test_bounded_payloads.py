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

"""Payloads bounded by construction (issue 10, items 3 and 4).

Every payload is encoded with ``BaseTxPayload.encode`` (what the agent signs and sends to
Tendermint, hex in a GET URL) at 20,000 registry ids and at a catalogue of 200,000 tools
with CJK names, and compared with the same payload at a handful: the size does not move.
The agreed views then reach the database chunk by chunk through the real rounds.
"""

from typing import Any, Dict, List, Optional, cast

from eth_abi import encode
from mech_catalogue_core.catalogue.views import (
    VIEWS_MAX_BYTES,
    views_selection,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    digest_to_cid,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    MechRef,
    Tool,
)

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.share_views import (
    ShareViewsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    MAX_PAYLOAD_BYTES,
    MOCK_TENDERMINT_LINE_LIMIT,
    VIEWS_CHUNK_CHARS,
    CataloguePayload,
    RegistrySnapshotPayload,
    ViewsChunkPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.share_views import (
    ShareViewsRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    LEGACY,
    ToolMetadataBehaviourCase,
    _CapturePayload,
    dag_pb_digest,
    manifest,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB

#: open-autonomy 0.21.30's BaseTxPayload cap; Tendermint 0.34 refuses the GET URL
#: (hex of the transaction) past about 1 MiB, i.e. about 520 KB of payload
FRAMEWORK_CAP = 1_048_576
URL_SAFE_PAYLOAD = 500_000


def _encoded(payload: Any) -> int:
    return len(payload.encode())


def _big_catalogue(mechs: int, tools_per_mech: int) -> Catalogue:
    """``mechs * tools_per_mech`` distinct tools, names mostly CJK (6 escaped bytes per character).

    Each mech has rankable marketplace facts, so ``mechs_info`` lists every tool again.

    :param mechs: how many mechs.
    :param tools_per_mech: tools of each.
    :return: the catalogue.
    """
    out = []
    for m in range(mechs):
        ref = MechRef(100, "complementary_service_metadata", "0x" + "c5" * 20, m + 1)
        tools = tuple(
            Tool(name=f"预测工具{m:03d}{t:04d}", description="预测")
            for t in range(tools_per_mech)
        )
        facts = MechFacts(
            address="0x" + f"{m + 1:040x}",
            service_id=m + 1,
            block=1,
            confirmed=True,
            max_delivery_rate=10,
            requests=1,
            deliveries=1,
            karma=0,
        )
        out.append(
            Mech(
                ref=ref,
                digest="0x" + f"{m:064x}",
                status=STATUS_OK,
                tools=tools,
                marketplace=(facts,),
            )
        )
    return Catalogue.build(out)


class TestBoundedPayloads(ToolMetadataBehaviourCase):
    """Payload sizes do not grow with ids, mechs or tools."""

    def _snapshot_payload(self, ids: int) -> RegistrySnapshotPayload:
        """Read ``ids`` legacy ids through the behaviour and return its payload."""
        params = self.skill.skill_context.params
        params.__dict__["max_ids_per_registry"] = max(ids, 1)
        self.use_registries(
            [
                {
                    "kind": "legacy_mech_registry",
                    "address": LEGACY,
                    "ids": {"from": 1, "to": ids},
                }
            ]
        )
        self.go_to(RegistrySnapshotBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        self.answer_multicall(27, [(True, encode(["uint256"], [27]))])
        answered = 0
        batch = params.multicall_batch_size
        while answered < ids:
            count = min(batch, ids - answered)
            self.answer_multicall(
                20,
                [
                    (
                        True,
                        encode(
                            ["uint256", "bytes32[]"],
                            [1, [(answered + i + 1).to_bytes(32, "big")]],
                        ),
                    )
                    for i in range(count)
                ],
            )
            answered += count
        payload = capture.payloads[0]
        assert isinstance(payload, RegistrySnapshotPayload)
        return payload

    def test_snapshot_payload_is_constant_at_20000_ids(self) -> None:
        """20,000 ids: the payload is (block, digest), as at 3 ids; the snapshot stays local.

        The snapshot itself (what the old payload carried) is over the framework's 1 MiB.
        """
        small = self._snapshot_payload(3)
        large = self._snapshot_payload(20_000)
        assert _encoded(large) == _encoded(small) < 1024
        snapshot = self.kept_snapshot(large.snapshot_digest)
        assert len(snapshot.reads) == 20_000 and large.block_number == 20
        assert len(snapshot.to_json()) > FRAMEWORK_CAP  # what used to ride in it

    def test_catalogue_and_views_payloads_are_bounded_at_200000_tools(self) -> None:
        """200,000 CJK-named tools: digests in the catalogue payload, bounded views chunks.

        Each views chunk is at most VIEWS_CHUNK_CHARS; the rounds assemble the chunks into
        the db keys. The views hold the mechs that fit VIEWS_MAX_BYTES, whole, in
        priority order (here all have facts and no deliveries: catalogue order).
        """
        self.go_to(FetchManifestsBehaviour, {})
        fetch = cast(FetchManifestsBehaviour, self.current())
        tiny = fetch.payload_for(_big_catalogue(1, 1))
        catalogue = _big_catalogue(200, 1000)
        assert len(catalogue.tool_names()) == 200_000
        payload = fetch.payload_for(catalogue)
        # only the chunk count's decimal digits differ
        assert abs(_encoded(payload) - _encoded(tiny)) <= 8 and _encoded(payload) < 1024
        assert payload.views_chunks is not None and payload.views_chunks > 10
        document = self.skill.skill_context.state.views.get(payload.views_digest)
        assert document is not None
        assert VIEWS_MAX_BYTES // 2 < len(document) <= VIEWS_MAX_BYTES  # ~32 KB a mech
        admitted = views_selection(catalogue)
        assert 0 < len(admitted) < len(catalogue.mechs)
        assert admitted == {m.ref for m in catalogue.mechs[: len(admitted)]}

        agent = self.skill.skill_context.agent_address
        data = SynchronizedData(
            AbciAppDB(
                setup_data=AbciAppDB.data_to_lists(
                    {
                        "all_participants": (agent,),
                        "participants": (agent,),
                        "consensus_threshold": 1,
                        "catalogue_views_digest": payload.views_digest,
                        "catalogue_views_chunks": payload.views_chunks,
                        "views_received_count": 0,
                    }
                )
            )
        )
        sizes: List[int] = []
        for index in range(payload.views_chunks):
            self.go_to(
                ShareViewsBehaviour,
                {
                    "catalogue_views_digest": payload.views_digest,
                    "catalogue_views_chunks": payload.views_chunks,
                    "views_received_count": index,
                },
            )
            chunk = cast(ShareViewsBehaviour, self.current()).payload()
            assert chunk.chunk_index == index
            sizes.append(_encoded(chunk))
            share = ShareViewsRound(synchronized_data=data, context=None)  # type: ignore[arg-type]
            share.process_payload(chunk)
            result = share.end_block()
            assert result is not None
            data = cast(SynchronizedData, result[0])
        assert max(sizes) <= MAX_PAYLOAD_BYTES < URL_SAFE_PAYLOAD
        assert payload.views_chunks == -(-len(document) // VIEWS_CHUNK_CHARS)
        assert len(data.mech_tools) == 1000 * len(admitted)
        assert len(data.mechs_info) == len(admitted)
        assert data.views_digest == payload.views_digest

    def test_agent_without_the_views_sends_nothing(self) -> None:
        """An agent that built another catalogue holds no views under the agreed digest: Nones."""
        self.go_to(
            ShareViewsBehaviour,
            {
                "catalogue_views_digest": "ab" * 32,
                "catalogue_views_chunks": 1,
                "views_received_count": 0,
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        assert capture.payloads[0].values == (None, None, None)


class TestAgreedSnapshotIsRebuilt(ToolMetadataBehaviourCase):
    """An agent that does not hold the agreed snapshot reads the chain at the agreed block."""

    sent: List[Any]

    def setup_method(self, **kwargs: Any) -> None:
        """Record the messages the behaviour sends, to check the block it reads at."""
        super().setup_method(**kwargs)
        self.sent = self.record_outbox()

    def _start(
        self, agreed: RegistrySnapshot, digest: Optional[str] = None
    ) -> _CapturePayload:
        self.use_registries(
            [{"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1]}]
        )
        self.go_to(
            FetchManifestsBehaviour,
            {
                "registry_snapshot_block": agreed.block_number,
                "registry_snapshot_digest": digest or agreed.digest(),
            },
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def _answer_read(self, onchain: bytes) -> None:
        # the agreed block is known: no block-number call, the digests are read at it
        self.answer_multicall(
            20, [(True, encode(["uint256", "bytes32[]"], [1, [onchain]]))]
        )
        assert self.sent[-1].kwargs.body.get("block_identifier") == 20

    def test_reads_at_the_agreed_block_and_builds(self) -> None:
        """Same chain state at block 20: same digest, the catalogue is built and sent."""
        data = manifest("summarise")
        digest = dag_pb_digest(data)
        agreed = RegistrySnapshot.build(
            20, [DigestRead(MechRef(31337, "legacy_mech_registry", LEGACY, 1), digest)]
        )
        capture = self._start(agreed)
        self._answer_read(bytes.fromhex(digest[2:]))
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, data)
        payload = capture.payloads[0]
        assert isinstance(payload, CataloguePayload) and payload.catalogue_digest
        assert self.views_of(payload)["mech_tools"] == ["summarise"]
        assert agreed.digest() in self.skill.skill_context.state.snapshots

    def test_cannot_reproduce_the_agreed_snapshot_sends_nothing(self) -> None:
        """The chain at block 20 gives another snapshot (a lagging RPC): a payload of Nones."""
        agreed = RegistrySnapshot.build(
            20,
            [
                DigestRead(
                    MechRef(31337, "legacy_mech_registry", LEGACY, 1), "0x" + "11" * 32
                )
            ],
        )
        capture = self._start(agreed)
        self._answer_read(b"\x22" * 32)
        assert capture.payloads[0].values == (None, None, None)

    def test_unreadable_chain_sends_nothing(self) -> None:
        """The RPC fails while rebuilding: a payload of Nones, the round still ends."""
        agreed = RegistrySnapshot.build(20, [])
        capture = self._start(agreed, "cd" * 32)
        self.answer_multicall(20, [], error=True)
        assert capture.payloads[0].values == (None, None, None)


def test_payload_fields_are_constant_size() -> None:
    """No payload field of this app is a list, dict or free text, except the bounded chunk."""
    for payload_class, fields in (
        (RegistrySnapshotPayload, {"block_number": 1, "snapshot_digest": "00" * 32}),
        (
            CataloguePayload,
            {
                "catalogue_digest": "00" * 32,
                "views_digest": "00" * 32,
                "views_chunks": 1,
            },
        ),
    ):
        small = payload_class("0x" + "00" * 20, **cast(Dict[str, Any], fields))
        assert _encoded(small) < 1024
    chunk = ViewsChunkPayload(
        "0x" + "00" * 20, "00" * 32, 10**6, "x" * VIEWS_CHUNK_CHARS
    )
    assert _encoded(chunk) <= MAX_PAYLOAD_BYTES


def test_worst_case_chunk_fits_the_mock_tendermint_request_line() -> None:
    """A chunk of nothing but characters JSON escapes, as hex in the broadcast URL, fits 64 KiB.

    The single-agent mock Tendermint drops longer request lines, which stalled
    ShareViewsRound at about 95 mechs with 128 KiB chunks.
    """
    worst = ViewsChunkPayload(
        "0x" + "ff" * 20, "ff" * 32, 10**9, '"\\' * (VIEWS_CHUNK_CHARS // 2)
    )
    url_overhead = 1024  # scheme, host, path, signature and transaction envelope
    assert 2 * _encoded(worst) + url_overhead < MOCK_TENDERMINT_LINE_LIMIT
