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

"""Models of the chained skill: the tool metadata parameters and shared state, for the chain."""

from packages.mech_catalogue.skills.manifest_publish_abci.models import (
    ManifestPublishParams,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
)
from packages.mech_catalogue.skills.tool_metadata_abci.models import (
    SharedState as ToolMetadataSharedState,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event as ToolMetadataEvent,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.composition import (
    ToolMetadataChainedAbciApp,
)
from packages.valory.skills.abstract_round_abci.models import (
    BenchmarkTool as BaseBenchmarkTool,
)
from packages.valory.skills.abstract_round_abci.models import Requests as BaseRequests
from packages.valory.skills.reset_pause_abci.rounds import Event as ResetPauseEvent
from packages.valory.skills.transaction_settlement_abci.models import (
    RandomnessApi as TransactionSettlementRandomnessApi,
)
from packages.valory.skills.transaction_settlement_abci.models import TransactionParams
from packages.valory.skills.transaction_settlement_abci.rounds import (
    Event as TransactionSettlementEvent,
)

Requests = BaseRequests
BenchmarkTool = BaseBenchmarkTool

#: seconds added to ``reset_pause_duration`` before the reset-and-pause round times out
#: (the margin trader and mech use)
MARGIN = 5


RandomnessApi = TransactionSettlementRandomnessApi


class Params(
    ManifestPublishParams, TransactionParams
):  # pylint: disable=too-many-ancestors
    """The tool metadata and manifest publish parameters (publish_*) and transaction settlement's.

    registration_abci and reset_pause_abci read only BaseParams, which both extend.
    """


class SharedState(ToolMetadataSharedState):
    """The tool metadata shared state (manifest cache, exposed catalogue) for the chain."""

    abci_app_cls = ToolMetadataChainedAbciApp

    def setup(self) -> None:
        """Set up the round sequence and the chain's timeouts from the parameters."""
        super().setup()
        params = self.context.params
        timeouts = ToolMetadataChainedAbciApp.event_to_timeout
        timeouts[ToolMetadataEvent.ROUND_TIMEOUT] = params.round_timeout_seconds
        timeouts[ToolMetadataEvent.FETCH_TIMEOUT] = params.fetch_round_timeout_seconds
        timeouts[ToolMetadataEvent.SNAPSHOT_TIMEOUT] = (
            params.snapshot_round_timeout_seconds
        )
        timeouts[ResetPauseEvent.RESET_AND_PAUSE_TIMEOUT] = (
            params.reset_pause_duration + MARGIN
        )
        timeouts[PublishEvent.ROUND_TIMEOUT] = params.round_timeout_seconds
        timeouts[TransactionSettlementEvent.ROUND_TIMEOUT] = (
            params.round_timeout_seconds
        )
        timeouts[TransactionSettlementEvent.RESET_TIMEOUT] = (
            params.round_timeout_seconds
        )
        timeouts[TransactionSettlementEvent.FINALIZE_TIMEOUT] = params.finalize_timeout
        timeouts[TransactionSettlementEvent.VALIDATE_TIMEOUT] = params.validate_timeout
        timeouts[TransactionSettlementEvent.CHECK_TIMEOUT] = (
            params.history_check_timeout
        )
