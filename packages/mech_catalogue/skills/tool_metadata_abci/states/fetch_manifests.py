"""FetchManifestsRound: agree on the catalogue built from the agreed snapshot."""

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import CataloguePayload
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    CollectSameUntilThresholdRound,
    get_name,
)


class FetchManifestsRound(CollectSameUntilThresholdRound):
    """Collect the same catalogue digest (and its mech-interact views) from a threshold."""

    payload_class = CataloguePayload
    synchronized_data_class = SynchronizedData
    done_event = Event.DONE
    none_event = Event.NONE
    no_majority_event = Event.NO_MAJORITY
    collection_key = get_name(SynchronizedData.participant_to_catalogue)
    selection_key = (
        get_name(SynchronizedData.catalogue_digest),
        get_name(SynchronizedData.mechs_info),
        get_name(SynchronizedData.mech_tools),
    )
