"""FetchManifestsRound: agree on the catalogue built from the agreed snapshot."""

from enum import Enum
from typing import Optional, Tuple, cast

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import CataloguePayload
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseSynchronizedData,
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

    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """End the block; on DONE, let the skill publish its catalogue if it is the agreed one.

        Publishing only touches this agent's ``shared_state``, never the replicated data.

        :return: the new synchronized data and event, or None while collecting.
        """
        result = super().end_block()
        if (
            result is not None
            and result[1] == self.done_event
            and self.context is not None
        ):
            data = cast(SynchronizedData, result[0])
            self.context.state.publish_if_agreed(
                data.catalogue_digest, data.period_count
            )
        return result
