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

"""The composed round behaviour of the chained app."""

from typing import Set, Type

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.round_behaviour import (
    PublishRoundBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registration import (
    BoundedRegistrationBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.round_behaviour import (
    ToolMetadataRoundBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.composition import (
    ToolMetadataChainedAbciApp,
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
