# Copyright 2026 mech-catalogue contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

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
