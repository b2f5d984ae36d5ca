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

"""The devnet's state file, ``.devnet/devnet.json``: what runs where, and what is registered."""

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from mech_catalogue_cli.folders import DEFAULTS

#: ``make devnet-up``'s folder: ``.devnet`` in a checkout, ``<user state>/devnet`` installed
DEFAULT_STATE_DIR = DEFAULTS.devnet
STATE_FILE = "devnet.json"

# Registry kinds, as recorded in RegisteredManifest.registry
OLAS_AGENT_REGISTRY = "olas_agent_registry"
LEGACY_MECH_REGISTRY = "legacy_mech_registry"
COMPLEMENTARY_SERVICE_METADATA = "complementary_service_metadata"


@dataclass
class RegisteredManifest:
    """One manifest hash written to a registry by the devnet.

    :param registry: ``olas_agent_registry`` (id = agent id), ``legacy_mech_registry``
        (id = legacy agent id) or ``complementary_service_metadata`` (id = service id).
    :param id: the agent id or service id.
    :param owner: the account that created or changed it.
    :param cid: base32 CIDv1 of the manifest in kubo.
    :param digest: the 32-byte sha2-256 digest written on chain, 0x hex.
    :param shape: what the manifest exercises (e.g. ``tools+toolMetadata``, ``broken:invalid-json``).
    :param fixture: the file under ``scripts/devnet/fixtures/`` it was made from.
    :param action: ``create`` (first hash) or ``update`` (a later hash).
    :param raw_leaves: whether it was added with raw leaves (its CID is raw-codec, bafkrei...).
    """

    registry: str
    id: int
    owner: str
    cid: str
    digest: str
    shape: str
    fixture: str
    action: str
    raw_leaves: bool = False


@dataclass
class DevnetInfo:  # pylint: disable=too-many-instance-attributes
    """Everything a client needs to use a running devnet (the content of ``devnet.json``).

    ``ipfs_api_multiaddr`` (``/ip4/127.0.0.2/tcp/<port>/http``) is the form the
    ``valory/ipfs`` connection and open-aea's ``IPFSTool`` take.

    Accounts are anvil's well-known test keys (public; devnet only), by role:
    ``deployer`` owns every registry, ``owner_1``..``owner_3`` own mechs/services,
    ``operator`` registers agent instances, ``stranger`` owns nothing.
    """

    state_dir: str
    chain_id: int
    rpc_url: str
    anvil_pid: int
    ipfs_api_url: str
    ipfs_api_multiaddr: str
    ipfs_gateway_url: str
    ipfs_pid: int
    ipfs_path: str
    accounts: Dict[str, Dict[str, Any]]
    contracts: Dict[str, str]
    registered: List[RegisteredManifest] = field(default_factory=list)
    services: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    mechs: List[Dict[str, Any]] = field(default_factory=list)
    startup_seconds: Optional[float] = None
    startup_phases: Dict[str, float] = field(default_factory=dict)

    def address(self, role: str) -> str:
        """Return the address of an account role.

        :param role: e.g. ``deployer``, ``owner_1``, ``stranger``.
        :return: the checksummed address (``KeyError`` for an unknown role).
        """
        return str(self.accounts[role]["address"])

    def save(self) -> Path:
        """Write ``devnet.json`` into :attr:`state_dir`.

        :return: the file path.
        """
        path = Path(self.state_dir) / STATE_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2))
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, state_dir: Path = DEFAULT_STATE_DIR) -> "DevnetInfo":
        """Read ``devnet.json``.

        :param state_dir: the devnet state folder.
        :return: the info (``FileNotFoundError`` when no devnet was started there).
        """
        data = json.loads((Path(state_dir) / STATE_FILE).read_text())
        data["registered"] = [
            RegisteredManifest(**entry) for entry in data.get("registered", [])
        ]
        return cls(**data)
