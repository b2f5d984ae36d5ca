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

"""``derive --agent N`` / ``--component N``: from the chain to a component's code.

Against the real devnet: anvil with the Olas ComponentRegistry/AgentRegistry, kubo holding
component 1's tool package directory (its ``code_uri``); scripts/devnet/seed.py registers
every Olas agent with component 1 as dependency.
"""

import json
from typing import Any, Dict, List

from click.testing import CliRunner, Result

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from mech_catalogue_cli.app import cli
from scripts.devnet import Devnet

RAG_ARGUMENTS = {"prompt", "num_urls", "temperature", "model"}


def run(*args: Any) -> Result:
    """Return the result of one CLI call (stdout and stderr apart).

    :param args: command line.
    :return: the result.
    """
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _devnet(devnet: Devnet) -> List[str]:
    return ["--devnet", "--devnet-dir", devnet.info.state_dir]


def _tools(result: Result) -> Dict[str, Dict[str, Any]]:
    assert result.exit_code == EXIT_OK, result.output
    return {
        tool["name"]: tool
        for package in json.loads(result.stdout)
        for tool in package["tools"]
    }


def _names_only_agent(devnet: Devnet) -> int:
    (entry,) = [
        e
        for e in devnet.info.registered
        if e.registry == "olas_agent_registry" and e.shape == "tools-names-only"
    ]
    return entry.id


def test_component_on_the_devnet_is_derived_from_its_code(devnet: Devnet) -> None:
    """The ComponentRegistry -> metadata -> code_uri -> package in kubo -> typed arguments."""
    tools = _tools(run("--json", "derive", *_devnet(devnet), "--component", 1))
    rag = tools["prediction-request-rag"]
    arguments = {a["identifier"]: a for a in rag["arguments"]}
    assert set(arguments) == RAG_ARGUMENTS
    assert arguments["prompt"]["required"] and not arguments["model"]["required"]
    assert (arguments["num_urls"]["type"], arguments["temperature"]["type"]) == (
        "int",
        "float",
    )


def test_agent_is_derived_through_its_dependencies(devnet: Devnet) -> None:
    """The AgentRegistry getDependencies -> component 1: the same tool, the same arguments."""
    agent = _names_only_agent(devnet)
    by_agent = _tools(run("--json", "derive", *_devnet(devnet), "--agent", agent))
    by_component = _tools(run("--json", "derive", *_devnet(devnet), "--component", 1))
    assert by_agent == by_component and "prediction-request-rag" in by_agent


def test_explicit_rpc_and_registry_need_no_devnet(devnet: Devnet) -> None:
    """--rpc/--registry/--multicall/--ipfs-gateway alone give what --devnet gives."""
    info = devnet.info
    explicit = run(
        "--json",
        "derive",
        "--rpc",
        info.rpc_url,
        "--registry",
        info.contracts["ComponentRegistry"],
        "--multicall",
        info.contracts["Multicall2"],
        "--ipfs-gateway",
        info.ipfs_gateway_url,
        "--component",
        1,
    )
    assert _tools(explicit) == _tools(
        run("--json", "derive", *_devnet(devnet), "--component", 1)
    )


def test_unknown_component_and_wrong_registry_fail_clearly(devnet: Devnet) -> None:
    """No such component: exit 1 naming it; a registry that is not one: exit 1, what to check."""
    missing = run("derive", *_devnet(devnet), "--component", 999)
    assert missing.exit_code == EXIT_INVALID
    assert "component 999" in missing.stderr and "Nothing derived" in missing.stderr
    wrong = run(
        "derive",
        *_devnet(devnet),
        "--registry",
        devnet.info.contracts["Multicall2"],
        "--agent",
        1,
    )
    assert wrong.exit_code == EXIT_INVALID
    assert "--registry" in wrong.stderr and "Traceback" not in wrong.output


def test_component_whose_code_uri_is_not_ipfs_is_reported(
    chain_snapshot: Devnet,
) -> None:
    """A component metadata with an https code_uri: code_uri_missing, exit 1."""
    devnet = chain_snapshot
    metadata = {
        "name": "web/tool",
        "description": "Code on a web server.",
        "code_uri": "https://example.org/tool.tar.gz",
        "image": "",
        "attributes": [],
    }
    digest = devnet.add_manifest(json.dumps(metadata).encode())[1]
    component = devnet.register_olas_component(devnet.address("deployer"), digest)
    result = run("derive", *_devnet(devnet), "--component", component)
    assert result.exit_code == EXIT_INVALID
    assert "code_uri_missing" in result.stderr and "ipfs://" in result.stderr


def test_usage_errors_exit_2() -> None:
    """No source, both ids, or an id without chain options: usage errors (exit 2)."""
    assert run("derive").exit_code == EXIT_USAGE
    assert run("derive", "--agent", 1, "--component", 1).exit_code == EXIT_USAGE
    lonely = run("derive", "--component", 1)
    assert lonely.exit_code == EXIT_USAGE and "--rpc" in lonely.output
