"""The composed round behaviour of the chained app."""

from typing import Set, Type

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.round_behaviour import (
    PublishRoundBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.round_behaviour import (
    ToolMetadataRoundBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.composition import (
    ToolMetadataChainedAbciApp,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.registration import (
    BoundedRegistrationBehaviour,
)
from packages.valory.skills.abstract_round_abci.behaviours import (
    AbstractRoundBehaviour,
    BaseBehaviour,
)
from packages.valory.skills.registration_abci.behaviours import (
    RegistrationStartupBehaviour,
)
from packages.valory.skills.reset_pause_abci.behaviours import (
    ResetPauseABCIConsensusBehaviour,
)
from packages.valory.skills.transaction_settlement_abci.behaviours import (
    TransactionSettlementRoundBehaviour,
)


class ToolMetadataConsensusBehaviour(AbstractRoundBehaviour):
    """Runs the behaviours of registration, tool metadata, publish, transaction settlement and reset-and-pause."""

    initial_behaviour_cls = RegistrationStartupBehaviour
    abci_app_cls = ToolMetadataChainedAbciApp
    behaviours: Set[Type[BaseBehaviour]] = {
        RegistrationStartupBehaviour,
        BoundedRegistrationBehaviour,  # the framework's, with a bounded payload
        *ToolMetadataRoundBehaviour.behaviours,
        *PublishRoundBehaviour.behaviours,
        *TransactionSettlementRoundBehaviour.behaviours,
        *ResetPauseABCIConsensusBehaviour.behaviours,
    }
