"""The local devnet as the CLI's ``--devnet`` sees it: its state file and the rule that finds it.

The devnet itself (anvil, kubo, contracts, seeding) is developer tooling in
``scripts/devnet``; it writes ``devnet.json`` with :class:`state.DevnetInfo`, and the CLI
reads it back. Nothing here starts a process.
"""
