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

"""The round behaviour of the PublishManifestAbciApp."""

from typing import Set, Type

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.prepare import (
    PublishPrepareBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.tx import (
    PublishTxBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.upload import (
    PublishUploadBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.rounds import (
    PublishManifestAbciApp,
)
from packages.valory.skills.abstract_round_abci.behaviours import (
    AbstractRoundBehaviour,
    BaseBehaviour,
)


class PublishRoundBehaviour(AbstractRoundBehaviour):
    """Runs prepare -> upload -> build the Safe transaction."""

    initial_behaviour_cls = PublishPrepareBehaviour
    abci_app_cls = PublishManifestAbciApp
    behaviours: Set[Type[BaseBehaviour]] = {  # type: ignore[assignment]
        PublishPrepareBehaviour,
        PublishUploadBehaviour,
        PublishTxBehaviour,
    }
