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

"""``mech-catalogue mcp`` refusals before serving (no chain, no IPFS: unit)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mech_catalogue_cli import EXIT_INVALID, EXIT_USAGE
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.mcp_cmd import KEY_ENV, _token_caps
from mech_catalogue_cli.keys import load_key

#: anvil's first public test key (not a secret anywhere)
TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"


def test_no_source_is_refused_with_what_to_give(tmp_path: Path) -> None:
    """Neither --agent, --devnet nor registries: exit 1, code no_catalogue_source."""
    result = CliRunner().invoke(
        cli, ["--json", "mcp", "--state-dir", str(tmp_path)], obj={}
    )
    assert result.exit_code == EXIT_INVALID
    error = json.loads(result.stderr or result.output)
    assert error["error"]["code"] == "no_catalogue_source"
    assert "--agent" in error["error"]["message"]


def test_a_bad_key_is_named_by_where_not_by_content(tmp_path: Path) -> None:
    """A key file holding something else: exit 1, the file named, its content never shown."""
    secret = "not-a-key-but-secret-text-0123456789"
    key_file = tmp_path / "key.txt"
    key_file.write_text(secret)
    result = CliRunner().invoke(
        cli,
        ["mcp", "--agent", "http://127.0.0.1:9", "--key-file", str(key_file)],
        obj={},
    )
    assert result.exit_code == EXIT_INVALID
    assert str(key_file) in result.output
    assert secret not in result.output


def test_key_sources_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--key-file wins over the environment, which wins over the devnet; none: None."""
    key_file = tmp_path / "key.txt"
    key_file.write_text(TEST_KEY + "\n")
    monkeypatch.setenv(KEY_ENV, "0x" + "11" * 32)
    assert load_key(str(key_file), KEY_ENV, "0x" + "22" * 32) == TEST_KEY
    assert load_key(None, KEY_ENV, "0x" + "22" * 32) == "0x" + "11" * 32
    monkeypatch.delenv(KEY_ENV)
    assert load_key(None, KEY_ENV, "0x" + "22" * 32) == "0x" + "22" * 32
    assert load_key(None, KEY_ENV) is None


def test_negative_or_non_integer_wei_is_a_usage_error() -> None:
    """--max-price/--max-spend take integer wei >= 0, naming the option otherwise."""
    for option, value in (("--max-price", "-1"), ("--max-spend", "0.5")):
        result = CliRunner().invoke(cli, ["mcp", option, value], obj={})
        assert result.exit_code == EXIT_USAGE
        assert option in result.output


def test_caps_of_an_unknown_asset_or_a_fraction_are_usage_errors() -> None:
    """--max-price dai=5, --max-spend usdc=1.5: exit 2 naming the option and the value."""
    for option, value in (("--max-price", "dai=5"), ("--max-spend", "usdc=1.5")):
        result = CliRunner().invoke(cli, ["mcp", option, value], obj={})
        assert result.exit_code == EXIT_USAGE
        assert option in result.output and value in result.output


def _paying(tmp_path: Path, *extra: str) -> Result:
    """Run ``mcp`` with a key and a marketplace off the devnet, its agent unreachable.

    :param tmp_path: the key file's and state's folder.
    :param extra: more options.
    :return: the run.
    """
    key_file = tmp_path / "key.txt"
    key_file.write_text(TEST_KEY + "\n")
    return CliRunner().invoke(
        cli,
        [
            "mcp",
            "--agent",
            "http://127.0.0.1:9",
            "--key-file",
            str(key_file),
            "--marketplace",
            "0x" + "11" * 20,
            "--state-dir",
            str(tmp_path / "state"),
            *extra,
        ],
        obj={},
    )


@pytest.mark.parametrize(
    "caps",
    [(), ("--max-price", "10"), ("--max-spend", "10")],
)
def test_paying_without_both_caps_is_refused(tmp_path: Path, caps: tuple) -> None:
    """A key and a marketplace off the devnet: exit 2 unless both caps are given.

    An MCP client decides what to call (an LLM, possibly steered by a tool description),
    and before this any mech's price was paid: a copycat at 500 xDAI won on karma.

    :param tmp_path: the key file's folder.
    :param caps: the caps given.
    """
    result = _paying(tmp_path, *caps)
    assert result.exit_code == EXIT_USAGE
    assert "--max-price and --max-spend" in result.output
    assert TEST_KEY[2:] not in result.output


def test_a_dry_run_or_both_caps_pass_the_check(tmp_path: Path) -> None:
    """With --dry-run, or both caps, the check passes (the unreachable agent then fails).

    :param tmp_path: the key file's folder.
    """
    for extra in (("--dry-run",), ("--max-price", "10", "--max-spend", "10")):
        result = _paying(tmp_path, *extra)
        assert result.exit_code != EXIT_USAGE, result.output
        assert "--max-price and --max-spend" not in result.output


def test_a_native_cap_alone_caps_every_token_at_zero() -> None:
    """On the devnet with no cap at all tokens are uncapped; any cap given caps them at 0.

    Subscription credits are capped the same way: a native cap alone never lets a call
    burn credits.
    """
    assert _token_caps({}, devnet=True) == {}
    assert _token_caps({"native": 10}, devnet=True) == {
        "olas": 0,
        "usdc": 0,
        "credits": 0,
    }
    assert _token_caps({"usdc": 5}, devnet=False) == {
        "olas": 0,
        "usdc": 5,
        "credits": 0,
    }
