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

"""The round behaviour of the ToolMetadataAbciApp."""

from typing import Set, Type

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.share_views import (
    ShareViewsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.rounds import ToolMetadataAbciApp
from packages.valory.skills.abstract_round_abci.behaviours import (
    AbstractRoundBehaviour,
    BaseBehaviour,
)


class ToolMetadataRoundBehaviour(AbstractRoundBehaviour):
    """Runs the registry snapshot, manifest fetch and views sharing behaviours."""

    initial_behaviour_cls = RegistrySnapshotBehaviour
    abci_app_cls = ToolMetadataAbciApp
    behaviours: Set[Type[BaseBehaviour]] = {  # type: ignore[assignment]
        RegistrySnapshotBehaviour,
        FetchManifestsBehaviour,
        ShareViewsBehaviour,
    }
