"""A local devnet for mech-catalogue: anvil + the real Olas registry stack + kubo.

``make devnet-up`` (``python -m scripts.devnet up [--no-seed]``), ``make devnet-down``, or in
Python::

    from scripts.devnet import Devnet
    devnet = Devnet.start(seed=True)
    ...
    devnet.stop()

The state (ports, pids, addresses, accounts, seeded mechs) is written to
``.devnet/devnet.json`` (git-ignored); see :class:`mech_catalogue_cli.devnet.state.DevnetInfo`.
"""

from mech_catalogue_cli.devnet.state import DevnetInfo, RegisteredManifest
from scripts.devnet.devnet import Devnet, DevnetError

__all__ = ["Devnet", "DevnetError", "DevnetInfo", "RegisteredManifest"]
