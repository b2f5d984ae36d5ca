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

"""``server.json``: the MCP Registry entry says what the package and its command are.

The registry's schema (``$schema``, 2025-12-11, the current one) is published at
static.modelcontextprotocol.io and is not in this repository or its dependencies, so it is
not available offline: :func:`test_server_json_against_the_registry_schema` validates
against it when ``$MCP_SERVER_SCHEMA`` names a local copy, and is skipped (saying so)
otherwise. What the schema cannot see is checked here always: the entry and the package
agree (name, version, the ``mcp-name`` marker PyPI ownership is verified by), and every
argument and variable it lists is one ``mech-catalogue mcp`` takes.
"""

import copy
import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Callable, Dict, List

import click
import jsonschema
import pytest

from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.mcp_cmd import KEY_ENV
from scripts.toolchain import REPO_ROOT

SERVER_JSON = REPO_ROOT / "server.json"
#: the registry's current server.json schema (modelcontextprotocol/registry,
#: docs/reference/server-json/CHANGELOG.md)
SCHEMA_URL = (
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
)
SCHEMA_ENV = "MCP_SERVER_SCHEMA"
#: the official registry's limits (its schema: ServerDetail name pattern, description)
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
MAX_DESCRIPTION = 100
#: what the package's README must carry for the registry to accept a PyPI package
MCP_NAME_MARKER = re.compile(r"mcp-name:\s*(\S+)")


def _load() -> Dict[str, Any]:
    return json.loads(SERVER_JSON.read_text(encoding="utf-8"))


def _project() -> Dict[str, Any]:
    pyproject = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return dict(tomllib.loads(pyproject)["project"])


def _mcp_options() -> List[str]:
    command = cli.get_command(click.Context(cli), "mcp")
    assert command is not None
    return [option for param in command.params for option in param.opts]


def problems(entry: Dict[str, Any]) -> List[str]:
    """Return where a server.json entry and the package disagree.

    :param entry: the decoded server.json.
    :return: one line per disagreement; empty when they agree.
    """
    project = _project()
    found = []
    if entry.get("$schema") != SCHEMA_URL:
        found.append(f"$schema is not {SCHEMA_URL}")
    if not NAME_PATTERN.match(entry.get("name", "")):
        found.append("name is not namespace/name")
    if len(entry.get("description", "")) > MAX_DESCRIPTION:
        found.append(f"description is over {MAX_DESCRIPTION} characters")
    readme = (REPO_ROOT / project["readme"]).read_text(encoding="utf-8")
    if MCP_NAME_MARKER.findall(readme) != [entry.get("name")]:
        found.append("README.md's mcp-name marker is not the entry's name")
    if entry.get("version") != project["version"]:
        found.append("version is not the package's")
    for package in entry.get("packages", []):
        found += _package_problems(package, project)
    return found


def _package_problems(package: Dict[str, Any], project: Dict[str, Any]) -> List[str]:
    found = []
    if (package.get("registryType"), package.get("identifier")) != (
        "pypi",
        project["name"],
    ):
        found.append("the package is not the PyPI distribution of pyproject.toml")
    if package.get("version") != project["version"]:
        found.append("the package version is not pyproject.toml's")
    if package.get("transport") != {"type": "stdio"}:
        found.append("the transport is not stdio")
    arguments = package.get("packageArguments", [])
    if not arguments or arguments[0] != {**arguments[0], "type": "positional"}:
        found.append("the first argument is not the positional command")
    elif arguments[0].get("value") != "mcp":
        found.append("the first argument is not `mcp`")
    options = _mcp_options()
    for argument in arguments[1:]:
        if argument.get("name") not in options:
            found.append(f"{argument.get('name')} is not an option of `mcp`")
    for variable in package.get("environmentVariables", []):
        if variable.get("name") != KEY_ENV or not variable.get("isSecret"):
            found.append(f"{variable.get('name')} is not mcp's secret key variable")
    return found


def test_server_json_agrees_with_the_package() -> None:
    """The entry names the package's PyPI name and version, and `mcp`'s real options."""
    assert not problems(_load())


def _renamed_option(entry: Dict[str, Any]) -> None:
    entry["packages"][0]["packageArguments"][1]["name"] = "--agent-url"


def _other_version(entry: Dict[str, Any]) -> None:
    entry["packages"][0]["version"] = "0.2.0"


def _key_not_secret(entry: Dict[str, Any]) -> None:
    entry["packages"][0]["environmentVariables"][0]["isSecret"] = False


def _long_description(entry: Dict[str, Any]) -> None:
    entry["description"] = "Olas mechs " * 10


def _other_command(entry: Dict[str, Any]) -> None:
    entry["packages"][0]["packageArguments"][0]["value"] = "serve"


def _other_name(entry: Dict[str, Any]) -> None:
    entry["name"] = "io.github.someone/mech-catalogue"


@pytest.mark.parametrize(
    "drift,expected",
    [
        (_renamed_option, "--agent-url is not an option of `mcp`"),
        (_other_version, "the package version is not pyproject.toml's"),
        (_key_not_secret, "is not mcp's secret key variable"),
        (_long_description, "description is over 100 characters"),
        (_other_command, "the first argument is not `mcp`"),
        (_other_name, "mcp-name marker is not the entry's name"),
    ],
)
def test_each_kind_of_drift_is_named(
    drift: Callable[[Dict[str, Any]], None], expected: str
) -> None:
    """An entry that drifts from the package fails, naming how.

    :param drift: changes a copy of the entry.
    :param expected: part of the problem it must be reported as.
    """
    entry = copy.deepcopy(_load())
    drift(entry)
    assert any(expected in problem for problem in problems(entry)), problems(entry)


def test_server_json_against_the_registry_schema() -> None:
    """Valid under the registry's own schema, when a copy of it is at hand."""
    path = os.environ.get(SCHEMA_ENV)
    if not path or not Path(path).is_file():
        pytest.skip(
            f"the registry schema ({SCHEMA_URL}) is not available offline: set "
            f"${SCHEMA_ENV} to a downloaded copy to validate server.json against it"
        )
    schema = json.loads(Path(path).read_text(encoding="utf-8"))
    assert (
        schema.get("$id") == SCHEMA_URL
    ), f"{path} is not the schema server.json names"
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    assert [error.message for error in validator.iter_errors(_load())] == []
