"""RegistrySnapshotRound: every event."""

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.registry_snapshot import (
    RegistrySnapshotRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.round_case import (
    SNAPSHOT_DIGEST,
    _RoundTest,
    snapshot_payloads,
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
