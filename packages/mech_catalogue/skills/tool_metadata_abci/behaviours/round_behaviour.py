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
