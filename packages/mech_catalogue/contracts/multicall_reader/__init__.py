"""A raw ``eth_call`` to Multicall2, returning bytes the skill's domain code decodes."""

from aea.configurations.base import PublicId

PUBLIC_ID = PublicId.from_str("mech_catalogue/multicall_reader:0.1.0")
