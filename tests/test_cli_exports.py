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

"""CLI `cid`, `validate`, `show` and `export` over every textual CID form, and export's rules.

Manifests are written here; the CID forms are computed from their bytes (py-cid), and the
fetch tests read them from the devnet's real kubo node.
"""

import json
from pathlib import Path
from typing import Any, Dict, List

import cid as pycid
import pytest
from click.testing import CliRunner, Result
from mech_catalogue_core.exporters import (
    conformance,
    names,
)
from mech_catalogue_core.ipfs import cid as cids
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from mech_catalogue_cli.app import cli
from scripts.devnet import Devnet

MANIFEST: Dict[str, Any] = {
    "name": "Forms mech",
    "description": "Checks CID forms.",
    "image": "not-a-uri",
    "tools": ["echo"],
    "toolMetadata": {
        "echo": {
            "name": "echo",
            "description": "Says it back",
            "input": {"type": "text", "description": "text"},
            "output": {"type": "object", "description": "r"},
            "arguments": [
                {"identifier": "text", "type": "str"},
                {
                    "identifier": "times",
                    "type": "int",
                    "default": 2,
                    "description": "Repeats",
                },
            ],
        }
    },
}


def run(*args: Any) -> Result:
    """Return the result of one CLI call.

    :param args: command line.
    :return: the result.
    """
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def cid_forms(codec: str, digest: bytes) -> List[str]:
    """Every textual form of one CID.

    :param codec: ``dag-pb`` or ``raw``.
    :param digest: the 32-byte sha2-256 digest.
    :return: v1 in base32 (both cases), base58btc, base16, base36, the URI and path forms,
        and v0 for dag-pb.
    """
    built = pycid.make_cid(1, codec, b"\x12\x20" + digest)
    base32 = built.encode("base32").decode()
    forms = [
        base32,
        base32.upper(),
        built.encode("base58btc").decode(),
        built.encode("base16").decode(),
        built.encode("base36").decode(),
        "ipfs://" + base32,
        "/ipfs/" + base32,
    ]
    if codec == "dag-pb":
        v0 = str(built.to_v0())
        forms += [v0, "/ipfs/" + v0, "ipfs://" + v0]
    return forms


@pytest.mark.parametrize("raw_leaves", [False, True])
def test_cid_reads_every_form_and_reports_raw_as_raw(raw_leaves: bool) -> None:
    """`cid VALUE` gives the same digest and codec for every form of a CID."""
    data = json.dumps(MANIFEST).encode()
    codec_id, digest = root_digest(data, raw_leaves=raw_leaves, cid_version=1)
    codec = "raw" if raw_leaves else "dag-pb"
    assert codec_id == (0x55 if raw_leaves else 0x70)
    for form in cid_forms(codec, digest):
        result = run("cid", "--json", form)
        assert result.exit_code == EXIT_OK, (form, result.output)
        body = json.loads(result.stdout)
        assert body["codec"] == codec and body["digest"] == "0x" + digest.hex(), form
        assert ("v0" in body) == (codec == "dag-pb")


def test_multihash_given_as_digest_says_to_drop_the_prefix() -> None:
    """0x1220 + 64 hex is a multihash: exit 1 naming the prefix and the digest to use."""
    digest = "5a" * 32
    for command in (("cid",), ("validate",), ("show",), ("export", "--format", "mcp")):
        result = run(*command, "0x1220" + digest)
        assert result.exit_code == EXIT_INVALID, command
        assert "1220" in result.output and "0x" + digest in result.output, command


def test_validate_show_export_fetch_every_form(devnet: Devnet) -> None:
    """Every textual form of a manifest's CID fetches and verifies the same bytes from kubo."""
    gateway = devnet.info.ipfs_gateway_url
    data = json.dumps(MANIFEST, sort_keys=True).encode()
    cid, digest = devnet.add_manifest(data, raw_leaves=False)
    forms = cid_forms("dag-pb", digest)
    assert cid in forms
    for form in forms:
        for command in (("validate",), ("show",)):
            result = run(*command, "--json", "--ipfs-gateway", gateway, form)
            assert result.exit_code == EXIT_OK, (form, result.output)
        exported = run("export", "--format", "erc8004", "--ipfs-gateway", gateway, form)
        assert exported.exit_code == EXIT_OK, (form, exported.output)
        document = json.loads(exported.stdout)
        assert conformance.registration_file_problems(document) == []
        assert {
            "name": "olas-mech-manifest",
            "endpoint": "ipfs://" + cids.to_v1(cid),
        } in (document["services"])
        assert document["image"] == ""  # "not-a-uri" is never copied
        assert "not-a-uri" in exported.stderr


@pytest.mark.parametrize("fmt", ["a2a", "erc8004"])
def test_unfillable_url_template_is_a_usage_error(tmp_path: Path, fmt: str) -> None:
    """{agentId} without --agent-id, or another template, exits 2; with it, it is filled."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps(MANIFEST))
    url = "https://agents.example.org/{agentId}/a2a"
    assert run("export", "--format", fmt, "--url", url, path).exit_code == EXIT_USAGE
    other = run(
        "export", "--format", fmt, "--agent-id", "5", "--url", url + "/{chain}", path
    )
    assert other.exit_code == EXIT_USAGE and "{chain}" in other.output
    filled = run(
        "export",
        "--format",
        fmt,
        "--agent-id",
        "5",
        "--identity-registry",
        "0x" + "22" * 20,
        "--chain-id",
        "100",
        "--url",
        url,
        path,
    )
    assert filled.exit_code == EXIT_OK, filled.output
    assert "{" not in filled.stdout.replace("{\n", "").replace("{}", "")
    assert "https://agents.example.org/5/a2a" in filled.stdout


def test_export_of_a_file_invents_no_provenance(tmp_path: Path) -> None:
    """No chain id, registry address or mech id appears unless the command line gave them."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps(MANIFEST))
    mcp = json.loads(run("export", "--format", "mcp", path).stdout)
    meta = mcp["tools"][0]["_meta"]["io.olas/mech-tool"]
    assert meta["provenance"] == {"shape": "arguments_v1"}
    card = json.loads(run("export", "--format", "a2a", path).stdout)
    assert not any(t.startswith("eip155:") for t in card["skills"][0]["tags"])
    assert (
        run("export", "--format", "mcp", "--mech-id", "3", path).exit_code == EXIT_USAGE
    )
    named = run(
        "export",
        "--format",
        "mcp",
        "--chain-id",
        "10",
        "--registry-address",
        "0x" + "ab" * 20,
        "--mech-id",
        "3",
        path,
    )
    mech = json.loads(named.stdout)["tools"][0]["_meta"]["io.olas/mech-tool"][
        "provenance"
    ]["mech"]
    assert mech["chain_id"] == 10 and mech["mech_id"] == 3


def test_export_of_precomputed_colliding_names_succeeds_in_every_format(
    tmp_path: Path,
) -> None:
    """A name, its sanitised form and the fallback after it: exit 0, unique valid names."""
    first = names.sanitise_name("bad name!", names.MCP_RULE)
    # its second tag: what it was given beside a literal copy of its first one before
    # such a copy was itself renamed (adv29v)
    second = names.export_names(
        ["bad name!", first], names.MCP_RULE, held=frozenset({first})
    )["bad name!"]
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"tools": ["bad name!", first, second]}))
    for fmt in ("mcp", "openai", "anthropic", "a2a", "erc8004"):
        result = run("export", "--format", fmt, path)
        assert result.exit_code == EXIT_OK, (fmt, result.output)
    listed = json.loads(run("export", "--format", "mcp", path).stdout)
    assert conformance.mcp_tools_list_problems(listed) == []
    assert len({t["name"] for t in listed["tools"]}) == 3


DROPPED_PARTS: Dict[str, Any] = {
    "name": "Dropped parts mech",
    "description": "Keys and roots written for this test.",
    "tools": ["keys", "rooted"],
    "toolMetadata": {
        "keys": {
            "name": "keys",
            "description": "Some keys are not identifiers.",
            "input": {
                "type": "text",
                "schema": {
                    "type": "object",
                    "properties": {
                        "page[size]": {"type": "integer"},
                        "odata@id": {"type": "string"},
                        "market": {"type": "string"},
                    },
                    "required": ["market"],
                },
            },
            "output": {"type": "object", "schema": {"type": 9}},
        },
        "rooted": {
            "name": "rooted",
            "description": "The root is an array schema.",
            "input": {"type": "text", "schema": {"type": "array"}},
        },
    },
}


def test_show_and_export_offer_tools_without_their_dropped_parts(
    tmp_path: Path,
) -> None:
    """`show` lists both tools and prints each pointer verbatim; every export has both."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps(DROPPED_PARTS))
    shown = run("show", path)
    assert shown.exit_code == EXIT_OK, shown.output
    assert "market: str" in shown.output and "prompt: str" in shown.output
    assert "tool_withheld" not in shown.output
    assert "/toolMetadata/keys/input/schema/properties/page[size]:" in shown.output
    assert "/toolMetadata/keys/output/schema" in shown.output
    assert "/toolMetadata/rooted/input/schema" in shown.output
    for fmt in ("mcp", "openai", "anthropic", "langchain"):
        exported = run("export", "--format", fmt, path)
        assert exported.exit_code == EXIT_OK, exported.output
        body = json.loads(exported.stdout)  # stderr names the dropped parts
        tools = body["tools"] if fmt == "mcp" else body
        assert len(tools) == 2, fmt
        assert "page[size]" not in exported.stdout and "odata@id" not in exported.stdout
        assert (
            "/toolMetadata/keys/input/schema/properties/page[size]" in exported.stderr
        )
    validated = run("validate", path)
    assert validated.exit_code == EXIT_INVALID  # dropped parts are still errors


@pytest.mark.parametrize("fmt", ["a2a", "erc8004"])
def test_a_default_url_is_warned_about_and_a_given_one_is_not(
    tmp_path: Path, fmt: str
) -> None:
    """Without --url the document names this machine's loopback: stderr says so.

    :param tmp_path: where the manifest is written.
    :param fmt: a format that advertises an endpoint.
    """
    path = tmp_path / "m.json"
    path.write_text(json.dumps(MANIFEST))
    extra = ["--agent-id", "5", "--identity-registry", "0x" + "22" * 20]
    extra += ["--chain-id", "100"] if fmt == "erc8004" else []
    default = run("export", "--format", fmt, *extra, path)
    assert default.exit_code == EXIT_OK, default.output
    assert "no --url" in default.stderr and "127.0.0.1:8000" in default.stderr
    given = run(
        "export", "--format", fmt, *extra, "--url", "https://mech.example.org", path
    )
    assert given.exit_code == EXIT_OK and "no --url" not in given.stderr
    assert "https://mech.example.org" in given.stdout
    assert "no --url" not in run("export", "--format", "mcp", path).stderr
