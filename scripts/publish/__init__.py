"""Publishing a mech's manifest from outside the agent: kubo's API + web3 over the pure
:mod:`packages.mech_catalogue.skills.tool_metadata_abci.domain.publish` steps.

Used by the CLI's ``publish`` command and by the devnet tests; the skill's FSM branch runs
the same domain steps through the IPFS and ledger connections.
"""
