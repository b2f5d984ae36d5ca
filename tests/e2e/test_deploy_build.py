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

"""``autonomy deploy build`` of the tool metadata service: docker-compose and Kubernetes.

Build only. The docker-compose generator asks a Docker engine which subnets its networks
use (``Network.build``); there is no engine here, so that one query is answered by a stub
reporting no networks. Everything else is the real ``autonomy`` CLI on the real service,
fetched from a locked copy of ``packages/`` (``scripts.run_local.workspace``).
"""

import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, cast
from unittest import mock

import pytest
import yaml
from aea.helpers.env_vars import apply_env_variables
from click.testing import CliRunner

from scripts.run_local.workspace import fetch_local, new_key, prepare_registry

SERVICE = "mech_catalogue/tool_metadata"
SKILL_ID = "mech_catalogue/tool_metadata_chained_abci:0.1.0"
AGENTS = 4


@pytest.fixture(scope="module")
def service_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The service fetched from a locked copy of the repository's packages, with a keys file.

    :param tmp_path_factory: pytest's temporary folders.
    :return: the service folder (holds ``keys.json`` for four agents).
    """
    work = tmp_path_factory.mktemp("deploy")
    registry = prepare_registry(work)
    service = fetch_local(registry, "--service", SERVICE, work / "service")
    keys = []
    for _ in range(AGENTS):
        address, private_key = new_key()
        keys.append({"address": address, "private_key": private_key})
    (service / "keys.json").write_text(json.dumps(keys))
    return service


@pytest.fixture
def in_service_dir(
    service_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Run in the service folder (``autonomy deploy build`` reads ./service.yaml).

    :param service_dir: the fetched service.
    :param monkeypatch: pytest's monkeypatch.
    :yield: the service folder.
    """
    monkeypatch.chdir(service_dir)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    yield service_dir


def _deploy_build(*args: str) -> None:
    from autonomy.cli import cli  # pylint: disable=import-outside-toplevel

    no_networks = mock.MagicMock()
    no_networks.networks.list.return_value = []
    # No docker engine here, and the host's busy ports are not what these tests check:
    # autonomy moves a host port that is busy on this machine (another agent's 8001) to
    # the next free one, which made the port assertion fail at random. Both are stubbed.
    with (
        mock.patch(
            "autonomy.deploy.generators.docker_compose.base.get_docker_client",
            return_value=no_networks,
        ),
        mock.patch(
            "autonomy.deploy.generators.docker_compose.base.Port.is_port_available",
            return_value=True,
        ),
    ):
        result = CliRunner().invoke(
            cli, ["deploy", "build", "keys.json", *args], catch_exceptions=True
        )
    assert result.exit_code == 0, f"{result.output}\n{result.exception!r}"


def _env_file(path: Path) -> Dict[str, str]:
    pairs = (
        line.split("=", 1) for line in path.read_text().splitlines() if "=" in line
    )
    return dict(pairs)


def _service_skill_override(service_dir: Path) -> Dict[str, Any]:
    documents = list(yaml.safe_load_all((service_dir / "service.yaml").read_text()))
    return next(doc for doc in documents[1:] if doc.get("public_id") == SKILL_ID)


def test_docker_compose_deployment(in_service_dir: Path) -> None:
    """Four agents and four Tendermint nodes; each agent's parameters resolve to its own node."""
    _deploy_build("--o", "build_compose", "--docker")
    build = in_service_dir / "build_compose"
    compose = yaml.safe_load((build / "docker-compose.yaml").read_text())
    services = compose["services"]
    agents = sorted(name for name in services if "_abci_" in name)
    nodes = sorted(name for name in services if "_tm_" in name)
    assert len(agents) == AGENTS and len(nodes) == AGENTS
    override = _service_skill_override(in_service_dir)
    keys = json.loads((in_service_dir / "keys.json").read_text())
    for index, (agent, node) in enumerate(zip(agents, nodes)):
        assert services[agent]["image"].startswith("default_author/oar-tool_metadata:")
        env = _env_file(build / services[agent]["env_file"])
        assert env["CONNECTION_ABCI_CONFIG_HOST"] == agent
        applied = apply_env_variables(
            override, env, path=["skill", "tool_metadata_chained_abci"]
        )
        resolved: Dict[str, Any] = cast(Dict[str, Any], applied)["models"]["params"][
            "args"
        ]
        assert resolved["tendermint_url"] == f"http://{node}:26657"
        assert resolved["tendermint_com_url"] == f"http://{node}:8080"
        assert isinstance(resolved["registries"], list) and resolved["registries"]
        assert (
            build / "agent_keys" / f"agent_{index}" / "ethereum_private_key.txt"
        ).read_text().strip() == keys[index]["private_key"]
    ports: List[str] = [
        port for agent in agents for port in services[agent].get("ports", [])
    ]
    assert sorted(ports) == [f"{8000 + i}:8000" for i in range(AGENTS)]


def test_kubernetes_deployment(in_service_dir: Path) -> None:
    """One Deployment, Service and volume claim per agent, the agent's keys in its manifest."""
    _deploy_build("--o", "build_k8s", "--kubernetes")
    documents = [
        doc
        for doc in yaml.safe_load_all(
            (in_service_dir / "build_k8s" / "build.yaml").read_text()
        )
        if doc
    ]
    kinds: Dict[str, int] = {}
    for doc in documents:
        kinds[doc["kind"]] = kinds.get(doc["kind"], 0) + 1
    assert kinds.get("Deployment") == AGENTS
    assert kinds.get("Service") == AGENTS
    deployments = [doc for doc in documents if doc["kind"] == "Deployment"]
    for deployment in deployments:
        containers = deployment["spec"]["template"]["spec"]["containers"]
        images = {container["image"] for container in containers}
        assert any("oar-tool_metadata" in image for image in images)
        assert any("tendermint" in image for image in images)
