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

"""docs/mcp.md tells a new user about uvx's cold start and the client's minimal environment.

The environment a stdio client passes is read from the MCP SDK itself
(``mcp.client.stdio.DEFAULT_INHERITED_ENV_VARS``): the doc must name what it passes and
show an ``env`` block, in JSON a client accepts, for what it does not (a proxy, a CA).
"""

import json
import re
from typing import Any, List

from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

from scripts.toolchain import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")


def json_blocks() -> List[Any]:
    """Every ```json block of docs/mcp.md, decoded.

    :return: the decoded values.
    """
    return [json.loads(b) for b in re.findall(r"```json\n(.*?)```", DOC, re.DOTALL)]


def test_the_cold_uvx_start_is_said_with_how_to_warm_it() -> None:
    """About 80 packages, about 12 s, and the --help warm-up with the same --from."""
    note = DOC[DOC.index("uvx's first launch is slow") :][:900]
    assert "80 packages" in note and "12 s" in note
    assert re.search(
        r"uvx --python 3\.11 .*\n.*--from \S+\.whl mech-catalogue --help", note
    )


def test_env_is_shown_for_what_the_client_does_not_pass() -> None:
    """The SDK passes none of the proxy and CA variables; the doc's env gives them."""
    inherited = set(DEFAULT_INHERITED_ENV_VARS)
    wanted = {"HTTPS_PROXY", "NO_PROXY", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"}
    assert not inherited & wanted
    envs = [
        server["env"]
        for block in json_blocks()
        for servers in (block.get("servers") or block.get("mcpServers") or {},)
        for server in servers.values()
        if "env" in server
    ]
    assert envs and wanted <= set(envs[0])
    for name in sorted(inherited):  # what the SDK passes on this platform is named
        assert f"`{name}`" in DOC
