"""Transaction payloads of the ToolMetadataAbciApp.

Payloads carry digests and small canonical JSON only; the catalogue itself never crosses
the network (every agent rebuilds it from the agreed snapshot and content-addressed bytes).
"""

from dataclasses import dataclass
from typing import Optional

from packages.valory.skills.abstract_round_abci.base import BaseTxPayload


@dataclass(frozen=True)
class RegistrySnapshotPayload(BaseTxPayload):
    """What one agent read from the registries.

    :param snapshot_digest: sha2-256 hex of the canonical snapshot; None when the registries
        could not be read (RPC down, wrong Multicall2 address).
    :param snapshot: the canonical snapshot JSON (``domain.snapshot.RegistrySnapshot.to_json``,
        about 78 bytes per id); None together with the digest.
    """

    snapshot_digest: Optional[str]
    snapshot: Optional[str]


@dataclass(frozen=True)
class CataloguePayload(BaseTxPayload):
    """The catalogue one agent built from the agreed snapshot.

    :param catalogue_digest: sha2-256 hex of the canonical catalogue (``Catalogue.digest``).
    :param mechs_info: canonical JSON list, mech-interact ``MechInfo``-compatible (see
        ``views.mechs_info_view``).
    :param mech_tools: canonical JSON list of the distinct tool names, sorted.
    """

    catalogue_digest: Optional[str]
    mechs_info: Optional[str]
    mech_tools: Optional[str]
