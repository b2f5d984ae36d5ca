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

"""The mech author's path against the real devnet (anvil registries + kubo).

``--devnet`` everywhere, one digest for ``cid``/``ipfs add``/``publish``, empty registries
named, and the one rule that finds the devnet (``make devnet-up``'s or ``make run``'s).
"""

import json
import shutil
import subprocess  # nosec B404: runs the pinned kubo CLI and `true`
from pathlib import Path
from typing import Any, Dict, Optional

import pytest
from click.testing import CliRunner, Result

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.devnet import locate
from mech_catalogue_cli.devnet.state import STATE_FILE
from scripts.devnet import Devnet
from scripts.toolchain import REPO_ROOT, tool_path

TOKEN_ORACLE = REPO_ROOT / "examples" / "tools" / "token_oracle"
WALLET_RISK = REPO_ROOT / "examples" / "tools" / "wallet_risk"
OVERRIDES = REPO_ROOT / "examples" / "token_oracle.overrides.yaml"
DAG_PB_LAYOUT = "kubo-cid-version-1-dag-pb-leaves"


def run(*args: Any, env: Optional[Dict[str, str]] = None) -> Result:
    """Return the result of one CLI call (stderr apart).

    :param args: command line.
    :param env: environment overrides.
    :return: the result.
    """
    return CliRunner().invoke(
        cli, [str(a) for a in args], env=env or {}, catch_exceptions=False
    )


def body(result: Result) -> Any:
    """Return the JSON a --json run printed.

    :param result: the run.
    :return: the decoded stdout.
    """
    return json.loads(result.stdout)


def _tools_of(devnet: Devnet, kind: str, mech_id: int) -> Any:
    listed = body(run("list", "--json", "--devnet-dir", devnet.info.state_dir))
    mech = next(
        m
        for m in listed["mechs"]
        if m["ref"]["registry_kind"] == kind and m["ref"]["mech_id"] == mech_id
    )
    return mech["name"], sorted(t["name"] for t in mech["tools"])


def test_publish_with_devnet_needs_only_kind_and_id(chain_snapshot: Devnet) -> None:
    """RPC, IPFS API, registry, RegistriesManager and the owner's key come from the devnet."""
    devnet = chain_snapshot
    result = run(
        "--json",
        "publish",
        TOKEN_ORACLE,
        "--overrides",
        OVERRIDES,
        "--kind",
        "olas_agent_registry",
        "--id",
        "1",
        "--devnet-dir",
        devnet.info.state_dir,
    )
    assert result.exit_code == EXIT_OK, result.output
    report = body(result)
    assert report["decision"] == "update" and report["onchainAfter"] == report["digest"]
    assert _tools_of(devnet, "olas_agent_registry", 1) == (
        "Token Oracle Mech",
        ["token-oracle-price", "token-oracle-summary"],
    )
    assert devnet.info.accounts["owner_1"]["private_key"] not in result.output


def test_publish_takes_the_ipfs_api_multiaddr_the_devnet_prints(
    chain_snapshot: Devnet,
) -> None:
    """--ipfs-api as the devnet prints it (a multiaddr) uploads to that kubo."""
    devnet = chain_snapshot
    assert devnet.info.ipfs_api_multiaddr.startswith("/ip4/")
    result = run(
        "--json",
        "publish",
        WALLET_RISK,
        "--overrides",
        _overrides(devnet, "Wallet Risk Mech"),
        "--kind",
        "legacy_mech_registry",
        "--id",
        "2",
        "--devnet",
        "--devnet-dir",
        devnet.info.state_dir,
        "--ipfs-api",
        devnet.info.ipfs_api_multiaddr,
    )
    assert result.exit_code == EXIT_OK, result.output
    assert devnet.ipfs.cat(body(result)["cid"])  # the devnet's kubo holds it
    assert _tools_of(devnet, "legacy_mech_registry", 2) == (
        "Wallet Risk Mech",
        ["wallet-risk-score"],
    )


def _overrides(devnet: Devnet, name: str) -> Path:
    path = Path(devnet.info.state_dir).parent / f"{name.replace(' ', '_')}.yaml"
    path.write_text(f"name: {name}\ndescription: {name} for a test.\n")
    return path


def test_publish_with_devnet_for_an_id_nobody_owns_says_to_pass_a_key(
    devnet: Devnet,
) -> None:
    """An id the devnet did not register: no key is guessed."""
    result = run(
        "publish",
        WALLET_RISK,
        "--kind",
        "legacy_mech_registry",
        "--id",
        "99",
        "--devnet-dir",
        devnet.info.state_dir,
    )
    assert result.exit_code == EXIT_INVALID
    assert "no_devnet_owner" in result.stderr and "--key-file" in result.stderr


def test_cid_ipfs_add_and_publish_agree_on_the_digest(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """One digest: `cid FILE`, kubo's `ipfs add` (both recipes of the docs) and `publish`.

    :param chain_snapshot: the devnet, chain changes reverted after.
    :param tmp_path: a folder for the manifest.
    """
    devnet = chain_snapshot
    manifest = tmp_path / "manifest.json"
    assert (
        run(
            "generate", TOKEN_ORACLE, "--overrides", OVERRIDES, "-o", manifest
        ).exit_code
        == EXIT_OK
    )
    layouts = body(run("--json", "cid", manifest))["layouts"]
    from_cid = layouts[DAG_PB_LAYOUT]["digest"]
    assert layouts["kubo-default-v0"]["digest"] == from_cid
    added = {}
    for recipe in (["--cid-version", "1", "--raw-leaves=false"], []):
        cid = subprocess.run(  # nosec B603: the pinned kubo binary, fixed arguments
            [str(tool_path("ipfs")), "--api", devnet.info.ipfs_api_multiaddr, "add"]
            + recipe
            + ["-Q", str(manifest)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
        added[cid] = body(run("--json", "cid", cid))["digest"]
    assert set(added.values()) == {from_cid}, added
    published = run(
        "--json",
        "publish",
        "--manifest",
        manifest,
        "--kind",
        "complementary_service_metadata",
        "--id",
        "2",
        "--devnet-dir",
        devnet.info.state_dir,
    )
    assert published.exit_code == EXIT_OK, published.output
    assert body(published)["digest"] == body(published)["onchainAfter"] == from_cid


def test_cid_of_a_hand_formatted_file_names_the_digest_publish_will_use(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A pretty-printed manifest hashes differently; `cid` says so and gives publish's digest."""
    devnet = chain_snapshot
    canonical = tmp_path / "canonical.json"
    run(
        "generate",
        WALLET_RISK,
        "--overrides",
        _overrides(devnet, "Pretty"),
        "-o",
        canonical,
    )
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(json.loads(canonical.read_bytes()), indent=4) + "\n")
    canonical_cid = body(run("--json", "cid", canonical))
    pretty_cid = body(run("--json", "cid", pretty))
    assert "publish" not in canonical_cid
    digest = canonical_cid["layouts"][DAG_PB_LAYOUT]["digest"]
    assert pretty_cid["layouts"][DAG_PB_LAYOUT]["digest"] != digest
    assert pretty_cid["publish"]["digest"] == digest
    human = run("cid", pretty)
    assert "not in canonical form" in human.stdout and digest in human.stdout
    dry = run(
        "--json",
        "publish",
        "--manifest",
        pretty,
        "--kind",
        "complementary_service_metadata",
        "--id",
        "1",
        "--devnet-dir",
        devnet.info.state_dir,
        "--dry-run",
    )
    assert dry.exit_code == EXIT_OK and body(dry)["digest"] == digest


def test_devnet_is_found_by_one_rule(
    devnet: Devnet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make run`'s devnet is found like `make devnet-up`'s; the newest running one wins.

    A named folder must hold a running devnet; none running says what to start.

    :param devnet: the session devnet (plays `make run`'s).
    :param tmp_path: folders standing for .devnet and .run.
    :param monkeypatch: points the rule at those folders.
    """
    devnet_up = tmp_path / "dot-devnet"  # stands for .devnet
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    monkeypatch.setattr(locate, "DEFAULT_STATE_DIR", devnet_up)
    monkeypatch.setenv(locate.RUN_DIR_ENV, str(run_dir))
    monkeypatch.delenv(locate.DEVNET_DIR_ENV, raising=False)

    with pytest.raises(locate.DevnetNotFound) as none:
        locate.find_devnet()
    assert str(devnet_up) in str(none.value) and str(run_dir / "devnet") in str(
        none.value
    )
    assert "`make devnet-up`" in str(none.value) and "`make run`" in str(none.value)
    failed = run("list", "--devnet")
    assert failed.exit_code == EXIT_INVALID and "devnet_not_running" in failed.stderr

    # a stopped devnet in .devnet, make run's devnet running: make run's is used
    _stopped_copy(devnet, devnet_up)
    (run_dir / "devnet").symlink_to(devnet.info.state_dir)
    assert locate.find_devnet().rpc_url == devnet.info.rpc_url
    listed = run("list", "--json", "--devnet")
    assert listed.exit_code == EXIT_OK and body(listed)["mechs"]

    # both running: the one started last
    newer = Devnet.start(seed=False, state_dir=tmp_path / "newer")
    try:
        shutil.rmtree(devnet_up)
        devnet_up.symlink_to(newer.info.state_dir)
        assert locate.find_devnet().rpc_url == newer.info.rpc_url
        # ... and an unseeded devnet's registries are named as empty (exit 0)
        empty = run("list", "--devnet")
        assert empty.exit_code == EXIT_OK
        assert empty.stderr.count("holds no mechs") == 3
        assert body(run("list", "--json", "--devnet"))["mechs"] == []
        # a named folder wins over both, and must run
        monkeypatch.setenv(locate.DEVNET_DIR_ENV, devnet.info.state_dir)
        assert locate.find_devnet().rpc_url == devnet.info.rpc_url
        monkeypatch.setenv(locate.DEVNET_DIR_ENV, str(tmp_path / "nowhere"))
        with pytest.raises(locate.DevnetNotFound, match=locate.DEVNET_DIR_ENV):
            locate.find_devnet()
        explicit = locate.find_devnet(str(Path(devnet.info.state_dir)))
        assert explicit.rpc_url == devnet.info.rpc_url
    finally:
        newer.stop()


def _stopped_copy(devnet: Devnet, folder: Path) -> None:
    """Write a devnet.json like the running one's, but whose anvil has exited."""
    folder.mkdir()
    with subprocess.Popen(["true"]) as exited:  # nosec B603 B607
        exited.wait()
    state = json.loads((Path(devnet.info.state_dir) / STATE_FILE).read_text())
    state.update(state_dir=str(folder), anvil_pid=exited.pid)
    (folder / STATE_FILE).write_text(json.dumps(state))


def test_show_and_validate_fetch_from_the_devnet_gateway(
    devnet: Devnet, registered: Any
) -> None:
    """A CID or on-chain digest: --devnet fetches it from the devnet's gateway."""
    entry = registered(registry="legacy_mech_registry", id=1)[-1]
    for source in (entry.cid, entry.digest):
        shown = run("--json", "show", "--devnet-dir", devnet.info.state_dir, source)
        assert shown.exit_code == EXIT_OK, shown.output
        assert body(shown)["tools"]
    offline = run(
        "validate", "--ipfs-gateway", "http://127.0.0.1:9", "--timeout", "1", entry.cid
    )
    assert offline.exit_code == EXIT_INVALID and "fetch_failed" in offline.stderr
    given_wins = run(
        "validate",
        "--devnet-dir",
        devnet.info.state_dir,
        "--ipfs-gateway",
        "http://127.0.0.1:9",
        "--timeout",
        "1",
        entry.cid,
    )
    assert given_wins.exit_code == EXIT_INVALID  # an explicit option beats the devnet's
