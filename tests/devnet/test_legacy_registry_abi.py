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

"""Our LegacyMechAgentRegistry's ABI is a subset of the real ai-registry-mech AgentRegistry's.

The expected signatures are in ``data/ai_registry_mech_agent_registry.signatures.json``:
one canonical line per function, event and error of valory-xyz/ai-registry-mech
abis/0.8.25/AgentRegistry.json (names, types, indexed flags, mutability, outputs).
"""

import json
import os
from pathlib import Path

import pytest

from scripts.devnet.solidity import compile_contracts

DATA = (
    Path(__file__).parent / "data" / "ai_registry_mech_agent_registry.signatures.json"
)
#: the project's shared reference folder, next to the repository (``../shared/reference``)
#: unless MECH_CATALOGUE_REFERENCE names another folder holding ``abis/``
REFERENCE_DIR = Path(
    os.environ.get(
        "MECH_CATALOGUE_REFERENCE",
        Path(__file__).resolve().parents[2].parent / "shared" / "reference",
    )
)
SHARED_REFERENCE = REFERENCE_DIR / "abis" / "ai-registry-mech.AgentRegistry.abi.json"

# What the real registry declares and we leave out, with why: these custom errors come
# from autonolas-registries' IErrorsRegistries (service and marketplace paths) and are
# never raised by the AgentRegistry's create/updateHash/getHashes/tokenURI.
OMITTED = {
    "error AgentInstanceRegistered(address operator)",
    "error AgentInstancesSlotsFilled(uint256 serviceId)",
    "error AgentNotInService(uint256 agentId,uint256 serviceId)",
    "error ComponentNotFound(uint256 componentId)",
    "error HashExists()",
    "error IncorrectAgentBondingValue(uint256 sent,uint256 expected,uint256 serviceId)",
    "error IncorrectRegistrationDepositValue(uint256 sent,uint256 expected,uint256 serviceId)",
    "error OnlyOwnServiceMultisig(address provided,address expected,uint256 serviceId)",
    "error OperatorHasNoInstances(address operator,uint256 serviceId)",
    "error Paused()",
    "error ServiceMustBeInactive(uint256 serviceId)",
    "error TransferFailed(address token,address from,address to,uint256 value)",
    "error UnauthorizedMultisig(address multisig)",
    "error WrongAgentId(uint256 agentId)",
    "error WrongArrayLength(uint256 numValues1,uint256 numValues2)",
    "error WrongOperator(uint256 serviceId)",
    "error WrongServiceState(uint256 state,uint256 serviceId)",
    "error WrongThreshold(uint256 currentThreshold,uint256 minThreshold,uint256 maxThreshold)",
}


def signature_line(entry: dict) -> str:
    """One canonical line for an ABI entry (the format of the data file).

    :param entry: a function, event or error of a JSON ABI.
    :return: e.g. ``function getHashes(uint256 agentId) view returns (uint256 numHashes,bytes32[] agentHashes)``.
    """
    inputs = ",".join(
        f"{i['type']}{' indexed' if i.get('indexed') else ''} {i.get('name', '')}".strip()
        for i in entry.get("inputs", [])
    )
    line = f"{entry['type']} {entry['name']}({inputs})"
    if entry["type"] == "function":
        outputs = ",".join(
            f"{o['type']} {o.get('name', '')}".strip() for o in entry["outputs"]
        )
        line += f" {entry['stateMutability']} returns ({outputs})"
    return line


def abi_lines(abi: list) -> set:
    """Canonical lines of every function, event and error.

    :param abi: a JSON ABI.
    :return: the set of lines.
    """
    return {
        signature_line(e) for e in abi if e["type"] in ("function", "event", "error")
    }


def test_every_signature_we_have_is_in_the_reference():
    """Nothing in our ABI differs from, or is missing in, the real one."""
    ours = abi_lines(compile_contracts()["LegacyMechAgentRegistry"]["abi"])
    reference = set(json.loads(DATA.read_text())["signatures"])
    assert ours - reference == set()


def test_we_omit_only_the_listed_errors():
    """All functions and events are implemented; only the documented errors are left out."""
    ours = abi_lines(compile_contracts()["LegacyMechAgentRegistry"]["abi"])
    reference = set(json.loads(DATA.read_text())["signatures"])
    assert reference - ours == OMITTED


def test_constructor_matches():
    """Same constructor as the real registry: (string _name, string _symbol, string _baseURI)."""
    (ctor,) = [
        e
        for e in compile_contracts()["LegacyMechAgentRegistry"]["abi"]
        if e["type"] == "constructor"
    ]
    assert [(i["type"], i["name"]) for i in ctor["inputs"]] == [
        ("string", "_name"),
        ("string", "_symbol"),
        ("string", "_baseURI"),
    ]


def test_data_file_matches_the_shared_reference_abi():
    """The signature data file was derived faithfully from the reference ABI (when it is available)."""
    if not SHARED_REFERENCE.is_file():
        pytest.skip(
            f"needs the shared reference ABI {SHARED_REFERENCE}: provide ../shared/reference "
            "next to the repository, or set MECH_CATALOGUE_REFERENCE to a folder holding "
            "abis/ai-registry-mech.AgentRegistry.abi.json"
        )
    data = json.loads(SHARED_REFERENCE.read_text())
    abi = data["abi"] if isinstance(data, dict) else data
    assert abi_lines(abi) == set(json.loads(DATA.read_text())["signatures"])
