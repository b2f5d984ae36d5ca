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

"""``mech-catalogue list`` against the real devnet (anvil registries + kubo), CliRunner.

The devnet's seed registers manifests in all three registry kinds, among them two broken
ones (``broken:invalid-json`` in the Olas AgentRegistry, ``broken:wrong-types`` in the
legacy mech registry); see scripts/devnet/seed.py.
"""

import json
import socket
from typing import Any, Dict, Set, Tuple

import pytest
from click.testing import CliRunner, Result

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from mech_catalogue_cli.app import cli
from scripts.devnet import Devnet

KINDS = (
    "olas_agent_registry",
    "legacy_mech_registry",
    "complementary_service_metadata",
)


def run(*args: Any) -> Result:
    """Return the result; a wide terminal so table cells are not cut.

    :param args: command line.
    :return: the result (stdout and stderr apart).
    """
    return CliRunner(env={"COLUMNS": "250"}).invoke(
        cli, [str(a) for a in args], catch_exceptions=False
    )


def devnet_args(devnet: Devnet) -> Tuple[str, ...]:
    """Return ``--devnet`` pointing at the session devnet's state folder.

    :param devnet: the session devnet.
    :return: the options.
    """
    return ("--devnet", "--devnet-dir", devnet.info.state_dir)


def seeded(devnet: Devnet) -> Set[Tuple[str, int]]:
    """Return the (registry kind, id) pairs the seed wrote a hash for.

    :param devnet: the session devnet.
    :return: the pairs.
    """
    return {(entry.registry, entry.id) for entry in devnet.info.registered}


def by_ref(body: Dict[str, Any]) -> Dict[Tuple[str, int], Dict[str, Any]]:
    """Index the catalogue JSON's mechs.

    :param body: the decoded ``--json`` output.
    :return: (registry kind, id) -> mech dict.
    """
    return {(m["ref"]["registry_kind"], m["ref"]["mech_id"]): m for m in body["mechs"]}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_json_lists_every_seeded_mech_with_tools(devnet: Devnet) -> None:
    """--json is the catalogue JSON: every seeded mech of the three kinds, typed tools."""
    result = run("list", "--json", *devnet_args(devnet))
    assert result.exit_code == EXIT_OK, result.stderr
    body = json.loads(result.stdout)
    assert body["version"] == 1
    mechs = by_ref(body)
    assert seeded(devnet) <= set(mechs)
    ok = [m for m in mechs.values() if m["status"] == "ok"]
    assert {m["ref"]["registry_kind"] for m in ok} == set(KINDS)
    assert all(m["tools"] for m in ok if m["name"] != "")
    assert any(a["type"] for m in ok for t in m["tools"] for a in t["arguments"])
    assert result.stdout.strip() == result.stdout.strip().splitlines()[0]  # canonical


def test_untyped_tools_get_the_arguments_their_code_declares(devnet: Devnet) -> None:
    """A names-only Olas agent's tool is typed from its component's code, as the agent does.

    The seed's "tools-only" agent names prediction-request-rag without arguments; its
    component's code_uri is a real tool package in kubo (scripts/devnet/seed.py).

    :param devnet: the session devnet.
    """
    body = json.loads(run("list", "--json", *devnet_args(devnet)).stdout)
    derived = [
        (m, t)
        for m in body["mechs"]
        for t in m["tools"]
        if "derived_from" in t["provenance"]
    ]
    assert derived, "no tool was typed from code"
    for mech, tool in derived:
        assert mech["ref"]["registry_kind"] == "olas_agent_registry"
        assert tool["arguments"] and tool["provenance"]["derived_from"]["cid"]
    assert "prediction-request-rag" in {t["name"] for _, t in derived}


def test_table_lists_mechs_of_all_kinds_and_their_tools(devnet: Devnet) -> None:
    """The table shows each registry kind, the mechs' names and tools with typed args."""
    body = json.loads(run("list", "--json", *devnet_args(devnet)).stdout)
    result = run("list", *devnet_args(devnet))
    assert result.exit_code == EXIT_OK, result.stderr
    for kind in KINDS:
        assert kind in result.stdout
    for mech in body["mechs"]:
        if mech["name"]:
            assert mech["name"] in result.stdout
        for tool in mech["tools"]:
            assert tool["name"] in result.stdout
            for argument in tool["arguments"]:
                assert f"{argument['identifier']}" in result.stdout
    mechs_only = run("list", "--mechs-only", *devnet_args(devnet))
    assert mechs_only.exit_code == EXIT_OK
    typed = [
        a["identifier"]
        for m in body["mechs"]
        for t in m["tools"]
        for a in t["arguments"]
    ]
    assert typed and not any(f"{name}:" in mechs_only.stdout for name in typed)


def test_broken_mech_is_listed_with_its_code_beside_the_others(devnet: Devnet) -> None:
    """One --registry with a broken and a good id: both listed, the broken one with its code."""
    broken = next(e for e in devnet.info.registered if e.shape == "broken:invalid-json")
    good = next(
        e
        for e in devnet.info.registered
        if e.registry == broken.registry and not e.shape.startswith("broken")
    )
    address = devnet.info.contracts["AgentRegistry"]
    args = (
        "--rpc",
        devnet.info.rpc_url,
        "--multicall2",
        devnet.info.contracts["Multicall2"],
        "--ipfs-gateway",
        devnet.info.ipfs_gateway_url,
        "--registry",
        f"olas_agent_registry:{address}:{broken.id},{good.id}",
    )
    body = json.loads(run("list", "--json", *args).stdout)
    mechs = by_ref(body)
    assert set(mechs) == {(broken.registry, broken.id), (good.registry, good.id)}
    quarantined = mechs[(broken.registry, broken.id)]
    assert quarantined["status"] == "invalid" and not quarantined["tools"]
    codes = [p["code"] for p in quarantined["problems"] if p["severity"] == "error"]
    assert codes
    assert mechs[(good.registry, good.id)]["status"] == "ok"
    result = run("list", *args)
    assert result.exit_code == EXIT_OK
    assert "invalid" in result.stdout and codes[0] in result.stdout
    assert f"olas_agent_registry #{broken.id} (invalid)" in result.stdout


def test_unreachable_rpc_exits_1_with_a_readable_message() -> None:
    """A closed RPC port: exit 1, code chain_read_failed, the URL and option named."""
    rpc = f"http://127.0.0.1:{_closed_port()}"
    registry = "olas_agent_registry:0x" + "11" * 20
    for extra in ((), ("--chain-id", "31337")):
        result = run(
            "list",
            "--rpc",
            rpc,
            "--multicall2",
            "0x" + "22" * 20,
            "--registry",
            registry,
            "--timeout",
            "2",
            *extra,
        )
        assert result.exit_code == EXIT_INVALID
        assert "chain_read_failed" in result.stderr
        assert "--rpc" in result.stderr and rpc in result.stderr
        assert "Traceback" not in result.stderr
    as_json = run(
        "list", "--json", "--rpc", rpc, "--chain-id", "1", "--multicall2",
        "0x" + "22" * 20, "--registry", registry,
    )  # fmt: skip
    assert as_json.exit_code == EXIT_INVALID
    assert json.loads(as_json.stdout)["error"]["code"] == "chain_read_failed"


@pytest.mark.parametrize(
    "value",
    [
        "olas_agent_registry",
        "nope:0x" + "11" * 20,
        "olas_agent_registry:0x" + "11" * 20 + ":a-b",
        "olas_agent_registry:0x" + "11" * 20 + ":1:2",
        "olas_agent_registry:0x12",
        "olas_agent_registry:0x" + "11" * 20 + ":0",
    ],
)
def test_malformed_registry_exits_2_naming_the_option(value: str) -> None:
    """A bad --registry is a usage error (exit 2) naming --registry; nothing is read."""
    result = run(
        "list",
        "--rpc",
        f"http://127.0.0.1:{_closed_port()}",
        "--chain-id",
        "1",
        "--multicall2",
        "0x" + "22" * 20,
        "--registry",
        value,
    )
    assert result.exit_code == EXIT_USAGE
    assert "--registry" in result.stderr
    assert "chain_read_failed" not in result.stderr


def test_missing_registry_or_multicall_exits_2() -> None:
    """No --registry (and no --devnet), or no --multicall2: usage errors naming them."""
    result = run("list", "--chain-id", "1", "--multicall2", "0x" + "22" * 20)
    assert result.exit_code == EXIT_USAGE and "--registry" in result.stderr
    result = run("list", "--registry", "olas_agent_registry:0x" + "11" * 20)
    assert result.exit_code == EXIT_USAGE and "--multicall2" in result.stderr


def test_devnet_without_state_file_exits_1(tmp_path: Any) -> None:
    """--devnet with no devnet.json: exit 1, the file and what to do named."""
    result = run("list", "--devnet", "--devnet-dir", tmp_path)
    assert result.exit_code == EXIT_INVALID
    assert "devnet_not_running" in result.stderr and "devnet.json" in result.stderr


def _statuses(*args: Any) -> Dict[Tuple[str, int], str]:
    result = run("list", "--json", *args)
    assert result.exit_code == EXIT_OK, result.stderr
    return {ref: m["status"] for ref, m in by_ref(json.loads(result.stdout)).items()}


def test_fallback_gateway_serves_when_the_first_is_down(devnet: Devnet) -> None:
    """--ipfs-gateway on a closed port: with --fallback-gateway the devnet's, the same catalogue."""
    dead = f"http://127.0.0.1:{_closed_port()}"
    expected = _statuses(*devnet_args(devnet))
    alone = _statuses(*devnet_args(devnet), "--ipfs-gateway", dead, "--timeout", "1")
    assert "ok" not in alone.values()  # the dead gateway alone serves nothing
    with_fallback = _statuses(
        *devnet_args(devnet),
        "--ipfs-gateway",
        dead,
        "--gateway",
        f"http://127.0.0.1:{_closed_port()}/",  # a second dead one, skipped too
        "--fallback-gateway",
        devnet.info.ipfs_gateway_url + "/",
        "--timeout",
        "1",
    )
    assert with_fallback == expected and "ok" in expected.values()


@pytest.mark.parametrize(
    "value", ["ipfs.io", "ftp://ipfs.io", "http://", "file:///tmp"]
)
def test_bad_fallback_gateway_exits_2_naming_the_option(value: str) -> None:
    """A --fallback-gateway that is not an http(s) URL: usage error, nothing read."""
    result = run(
        "list",
        "--rpc",
        f"http://127.0.0.1:{_closed_port()}",
        "--chain-id",
        "1",
        "--multicall2",
        "0x" + "22" * 20,
        "--registry",
        "olas_agent_registry:0x" + "11" * 20,
        "--fallback-gateway",
        value,
    )
    assert result.exit_code == EXIT_USAGE
    assert (
        "--fallback-gateway" in result.stderr
        and "chain_read_failed" not in result.stderr
    )
