"""Fault-injection tests: chain and IPFS faults against the skill's period (issue 7)."""
