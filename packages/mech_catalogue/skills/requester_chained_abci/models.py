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

"""Models of the requester skill: every chained app's parameters, one shared state.

:class:`Params` is the catalogue's (``ToolMetadataParams`` with ``publish_*``), transaction
settlement's and mech-interact's (``MechParams``: ``use_mech_marketplace``,
``mech_marketplace_config``, ``multisend_address``, ``ipfs_address``...), plus the
requester's own, the task of each period (``mech_catalogue_core.catalogue.request_task``):
``requester_tool`` (the tool name to call) or ``requester_kind`` (a tool kind: the
catalogue's offer rule chooses the tool and mech; when set, it replaces the tool name),
``requester_prompt`` and ``requester_arguments`` (the typed arguments, a JSON object,
checked against the chosen tool's input schema each period), or instead of all four
``requester_task_file`` (a YAML or JSON task file, read each period).

:attr:`Params.price_token` replaces mech-interact's token fixed per chain
(``CHAIN_TO_PRICE_TOKEN``) with the token of the offer the agents agreed on this period.
"""

from types import NoneType
from typing import Any, Dict, Optional

from mech_catalogue_core.catalogue.request_payment import (
    REQUESTER_PAYMENT,
    RequestPayment,
)

from packages.mech_catalogue.skills.manifest_publish_abci.models import (
    ManifestPublishParams,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
)
from packages.mech_catalogue.skills.requester_chained_abci.composition import (
    RequesterChainedAbciApp,
)
from packages.mech_catalogue.skills.requester_chained_abci.consumer import (
    Event as RequesterEvent,
)
from packages.mech_catalogue.skills.tool_metadata_abci.models import (
    SharedState as ToolMetadataSharedState,
)
from packages.mech_catalogue.skills.tool_metadata_abci.parameters import require, take
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event as ToolMetadataEvent,
)
from packages.valory.skills.abstract_round_abci.models import (
    BenchmarkTool as BaseBenchmarkTool,
)
from packages.valory.skills.abstract_round_abci.models import Requests as BaseRequests
from packages.valory.skills.mech_interact_abci.models import (
    MechParams,
)
from packages.valory.skills.mech_interact_abci.models import (
    MechResponseSpecs as BaseMechResponseSpecs,
)
from packages.valory.skills.mech_interact_abci.models import (
    MechsSubgraph as BaseMechsSubgraph,
)
from packages.valory.skills.mech_interact_abci.models import (
    MechToolsSpecs as BaseMechToolsSpecs,
)
from packages.valory.skills.mech_interact_abci.models import (
    SharedState as MechInteractSharedState,
)
from packages.valory.skills.mech_interact_abci.states.base import (
    Event as MechInteractEvent,
)
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
RandomnessApi = TransactionSettlementRandomnessApi
MechResponseSpecs = BaseMechResponseSpecs
MechsSubgraph = BaseMechsSubgraph
MechToolsSpecs = BaseMechToolsSpecs

#: seconds added to the reset-and-pause round's timeout (as the chained catalogue skill)
MARGIN = 5


class Params(
    ManifestPublishParams, TransactionParams, MechParams
):  # pylint: disable=too-many-ancestors
    """The catalogue's, settlement's and mech-interact's parameters, plus ``requester_*``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Read the ``requester_*`` parameters, then every chained app's.

        :param args: positional arguments of the model.
        :param kwargs: the ``args`` of the params model.
        """
        # mech-interact's MechParams logs through the skill context when this is unset,
        # before the context exists (it is set by the base model, later in the chain)
        require(
            bool(kwargs.get("mech_wrapped_native_token_address")),
            "mech_wrapped_native_token_address is not set: set it to the chain's wrapped "
            "native token (Gnosis: WXDAI 0xe91D153E0b41518A2Ce8Dd3D7944Fa863463a97d)",
        )
        self.requester_tool: Optional[str] = take(
            kwargs, "requester_tool", (str, NoneType)
        )
        self.requester_kind: Optional[str] = take(
            kwargs, "requester_kind", (str, NoneType), None
        )
        self.requester_task_file: Optional[str] = take(
            kwargs, "requester_task_file", (str, NoneType), None
        )
        self.requester_prompt: str = take(kwargs, "requester_prompt", str)
        self.requester_arguments: Dict[str, Any] = take(
            kwargs, "requester_arguments", dict
        )
        super().__init__(*args, **kwargs)

    @property
    def price_token(self) -> str:
        """The ERC-20 mech-interact approves and reads the Safe's balance of.

        mech-interact v0.32.3 fixes one token per chain (``CHAIN_TO_PRICE_TOKEN`` in its
        ``models.py``: OLAS on Ethereum, Gnosis and Celo; USDC on Optimism, Polygon and
        Base). Here it is the token of this period's agreed token payment
        (``requester_payment``: the tracker's ``token()``, read from the chain by
        ``ToolChoiceBehaviour``); without one, mech-interact's own.

        :return: the token address, EIP-55 case (mech-interact's ``KeyError`` for a
            chain it has no token for, when no token payment was agreed).
        """
        data = self.context.state.synchronized_data
        payment = RequestPayment.from_json(data.db.get(REQUESTER_PAYMENT, None))
        if payment is not None and payment.by_token:
            return payment.token_checksum
        return str(super().price_token)


class SharedState(
    ToolMetadataSharedState, MechInteractSharedState
):  # pylint: disable=too-many-ancestors
    """The catalogue's shared state (agreed catalogue) and mech-interact's (penalties)."""

    abci_app_cls = RequesterChainedAbciApp  # type: ignore[assignment]

    def setup(self) -> None:
        """Set up the round sequence and every chained app's timeouts from the parameters.

        mech-interact's ``ROUND_TIMEOUT`` bounds its response round: a mech that has not
        delivered within ``mech_marketplace_config.response_timeout`` seconds sends the
        period to ``FinishedMechResponseTimeoutRound`` (then reset and pause).
        """
        super().setup()
        params = self.context.params
        timeouts = RequesterChainedAbciApp.event_to_timeout
        timeouts[ToolMetadataEvent.ROUND_TIMEOUT] = params.round_timeout_seconds
        timeouts[ToolMetadataEvent.FETCH_TIMEOUT] = params.fetch_round_timeout_seconds
        timeouts[ToolMetadataEvent.SNAPSHOT_TIMEOUT] = (
            params.snapshot_round_timeout_seconds
        )
        timeouts[ResetPauseEvent.RESET_AND_PAUSE_TIMEOUT] = (
            params.reset_pause_duration + MARGIN
        )
        timeouts[PublishEvent.ROUND_TIMEOUT] = params.round_timeout_seconds
        timeouts[RequesterEvent.ROUND_TIMEOUT] = params.round_timeout_seconds
        timeouts[MechInteractEvent.ROUND_TIMEOUT] = float(
            params.mech_marketplace_config.response_timeout
        )
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
