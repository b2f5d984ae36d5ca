"""Run the tool metadata agent(s) against the local devnet: ``python -m scripts.run_local``.

One agent with the abci connection's mock Tendermint (default), or four agents, each with
its own Tendermint 0.34.19 node, reaching consensus (``--agents 4``). See docs/running.md.
"""
