"""Publishing a mech's manifest from outside the agent (kubo's API + web3).

The steps are the pure ones of
:mod:`packages.mech_catalogue.skills.tool_metadata_abci.domain.publish.publish`.

Used by the CLI's ``publish`` command and by the devnet tests; the skill's FSM branch runs
the same domain steps through the IPFS and ledger connections.
"""
