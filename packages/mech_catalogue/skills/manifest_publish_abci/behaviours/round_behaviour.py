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
