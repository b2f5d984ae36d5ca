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

"""Tests for the mech-catalogue CLI (mech_catalogue_cli) with click's CliRunner, offline commands.

IPFS-backed commands (CID and digest sources) are in tests/test_cli_ipfs.py, against kubo.
"""

import json
from pathlib import Path
from typing import Any, List

import click
import pytest
from click.testing import CliRunner, Result
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.tests.js_engine import survives_javascript

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.output import Output
from tests.test_cli_help_text import COMMANDS

FIXTURES = Path(__file__).resolve().parents[1] / (
    "libs/mech-catalogue-core/mech_catalogue_core/tests/fixtures"
)
SAMPLE = FIXTURES / "manifests" / "export_sample.json"
ECHO = FIXTURES / "tool_packages" / "echo_tool"
TYPED = FIXTURES / "tool_packages" / "typed_tool"
DIGEST = "0x" + "ab" * 32


def run(*args: Any) -> Result:
    """Return the result (stderr kept apart).

    :param args: command line.
    :return: the result (stderr kept apart).
    """
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def as_json(result: Result) -> Any:
    """Return its stdout decoded.

    :param result: a --json run.
    :return: its stdout decoded.
    """
    return json.loads(result.stdout)


def write(path: Path, text: str) -> Path:
    """Return path.

    :param path: where.
    :param text: what.
    :return: path.
    """
    path.write_text(text, encoding="utf-8")
    return path


# --- validate ----------------------------------------------------------------------------
def test_validate_ok_lists_tools_and_warnings() -> None:
    """A legacy manifest is valid; untyped tools are warnings."""
    result = run("validate", "--json", SAMPLE)
    assert result.exit_code == EXIT_OK
    body = as_json(result)
    assert body["ok"] and body["tools"] == [
        "summarise",
        "weather.forecast",
        "weather forecast",
    ]
    assert {p["code"] for p in body["problems"]} == {"untyped_input"}
    human = run("validate", SAMPLE)
    assert (
        human.exit_code == EXIT_OK
        and "valid" in human.stdout
        and "3 tool(s)" in human.stdout
    )


def test_validate_strict_fails_on_warnings() -> None:
    """--strict turns warnings into exit 1 with code warnings_as_errors."""
    result = run("--json", "validate", "--strict", SAMPLE)
    assert result.exit_code == EXIT_INVALID
    assert as_json(result)["error"]["code"] == "warnings_as_errors"


@pytest.mark.parametrize(
    "text,code",
    [
        ("{not json", "invalid_json"),
        ('{"tools": ["a"], "tools": ["b"]}', "duplicate_key"),
        ("[1, 2]", "not_an_object"),
        ('{"name": "x"}', "no_tools"),
        ('{"tools": ["ok"], "name": 5}', "wrong_type"),
    ],
)
def test_validate_rejects_bad_manifests(tmp_path: Path, text: str, code: str) -> None:
    """Bad manifests exit 1, JSON names the problem code; text output goes to stderr."""
    path = write(tmp_path / "m.json", text)
    result = run("validate", "--json", path)
    assert result.exit_code == EXIT_INVALID
    body = as_json(result)
    assert body["ok"] is False and code in {p["code"] for p in body["problems"]}
    human = run("validate", path)
    assert (
        human.exit_code == EXIT_INVALID and code in human.stderr and human.stdout == ""
    )


def test_validate_unknown_source_and_usage() -> None:
    """Neither a file nor a CID: exit 1; missing argument: exit 2."""
    result = run("validate", "--json", "nonsense")
    assert result.exit_code == EXIT_INVALID
    assert as_json(result)["error"]["code"] == "invalid_cid"
    assert "not an existing file" in as_json(result)["error"]["message"]
    assert run("validate").exit_code == EXIT_USAGE
    assert run("frobnicate").exit_code == EXIT_USAGE


@pytest.mark.parametrize("command", ["validate", "show", "export"])
@pytest.mark.parametrize(
    "source",
    ["no-such-file.json", "my-mech/manifest.json", "./manifest", "~/gone.yaml"],
)
def test_a_missing_file_is_reported_as_a_missing_file(
    command: str, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path that does not exist says so (file_not_found, naming it), not invalid_cid."""
    monkeypatch.chdir(tmp_path)
    args = [command, "--json", source] + (
        ["--format", "mcp"] if command == "export" else []
    )
    body = as_json(run(*args))
    assert body["error"]["code"] == "file_not_found", body
    assert (
        source in body["error"]["message"]
        and "No such file" in body["error"]["message"]
    )
    human = run(*[a for a in args if a != "--json"])
    assert human.exit_code == EXIT_INVALID
    assert "file_not_found" in human.stderr and "CID" in human.stderr


@pytest.mark.parametrize(
    "source,code",
    [
        ("ipfs://not-a-cid", "invalid_cid"),  # a CID form: not a path
        ("/ipfs/not-a-cid", "invalid_cid"),
        ("bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylq", "invalid_cid"),  # truncated CID
    ],
)
def test_a_bad_cid_is_still_reported_as_a_bad_cid(source: str, code: str) -> None:
    """CID-shaped sources keep their CID error (the path rule does not swallow them)."""
    assert as_json(run("validate", "--json", source))["error"]["code"] == code


def test_a_folder_is_not_readable_as_a_manifest(tmp_path: Path) -> None:
    """An existing folder is found, but cannot be read as a file: file_not_readable."""
    body = as_json(run("validate", "--json", tmp_path))
    assert (
        body["error"]["code"] == "file_not_readable"
        and str(tmp_path) in body["error"]["message"]
    )


def test_validate_oversized_file(tmp_path: Path) -> None:
    """Files above the manifest byte cap are refused before parsing."""
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (4 * 262144 + 1))
    result = run("validate", "--json", path)
    assert (
        result.exit_code == EXIT_INVALID
        and as_json(result)["error"]["code"] == "too_large"
    )


# --- show --------------------------------------------------------------------------------
def test_show_table_and_json() -> None:
    """The show command prints a table of tools; --json gives each tool's model dict."""
    human = run("show", SAMPLE)
    assert human.exit_code == EXIT_OK
    for name in ("summarise", "weather.forecast", "Fixture Mech"):
        assert name in human.stdout
    body = as_json(run("show", "--json", SAMPLE))
    assert [t["name"] for t in body["tools"]] == [
        "summarise",
        "weather.forecast",
        "weather forecast",
    ]
    assert body["tools"][0]["output"]["schema"]["required"] == ["requestId", "result"]


def test_show_invalid_manifest_fails(tmp_path: Path) -> None:
    """A rejected manifest: exit 1 and the problem list."""
    result = run("show", "--json", write(tmp_path / "m.json", "{}"))
    assert result.exit_code == EXIT_INVALID
    assert as_json(result)["error"]["code"] == "invalid_manifest"
    assert as_json(result)["problems"][0]["code"] == "no_tools"


def test_show_errors_without_usable_tools_exit_1(tmp_path: Path) -> None:
    """Errors and no usable tool: exit 1 with the problems (not an empty table and 0)."""
    path = write(tmp_path / "m.json", '{"name": "x", "tools": [123]}')
    human = run("show", path)
    assert human.exit_code == EXIT_INVALID
    assert "invalid_manifest" in human.stderr and "invalid_tool_name" in human.stderr
    assert "┃ tool" not in human.stdout
    body = as_json(run("show", "--json", path))
    assert body["ok"] is False and body["error"]["code"] == "invalid_manifest"
    assert "invalid_tool_name" in [p["code"] for p in body["problems"]]


def test_show_keeps_exit_0_with_warnings_or_usable_tools(tmp_path: Path) -> None:
    """No errors, or errors beside usable tools: the tools are shown, exit 0."""
    only_warnings = write(tmp_path / "w.json", '{"tools": ["alpha"]}')
    result = run("show", only_warnings)
    assert result.exit_code == EXIT_OK and "alpha" in result.stdout
    partly_bad = write(tmp_path / "e.json", '{"tools": ["alpha", "alpha"]}')
    result = run("show", partly_bad)
    assert result.exit_code == EXIT_OK and "alpha" in result.stdout
    assert "duplicate_tool" in result.stdout


# --- derive ------------------------------------------------------------------------------
def test_derive_json_and_table() -> None:
    """The derive command reports arguments and tools; runtime keywords with --runtime."""
    body = as_json(run("derive", "--json", ECHO, TYPED))
    assert [p["name"] for p in body] == ["echo_tool", "typed_tool"]
    echo_args = {a["identifier"]: a for a in body[0]["arguments"]}
    assert (
        echo_args["max_tokens"]["default"] == 500 and echo_args["api_keys"]["runtime"]
    )
    assert [t["name"] for t in body[1]["tools"]] == [
        "transfer-native",
        "transfer-erc20",
    ]
    human = run("derive", ECHO)
    assert "max_tokens" in human.stdout and "api_keys" not in human.stdout
    assert "api_keys" in run("derive", "--runtime", ECHO).stdout


def test_derive_failures(tmp_path: Path) -> None:
    """Not a package, or a broken one: exit 1 with the derive problem code."""
    result = run("derive", "--json", tmp_path)
    assert (
        result.exit_code == EXIT_INVALID
        and as_json(result)["error"]["code"] == "package_not_found"
    )
    write(tmp_path / "component.yaml", "name: x\nentry_point: x.py\ncallable: run\n")
    write(tmp_path / "x.py", "def run(:\n")
    broken = run("derive", tmp_path)
    assert broken.exit_code == EXIT_INVALID and "source_syntax_error" in broken.stderr
    assert run("derive").exit_code == EXIT_USAGE


# --- generate ----------------------------------------------------------------------------
def test_generate_to_stdout_is_a_valid_v1_manifest() -> None:
    """The output parses back with typed arguments and no errors."""
    result = run("generate", ECHO, TYPED)
    assert result.exit_code == EXIT_OK
    document = json.loads(result.stdout)
    assert document["specVersion"] == "1"
    parsed = parse_document(document)
    assert parsed.manifest is not None and not parsed.errors
    transfer = [t for t in parsed.manifest.tools if t.name == "transfer-native"][0]
    assert {a.identifier for a in transfer.arguments} >= {"amount", "sender", "nonce"}


def test_generate_with_overrides_and_output_file(tmp_path: Path) -> None:
    """Overrides refine types, add fields, exclude tools; -o writes the file."""
    overrides = write(
        tmp_path / "overrides.yaml",
        "name: Fixture Mech\n"
        "tools:\n"
        "  echo-legacy: {exclude: true}\n"
        "  transfer-native:\n"
        "    description: Send the native token.\n"
        "    arguments:\n"
        "      sender: {type: hexAddress}\n"
        "      memo: {exclude: true}\n",
    )
    output = tmp_path / "manifest.json"
    result = run(
        "generate", "--json", "--overrides", overrides, "-o", output, ECHO, TYPED
    )
    assert result.exit_code == EXIT_OK
    written = json.loads(output.read_text())
    assert written == as_json(result)["manifest"]
    assert written["name"] == "Fixture Mech" and "echo-legacy" not in written["tools"]
    arguments = {
        a["identifier"]: a
        for a in written["toolMetadata"]["transfer-native"]["arguments"]
    }
    assert arguments["sender"]["type"] == "hexAddress" and "memo" not in arguments
    assert run("validate", output).exit_code == EXIT_OK


@pytest.mark.parametrize(
    "overrides,code",
    [
        ("tools: [1, 2]\n", "invalid_overrides"),
        (
            "tools:\n  echo-small:\n    arguments:\n      prompt: {type: 'not a type'}\n",
            "invalid_overrides",
        ),
        ("name: [unclosed\n", "invalid_overrides"),
    ],
)
def test_generate_bad_overrides(tmp_path: Path, overrides: str, code: str) -> None:
    """Bad overrides: exit 1, nothing written."""
    path = write(tmp_path / "o.yaml", overrides)
    output = tmp_path / "out.json"
    result = run("generate", "--json", "--overrides", path, "-o", output, ECHO)
    assert result.exit_code == EXIT_INVALID
    body = as_json(result)
    assert code in [body["error"]["code"]] + [p["code"] for p in body["problems"]]
    assert not output.exists()


def test_generate_refuses_the_same_tool_from_two_packages() -> None:
    """Two packages serving one tool name cannot both go into a manifest."""
    result = run("generate", "--json", ECHO, ECHO)
    assert result.exit_code == EXIT_INVALID
    assert {p["code"] for p in as_json(result)["problems"]} == {
        "duplicate_tool_across_packages"
    }


# --- export ------------------------------------------------------------------------------
def test_export_every_format() -> None:
    """Each format prints JSON loadable by that format's SDK.

    Spot checks here; the full SDK checks are in the exporter tests.
    """
    from mcp.types import ListToolsResult  # pylint: disable=import-outside-toplevel

    mcp = as_json(run("export", "--format", "mcp", SAMPLE))
    ListToolsResult.model_validate(mcp)
    openai = as_json(run("export", "--format", "openai", SAMPLE))
    assert all(t["function"]["strict"] for t in openai)
    anthropic = as_json(
        run("export", "--format", "anthropic", "--tool", "summarise", SAMPLE)
    )
    assert [t["name"] for t in anthropic] == ["summarise"]
    langchain = as_json(run("export", "--format", "langchain", SAMPLE))
    assert langchain[0]["args_schema"]["required"] == ["prompt"]
    card = as_json(
        run("export", "--format", "a2a", "--url", "http://127.0.0.1:9/a2a", SAMPLE)
    )
    assert (
        card["supportedInterfaces"][0]["url"] == "http://127.0.0.1:9/a2a"
        and len(card["skills"]) == 3
    )
    registration = as_json(
        run(
            "export",
            "--format",
            "erc8004",
            "--chain-id",
            "8453",
            "--agent-id",
            "5",
            "--identity-registry",
            "0x8004a169fb4a3325136eb29fa0ceb6d2e539a432",
            SAMPLE,
        )
    )
    assert registration["registrations"][0]["agentRegistry"].startswith(
        "eip155:8453:0x8004A169"
    )


def test_export_failures() -> None:
    """Unknown tool or half a registration: exit 1; unknown format: exit 2."""
    unknown = run("export", "--json", "--format", "mcp", "--tool", "nope", SAMPLE)
    assert (
        unknown.exit_code == EXIT_INVALID
        and as_json(unknown)["error"]["code"] == "unknown_tool"
    )
    partial = run("export", "--json", "--format", "erc8004", "--agent-id", "1", SAMPLE)
    assert partial.exit_code == EXIT_INVALID
    assert as_json(partial)["error"]["code"] == "invalid_registration"
    assert run("export", "--format", "yaml", SAMPLE).exit_code == EXIT_USAGE
    assert run("export", SAMPLE).exit_code == EXIT_USAGE


# --- cid ---------------------------------------------------------------------------------
def test_cid_digest_round_trip() -> None:
    """A digest gives CIDs that give the digest back, for dag-pb v1/v0 and raw."""
    body = as_json(run("cid", "--json", DIGEST))
    assert body["dag_pb_v1_base16"] == "f01701220" + "ab" * 32
    for key in ("dag_pb_v1", "dag_pb_v0", "raw_v1"):
        back = as_json(run("cid", "--json", body[key]))
        assert back["digest"] == DIGEST
    assert as_json(run("cid", "--json", body["raw_v1"]))["codec"] == "raw"
    assert "v0" not in as_json(run("cid", "--json", body["raw_v1"]))


def test_cid_of_file_layouts(tmp_path: Path) -> None:
    """A single-chunk file: raw-leaves digest is sha2-256 of the bytes.

    The dag-pb v0 and v1 layouts share one digest (same root block).

    :param tmp_path: pytest's temporary folder.
    """
    import hashlib  # pylint: disable=import-outside-toplevel

    data = b'{"tools": []}'
    path = tmp_path / "m.json"
    path.write_bytes(data)
    layouts = as_json(run("cid", "--json", path))["layouts"]
    assert (
        layouts["kubo-cid-version-1"]["digest"]
        == "0x" + hashlib.sha256(data).hexdigest()
    )
    assert layouts["kubo-default-v0"]["cid"].startswith("Qm")
    assert (
        layouts["kubo-default-v0"]["digest"]
        == layouts["kubo-cid-version-1-dag-pb-leaves"]["digest"]
    )


@pytest.mark.parametrize(
    "value", ["nonsense", "0x1234", "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylq"]
)
def test_cid_failures(value: str) -> None:
    """Bad digests and CIDs: exit 1 with a code; human text on stderr."""
    result = run("cid", "--json", value)
    assert result.exit_code == EXIT_INVALID
    assert as_json(result)["error"]["code"] in (
        "invalid_cid",
        "invalid_digest",
        "unsupported_cid",
    )
    human = run("cid", value)
    assert human.exit_code == EXIT_INVALID and human.stderr.startswith("error")


def test_every_command_has_json_and_help() -> None:
    """--json is offered by every command, and every command has help text."""
    commands: List[str] = cli.list_commands(click.Context(cli))
    assert tuple(commands) == COMMANDS
    for name in commands:
        help_text = run(name, "--help").stdout
        assert "--json" in help_text, name


NFT_TOOL = {
    "name": "mint-quote",
    "kwargs": [{"identifier": "recipient", "type": "hexAddress"}],
}
NFT_CID = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"


def _nft_file(tmp_path: Path, description: str, **fields: Any) -> Path:
    document = {
        "name": "quote-mech",
        "description": description,
        "code_uri": f"ipfs://{NFT_CID}",
        "image": f"ipfs://{NFT_CID}",
        "attributes": [{"trait_type": "version", "value": "0.1.0"}],
        **fields,
    }
    path = tmp_path / "nft.json"
    path.write_text(json.dumps(document))
    return path


def test_validate_recognises_registry_nft_metadata(tmp_path: Path) -> None:
    """NFT metadata with described tools passes --strict and is named as what it is."""
    path = _nft_file(tmp_path, "Quotes. " + json.dumps({"tools": [NFT_TOOL]}))
    human = run("validate", "--strict", path)
    assert human.exit_code == EXIT_OK, human.output
    assert "(registry NFT metadata): 1 tool(s), 0 warning(s)" in human.stdout
    machine = json.loads(run("--json", "validate", path).stdout)
    assert machine["document"] == "nft_metadata" and machine["tools"] == ["mint-quote"]
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"tools": ["a"], "toolMetadata": {}}))
    assert json.loads(run("--json", "validate", manifest).stdout)["document"] == (
        "manifest"
    )


def test_validate_reports_nft_faults_where_they_are(tmp_path: Path) -> None:
    """A bad code_uri and a bad described kwarg: errors at their pointers, exit 1."""
    bad_tool = {"name": "t", "kwargs": [{"identifier": "x", "type": ["int"]}]}
    path = _nft_file(tmp_path, json.dumps(bad_tool), code_uri="ipfs:/nope")
    result = run("validate", path)
    assert result.exit_code == EXIT_INVALID
    assert (
        "/code_uri" in result.stderr and "/description/kwargs/0/type" in result.stderr
    )
    assert "lacks the required field `tools`" not in result.stderr


@pytest.mark.parametrize(
    "document,kind,note",
    [
        (
            {"name": "quote-mech", "description": "Quotes. " + json.dumps([NFT_TOOL])},
            "described_tools",
            "(tools as JSON in its description)",
        ),
        (dict(NFT_TOOL), "single_tool", "(a single tool object"),
    ],
    ids=["tools in the description", "one tool object"],
)
def test_validate_accepts_what_show_and_export_read(
    tmp_path: Path, document: Any, kind: str, note: str
) -> None:
    """Issue #34 item 4: no `lacks tools` for a document every reader reads; same tools."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    human = run("validate", path)
    assert human.exit_code == EXIT_OK, human.output
    assert note in human.stdout and "lacks the required field" not in human.output
    machine = as_json(run("--json", "validate", path))
    assert machine["ok"] and machine["document"] == kind
    shown = as_json(run("show", "--json", path))
    assert [t["name"] for t in shown["tools"]] == machine["tools"] == ["mint-quote"]
    assert not [p for p in shown["problems"] if p["severity"] == "error"]
    exported = run("export", "--format", "mcp", path)
    assert exported.exit_code == EXIT_OK and "mint-quote" in exported.stdout


def test_validate_still_fails_what_no_reader_reads(tmp_path: Path) -> None:
    """A description without tool JSON and no `tools`: validate and show both fail."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"name": "m", "description": "Quotes pairs."}))
    assert run("validate", path).exit_code == EXIT_INVALID
    assert run("show", path).exit_code == EXIT_INVALID


def test_validate_says_what_component_metadata_is(tmp_path: Path) -> None:
    """Component metadata (plain description, code_uri): exit 1 and the derive hint."""
    result = run("validate", _nft_file(tmp_path, "An oracle tool package."))
    assert result.exit_code == EXIT_INVALID
    assert "registry NFT metadata" in result.stderr
    assert "mech-catalogue derive ipfs://<CID>" in result.stderr


def test_json_output_gives_integers_javascript_cannot_hold_as_strings(
    capsys: pytest.CaptureFixture,
) -> None:
    """Issue #34 item 11: whatever a command emits, ``--json`` keeps every digit in Node.

    :param capsys: pytest's output capture.
    """
    result = {"price": 3 * 10**18, "requestId": int("c7" * 32, 16), "count": 7}
    Output(as_json=True).emit(result)
    printed = json.loads(capsys.readouterr().out)
    assert printed == {
        "price": str(3 * 10**18),
        "requestId": str(int("c7" * 32, 16)),
        "count": 7,
    }
    assert survives_javascript(printed) and not survives_javascript(result)
