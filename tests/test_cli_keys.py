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

"""The signing key of ``publish`` and ``mcp`` (mech_catalogue_cli/keys.py).

One reader, so both commands refuse the same bad key files the same way and never print
a key.
"""

import json
from pathlib import Path
from typing import List

import pytest
from click.testing import CliRunner

from mech_catalogue_cli import EXIT_INVALID
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.keys import (
    MAX_KEY_FILE_BYTES,
    load_key,
    redacted_url,
    without_url,
)
from mech_catalogue_cli.output import CliFailure

#: looks like a key to a careless eye, is not one (65 hex digits)
NEAR_KEY = "0x" + "ab" * 32 + "c"


def _run(command: List[str], key_file: Path, tmp_path: Path) -> dict:
    """Run a command with --key-file against nothing listening; return its JSON error.

    The key is read before any network use, so no chain or IPFS is needed.

    :param command: ``["publish"]`` or ``["mcp"]``.
    :param key_file: the file given as ``--key-file``.
    :param tmp_path: pytest's folder for the manifest and state.
    :return: the command's JSON output.
    """
    manifest = tmp_path / "manifest.json"
    manifest.write_text("{}")
    if command[0] == "publish":
        args = [
            "--json",
            "publish",
            "--manifest",
            str(manifest),
            "--rpc",
            "http://127.0.0.1:9",
        ]
        args += ["--kind", "legacy_mech_registry", "--registry", "0x" + "11" * 20]
        args += ["--id", "1"]
    else:
        args = ["--json", "mcp", "--agent", "http://127.0.0.1:9"]
        args += ["--state-dir", str(tmp_path / "state")]
    result = CliRunner().invoke(cli, [*args, "--key-file", str(key_file)], obj={})
    assert result.exit_code == EXIT_INVALID, result.output
    text = result.stderr or result.output
    assert NEAR_KEY not in text
    return json.loads(text)


@pytest.mark.parametrize("command", [["publish"], ["mcp"]])
def test_each_command_names_a_missing_key_file(
    command: List[str], tmp_path: Path
) -> None:
    """A key file that does not exist: exit 1, file_not_readable, the path named."""
    error = _run(command, tmp_path / "absent.key", tmp_path)["error"]
    assert error["code"] == "file_not_readable"
    assert "absent.key" in error["message"]


@pytest.mark.parametrize("command", [["publish"], ["mcp"]])
def test_each_command_refuses_a_bad_key_without_showing_it(
    command: List[str], tmp_path: Path
) -> None:
    """A key file holding 65 hex digits: invalid_key, named by path, content never shown."""
    key_file = tmp_path / "owner.key"
    key_file.write_text(NEAR_KEY + "\n")
    error = _run(command, key_file, tmp_path)["error"]
    assert error["code"] == "invalid_key"
    assert str(key_file) in error["message"]


def test_a_huge_key_file_is_not_read_whole(tmp_path: Path) -> None:
    """Over 4 KiB is no key file: too_large, without reading it all."""
    key_file = tmp_path / "huge.key"
    key_file.write_bytes(b"0" * (MAX_KEY_FILE_BYTES + 1))
    with pytest.raises(CliFailure) as raised:
        load_key(str(key_file), "UNSET_KEY_VARIABLE")
    assert raised.value.code == "too_large"


def test_environment_key_is_checked_and_named_by_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bad key in the environment: invalid_key naming $VARIABLE, not the value."""
    monkeypatch.setenv("SOME_KEY_VARIABLE", NEAR_KEY)
    with pytest.raises(CliFailure) as raised:
        load_key(None, "SOME_KEY_VARIABLE")
    assert raised.value.code == "invalid_key"
    assert "$SOME_KEY_VARIABLE" in str(raised.value)
    assert NEAR_KEY not in str(raised.value)


@pytest.mark.parametrize(
    "url, shown",
    [
        ("https://gnosis.example/v2/0123456789abcdef", "https://gnosis.example/…"),
        ("https://rpc.example:8545/?apikey=secret", "https://rpc.example:8545/…"),
        ("http://127.0.0.1:8545", "http://127.0.0.1:8545"),
        ("not a url", "<url>"),
    ],
)
def test_an_rpc_url_is_shown_without_its_path_or_query(url: str, shown: str) -> None:
    """Providers put the API key in the path or query: messages show scheme and host only."""
    assert redacted_url(url) == shown
    assert without_url(f"HTTPError: 401 for url: {url}", url) == (
        f"HTTPError: 401 for url: {shown}"
    )


def test_a_failed_chain_read_names_the_host_not_the_key() -> None:
    """A `list` whose --rpc holds a key, against nothing: the error has the host, not the key."""
    secret = "0123456789abcdef0123456789abcdef"
    result = CliRunner().invoke(
        cli,
        [
            "--json",
            "list",
            "--rpc",
            f"http://127.0.0.1:9/v2/{secret}",
            "--registry",
            "legacy_mech_registry:0x" + "11" * 20,
            "--multicall2",
            "0x" + "22" * 20,
        ],
        obj={},
    )
    assert result.exit_code != 0
    assert "http://127.0.0.1:9/…" in result.output
    assert secret not in result.output
