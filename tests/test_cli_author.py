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

"""The mech author's path through the CLI (issue 14), offline parts.

Help examples, overrides typos, weak manifests, message fixes, output width, the live
view, printed devnet commands.

Chain and IPFS parts (``--devnet``, the digest story against kubo, empty registries) are
in tests/devnet/test_author_devnet.py.
"""

import io
import json
import re
import shlex
from pathlib import Path
from typing import Any, Dict, List

import click
import pytest
import yaml
from click.testing import CliRunner, Result
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive import generate
from mech_catalogue_core.derive.generate import (
    generate_manifest,
)
from rich.console import Console

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.devnet import locate
from mech_catalogue_cli.devnet_options import ipfs_api_url
from scripts.devnet.__main__ import cli as devnet_cli
from scripts.run_local.view import AgentView, devnet_endpoints, render, summary_line
from scripts.toolchain import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
TOKEN_ORACLE = EXAMPLES / "tools" / "token_oracle"
WALLET_RISK = EXAMPLES / "tools" / "wallet_risk"
OVERRIDES = EXAMPLES / "token_oracle.overrides.yaml"
#: publish the wallet sample to legacy mech 1 of a made-up registry
PUBLISH_WALLET = (
    "publish",
    WALLET_RISK,
    "--kind",
    "legacy_mech_registry",
    "--registry",
    "0x" + "11" * 20,
    "--id",
    "1",
)


def run(*args: Any) -> Result:
    """Return the result of one CLI call (stderr kept apart).

    :param args: command line.
    :return: the result.
    """
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _examples(help_text: str) -> List[str]:
    """Return the example command lines of a help text, continuation lines joined."""
    section = help_text.split("Examples:", 1)[1]
    joined = section.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip()]


#: every command, the lazily imported ones included (``cli.commands`` holds the eager ones)
COMMANDS = cli.list_commands(click.Context(cli))


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_help_shows_an_example_that_parses(name: str) -> None:
    """`--help` of each command ends with examples; each is a valid command line for it."""
    result = run(name, "--help")
    assert result.exit_code == EXIT_OK
    examples = _examples(result.stdout)
    assert examples, result.stdout
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    for example in examples:
        words = shlex.split(example.split(" > ", 1)[0])
        assert words[:2] == ["mech-catalogue", name], example
        # click parses it as it would run it: options exist, values fit, arguments count
        command.make_context(name, words[2:], obj={})


def test_top_level_help_shows_examples_and_the_tutorial() -> None:
    """`mech-catalogue --help` points to the tutorial and shows commands that parse."""
    result = run("--help")
    assert result.exit_code == EXIT_OK and "docs/tutorial.md" in result.stdout
    for example in _examples(result.stdout):
        words = shlex.split(example)
        assert words[0] == "mech-catalogue" and words[1] in COMMANDS, example


def test_help_examples_name_files_that_exist() -> None:
    """The examples point at the sample packages and overrides shipped in the repository."""
    texts = "\n".join(run(name, "--help").stdout for name in COMMANDS)
    for path in ("examples/tools/token_oracle", "examples/tools/wallet_risk"):
        assert path in texts and (REPO_ROOT / path / "component.yaml").is_file()
    assert "examples/token_oracle.overrides.yaml" in texts and OVERRIDES.is_file()


# --- overrides -----------------------------------------------------------------------------
def test_generate_with_a_misspelt_tool_and_argument_fails_naming_both(
    tmp_path: Path,
) -> None:
    """The issue's input: `token-oracle-sumary` and `token_adress`; exit 1, nothing written."""
    overrides = tmp_path / "typos.yaml"
    overrides.write_text(
        "tools:\n"
        "  token-oracle-sumary: {description: x}\n"
        "  token-oracle-price:\n"
        "    arguments:\n"
        "      token_adress: {type: hexAddress}\n"
    )
    output = tmp_path / "manifest.json"
    result = run("generate", TOKEN_ORACLE, "--overrides", overrides, "-o", output)
    assert result.exit_code == EXIT_INVALID and not output.exists()
    assert (
        f"{overrides} does not match the tool packages (2 problem(s)" in result.stderr
    )
    assert "'token-oracle-sumary'" in result.stderr
    assert "Did you mean 'token-oracle-summary'?" in result.stderr
    assert "'token_adress'" in result.stderr
    assert "Did you mean 'token_address'?" in result.stderr
    body = json.loads(
        run("--json", "generate", TOKEN_ORACLE, "--overrides", overrides).stdout
    )
    assert sorted(p["code"] for p in body["problems"]) == [
        "unknown_override_argument",
        "unknown_override_tool",
    ]
    # the fault is the overrides file's, so the headline says so (not invalid_manifest)
    assert body["error"]["code"] == "invalid_overrides"
    assert result.stderr.startswith("error [invalid_overrides]")


def test_publish_refuses_misspelt_overrides_before_any_network(tmp_path: Path) -> None:
    """Publish generates the same way: the typo stops it (no RPC or IPFS is contacted)."""
    overrides = tmp_path / "typo.yaml"
    overrides.write_text("tools: {wallet-risk-scor: {}}\n")
    result = run(
        "--json",
        *PUBLISH_WALLET,
        "--overrides",
        overrides,
        "--rpc",
        "http://127.0.0.1:9",
    )
    assert result.exit_code == EXIT_INVALID
    body = json.loads(result.stdout)
    codes = [body["error"]["code"]] + [p["code"] for p in body["problems"]]
    assert "unknown_override_tool" in codes
    assert "wallet-risk-score" in json.dumps(body)


# --- weak manifests ------------------------------------------------------------------------
WEAK_MANIFEST: Dict[str, Any] = {
    "name": " ",
    "description": "",
    "tools": ["lookup"],
    "toolMetadata": {
        "lookup": {
            "name": "lookup",
            "description": "Looks a thing up.",
            "arguments": [
                {"identifier": "key", "type": "str"},
                {"identifier": "payload", "type": "any"},
            ],
        }
    },
}


def test_validate_warns_on_weak_manifests_and_strict_fails(tmp_path: Path) -> None:
    """Blank name and description and an `any` argument: 3 warnings; --strict exits 1."""
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(WEAK_MANIFEST))
    result = run("--json", "validate", path)
    assert result.exit_code == EXIT_OK
    codes = [(p["code"], p["path"]) for p in json.loads(result.stdout)["problems"]]
    assert codes == [
        ("empty_manifest_name", "/name"),
        ("empty_manifest_description", "/description"),
        ("any_typed_argument", "/toolMetadata/lookup"),
    ]
    strict = run("validate", "--strict", path)
    assert strict.exit_code == EXIT_INVALID
    assert "3 warning(s)" in strict.stderr and "'payload'" in strict.stderr
    fixed = dict(WEAK_MANIFEST, name="Lookup Mech", description="Looks things up.")
    fixed["toolMetadata"] = json.loads(
        json.dumps(WEAK_MANIFEST["toolMetadata"]).replace('"any"', '"dict"')
    )
    path.write_text(json.dumps(fixed))
    assert run("validate", "--strict", path).exit_code == EXIT_OK


# --- message fixes -------------------------------------------------------------------------
def test_publish_olas_without_manager_names_the_option() -> None:
    """Not "address '' is malformed": the missing option, and what to do."""
    result = run(
        "publish",
        "--manifest",
        REPO_ROOT / "docs" / "tutorial.md",  # never read: the option check comes first
        "--kind",
        "olas_agent_registry",
        "--registry",
        "0x" + "22" * 20,
        "--id",
        "1",
    )
    assert result.exit_code == EXIT_INVALID
    assert "`--manager` is required for this kind" in result.stderr
    assert "''" not in result.stderr


def test_publish_without_registry_and_devnet_names_the_option() -> None:
    """--registry is only optional with --devnet."""
    result = run("publish", WALLET_RISK, "--kind", "legacy_mech_registry", "--id", "1")
    assert result.exit_code == EXIT_INVALID and "`--registry` is required" in (
        result.stderr
    )


def test_derive_prints_each_error_once(tmp_path: Path) -> None:
    """A broken package: the error's sentence appears once on stderr."""
    (tmp_path / "component.yaml").write_text(
        "name: broken\nentry_point: missing.py\ncallable: run\n"
    )
    result = run("derive", tmp_path)
    assert result.exit_code == EXIT_INVALID
    assert result.stderr.count("is not a file inside") == 1


def test_tables_are_not_cut_when_not_on_a_terminal(tmp_path: Path) -> None:
    """A pipe gets whole lines: a 150-character description stays in one table row."""
    text = "An unusually long description " + "x" * 120
    manifest = {
        "name": "Wide",
        "description": "Wide mech.",
        "tools": ["wide-tool"],
        "toolMetadata": {"wide-tool": {"name": "wide-tool", "description": text}},
    }
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(manifest))
    result = run("show", path)
    assert result.exit_code == EXIT_OK
    assert any(
        "wide-tool" in line and text in line for line in result.stdout.splitlines()
    )


@pytest.mark.parametrize(
    "value,url",
    [
        ("/ip4/127.0.0.2/tcp/5001/http", "http://127.0.0.2:5001"),
        ("/ip4/10.0.0.1/tcp/443/https", "https://10.0.0.1:443"),
        ("/ip4/127.0.0.1/tcp/5001", "http://127.0.0.1:5001"),
        ("/dns4/ipfs.local/tcp/5001/http", "http://ipfs.local:5001"),
        ("/ip6/::1/tcp/5001/http", "http://[::1]:5001"),
        ("http://127.0.0.1:5001/", "http://127.0.0.1:5001"),
    ],
)
def test_ipfs_api_accepts_urls_and_multiaddrs(value: str, url: str) -> None:
    """The devnet prints a multiaddr; --ipfs-api takes it as printed."""
    assert ipfs_api_url(value) == url


@pytest.mark.parametrize(
    "value", ["/ip4/127.0.0.1/udp/5001", "127.0.0.1:5001", "/ip4/1.2.3.4/tcp/0"]
)
def test_ipfs_api_rejects_other_forms_as_usage_errors(value: str) -> None:
    """Anything else is a usage error (exit 2) naming --ipfs-api."""
    result = run(*PUBLISH_WALLET, "--ipfs-api", value)
    assert result.exit_code == EXIT_USAGE and "--ipfs-api" in result.stderr


# --- the live view -------------------------------------------------------------------------
class _Info:  # pylint: disable=too-few-public-methods
    rpc_url = "http://127.0.0.1:28545"
    chain_id = 31337
    ipfs_api_url = "http://127.0.0.2:25001"
    ipfs_api_multiaddr = "/ip4/127.0.0.2/tcp/25001/http"
    ipfs_gateway_url = "http://127.0.0.2:28080"
    state_dir = "/tmp/run/devnet"


def _text(renderable: Any) -> str:
    console = Console(width=300, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_live_view_shows_endpoints_and_says_which_errors_it_counts() -> None:
    """RPC and IPFS endpoints on top; the column counts manifest errors, and says so."""
    healthy = AgentView(
        "agent_0",
        health={"status": "fresh", "catalogue_digest": "ab" * 32, "errors": 2},
    )
    text = " ".join(
        _text(render([healthy], "status", devnet_endpoints(_Info()))).split()
    )
    for value in (
        _Info.rpc_url,
        _Info.ipfs_api_url,
        _Info.ipfs_api_multiaddr,
        _Info.ipfs_gateway_url,
    ):
        assert value in text
    assert "manifest errors" in text and "Agent errors go to each agent's log" in text
    assert "│ errors" not in text


def test_summary_line_names_the_tools_an_agent_serves() -> None:
    """On a pipe, one plain line per change: digest, period, counts, tool names."""
    view = AgentView(
        "agent_0",
        health={"catalogue_digest": "cd" * 32, "period": 4},
        tools=[{"name": "token-oracle-summary"}, {"name": "token-oracle-price"}],
        mechs=[{}],
    )
    line = summary_line(view)
    assert line.startswith("agent_0 serves catalogue cdcdcdcd")
    assert (
        "(period 4): 1 mechs, 2 tools: token-oracle-summary, token-oracle-price" in line
    )
    assert "unreachable" in summary_line(AgentView("agent_1", error="refused"))


# --- which devnet --------------------------------------------------------------------------
def test_printed_devnet_commands_work_as_printed(tmp_path: Path) -> None:
    """The default folder gets make targets; another folder the venv's module call."""
    assert locate.up_command(locate.DEFAULT_STATE_DIR) == "make devnet-up"
    assert locate.down_command(locate.DEFAULT_STATE_DIR) == "make devnet-down"
    other = tmp_path / "my devnet"
    assert locate.down_command(other) == (
        f".venv/bin/python -m scripts.devnet --state-dir '{other}' down"
    )
    assert (REPO_ROOT / ".venv" / "bin" / "python").exists()
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert "\ndevnet-up:" in makefile and "\ndevnet-down:" in makefile


# --- the overrides documentation -------------------------------------------------------------
CLI_DOC = (REPO_ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def test_every_override_field_is_documented() -> None:
    """docs/cli.md's overrides table names exactly the keys generate accepts, per level."""
    # pylint: disable=protected-access
    section = CLI_DOC.split("### Overrides", 1)[1].split("\n```", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented: Dict[str, set] = {}
    for row in rows:
        keys, where = row.split(" | ")[0], row.split(" | ")[1]
        names = {k.split(":")[0] for k in re.findall(r"`([^`]+)`", keys)}
        documented.setdefault(where.strip(), set()).update(names)
    assert documented["top level"] == set(generate._OVERRIDE_KEYS)
    assert documented["tool entry"] == set(generate._TOOL_KEYS)
    assert documented["argument entry"] == set(generate._ARGUMENT_OVERRIDE_KEYS)


def test_documented_overrides_generate_valid_manifests() -> None:
    """The example files the docs show generate strict-valid manifests from the samples."""
    (wallet_yaml,) = re.findall(r"```yaml\n(.*?)```", CLI_DOC, re.DOTALL)
    cases = [
        (WALLET_RISK, yaml.safe_load(wallet_yaml)),
        (TOKEN_ORACLE, yaml.safe_load(OVERRIDES.read_text(encoding="utf-8"))),
    ]
    for package, overrides in cases:
        document, warnings = generate_manifest([derive_package(package)], overrides)
        assert document["name"] == overrides["name"]
        assert not warnings, [w.code for w in warnings]


def test_devnet_up_seeds_unless_told_not_to() -> None:
    """`make devnet-up` runs `up` without flags: that start is seeded (`--no-seed` opts out)."""
    up = devnet_cli.commands["up"]
    seed = next(p for p in up.params if p.name == "seed")
    assert up.make_context("up", []).params["seed"] is True
    assert up.make_context("up", ["--no-seed"]).params["seed"] is False
    assert seed.default is True
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ndevnet-up:", 1)[1].split("\n\n", 1)[0]
    assert "scripts.devnet up" in recipe and "--no-seed" not in recipe
