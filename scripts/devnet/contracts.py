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

"""Load the real registry artifacts from the installed wheels and deploy the stack.

Artifact sources (never copied into git):

- the open-autonomy wheel installs ``packages/valory/contracts/<package>/build/*.json``
  into the venv's site-packages;
- ``ComplementaryServiceMetadata`` ships in the mech-server wheel and reaches the
  repository's synced (git-ignored) ``packages/valory/contracts/`` through
  ``scripts/sync_packages.py``; that folder is the fallback for every artifact.

Our own contracts (legacy mech registry, service multisig factory) are compiled by
:mod:`scripts.devnet.solidity`.
"""

import json
import sysconfig
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from web3 import Web3
from web3.contract import Contract

from scripts.devnet.solidity import compile_contracts
from scripts.toolchain import REPO_ROOT

BASE_URI = "https://gateway.autonolas.tech/ipfs/"

# contract name -> (package folder under packages/valory/contracts, artifact file)
ARTIFACTS: Dict[str, tuple] = {
    "ComponentRegistry": ("component_registry", "ComponentRegistry.json"),
    "AgentRegistry": ("agent_registry", "AgentRegistry.json"),
    "RegistriesManager": ("registries_manager", "RegistriesManager.json"),
    "ServiceRegistryL2": ("service_registry", "ServiceRegistryL2.json"),
    "ComplementaryServiceMetadata": (
        "complementary_service_metadata",
        "ComplementaryServiceMetadata.json",
    ),
    "GnosisSafe": ("gnosis_safe", "GnosisSafe_V1_3_0.json"),
    "GnosisSafeProxyFactory": ("gnosis_safe_proxy_factory", "ProxyFactory_V1_3_0.json"),
    "MultiSend": ("multisend", "MultiSend.json"),
    "Multicall2": ("multicall2", "multicall2.json"),
    "MechMarketplace": ("mech_marketplace", "MechMarketplace.json"),
}
OWN_CONTRACTS = (
    "LegacyMechAgentRegistry",
    "ServiceSafeMultisig",
    "FixtureKarma",
    "FixtureBalanceTracker",
    "FixtureMechFactory",
    "FixtureMech",
    "FixtureLegacyMech",
    "FixtureLegacyMechFactory",
    "FixtureToken",
    "FixtureTokenBalanceTracker",
    "FixtureSubscriptionCredits",
    "FixtureNvmBalanceTracker",
)


# own contracts that live in a file of another name
_SOURCES = {
    name: "MarketplaceFixtures"
    for name in (
        "FixtureKarma",
        "FixtureBalanceTracker",
        "FixtureMechFactory",
        "FixtureMech",
        "FixtureLegacyMech",
        "FixtureLegacyMechFactory",
    )
} | {name: "TokenPayments" for name in ("FixtureToken", "FixtureTokenBalanceTracker")}
_SOURCES |= {
    name: "SubscriptionPayments"
    for name in ("FixtureSubscriptionCredits", "FixtureNvmBalanceTracker")
}


class ArtifactNotFound(RuntimeError):
    """A contract build artifact is in neither the installed wheels nor the synced packages."""


def artifact_dirs() -> List[Path]:
    """Folders searched for ``valory/contracts``, in order: venv site-packages, then the repo.

    :return: existing ``.../packages/valory/contracts`` folders.
    """
    candidates = [
        Path(sysconfig.get_paths()["purelib"]) / "packages" / "valory" / "contracts",
        REPO_ROOT / "packages" / "valory" / "contracts",
    ]
    return [path for path in candidates if path.is_dir()]


def strip_constructor_args(bytecode: str) -> str:
    """Drop constructor arguments a build artifact carries after its creation code.

    The open-autonomy wheel's MechMarketplace "bytecode" is a deployment transaction's
    input: creation code, then Gnosis chain's ServiceRegistryL2 and Karma addresses as
    constructor arguments. Solidity decodes arguments from the first bytes after the
    creation code, so arguments appended again at deployment would be ignored. The
    creation code ends with solc's CBOR metadata (``...64736f6c6343`` + 3 version bytes +
    the 2-byte length ``0033``); whatever follows is cut.

    :param bytecode: hex creation bytecode (0x-prefixed or not, as artifacts vary),
        possibly with arguments appended.
    :return: the 0x-prefixed creation code alone (the same code when nothing follows the
        metadata).
    """
    bytecode = bytecode if bytecode.startswith("0x") else "0x" + bytecode
    marker = bytecode.rfind("64736f6c6343")
    if marker < 0:
        return bytecode
    end = marker + len("64736f6c6343") + 6 + 4
    return bytecode[:end] if bytecode[end - 4 : end] == "0033" else bytecode


def load_artifact(name: str) -> Dict[str, Any]:
    """Return ``{"abi", "bytecode", "source"}`` of a contract.

    :param name: a key of :data:`ARTIFACTS` or :data:`OWN_CONTRACTS`.
    :return: the ABI list, the creation bytecode (0x hex) and where it came from.
    :raises ArtifactNotFound: naming the file and the command that installs it.
    """
    if name in OWN_CONTRACTS:
        compiled = compile_contracts()[name]
        return {
            "abi": compiled["abi"],
            "bytecode": compiled["bytecode"],
            "source": f"scripts/devnet/contracts/{_SOURCES.get(name, name)}.sol",
        }
    package, filename = ARTIFACTS[name]
    for base in artifact_dirs():
        path = base / package / "build" / filename
        if path.is_file():
            data = json.loads(path.read_text())
            return {
                "abi": data["abi"],
                "bytecode": strip_constructor_args(data["bytecode"]),
                "source": str(path),
            }
    raise ArtifactNotFound(
        f"{name}: build/{filename} of package valory/{package} is in neither the installed wheels nor "
        f"packages/valory; run `make sync` (or `make setup`)"
    )


def contract_at(w3: Web3, name: str, address: str) -> Contract:
    """Bind the ABI of ``name`` to a deployed address.

    :param w3: a connected Web3.
    :param name: a contract name.
    :param address: its address.
    :return: a web3 contract object.
    """
    return w3.eth.contract(
        address=Web3.to_checksum_address(address), abi=load_artifact(name)["abi"]
    )


def send(w3: Web3, call: Any, sender: str, value: int = 0) -> Any:
    """Send a contract call as ``sender`` (an unlocked anvil account) and wait for the receipt.

    :param w3: a connected Web3.
    :param call: a bound contract function, e.g. ``registry.functions.create(...)``.
    :param sender: the sending address.
    :param value: wei to attach.
    :return: the receipt.
    :raises RuntimeError: when the transaction was mined but failed (status 0).
    """
    tx_hash = call.transact({"from": sender, "value": value})
    receipt = w3.eth.wait_for_transaction_receipt(
        tx_hash, timeout=30, poll_latency=0.01
    )
    if receipt["status"] != 1:
        raise RuntimeError(f"transaction {tx_hash.hex()} from {sender} failed")
    return receipt


def deploy(w3: Web3, name: str, args: Sequence[Any], sender: str) -> str:
    """Deploy ``name`` with constructor ``args`` from ``sender``.

    :param w3: a connected Web3.
    :param name: a contract name.
    :param args: the constructor arguments.
    :param sender: the deployer address.
    :return: the checksummed address.
    """
    artifact = load_artifact(name)
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    receipt = send(w3, factory.constructor(*args), sender)
    return Web3.to_checksum_address(receipt["contractAddress"])


def deploy_stack(
    w3: Web3, deployer: str, legacy_manager: Optional[str] = None
) -> Dict[str, str]:
    """Deploy and wire the registry stack, all owned by ``deployer``.

    Wiring, as in autonolas-registries' deployment scripts:
    ComponentRegistry and AgentRegistry get RegistriesManager as manager
    (``changeManager``); ServiceRegistryL2 gets ``deployer`` as manager (on chain that is
    the ServiceManager), so ``deployer`` can create, activate, register and deploy
    services directly; the legacy mech registry gets ``legacy_manager`` (default
    ``deployer``; on chain that is the mech AgentFactory); ServiceSafeMultisig is
    whitelisted as multisig implementation (``changeMultisigPermission``).

    :param w3: a Web3 connected to anvil.
    :param deployer: the unlocked account deploying and owning everything.
    :param legacy_manager: the account allowed to create legacy mechs.
    :return: ``{contract name: address}``.
    """
    a: Dict[str, str] = {}
    a["ComponentRegistry"] = deploy(
        w3,
        "ComponentRegistry",
        ["Autonolas Component Registry", "AUTONOLAS-COMPONENT-V1", BASE_URI],
        deployer,
    )
    a["AgentRegistry"] = deploy(
        w3,
        "AgentRegistry",
        [
            "Autonolas Agent Registry",
            "AUTONOLAS-AGENT-V1",
            BASE_URI,
            a["ComponentRegistry"],
        ],
        deployer,
    )
    a["RegistriesManager"] = deploy(
        w3, "RegistriesManager", [a["ComponentRegistry"], a["AgentRegistry"]], deployer
    )
    for registry in ("ComponentRegistry", "AgentRegistry"):
        send(
            w3,
            contract_at(w3, registry, a[registry]).functions.changeManager(
                a["RegistriesManager"]
            ),
            deployer,
        )

    a["ServiceRegistryL2"] = deploy(
        w3,
        "ServiceRegistryL2",
        ["Autonolas Service Registry", "AUTONOLAS-SERVICE-V1", BASE_URI],
        deployer,
    )
    service_registry = contract_at(w3, "ServiceRegistryL2", a["ServiceRegistryL2"])
    send(w3, service_registry.functions.changeManager(deployer), deployer)
    a["ComplementaryServiceMetadata"] = deploy(
        w3, "ComplementaryServiceMetadata", [a["ServiceRegistryL2"]], deployer
    )

    # The GnosisSafeL2 1.3.0 artifact's ABI declares an unnamed bytes32 constructor
    # input that its creation code never reads; a zero word satisfies the ABI.
    a["GnosisSafe"] = deploy(w3, "GnosisSafe", [b"\x00" * 32], deployer)
    a["GnosisSafeProxyFactory"] = deploy(w3, "GnosisSafeProxyFactory", [], deployer)
    a["MultiSend"] = deploy(w3, "MultiSend", [], deployer)
    a["Multicall2"] = deploy(w3, "Multicall2", [], deployer)
    a["ServiceSafeMultisig"] = deploy(
        w3,
        "ServiceSafeMultisig",
        [a["GnosisSafe"], a["GnosisSafeProxyFactory"]],
        deployer,
    )
    send(
        w3,
        service_registry.functions.changeMultisigPermission(
            a["ServiceSafeMultisig"], True
        ),
        deployer,
    )

    a["LegacyMechAgentRegistry"] = deploy(
        w3,
        "LegacyMechAgentRegistry",
        ["AI Agent Registry", "AI-AGENT-V1", BASE_URI],
        deployer,
    )
    legacy = contract_at(w3, "LegacyMechAgentRegistry", a["LegacyMechAgentRegistry"])
    send(w3, legacy.functions.changeManager(legacy_manager or deployer), deployer)
    return a
