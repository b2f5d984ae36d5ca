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


"""What each command's ``--help`` says at 80 columns (issue 33 follow-ups: the help misled).

The CLI's own click commands, run in-process by click's test runner with ``COLUMNS=80``
(what a new user's terminal gives); the tests read the help as printed.
"""

import re
from typing import Dict, List

import pytest
from click.testing import CliRunner

from mech_catalogue_cli import EXIT_USAGE
from mech_catalogue_cli.app import cli

COMMANDS = (
    "cid",
    "derive",
    "export",
    "generate",
    "list",
    "mcp",
    "prepay",
    "publish",
    "search",
    "serve",
    "show",
    "validate",
)
#: command -> options whose value is a contract or account address
ADDRESS_OPTIONS: Dict[str, List[str]] = {
    "list": ["--multicall2", "--marketplace"],
    "search": ["--multicall2", "--marketplace"],
    "serve": ["--multicall2", "--marketplace"],
    "mcp": ["--multicall2", "--marketplace"],
    "prepay": ["--marketplace", "--mech"],
    "publish": ["--registry", "--manager", "--safe"],
    "derive": ["--registry", "--multicall2, --multicall"],
    "export": ["--registry-address", "--identity-registry"],
}


def help_text(*command: str) -> str:
    """Return a command's help as an 80-column terminal shows it.

    :param command: the command words.
    :return: stdout.
    """
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, [*command, "--help"])
    assert result.exit_code == 0, result.output
    return result.stdout


def option_help(text: str, option: str) -> str:
    """Return one option's help entry (its first line and the indented lines after it).

    :param text: the whole help.
    :param option: the option as the help's first column starts it (``--devnet``).
    :return: the entry, lines joined by spaces.
    """
    lines = text.splitlines()
    start = next(
        i
        for i, line in enumerate(lines)
        if re.match(rf"  {re.escape(option)}(?=[ ,]|$)", line)
    )
    entry = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 10):
            break
        entry.append(line)
    return " ".join(part.strip() for part in entry)


@pytest.mark.parametrize("command", COMMANDS)
def test_no_url_is_split_across_lines(command: str) -> None:
    """Every https:// URL in a help is whole on its line (--chain's was cut at a hyphen)."""
    for line in help_text(command).splitlines():
        for url in re.findall(r"https://\S+", line):
            assert not url.endswith("-"), line


def test_the_chain_option_names_where_its_values_are_without_a_url() -> None:
    """--chain points to --chain NAME --help / --show-preset, which print the values."""
    entry = option_help(help_text("list"), "--chain")
    assert "`--chain NAME --help` or --show-preset" in entry
    assert "https://" not in entry


def test_wide_ranges_read_as_powers_of_two_on_one_line() -> None:
    """--min-karma and --delivered-within: [-2^62<=x<=2^62], not 19 digits split in two."""
    text = help_text("search")
    assert "[-2^62<=x<=2^62]" in option_help(text, "--min-karma")
    assert "[0<=x<=2^62]" in option_help(text, "--delivered-within")
    assert "4611686018427387904" not in text


def test_a_karma_out_of_range_is_a_usage_error_saying_the_range() -> None:
    """The range error names the same bounds, and the command stops before any read."""
    result = CliRunner(env={"COLUMNS": "80"}).invoke(
        cli, ["search", "x", "--min-karma", str(2**62 + 1)]
    )
    assert result.exit_code == EXIT_USAGE
    assert "-2^62<=x<=2^62" in result.output


@pytest.mark.parametrize("command", sorted(ADDRESS_OPTIONS))
def test_address_options_say_address(command: str) -> None:
    """An option taking a contract address shows ADDRESS, not TEXT."""
    text = help_text(command)
    for option in ADDRESS_OPTIONS[command]:
        entry = option_help(text, option)
        assert entry.startswith(f"{option} ADDRESS"), entry


def test_derive_takes_multicall2_as_every_command_does() -> None:
    """--multicall2 is the name everywhere; derive's older --multicall stays an alias."""
    for command in ("derive", "list", "mcp", "search", "serve"):
        assert "  --multicall2" in help_text(command), command
    for name in ("--multicall2", "--multicall"):
        result = CliRunner().invoke(
            cli,
            ["derive", "--component", "1", name, "0x" + "ab" * 20]
            + ["--rpc", "http://127.0.0.1:9", "--registry", "0x" + "cd" * 20],
        )
        assert result.exit_code != EXIT_USAGE, result.output  # parsed; the read fails


@pytest.mark.parametrize(
    "command,says,not_said",
    [
        ("show", "its IPFS gateway.", ["RPC", "owner", "registries"]),
        ("validate", "its IPFS gateway.", ["RPC", "owner", "registries"]),
        ("export", "its IPFS gateway.", ["RPC", "owner", "registries"]),
        ("list", "MechMarketplace and IPFS gateway.", ["IPFS API", "owner", "key"]),
        ("search", "MechMarketplace and IPFS gateway.", ["IPFS API", "owner", "key"]),
        ("serve", "MechMarketplace and IPFS gateway.", ["IPFS API", "owner", "key"]),
        ("derive", "ComponentRegistry, Multicall2", ["IPFS API", "owner", "key"]),
        ("publish", "the mech owner's key.", ["Multicall2", "gateway"]),
        ("prepay", "a funded test account's key.", ["registries", "IPFS"]),
        ("mcp", "a funded test account's key.", ["owner"]),
    ],
)
def test_devnet_help_lists_what_the_command_takes_from_it(
    command: str, says: str, not_said: List[str]
) -> None:
    """--devnet's help names the settings this command uses, no other."""
    entry = option_help(help_text(command), "--devnet")
    assert says in entry, entry
    for word in not_said:
        assert word not in entry, (word, entry)
