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

"""Models of the manifest publish skill: its parameters and shared state.

The skill depends on tool_metadata_abci (the behaviours read the registry through its
Multicall2 reader and generate the manifest with its domain library), so its parameters
extend :class:`ToolMetadataParams` with the ``publish_*`` ones (``params.py``).
"""

from typing import Any

from packages.mech_catalogue.skills.manifest_publish_abci.params import (
    PublishSettings,
    read_publish_settings,
)
from packages.mech_catalogue.skills.manifest_publish_abci.rounds import (
    PublishManifestAbciApp,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
)
from packages.mech_catalogue.skills.tool_metadata_abci.models import ToolMetadataParams
from packages.valory.skills.abstract_round_abci.models import (
    BenchmarkTool as BaseBenchmarkTool,
)
from packages.valory.skills.abstract_round_abci.models import Requests as BaseRequests
from packages.valory.skills.abstract_round_abci.models import (
    SharedState as BaseSharedState,
)

Requests = BaseRequests
BenchmarkTool = BaseBenchmarkTool


class ManifestPublishParams(ToolMetadataParams):  # pylint: disable=too-many-ancestors
    """The tool metadata parameters plus ``publish_*`` (read by :func:`read_publish_settings`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Pop and validate the ``publish_*`` parameters, then read the rest.

        :param args: positional arguments of the model.
        :param kwargs: the ``args`` of the params model.
        """
        # on_chain_service_id stays in kwargs for BaseParams
        self.publish: PublishSettings = read_publish_settings(
            kwargs, kwargs.get("on_chain_service_id")
        )
        super().__init__(*args, **kwargs)


Params = ManifestPublishParams


class SharedState(BaseSharedState):
    """The shared state of the skill run alone (its app's round timeout from ``round_timeout_seconds``)."""

    abci_app_cls = PublishManifestAbciApp

    def setup(self) -> None:
        """Set up the round sequence and the round timeout."""
        super().setup()
        PublishManifestAbciApp.event_to_timeout[PublishEvent.ROUND_TIMEOUT] = (
            self.context.params.round_timeout_seconds
        )
