"""Round tests of the ToolMetadataAbciApp: every event of every round."""

import json
from typing import Any, Dict, FrozenSet, List, Optional, Type

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.domain.model import MechRef
from packages.mech_catalogue.skills.tool_metadata_abci.domain.registry import DigestRead
from packages.mech_catalogue.skills.tool_metadata_abci.domain.snapshot import (
    RegistrySnapshot,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    CataloguePayload,
    RegistrySnapshotPayload,
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
from packages.valory.skills.abstract_round_abci.base import (
    AbciAppDB,
    BaseTxPayload,
    CollectSameUntilThresholdRound,
)
from packages.valory.skills.abstract_round_abci.test_tools.rounds import (
    BaseCollectSameUntilThresholdRoundTest,
)

SNAPSHOT_JSON = RegistrySnapshot.build(
    10,
    [
        DigestRead(
            MechRef(31337, "legacy_mech_registry", "0x" + "00" * 19 + "aa", 1),
            "0x" + "11" * 32,
        )
    ],
).to_json()
SNAPSHOT_DIGEST = "ab" * 32
CATALOGUE_DIGEST = "cd" * 32
MECHS_INFO = json.dumps([{"id": "1", "address": "", "relevant_tools": ["a"]}])
MECH_TOOLS = json.dumps(["a"])


def snapshot_payloads(
    participants: FrozenSet[str], digest: Optional[str], snapshot: Optional[str]
) -> Dict[str, BaseTxPayload]:
    """Build one RegistrySnapshotPayload per participant with the same values.

    :param participants: the agents.
    :param digest: the snapshot digest.
    :param snapshot: the snapshot JSON.
    :return: one RegistrySnapshotPayload per participant with the same values.
    """
    return {
        p: RegistrySnapshotPayload(p, digest, snapshot) for p in sorted(participants)
    }


def catalogue_payloads(
    participants: FrozenSet[str], digest: Optional[str]
) -> Dict[str, BaseTxPayload]:
    """Build one CataloguePayload per participant with the same values.

    :param participants: the agents.
    :param digest: the catalogue digest.
    :return: one CataloguePayload per participant with the same values.
    """
    info = MECHS_INFO if digest else None
    tools = MECH_TOOLS if digest else None
    return {p: CataloguePayload(p, digest, info, tools) for p in sorted(participants)}


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

    def test_done_stores_digest_and_snapshot(self) -> None:
        """A threshold of equal snapshots: DONE, digest and snapshot stored."""
        self.run(
            snapshot_payloads(self.participants, SNAPSHOT_DIGEST, SNAPSHOT_JSON),
            Event.DONE,
            {
                "registry_snapshot_digest": SNAPSHOT_DIGEST,
                "registry_snapshot": SNAPSHOT_JSON,
            },
        )

    def test_none_when_registries_unreadable(self) -> None:
        """A threshold of agents could not read the chain: NONE, database unchanged."""
        self.run(snapshot_payloads(self.participants, None, None), Event.NONE, {})

    def test_stored_snapshot_decodes(self) -> None:
        """The typed property returns the RegistrySnapshot written by the round."""
        data = self.synchronized_data.update(
            registry_snapshot=SNAPSHOT_JSON, registry_snapshot_digest=SNAPSHOT_DIGEST
        )
        snapshot = SynchronizedData(db=data.db).registry_snapshot
        assert snapshot is not None and snapshot.block_number == 10
        assert snapshot.reads[0].digest == "0x" + "11" * 32

    def test_no_majority(self) -> None:
        """Every agent read something different: NO_MAJORITY."""
        test_round = RegistrySnapshotRound(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        for index, participant in enumerate(sorted(self.participants)):
            test_round.process_payload(
                RegistrySnapshotPayload(participant, str(index) * 64, SNAPSHOT_JSON)
            )
        result = test_round.end_block()
        assert result is not None and result[1] == Event.NO_MAJORITY


class TestFetchManifestsRound(_RoundTest):
    """FetchManifestsRound."""

    round_class = FetchManifestsRound

    def test_done_stores_catalogue_keys(self) -> None:
        """Equal catalogues: DONE with digest, mechs_info and mech_tools stored."""
        self.run(
            catalogue_payloads(self.participants, CATALOGUE_DIGEST),
            Event.DONE,
            {
                "catalogue_digest": CATALOGUE_DIGEST,
                "mechs_info": MECHS_INFO,
                "mech_tools": MECH_TOOLS,
            },
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
                CataloguePayload(participant, str(index) * 64, MECHS_INFO, MECH_TOOLS)
            )
        result = test_round.end_block()
        assert result is not None and result[1] == Event.NO_MAJORITY


@pytest.mark.parametrize(
    "round_cls, event, next_round",
    [
        (RegistrySnapshotRound, Event.DONE, FetchManifestsRound),
        (RegistrySnapshotRound, Event.NONE, FinishedWithoutUpdateRound),
        (RegistrySnapshotRound, Event.NO_MAJORITY, RegistrySnapshotRound),
        (RegistrySnapshotRound, Event.ROUND_TIMEOUT, RegistrySnapshotRound),
        (FetchManifestsRound, Event.DONE, FinishedCatalogueReadyRound),
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
