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

"""The seed's mechs as publish targets, their owners' keys, and a manifest to publish.

Shared by the publish devnet tests (tests/devnet/publish_helpers.py) and
scripts/bench_publish.py. The seed (``scripts/devnet/seed.py``) already registers a
deployed service whose multisig is a real Gnosis Safe 1.3.0 (threshold 1, owned by the
service's agent instance), so ``isAbleChangeHash`` holds for that Safe and not for the
owner; :func:`deployed_service` finds it and the agent instance key.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from eth_account import Account
from eth_account.signers.local import LocalAccount
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive.generate import (
    generate_manifest,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
    REGISTRY_OLAS_AGENT,
)
from mech_catalogue_core.publish.publish import (
    PublishTarget,
)
from web3 import Web3

from mech_catalogue_cli.publisher.ipfs import IpfsApi
from mech_catalogue_cli.publisher.publisher import Publisher
from scripts.devnet.devnet import Devnet

TOOL_PACKAGES = (
    Path(__file__).resolve().parents[2]
    / "libs/mech-catalogue-core/mech_catalogue_core/tests/fixtures/tool_packages"
)

#: seed shape -> the mech each publish test updates (see scripts/devnet/seed.py SEED_PLAN)
SEED_SHAPES = {
    "olas": (REGISTRY_OLAS_AGENT, "tools+toolMetadata"),
    "legacy": (REGISTRY_LEGACY_MECH, "typed-kwargs"),
    "service": (REGISTRY_COMPLEMENTARY_SERVICE, "empty-template"),
    "safe_service": (
        REGISTRY_COMPLEMENTARY_SERVICE,
        "tools+toolMetadata+input.schema:set-by-safe",
    ),
}
REGISTRY_CONTRACTS = {
    REGISTRY_OLAS_AGENT: "AgentRegistry",
    REGISTRY_LEGACY_MECH: "LegacyMechAgentRegistry",
    REGISTRY_COMPLEMENTARY_SERVICE: "ComplementaryServiceMetadata",
}


@dataclass(frozen=True)
class SeededMech:
    """A mech of the seed to publish to.

    :param target: the registry and id.
    :param owner: the owner's account (the service owner for services).
    """

    target: PublishTarget
    owner: LocalAccount


def account(devnet: Devnet, role: str) -> LocalAccount:
    """Return the signing account of a devnet role.

    :param devnet: the devnet.
    :param role: e.g. ``owner_1``, ``stranger``.
    :return: the account.
    """
    return Account.from_key(  # pylint: disable=no-value-for-parameter
        devnet.info.accounts[role]["private_key"]
    )


def _role_of(devnet: Devnet, address: str) -> str:
    return next(
        role
        for role, entry in devnet.info.accounts.items()
        if entry["address"].lower() == address.lower()
    )


def target_for(devnet: Devnet, kind: str, mech_id: int) -> PublishTarget:
    """Build a target on the devnet's registry of ``kind``.

    :param devnet: the devnet.
    :param kind: a registry kind.
    :param mech_id: the id.
    :return: the target.
    """
    contracts = devnet.info.contracts
    return PublishTarget(
        kind,
        contracts[REGISTRY_CONTRACTS[kind]],
        mech_id,
        contracts["RegistriesManager"] if kind == REGISTRY_OLAS_AGENT else "",
    )


def seeded(devnet: Devnet, key: str) -> SeededMech:
    """Find a seeded mech by its key in :data:`SEED_SHAPES`.

    :param devnet: the devnet.
    :param key: ``olas``, ``legacy``, ``service`` or ``safe_service``.
    :return: the mech.
    """
    kind, shape = SEED_SHAPES[key]
    entry = next(
        e for e in devnet.info.registered if e.registry == kind and e.shape == shape
    )
    owner = entry.owner
    if kind == REGISTRY_COMPLEMENTARY_SERVICE:
        owner = devnet.info.services[str(entry.id)]["owner"]
    return SeededMech(
        target_for(devnet, kind, entry.id), account(devnet, _role_of(devnet, owner))
    )


def deployed_service(devnet: Devnet) -> Tuple[SeededMech, str, LocalAccount]:
    """Find the seed's deployed service, its Safe and the Safe's owner (the agent instance).

    :param devnet: the devnet.
    :return: (the service, its multisig address, the agent instance account).
    """
    mech = seeded(devnet, "safe_service")
    record = devnet.info.services[str(mech.target.mech_id)]
    safe = devnet.service_multisig(mech.target.mech_id)
    assert safe is not None and record["multisig"]
    instance = Account.from_key(  # pylint: disable=no-value-for-parameter
        record["agent_instances"][0]["private_key"]
    )
    return mech, safe, instance


def publisher(
    devnet: Devnet, w3: Optional[Web3] = None, ipfs: Optional[IpfsApi] = None
) -> Publisher:
    """Build a publisher on the devnet's anvil and kubo.

    :param devnet: the devnet.
    :param w3: another Web3 (e.g. a failing provider).
    :param ipfs: another IPFS API.
    :return: the publisher.
    """
    return Publisher(
        w3 or devnet.w3, ipfs or IpfsApi(devnet.info.ipfs_api_url), receipt_timeout=5
    )


def generated_manifest(
    name: str, overrides: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """Generate a manifest from the fixture tool packages (derive + generate, as the CLI does).

    :param name: the mech name (makes each test's manifest, hence digest, distinct).
    :param overrides: more overrides.
    :return: the manifest.
    """
    packages = [derive_package(TOOL_PACKAGES / n) for n in ("echo_tool", "typed_tool")]
    document, _ = generate_manifest(packages, {"name": name, **(overrides or {})})
    return document
