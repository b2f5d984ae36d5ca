"""The tool metadata service's skill: registration -> tool metadata -> reset and pause, repeated."""

from aea.configurations.base import PublicId

PUBLIC_ID = PublicId.from_str("mech_catalogue/tool_metadata_chained_abci:0.1.0")
