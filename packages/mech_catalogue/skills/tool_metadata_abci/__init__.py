"""Tool metadata for Olas mechs: read registries, fetch and verify manifests, agree, expose."""

from aea.configurations.base import PublicId

PUBLIC_ID = PublicId.from_str("mech_catalogue/tool_metadata_abci:0.1.0")
