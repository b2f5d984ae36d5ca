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

"""Four agents, four Tendermint 0.34.19 nodes, four gateways that fail differently (issue 10, item 5).

Real components only: the session devnet (anvil with the registry stack, kubo), four
``aea run`` processes and four Tendermint nodes (``scripts.run_local``, as in
``tests/e2e/test_four_agents.py``). Each agent reads IPFS through its own
:class:`scripts.loopback_proxy.LoopbackProxy`; for the one manifest under test the proxies
fail each in their own way (HTTP 504, HTTP 404, a hang past the fetch timeout on two of
them) while every other CID is served. The scenarios run in order on one run:

1. a legacy mech's hash moves to a manifest no gateway serves: the agents still agree
   (the mech is served from its kept last-good manifest, problem ``fetch_failed`` with no
   transport wording), period after period;
2. the owner fixes the hash (a valid, served manifest): every agent serves it within two
   periods;
3. the hash moves to an unserved manifest again, and two agents restart: they load the
   last agreed catalogue from their ``state_dir`` and agree with the two others.

While a gateway hangs, an agreement is that of the agents in time for the round: the
round ends at its threshold (3 of 4), so of the two hanging agents the slower can miss
it (its payload arrives after the round ended, and it keeps serving what it served
before: ``docs/skill-contract.md``, "Late agents"). Which one it is depends on the
machine's load, so those scenarios ask for the threshold, agents 0 and 1 (answered at
once) among them, and for no agent serving another catalogue read since the change.

Long (about 5-7 minutes for the three): ``long_faults``, run by ``make faults``.
"""

import http.server
import json
import threading
from typing import Callable, Iterator, List, Optional, Tuple

import pytest
import requests
from mech_catalogue_core.ipfs.cid import (
    candidate_cids,
)

from scripts.devnet import Devnet, RegisteredManifest
from scripts.loopback_proxy import LoopbackProxy
from scripts.run_local.runner import LocalRun
from scripts.run_local.view import AgentView
from tests.e2e.conftest import agent_views as _views
from tests.e2e.conftest import log_tail, wait_for

AGENTS = 4
#: how agent i's gateway fails for the manifest under test. Two agents hang: an agent
#: whose gateway is slower than those of the threshold's (3 of 4) other agents always
#: sends its payload after the round ended, so it never publishes (it is outvoted in
#: time, not in content); with two slow agents the threshold needs one of them.
GATEWAY_FAULTS = ("gateway_timeout", "not_found", "timeout", "timeout")
#: the agents answered at once (HTTP 504, 404): in time for every round
IN_TIME = (0, 1)
#: the rounds' threshold: 3 of 4 agents
THRESHOLD = 3
START_TIMEOUT = 300.0
AGREE_TIMEOUT = 180.0
RESTART_TIMEOUT = 240.0
LEGACY = "legacy_mech_registry"


@pytest.fixture(scope="module")
def gateways(devnet: Devnet) -> Iterator[List[LoopbackProxy]]:
    """One proxy per agent in front of the devnet's kubo gateway.

    :param devnet: the session devnet.
    :yield: the proxies, agent order.
    """
    proxies = [LoopbackProxy(devnet.info.ipfs_gateway_url) for _ in range(AGENTS)]
    for proxy in proxies:
        proxy.hang_seconds = 4.0  # past the agents' 2 s fetch timeout
    try:
        yield proxies
    finally:
        for proxy in proxies:
            proxy.close()


@pytest.fixture(scope="module")
def four_agents(
    devnet: Devnet,
    gateways: List[LoopbackProxy],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LocalRun]:
    """Four agents and four Tendermint nodes, each agent behind its own gateway proxy.

    :param devnet: the session devnet.
    :param gateways: the proxies.
    :param tmp_path_factory: pytest's temporary folders.
    :yield: the run (stopped by pid after the module).
    """
    run = LocalRun(
        agents=AGENTS,
        work_dir=tmp_path_factory.mktemp("four_agent_consensus"),
        devnet=devnet,
        settings={
            "RESET_PAUSE_DURATION": "10",
            # no Tendermint hard reset in this run: a node restarted after one replays
            # the blocks since the reset onto an agent whose database starts empty, and
            # needs the ACN's recovery parameters to match (docs/running.md, not
            # reachable here); without resets it replays from genesis and catches up
            "RESET_TENDERMINT_AFTER": str(10**6),
            "FETCH_TIMEOUT_SECONDS": "2.0",
            "FETCH_RETRIES": "1",
            "FETCH_BACKOFF_INITIAL_SECONDS": "0.2",
            "FETCH_BACKOFF_MAX_SECONDS": "0.5",
        },
        agent_settings=[
            {"IPFS_GATEWAY_URL": proxy.url, "IPFS_ADDRESS": f"{proxy.url}/ipfs/"}
            for proxy in gateways
        ],
    )
    run.start()
    try:
        yield run
    finally:
        run.stop()


def _mech(view: AgentView, mech_id: int) -> Optional[dict]:
    return next(
        (
            m
            for m in view.mechs
            if m["ref"]["registry_kind"] == LEGACY and m["ref"]["mech_id"] == mech_id
        ),
        None,
    )


def _codes(mech: Optional[dict]) -> List[str]:
    return [p["code"] for p in (mech or {}).get("problems", [])]


def _agreed(
    run: LocalRun,
    since_block: int,
    check: Callable[[AgentView], bool],
    quorum: int = AGENTS,
) -> Optional[List[AgentView]]:
    """``quorum`` agents, :data:`IN_TIME` among them, serve one catalogue that passes ``check``.

    Each of them serves a catalogue read at ``since_block`` or later; every other agent
    serves nothing read since then, or that same catalogue.

    :param run: the agents.
    :param since_block: the block of the change under test.
    :param check: what each agreeing agent's view must show.
    :param quorum: how many agents must agree (all of them unless told).
    :return: every agent's view, agent order, or None while not so.
    """
    views = _views(run)

    def current(view: AgentView) -> bool:
        return (
            view.has_catalogue
            and int(view.health.get("block_number", -1)) >= since_block
        )

    agreeing = [i for i, v in enumerate(views) if current(v) and check(v)]
    digests = {views[i].health.get("catalogue_digest") for i in agreeing}
    others = {v.health.get("catalogue_digest") for v in views if current(v)}
    if (
        len(agreeing) < quorum
        or not set(IN_TIME) <= set(agreeing)
        or len(digests) != 1
        or others != digests
    ):
        return None
    return views


def _wait_agreed(  # pylint: disable=too-many-arguments
    run: LocalRun,
    since_block: int,
    check: Callable[[AgentView], bool],
    timeout: float,
    what: str,
    quorum: int = AGENTS,
) -> List[AgentView]:
    """Wait for :func:`_agreed`; on timeout, fail saying what each agent serves.

    :param run: the agents.
    :param since_block: the block of the change under test.
    :param check: what each agreeing agent's view must show.
    :param timeout: seconds.
    :param what: what is awaited, for the failure message.
    :param quorum: how many agents must agree.
    :return: every agent's view, agent order.
    :raises Exception: pytest's ``Failed`` on timeout, with each agent's catalogue
        digest, block, period and the target mech's problem codes.
    """
    try:
        return wait_for(
            lambda: _agreed(run, since_block, check, quorum),
            timeout,
            what,
            interval=2.0,
        )
    except pytest.fail.Exception as exc:
        target = _State.target
        lines = [
            f"{v.name}: digest {v.health.get('catalogue_digest')} block "
            f"{v.health.get('block_number')} period {v.health.get('period')} passes "
            f"{check(v) if v.has_catalogue else None} target problems "
            f"{_codes(_mech(v, target.id)) if target else None}"
            for v in _views(run)
        ]
        raise pytest.fail.Exception(
            f"{exc} (since block {since_block}):\n" + "\n".join(lines)
        ) from exc


def _names(view: AgentView) -> List[str]:
    return sorted(tool["name"] for tool in view.tools)


def _probe(devnet: Devnet, tool: str) -> bytes:
    manifest = {"name": "consensus probe", "description": tool, "tools": [tool]}
    return devnet.add_manifest(json.dumps(manifest).encode())[1]


def _block_serving(gateways: List[LoopbackProxy], digest: bytes) -> None:
    for proxy, fault in zip(gateways, GATEWAY_FAULTS):
        proxy.path_modes = {cid: fault for cid in candidate_cids("0x" + digest.hex())}


class _State:  # pylint: disable=too-few-public-methods
    """What the scenarios hand on to each other (they run in file order)."""

    target: Optional[RegisteredManifest] = None
    fixed_tool = "consensus-fixed-probe"


def _target(
    run: LocalRun, registered: Callable[..., List[RegisteredManifest]]
) -> RegisteredManifest:
    if _State.target is None:
        views = wait_for(
            lambda: _agreed(run, 0, lambda v: bool(v.tools)),
            START_TIMEOUT,
            "a catalogue agreed by all four agents",
            interval=2.0,
        )
        mech_id = next(
            m["ref"]["mech_id"]
            for m in views[0].mechs
            if m["ref"]["registry_kind"] == LEGACY and m["status"] == "ok"
        )
        _State.target = registered(registry=LEGACY, id=mech_id)[-1]
    return _State.target


def _move_to_unserved(
    run: LocalRun,
    gateways: List[LoopbackProxy],
    devnet: Devnet,
    registered: Callable[..., List[RegisteredManifest]],
    tool: str,
) -> Tuple[RegisteredManifest, int]:
    """Point the target mech's hash at a new manifest that every gateway fails.

    :param run: the four agents.
    :param gateways: their gateway proxies.
    :param devnet: the devnet.
    :param registered: the session's registered-manifest lookup.
    :param tool: the new manifest's one tool name.
    :return: the target mech and the block of the hash change.
    """
    target = _target(run, registered)
    digest = _probe(devnet, tool)
    _block_serving(gateways, digest)
    for proxy in gateways:
        proxy.reset_counters()
    devnet.update_legacy_hash(target.owner, target.id, digest)
    return target, devnet.w3.eth.block_number


@pytest.mark.long_faults
def test_gateways_failing_differently_still_agree(
    four_agents: LocalRun,
    gateways: List[LoopbackProxy],
    devnet: Devnet,
    registered: Callable[..., List[RegisteredManifest]],
) -> None:
    """504 / 404 / hang for the new manifest: the agents in time agree on one catalogue."""
    target, changed = _move_to_unserved(
        four_agents, gateways, devnet, registered, "consensus-unserved-probe"
    )

    def kept(view: AgentView) -> bool:
        mech = _mech(view, target.id)
        return (
            mech is not None
            and mech["status"] == "ok"
            and {"fetch_failed", "kept_last_good"} <= set(_codes(mech))
        )

    views = _wait_agreed(
        four_agents,
        changed,
        kept,
        AGREE_TIMEOUT,
        "agreement with the unserved manifest kept last-good",
        THRESHOLD,
    )
    assert all(proxy.counters.faults > 0 for proxy in gateways), [
        proxy.counters for proxy in gateways
    ]
    problems = json.dumps(_mech(views[0], target.id))
    for wording in ("504", "404", "HTTP", "timeout", "Connection"):
        assert wording not in problems, problems
    later = int(views[0].health["period"]) + 1
    again = _wait_agreed(
        four_agents,
        changed,
        lambda v: kept(v) and int(v.health.get("period", 0)) >= later,
        AGREE_TIMEOUT,
        "the next period's agreement",
        THRESHOLD,
    )
    # nothing new on chain: the same digest, period after period
    assert again[0].health["catalogue_digest"] == views[0].health["catalogue_digest"]


@pytest.mark.long_faults
def test_onchain_fix_is_picked_up_within_two_periods(
    four_agents: LocalRun,
    devnet: Devnet,
    registered: Callable[..., List[RegisteredManifest]],
) -> None:
    """The owner publishes a served manifest: every agent serves it within two periods."""
    target = _target(four_agents, registered)
    digest = _probe(devnet, _State.fixed_tool)
    start = max(int(v.health.get("period", 0)) for v in _views(four_agents))
    devnet.update_legacy_hash(target.owner, target.id, digest)
    changed = devnet.w3.eth.block_number
    views = _wait_agreed(
        four_agents,
        changed,
        lambda v: _State.fixed_tool in _names(v),
        AGREE_TIMEOUT,
        f"{_State.fixed_tool} served by all four agents",
    )
    periods = [int(v.health["period"]) for v in views]
    assert max(periods) <= start + 2, (start, periods)
    mech = _mech(views[0], target.id)
    assert mech is not None and mech["status"] == "ok" and not _codes(mech)


@pytest.mark.long_faults
def test_two_restarted_agents_agree_while_a_manifest_is_unavailable(
    four_agents: LocalRun,
    gateways: List[LoopbackProxy],
    devnet: Devnet,
    registered: Callable[..., List[RegisteredManifest]],
) -> None:
    """Agents 0 and 1 restart while the mech's manifest is unserved: they agree again."""
    target, changed = _move_to_unserved(
        four_agents, gateways, devnet, registered, "consensus-unserved-again"
    )

    def kept(view: AgentView) -> bool:
        mech = _mech(view, target.id)
        return (
            mech is not None
            and mech["status"] == "ok"
            and "kept_last_good" in _codes(mech)
            and _State.fixed_tool in mech.get("tools", [])
        )

    before = _wait_agreed(
        four_agents,
        changed,
        kept,
        AGREE_TIMEOUT,
        "agreement with the fixed manifest kept last-good",
        THRESHOLD,
    )
    # those in time for every round: each agreement after the restart needs what they
    # loaded from their state_dir
    restarted = [four_agents.processes[i] for i in IN_TIME]
    for process in restarted:
        process.stop()
    for process in restarted:
        process.start()
    since = devnet.w3.eth.block_number

    def rejoined(view: AgentView) -> bool:
        return kept(view) and view.health.get("catalogue_digest") == before[
            0
        ].health.get("catalogue_digest")

    wait_for(
        lambda: _agreed(four_agents, changed, rejoined, THRESHOLD)
        and all(
            _restarted_published(p.log_path.read_text(errors="replace"))
            for p in restarted
        ),
        RESTART_TIMEOUT,
        "the restarted agents publishing the catalogue the others agreed on",
        interval=2.0,
    )
    assert since >= changed
    for process in restarted:
        log = process.log_path.read_text(errors="replace")
        assert "kept catalogue" in log and "loaded from" in log, log_tail(
            process.log_path
        )


def _restarted_published(log: str) -> bool:
    return "exposed under shared_state" in log


def test_proxy_fails_only_the_paths_it_is_told(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """path_modes: one CID answers 504 / 404, another is forwarded (fast, no agents)."""
    folder = tmp_path_factory.mktemp("proxy_paths")
    (folder / "served").write_bytes(b"content")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        """Serve ``folder``, without logging."""

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(
            self, *args: object
        ) -> None:  # pylint: disable=arguments-differ
            """Stay quiet."""

    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    try:
        with LoopbackProxy(f"http://127.0.0.1:{upstream.server_address[1]}") as proxy:
            proxy.path_modes = {"blocked": "gateway_timeout", "missing": "not_found"}
            assert requests.get(f"{proxy.url}/served", timeout=5).content == b"content"
            assert requests.get(f"{proxy.url}/blocked", timeout=5).status_code == 504
            assert requests.get(f"{proxy.url}/missing", timeout=5).status_code == 404
            assert proxy.counters.faults == 2
            proxy.clear_faults()
            assert requests.get(f"{proxy.url}/blocked", timeout=5).status_code == 404
    finally:
        upstream.shutdown()
        upstream.server_close()
