"""Reading registries on chain: batched Multicall2 calls and the registry snapshot agents agree on."""
