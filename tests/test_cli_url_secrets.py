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

"""No command prints a key it was given in a URL (issue 29).

Every command that takes an RPC, IPFS API or gateway URL is run against a closed port of
this machine with a key in the URL's path, its userinfo and its query: the command fails
(nothing listens) and says so, naming host and port, and the key is in neither stdout,
stderr nor a log record. ``mcp`` has its own tests (``tests/test_redaction.py``,
``tests/devnet/test_mcp_url_secrets.py``); ``cid`` and ``generate`` take no URL.
"""

import json
import logging
import socket
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest
from click.testing import CliRunner

from mech_catalogue_cli import EXIT_OK, redaction
from mech_catalogue_cli.app import cli

#: the three places a provider puts its key, each with a key of its own
KEY = "Zk7keyQ4820194857abcdef"
URLS = {
    "path": "http://127.0.0.1:{port}/v3/" + KEY,
    "userinfo": "http://user:" + KEY + "@127.0.0.1:{port}/",
    "query": "http://127.0.0.1:{port}/rpc?apikey=" + KEY,
}
REGISTRY = "0x" + "cd" * 20
MULTICALL = "0x" + "ca" * 20
CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _manifest(tmp_path: Path) -> Path:
    path = tmp_path / "manifest.json"
    path.write_text(
        json.dumps(
            {
                "name": "dice",
                "description": "Rolls dice for games.",
                "tools": ["roll"],
                "toolMetadata": {
                    "roll": {
                        "name": "roll",
                        "description": "Rolls dice.",
                        "input": {"type": "text", "description": "how many dice"},
                        "output": {"type": "text", "description": "the faces"},
                    }
                },
            }
        )
    )
    return path


#: command -> its arguments around the URL (the URL is the only way to reach anything)
COMMANDS: Dict[str, Callable[[str, Path], List[str]]] = {
    "list": lambda url, tmp: [
        "list", "--rpc", url, "--chain-id", "100", "--multicall2", MULTICALL,
        "--registry", f"complementary_service_metadata:{REGISTRY}:1",
        "--state-dir", str(tmp / "state"),
    ],
    "search": lambda url, tmp: [
        "search", "dice", "--rpc", url, "--chain-id", "100", "--multicall2", MULTICALL,
        "--registry", f"complementary_service_metadata:{REGISTRY}:1",
        "--state-dir", str(tmp / "state"),
    ],
    "show": lambda url, tmp: ["show", "--ipfs-gateway", url, CID],
    "validate": lambda url, tmp: ["validate", "--ipfs-gateway", url, CID],
    "export": lambda url, tmp: ["export", "--format", "mcp", "--ipfs-gateway", url, CID],
    "derive": lambda url, tmp: [
        "derive", "--rpc", url, "--agent", "1", "--registry", REGISTRY,
        "--multicall", MULTICALL,
    ],
    "publish": lambda url, tmp: [
        "publish", "--manifest", str(_manifest(tmp)), "--rpc", url, "--ipfs-api", url,
        "--kind", "complementary_service_metadata", "--registry", REGISTRY, "--id", "1",
        "--dry-run",
    ],
}  # fmt: skip


@pytest.fixture(autouse=True)
def _forget_urls() -> Any:
    """Each case starts with no URL registered (the registry is process-wide)."""
    yield
    with redaction._LOCK:  # pylint: disable=protected-access
        redaction._URLS.clear()  # pylint: disable=protected-access
        redaction._FRAGMENTS.clear()  # pylint: disable=protected-access


@pytest.mark.parametrize("where", sorted(URLS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_no_command_prints_a_key_of_its_urls(
    command: str,
    where: str,
    as_json: bool,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The command fails on the closed port, saying so, and never prints the key.

    :param command: the command.
    :param where: where the URL holds the key.
    :param as_json: ``--json`` or text output.
    :param tmp_path: pytest's temporary folder.
    :param caplog: every log record (the key must be in none).
    """
    url = URLS[where].format(port=_closed_port())
    args = (["--json"] if as_json else []) + COMMANDS[command](url, tmp_path)
    caplog.set_level(logging.DEBUG)
    result = CliRunner().invoke(cli, args)
    said = result.stdout + result.stderr
    assert result.exit_code != EXIT_OK, said
    assert "127.0.0.1" in said, said  # the failure still names where it went
    assert KEY not in said, said
    assert KEY not in caplog.text
    assert result.exception is None or isinstance(result.exception, SystemExit), said


def test_a_url_in_an_environment_variable_is_registered_too() -> None:
    """``MECH_CATALOGUE_RPC`` and the like are read before any command runs."""
    urls = redaction.command_line_urls(
        ["list", "--rpc=https://a.example/v3/" + KEY, "--ipfs-gateway", "plain"],
        {
            "MECH_CATALOGUE_IPFS_API": "http://u:" + KEY + "@b.example:5001",
            "OTHER_URL": "https://c.example/" + KEY,
        },
    )
    assert urls == [
        "https://a.example/v3/" + KEY,
        "http://u:" + KEY + "@b.example:5001",
    ]
