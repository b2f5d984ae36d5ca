"""End-to-end tests: the tool metadata agent(s) running against the devnet."""
