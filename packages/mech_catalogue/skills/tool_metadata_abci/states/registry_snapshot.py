"""RegistrySnapshotRound: agree on every configured id's latest on-chain digest."""

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    CollectSameUntilThresholdRound,
    get_name,
)


class RegistrySnapshotRound(CollectSameUntilThresholdRound):
    """Collect the same registry snapshot from a threshold of agents.

    DONE stores the block and the digest (each agent keeps its own snapshot, keyed by
    the digest); NONE (a threshold could not read the registries) leaves the database
    as it was.
    """

    payload_class = RegistrySnapshotPayload
    synchronized_data_class = SynchronizedData
    done_event = Event.DONE
    none_event = Event.NONE
    no_majority_event = Event.NO_MAJORITY
    collection_key = get_name(SynchronizedData.participant_to_snapshot)
    selection_key = (
        get_name(SynchronizedData.registry_snapshot_block),
        get_name(SynchronizedData.registry_snapshot_digest),
    )
