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

"""``--chain`` presets on ``list``, ``mcp``, ``publish`` and ``derive``, and what ``list`` shows.

The public presets cannot be reached from here: they are checked against Olas's
configuration files in the library's ``tests/chain/test_presets.py``; here their help,
their errors and the precedence of explicit options are checked without a network
(a closed local port stands for an RPC), and ``--chain devnet`` against the session's
real devnet (anvil with the marketplace bytecode, kubo).
"""

import json
import re
import socket
from pathlib import Path
from typing import Any, Dict, List

import pytest
from click.testing import CliRunner, Result
from mech_catalogue_core.chain.marketplace import (
    DiscoveryCheckpoint,
    MarketplaceSource,
)
from mech_catalogue_core.chain.presets import PRESETS, chain_preset

from mech_catalogue_cli import EXIT_OK, EXIT_USAGE
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.marketplace_driver import checkpoint_path, usable_checkpoint
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy

COMMANDS = ("list", "mcp", "publish", "derive")
ADDRESS = re.compile(r"^0x[0-9a-f]{40}$")


def run(*args: Any) -> Result:
    """Return the result of one command line; a wide terminal so cells are not cut.

    :param args: the command line.
    :return: the result (stdout and stderr apart).
    """
    return CliRunner(env={"COLUMNS": "250"}).invoke(
        cli, [str(a) for a in args], catch_exceptions=False
    )


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_with_a_chain_ends_with_its_values_and_sources(command: str) -> None:
    """``X --chain base --help`` lists base's MechMarketplace, first block and sources."""
    base = chain_preset("base")
    result = run(command, "--chain", "base", "--help")
    assert result.exit_code == EXIT_OK, result.output
    text = " ".join(result.stdout.split())
    assert "Preset base" in text
    assert (
        base.mech_marketplace in text and str(base.mech_marketplace_first_block) in text
    )
    assert "mech-client 0.24.1" in text and "autonolas-subgraph" in text
    assert "Preset" not in run(command, "--help").stdout


def test_show_preset_prints_every_value_with_its_source() -> None:
    """``--show-preset --json`` is the preset's rows: a value and a source each."""
    result = run("list", "--chain", "polygon", "--show-preset", "--json")
    assert result.exit_code == EXIT_OK, result.output
    body = json.loads(result.stdout)
    assert body["chain"] == "polygon"
    rows = chain_preset("polygon").rows()
    assert body["values"] == {n: {"value": v, "source": s} for n, v, s in rows}
    lone = run("list", "--show-preset")
    assert lone.exit_code == EXIT_USAGE and "needs --chain" in lone.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_chain_is_a_usage_error_listing_the_presets(command: str) -> None:
    """A misspelt chain names every preset and devnet; nothing is read."""
    result = run(command, "--chain", "gnosis-chain")
    assert result.exit_code == EXIT_USAGE
    assert all(name in result.stderr for name in (*PRESETS, "devnet"))


@pytest.mark.parametrize(
    "argv, option",
    [
        (("mcp", "--chain", "arbitrum"), "--marketplace ADDRESS"),
        (("mcp", "--chain", "celo", "--dry-run"), "--marketplace ADDRESS"),
        (
            ("publish", "--manifest", "m.json", "--kind", "olas_agent_registry")
            + ("--id", "1", "--chain", "optimism"),
            "--registry ADDRESS",
        ),
        (("derive", "--chain", "polygon", "--component", "4"), "--registry ADDRESS"),
        (("derive", "--chain", "mainnet", "--agent", "4"), "--rpc URL"),
        (("list", "--chain", "mainnet"), "--rpc URL"),
    ],
    ids=["mcp-arbitrum", "mcp-celo", "publish", "derive-component", "derive", "list"],
)
def test_a_preset_without_a_needed_value_names_the_option_to_pass(
    argv: List[str], option: str
) -> None:
    """No marketplace, registry or RPC in the preset: exit 2 naming the option and chains."""
    result = run(*argv)
    assert result.exit_code == EXIT_USAGE, result.output
    message = " ".join(result.stderr.split())
    assert option in message and "use a chain that has one" in message


def test_a_typed_rpc_wins_over_the_preset() -> None:
    """``--chain gnosis --rpc URL`` reads URL (asking it its chain id), never gateway.fm."""
    url = f"http://127.0.0.1:{_closed_port()}"
    result = run("list", "--chain", "gnosis", "--rpc", url, "--timeout", "0.5")
    assert result.exit_code == 1
    assert url in result.stderr and "gateway.fm" not in result.stderr
    assert "chain id" in result.stderr


def test_a_chain_and_the_devnet_together_are_refused() -> None:
    """``--chain gnosis --devnet`` names two chains: exit 2 before anything is read."""
    result = run("list", "--chain", "gnosis", "--devnet")
    assert result.exit_code == EXIT_USAGE and "two chains" in result.stderr


# --- against the devnet -------------------------------------------------------------------


def _marketplace_mechs(devnet: Devnet) -> Dict[str, Dict[str, Any]]:
    return {
        m["address"].lower(): m for m in devnet.info.mechs if m["kind"] == "marketplace"
    }


def _listed(devnet: Devnet, *chain: str) -> Dict[str, Any]:
    result = run("list", "--json", *chain, "--devnet-dir", devnet.info.state_dir)
    assert result.exit_code == EXIT_OK, result.stderr
    return json.loads(result.stdout)


def test_list_json_carries_every_marketplace_mech_with_address_price_and_payment(
    devnet: Devnet,
) -> None:
    """``list --chain devnet --json``: each marketplace mech's address, price, payment type."""
    seeded = _marketplace_mechs(devnet)
    assert seeded
    body = _listed(devnet, "--chain", "devnet")
    listed = {
        m["address"]: m for m in body["marketplace_mechs"] if m["kind"] == "marketplace"
    }
    assert set(listed) == set(seeded)
    for address, mech in listed.items():
        assert ADDRESS.match(address)
        assert int(mech["max_delivery_rate"]) == seeded[address]["rate"]
        asset = seeded[address].get("asset", "native")
        # (payment asset, way) of each seeded kind; subscriptions are priced in credits
        paid_as = {
            "native": ("native", "native"),
            "olas": ("olas", "token"),
            "usdc": ("usdc", "token"),
            "subscription": ("credits", "subscription"),
        }[asset]
        assert mech["payment_type"]
        assert (mech["payment"]["asset"], mech["payment"]["way"]) == paid_as
        assert mech["payment"]["price"] == mech["max_delivery_rate"]
        assert mech["karma"] is not None and mech["deliveries"] is not None
        assert mech["liveness"] in ("delivering", "never_delivered", "no_requests")
    attached = {
        f["address"]: m["ref"]["mech_id"]
        for m in body["mechs"]
        for f in m.get("marketplace", ())
    }
    for address, mech in listed.items():  # facts sit on the service's manifest entry
        if mech["entry"] is not None:
            assert attached[address] == seeded[address]["service_id"]
    assert any(m["entry"] for m in listed.values())


def test_devnet_flag_and_chain_devnet_list_the_same(devnet: Devnet) -> None:
    """``--devnet`` stays an alias of ``--chain devnet``."""
    assert _listed(devnet, "--devnet") == _listed(devnet, "--chain", "devnet")


def test_the_table_shows_each_marketplace_mech(devnet: Devnet) -> None:
    """``--mechs-only``: a row per marketplace mech with address, payment, price, liveness."""
    result = run(
        "list",
        "--chain",
        "devnet",
        "--mechs-only",
        "--devnet-dir",
        devnet.info.state_dir,
    )
    assert result.exit_code == EXIT_OK, result.stderr
    rows = [line for line in result.stdout.splitlines() if "0x" in line]
    for address, mech in _marketplace_mechs(devnet).items():
        row = next(r for r in rows if address in r)
        names = {
            "native": "native",
            "olas": "token_olas",
            "usdc": "token_usdc",
            "subscription": "native_nvm",
        }
        assert names[mech.get("asset", "native")] in row and str(mech["rate"]) in row
        assert any(
            word in row for word in ("delivering", "never_delivered", "no_requests")
        )


@pytest.mark.parametrize("columns", ["80", "60"])
def test_at_80_columns_every_mech_address_stays_whole(
    devnet: Devnet, columns: str
) -> None:
    """Issue 33: an 80-column terminal cut addresses ("0xab…"); each is whole on one line."""
    result = CliRunner(env={"COLUMNS": columns}).invoke(
        cli,
        ["list", "--chain", "devnet", "--mechs-only"]
        + ["--devnet-dir", str(devnet.info.state_dir)],
        catch_exceptions=False,
    )
    assert result.exit_code == EXIT_OK, result.stderr
    lines = result.stdout.splitlines()
    listed = _listed(devnet, "--chain", "devnet")["marketplace_mechs"]
    assert listed
    for mech in listed:
        (line,) = [line for line in lines if mech["address"] in line]
        facts = "\n".join(lines[lines.index(line) : lines.index(line) + 9])
        assert f"payment: {mech['payment_type_name'] or 'legacy (native)'}" in facts
        assert f"price: {mech['max_delivery_rate']}" in facts
    assert "…" not in result.stdout  # nothing cut, in the mechs table either


def test_explicit_options_on_a_public_preset_read_what_they_name(
    devnet: Devnet,
) -> None:
    """``--chain gnosis`` with every address typed reads the devnet those addresses name."""
    info = devnet.info
    result = run(
        "list",
        "--json",
        "--chain",
        "gnosis",
        "--rpc",
        info.rpc_url,
        "--ipfs-gateway",
        info.ipfs_gateway_url,
        "--multicall2",
        info.contracts["Multicall2"],
        "--registry",
        f"complementary_service_metadata:{info.contracts['ComplementaryServiceMetadata']}",
        "--marketplace",
        info.contracts["MechMarketplace"],
    )
    assert result.exit_code == EXIT_OK, result.stderr
    body = json.loads(result.stdout)
    assert {m["address"] for m in body["marketplace_mechs"]} == set(
        _marketplace_mechs(devnet)
    )
    kinds = {m["ref"]["registry_kind"] for m in body["mechs"]}
    assert kinds == {"complementary_service_metadata"}


def test_a_marketplace_the_rpc_will_not_read_is_a_warning_not_a_failure(
    devnet: Devnet,
) -> None:
    """The RPC refuses every eth_getLogs (a rate limit): the registries' mechs are still listed."""
    with LoopbackProxy(devnet.info.rpc_url) as proxy:
        proxy.max_log_range = 0
        proxy.log_range_refusal = "rate limit exceeded: 10 requests per second"
        result = run(
            "list",
            "--json",
            "--chain",
            "devnet",
            "--devnet-dir",
            devnet.info.state_dir,
            "--rpc",
            proxy.url,
        )
    assert result.exit_code == EXIT_OK, result.stderr
    message = " ".join(result.stderr.split())
    assert "warning: cannot read MechMarketplace" in message
    assert "rate limit exceeded" in message and "--marketplace-first-block" in message
    body = json.loads(result.stdout)
    assert "marketplace_mechs" not in body
    assert {(e.registry, e.id) for e in devnet.info.registered} <= {
        (m["ref"]["registry_kind"], m["ref"]["mech_id"]) for m in body["mechs"]
    }


def _devnet_market(devnet: Devnet) -> MarketplaceSource:
    """Return the marketplace ``list --chain devnet`` reads (same fields, same file)."""
    return MarketplaceSource(
        devnet.info.chain_id,
        devnet.info.contracts["MechMarketplace"],
        legacy_factory=devnet.info.contracts["FixtureLegacyMechFactory"],
        confirmations=0,
    )


def _listed_through(proxy: LoopbackProxy, devnet: Devnet, state: Path) -> Result:
    return run(
        "list",
        "--json",
        "--chain",
        "devnet",
        "--devnet-dir",
        devnet.info.state_dir,
        "--rpc",
        proxy.url,
        "--state-dir",
        state,
    )


def test_a_kept_checkpoint_spares_the_next_run_the_scan(
    devnet: Devnet, tmp_path: Path
) -> None:
    """The second run reads no CreateMech logs already read, and lists the same mechs."""
    with LoopbackProxy(devnet.info.rpc_url) as proxy:
        first = _listed_through(proxy, devnet, tmp_path)
        scanned = proxy.counters.rpc_methods.get("eth_getLogs", 0)
        proxy.reset_counters()
        second = _listed_through(proxy, devnet, tmp_path)
        rescanned = proxy.counters.rpc_methods.get("eth_getLogs", 0)
    assert first.exit_code == second.exit_code == EXIT_OK, second.stderr
    assert scanned >= 2 and rescanned == 0
    assert checkpoint_path(tmp_path, _devnet_market(devnet)).is_file()
    listed = [json.loads(r.stdout)["marketplace_mechs"] for r in (first, second)]
    assert listed[0] == listed[1] and listed[0]


@pytest.mark.parametrize("kept", ["ahead", "garbage"])
def test_a_checkpoint_that_cannot_be_this_chains_is_ignored(
    devnet: Devnet, tmp_path: Path, kept: str
) -> None:
    """A checkpoint past the head (a restarted chain) or unreadable: scanned again, truly."""
    path = checkpoint_path(tmp_path, _devnet_market(devnet))
    path.parent.mkdir(parents=True, exist_ok=True)
    head = devnet.w3.eth.block_number
    ghost = "0x" + "9" * 40
    path.write_text(
        (
            json.dumps(
                {
                    "next_block": head + 1000,
                    "legacy_next_block": head + 1000,
                    "mechs": [[ghost, "marketplace", 1, "0x" + "8" * 40, 1]],
                }
            )
            if kept == "ahead"
            else "{not json"
        ),
        encoding="utf-8",
    )
    with LoopbackProxy(devnet.info.rpc_url) as proxy:
        result = _listed_through(proxy, devnet, tmp_path)
    assert result.exit_code == EXIT_OK, result.stderr
    addresses = {m["address"] for m in json.loads(result.stdout)["marketplace_mechs"]}
    assert ghost not in addresses and set(_marketplace_mechs(devnet)) <= addresses
    if kept == "garbage":
        assert "is not a checkpoint" in result.stderr


@pytest.mark.parametrize(
    "next_block, legacy_next_block, head, kept",
    [
        (150, 60, 200, True),  # read up to the head: go on
        (201, 201, 200, True),  # everything read: nothing new to ask
        (99, 60, 200, False),  # before the marketplace's first block: another source
        (150, 49, 200, False),  # before the legacy factory's first block
        (150, 260, 200, False),  # past the head: the chain was started again
    ],
)
def test_usable_checkpoint_keeps_only_what_can_be_this_chains(
    next_block: int, legacy_next_block: int, head: int, kept: bool
) -> None:
    """A checkpoint is used only between the first blocks and the head."""
    source = MarketplaceSource(
        100, "0x" + "aa" * 20, 100, "0x" + "bb" * 20, 50, confirmations=0
    )
    checkpoint = DiscoveryCheckpoint(next_block, legacy_next_block)
    used = usable_checkpoint(checkpoint, source, head)
    assert (used is checkpoint) == kept
    if not kept:
        assert (used.next_block, used.legacy_next_block, used.mechs) == (100, 50, ())
    assert usable_checkpoint(None, source, head).next_block == 100
