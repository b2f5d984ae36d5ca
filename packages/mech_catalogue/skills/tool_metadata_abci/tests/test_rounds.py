"""Round tests of the ToolMetadataAbciApp: every event of every round."""

import json
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Type, cast

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.views import (
    views_chunks,
    views_digest,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.registry import (
    DigestRead,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.snapshot import (
    RegistrySnapshot,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.tool import MechRef
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    CataloguePayload,
    RegistrySnapshotPayload,
    ViewsChunkPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.rounds import ToolMetadataAbciApp
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    CROSS_PERIOD_DEFAULTS,
    Event,
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.fetch_manifests import (
    FetchManifestsRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.final_states import (
    FinishedCatalogueReadyRound,
    FinishedWithoutUpdateRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.registry_snapshot import (
    RegistrySnapshotRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.share_views import (
    ShareViewsRound,
)
from packages.valory.skills.abstract_round_abci.base import (
    AbciAppDB,
    BaseTxPayload,
    CollectSameUntilThresholdRound,
)
from packages.valory.skills.abstract_round_abci.test_tools.rounds import (
    BaseCollectSameUntilThresholdRoundTest,
)

SNAPSHOT = RegistrySnapshot.build(
    10,
    [
        DigestRead(
            MechRef(31337, "legacy_mech_registry", "0x" + "00" * 19 + "aa", 1),
            "0x" + "11" * 32,
        )
    ],
)
SNAPSHOT_DIGEST = SNAPSHOT.digest()
CATALOGUE_DIGEST = "cd" * 32
MECHS_INFO = json.dumps([{"id": "1", "address": "", "relevant_tools": ["a"]}])
MECH_TOOLS = json.dumps(["a"])
VIEWS = json.dumps(
    {
        "mech_tools": ["a"],
        "mechs_info": [{"id": "1", "address": "", "relevant_tools": ["a"]}],
    },
    separators=(",", ":"),
    sort_keys=True,
)
VIEWS_DIGEST = views_digest(VIEWS)


def snapshot_payloads(
    participants: FrozenSet[str], block: Optional[int], digest: Optional[str]
) -> Dict[str, BaseTxPayload]:
    """Build one RegistrySnapshotPayload per participant with the same values.

    :param participants: the agents.
    :param block: the block read at.
    :param digest: the snapshot digest.
    :return: one RegistrySnapshotPayload per participant with the same values.
    """
    return {p: RegistrySnapshotPayload(p, block, digest) for p in sorted(participants)}


def catalogue_payloads(
    participants: FrozenSet[str],
    digest: Optional[str],
    views: Optional[str] = VIEWS_DIGEST,
) -> Dict[str, BaseTxPayload]:
    """Build one CataloguePayload per participant with the same values.

    :param participants: the agents.
    :param digest: the catalogue digest.
    :param views: the views digest.
    :return: one CataloguePayload per participant with the same values.
    """
    chunks = 1 if digest else None
    views = views if digest else None
    return {p: CataloguePayload(p, digest, views, chunks) for p in sorted(participants)}


class _RoundTest(BaseCollectSameUntilThresholdRoundTest):
    _synchronized_data_class = SynchronizedData
    _event_class = Event
    round_class: Type[CollectSameUntilThresholdRound]

    def run(
        self,
        payloads: Dict[str, BaseTxPayload],
        expected_event: Event,
        checks: Dict[str, Any],
    ) -> None:
        """Process the payloads, then compare the event and the database keys."""
        test_round = self.round_class(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        first = next(iter(payloads.values()))
        self._complete_run(
            self._test_round(
                test_round=test_round,
                round_payloads=payloads,
                synchronized_data_update_fn=lambda data, _: (
                    data.update(**checks) if checks else data
                ),
                synchronized_data_attr_checks=[
                    lambda data, key=key: data.db.get(key, None) for key in checks
                ],
                most_voted_payload=first.values[0],
                exit_event=expected_event,
            )
        )


class TestRegistrySnapshotRound(_RoundTest):
    """RegistrySnapshotRound."""

    round_class = RegistrySnapshotRound

    def test_done_stores_block_and_digest(self) -> None:
        """A threshold of equal reads: DONE, block and digest stored; no snapshot in the db."""
        self.run(
            snapshot_payloads(self.participants, 10, SNAPSHOT_DIGEST),
            Event.DONE,
            {
                "registry_snapshot_block": 10,
                "registry_snapshot_digest": SNAPSHOT_DIGEST,
            },
        )

    def test_none_when_registries_unreadable(self) -> None:
        """A threshold of agents could not read the chain: NONE, database unchanged."""
        self.run(snapshot_payloads(self.participants, None, None), Event.NONE, {})

    def test_no_majority(self) -> None:
        """Every agent read something different: NO_MAJORITY."""
        test_round = RegistrySnapshotRound(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        for index, participant in enumerate(sorted(self.participants)):
            test_round.process_payload(
                RegistrySnapshotPayload(participant, 10, str(index) * 64)
            )
        result = test_round.end_block()
        assert result is not None and result[1] == Event.NO_MAJORITY


class TestFetchManifestsRound(_RoundTest):
    """FetchManifestsRound."""

    round_class = FetchManifestsRound

    def test_done_stores_digests(self) -> None:
        """Equal catalogues: DONE with the catalogue and views digests and the chunk count."""
        self.run(
            catalogue_payloads(self.participants, CATALOGUE_DIGEST),
            Event.DONE,
            {
                "catalogue_digest": CATALOGUE_DIGEST,
                "catalogue_views_digest": VIEWS_DIGEST,
                "catalogue_views_chunks": 1,
            },
        )

    def test_views_unchanged_skips_sharing(self) -> None:
        """The agreed views are already in the db: VIEWS_UNCHANGED, nothing to share."""
        self.synchronized_data = cast(
            SynchronizedData, self.synchronized_data.update(views_digest=VIEWS_DIGEST)
        )
        self.run(
            catalogue_payloads(self.participants, CATALOGUE_DIGEST),
            Event.VIEWS_UNCHANGED,
            {"catalogue_digest": CATALOGUE_DIGEST},
        )

    def test_synchronized_data_views(self) -> None:
        """mech_tools is a set and mechs_info a list of dicts, as mech-interact reads them."""
        data = SynchronizedData(
            db=self.synchronized_data.update(
                mechs_info=MECHS_INFO, mech_tools=MECH_TOOLS
            ).db
        )
        assert data.mech_tools == {"a"}
        assert data.mechs_info == [{"id": "1", "address": "", "relevant_tools": ["a"]}]

    def test_none_without_snapshot(self) -> None:
        """No catalogue could be built: NONE."""
        self.run(catalogue_payloads(self.participants, None), Event.NONE, {})

    def test_no_majority(self) -> None:
        """Agents built different catalogues (e.g. one could not reach IPFS): NO_MAJORITY."""
        test_round = FetchManifestsRound(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        for index, participant in enumerate(sorted(self.participants)):
            test_round.process_payload(
                CataloguePayload(participant, str(index) * 64, VIEWS_DIGEST, 1)
            )
        result = test_round.end_block()
        assert result is not None and result[1] == Event.NO_MAJORITY


class TestShareViewsRound(_RoundTest):
    """ShareViewsRound: the views reach the db only from agreed chunks."""

    round_class = ShareViewsRound

    def _agreed(self, document: str, size: int) -> SynchronizedData:
        return cast(
            SynchronizedData,
            self.synchronized_data.update(
                catalogue_views_digest=views_digest(document),
                catalogue_views_chunks=len(views_chunks(document, size)),
                views_received_count=0,
            ),
        )

    def _end(
        self, data: SynchronizedData, payloads: Mapping[str, BaseTxPayload]
    ) -> Any:
        test_round = ShareViewsRound(synchronized_data=data, context=None)  # type: ignore[arg-type]
        for payload in payloads.values():
            test_round.process_payload(payload)
        return test_round.end_block()

    def test_chunks_are_assembled_then_written(self) -> None:
        """Three chunks: NEXT_CHUNK twice, then DONE writes mechs_info, mech_tools, views_digest."""
        size = 20
        data = self._agreed(VIEWS, size)
        chunks = views_chunks(VIEWS, size)
        assert len(chunks) > 2
        for index, chunk in enumerate(chunks):
            payloads = {
                p: ViewsChunkPayload(p, VIEWS_DIGEST, index, chunk)
                for p in sorted(self.participants)
            }
            result = self._end(data, payloads)
            assert result is not None
            data = cast(SynchronizedData, result[0])
            last = index == len(chunks) - 1
            assert result[1] == (Event.DONE if last else Event.NEXT_CHUNK)
        assert data.mech_tools == {"a"} and data.views_digest == VIEWS_DIGEST
        assert data.mechs_info == [{"id": "1", "address": "", "relevant_tools": ["a"]}]
        assert data.views_received_count == 0
        assert all(not data.db.get(f"views_chunk_{i}", "") for i in range(len(chunks)))

    def test_chunk_rounds_leave_no_history_in_the_db(self) -> None:
        """Each key keeps its latest value only: the db does not grow with the chunk count."""
        size = 8
        data = self._agreed(VIEWS, size)
        chunks = views_chunks(VIEWS, size)
        assert len(chunks) > 4
        serialized = []
        for index, chunk in enumerate(chunks):
            payloads = {
                p: ViewsChunkPayload(p, VIEWS_DIGEST, index, chunk)
                for p in sorted(self.participants)
            }
            result = self._end(data, payloads)
            assert result is not None
            data = cast(SynchronizedData, result[0])
            db = data.db
            period = db._data[db.reset_index]  # pylint: disable=protected-access
            assert all(len(history) == 1 for history in period.values())
            serialized.append(len(data.db.serialize()))
        # while collecting: one key per agreed chunk, so the db grows by about a chunk
        # a round (not by every agent's payload of every round)
        assert serialized[-2] - serialized[0] < 4 * len(VIEWS)
        assert data.participant_to_views == {}
        assert all(not data.db.get(f"views_chunk_{i}", "") for i in range(len(chunks)))

    def test_minority_without_views_does_not_matter(self) -> None:
        """One agent holds no views (None): the threshold's chunk is written all the same."""
        data = self._agreed(VIEWS, len(VIEWS))
        payloads: Dict[str, BaseTxPayload] = {
            p: ViewsChunkPayload(p, VIEWS_DIGEST, 0, VIEWS)
            for p in sorted(self.participants)
        }
        lacking = sorted(self.participants)[0]
        payloads[lacking] = ViewsChunkPayload(lacking, None, None, None)
        result = self._end(data, payloads)
        assert result is not None and result[1] == Event.DONE

    def test_chunks_that_do_not_hash_to_the_agreed_digest_are_refused(self) -> None:
        """A threshold sending other bytes (or the wrong index): NONE, the views stay."""
        data = self._agreed(VIEWS, len(VIEWS))
        forged = VIEWS.replace('"a"', '"b"')
        for payload_values in ((VIEWS_DIGEST, 0, forged), (VIEWS_DIGEST, 1, VIEWS)):
            payloads = {
                p: ViewsChunkPayload(p, *payload_values)
                for p in sorted(self.participants)
            }
            result = self._end(data, payloads)
            assert result is not None and result[1] == Event.NONE
            assert cast(SynchronizedData, result[0]).views_digest == ""

    def test_agreed_chunks_that_are_not_views_are_refused(self) -> None:
        """Chunks hashing to the agreed digest but not a views document (too deep, a list): NONE."""
        for document in ("[" * 100_000 + "]" * 100_000, "[1]", '{"mechs_info": 1}'):
            data = self._agreed(document, len(document))
            payloads = {
                p: ViewsChunkPayload(p, views_digest(document), 0, document)
                for p in sorted(self.participants)
            }
            result = self._end(data, payloads)
            assert result is not None and result[1] == Event.NONE

    def test_none_when_nobody_holds_the_views(self) -> None:
        """A threshold of Nones: NONE."""
        data = self._agreed(VIEWS, len(VIEWS))
        payloads = {
            p: ViewsChunkPayload(p, None, None, None) for p in sorted(self.participants)
        }
        result = self._end(data, payloads)
        assert result is not None and result[1] == Event.NONE


@pytest.mark.parametrize(
    "round_cls, event, next_round",
    [
        (RegistrySnapshotRound, Event.DONE, FetchManifestsRound),
        (RegistrySnapshotRound, Event.NONE, FinishedWithoutUpdateRound),
        (RegistrySnapshotRound, Event.NO_MAJORITY, RegistrySnapshotRound),
        (RegistrySnapshotRound, Event.ROUND_TIMEOUT, RegistrySnapshotRound),
        (FetchManifestsRound, Event.DONE, ShareViewsRound),
        (FetchManifestsRound, Event.VIEWS_UNCHANGED, FinishedCatalogueReadyRound),
        (ShareViewsRound, Event.DONE, FinishedCatalogueReadyRound),
        (ShareViewsRound, Event.NEXT_CHUNK, ShareViewsRound),
        (ShareViewsRound, Event.NONE, FinishedWithoutUpdateRound),
        (ShareViewsRound, Event.NO_MAJORITY, RegistrySnapshotRound),
        (ShareViewsRound, Event.ROUND_TIMEOUT, RegistrySnapshotRound),
        (FetchManifestsRound, Event.NONE, FinishedWithoutUpdateRound),
        (
            FetchManifestsRound,
            Event.NO_MAJORITY,
            RegistrySnapshotRound,
        ),  # re-read the chain
        (FetchManifestsRound, Event.FETCH_TIMEOUT, RegistrySnapshotRound),
    ],
)
def test_transitions(round_cls: Any, event: Event, next_round: Any) -> None:
    """Every event of every round leads where the specification says."""
    assert ToolMetadataAbciApp.transition_function[round_cls][event] is next_round


def test_timeouts_are_registered() -> None:
    """Both timeout events have a timeout, so a stuck round is retried."""
    assert set(ToolMetadataAbciApp.event_to_timeout) == {
        Event.ROUND_TIMEOUT,
        Event.FETCH_TIMEOUT,
    }


def test_cross_period_keys_survive_a_reset() -> None:
    """The catalogue keys pass to the next period (seeded empty until the first agreement)."""
    setup: Dict[str, List[Any]] = {
        "all_participants": [("a",)],
        "participants": [("a",)],
        "consensus_threshold": [1],
        "safe_contract_address": ["0x"],
    }
    db = AbciAppDB(
        setup_data=setup,
        cross_period_persisted_keys=ToolMetadataAbciApp.cross_period_persisted_keys,
    )
    db.update(**CROSS_PERIOD_DEFAULTS)
    db.update(catalogue_digest=CATALOGUE_DIGEST, mech_tools=MECH_TOOLS)
    db.create()
    data = SynchronizedData(db=db)
    assert data.catalogue_digest == CATALOGUE_DIGEST
    assert data.mech_tools == {"a"}
    assert data.mechs_info == []
