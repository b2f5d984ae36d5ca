"""Publish the service's tool manifest on chain: generate, upload and verify it, then build the Safe transaction."""

from aea.configurations.base import PublicId

PUBLIC_ID = PublicId.from_str("mech_catalogue/manifest_publish_abci:0.1.0")
