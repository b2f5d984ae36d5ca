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

"""The agent and service packages expose every skill parameter as an environment variable."""

import re
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import yaml

from scripts.toolchain import REPO_ROOT

OWN = REPO_ROOT / "packages" / "mech_catalogue"
SKILL_ID = "mech_catalogue/tool_metadata_chained_abci:0.1.0"
NAMED = re.compile(r"^\$\{[A-Z0-9_]+:[a-z]+:.*\}$")
UNNAMED = re.compile(r"^\$\{[a-z]+:.*\}$")
#: filled per agent by `autonomy deploy build` through the path-named variable
DEPLOYMENT_FILLED = {"tendermint_url", "tendermint_com_url", "tendermint_p2p_url"}


def _documents(path: Path) -> List[Dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def _override(path: Path, public_id: str) -> Dict[str, Any]:
    return next(
        doc for doc in _documents(path)[1:] if doc.get("public_id") == public_id
    )


def _leaves(
    value: Any, prefix: Tuple[str, ...] = ()
) -> Iterator[Tuple[Tuple[str, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*prefix, str(key)))
    else:
        yield prefix, value


def _skill_parameters() -> Dict[str, Any]:
    skill = yaml.safe_load(
        (OWN / "skills" / "tool_metadata_chained_abci" / "skill.yaml").read_text()
    )
    return dict(skill["models"]["params"]["args"])


def test_chained_skill_has_every_tool_metadata_parameter() -> None:
    """The chained skill's params carry every parameter the tool metadata skill declares."""
    base = yaml.safe_load(
        (OWN / "skills" / "tool_metadata_abci" / "skill.yaml").read_text()
    )
    assert set(base["models"]["params"]["args"]) <= set(_skill_parameters())


def test_agent_overrides_every_parameter_with_a_named_variable() -> None:
    """aea-config.yaml: each parameter (and each setup field) is ``${NAME:type:default}``."""
    args = _override(OWN / "agents" / "tool_metadata" / "aea-config.yaml", SKILL_ID)[
        "models"
    ]["params"]["args"]
    assert set(args) == set(_skill_parameters())
    for path, value in _leaves(args):
        assert isinstance(value, str) and NAMED.match(
            value
        ), f"{'.'.join(path)} = {value!r} is not ${{NAME:type:default}}"


def test_service_overrides_every_parameter() -> None:
    """service.yaml: named variables, except what the deployment fills per agent."""
    args = _override(OWN / "services" / "tool_metadata" / "service.yaml", SKILL_ID)[
        "models"
    ]["params"]["args"]
    assert set(args) == set(_skill_parameters())
    for path, value in _leaves(args):
        pattern = UNNAMED if path[0] in DEPLOYMENT_FILLED else NAMED
        assert isinstance(value, str) and pattern.match(
            value
        ), f"{'.'.join(path)} = {value!r}"


def test_agent_runs_without_the_acn_client() -> None:
    """A non-null default connection, so `aea run --connections` can leave the ACN client out."""
    agent = _documents(OWN / "agents" / "tool_metadata" / "aea-config.yaml")[0]
    assert (
        agent["default_connection"]
        and "p2p_libp2p_client" not in agent["default_connection"]
    )
    assert any(
        connection.startswith("mech_catalogue/http_server:")
        for connection in agent["connections"]
    )
    abci = _override(
        OWN / "agents" / "tool_metadata" / "aea-config.yaml", "valory/abci:0.1.0"
    )["config"]
    assert abci["target_skill_id"] == SKILL_ID
    assert abci["use_mock"].startswith("${ABCI_USE_MOCK:bool:")
