"""Publishing a manifest's digest on chain: decide, build the calls, check each step."""
