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

"""Run mech-client's own ``mechx tool schema`` against the devnet (run in mech-client's venv).

``python mechx_shim.py <ComplementaryServiceMetadata address> <kubo gateway> <tool id>``,
with ``MECHX_CHAIN_RPC`` set to the devnet's anvil. Two things differ from gnosis and
are the only ones replaced, because mech-client cannot be configured for them: the
contract's address (mech-client reads it from its packaged ``mechs.json``), and the
public IPFS gateway the contract's ``tokenURI`` names (not reachable here), which
becomes the devnet's kubo gateway. Everything else is mech-client 0.24.1 as published:
its CLI, its ``tokenURI`` read through web3 on anvil, its HTTP fetch and its display.
Imports nothing of this project.
"""

# pylint: disable=import-error  # mech-client lives in its own venv, not this one
import sys

from mech_client.domain.tools import manager

ADDRESS, GATEWAY, TOOL_ID = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
PUBLIC_GATEWAY = "https://gateway.autonolas.tech/ipfs/"

_init = manager.ToolManager.__init__
_get = manager.requests.get


def _devnet_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    _init(self, *args, **kwargs)
    self.mech_config.complementary_metadata_hash_address = ADDRESS


def _devnet_get(url, *args, **kwargs):  # type: ignore[no-untyped-def]
    if url.startswith(PUBLIC_GATEWAY):
        url = GATEWAY + "/ipfs/" + url[len(PUBLIC_GATEWAY) :]
    return _get(url, *args, **kwargs)


manager.ToolManager.__init__ = _devnet_init  # type: ignore[method-assign]
manager.requests.get = _devnet_get

from mech_client.cli.main import (  # noqa: E402  # pylint: disable=wrong-import-position
    cli,
)

sys.argv = ["mechx", "tool", "schema", TOOL_ID, "--chain-config", "gnosis"]
cli()  # pylint: disable=no-value-for-parameter
