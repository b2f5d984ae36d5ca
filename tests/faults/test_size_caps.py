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

"""Size-cap faults: a 400 MiB file behind a real on-chain digest never gets read past the cap.

The file is generated on the fly (a JSON manifest padded to 400 MiB, valid but for its
size), added to the session devnet's real kubo with ``ipfs add`` (CIDv1, dag-pb leaves,
a two-level UnixFS DAG), and unpinned and garbage-collected after the module. Every
reader of product code is driven against kubo's real gateway / RPC:

- the skill's path, in a real agent (``aea run``, real ``valory/http_client``
  connection, mock Tendermint as in tests/e2e): a legacy mech's hash is changed to the
  file's digest; the mech must be quarantined with ``too_large`` (its last good manifest
  kept) while the agent's peak resident memory (``VmHWM``) stays where it was;
- the CLI ``list`` / sync driver's ``gateway_get`` and the publisher's ``IpfsApi.cat``,
  in process, with ``tracemalloc`` peaks;
- a gateway that ignores ``Range`` and streams without end (a local server of ours),
  for the sync driver's streamed read.

Memory is asserted against bounds an order of magnitude below the file (a full read
needs >= 400 MiB), not against timings.
"""

import http.server
import json
import socket
import subprocess  # nosec B404: runs the pinned ipfs binary only
import tempfile
import threading
import tracemalloc
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Tuple

import pytest
import requests
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    ManifestCache,
    manifest_fetcher,
)
from mech_catalogue_core.ipfs.cid import (
    cid_to_digest,
)
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
)
from mech_catalogue_core.model.problems import (
    TOO_LARGE,
)
from web3.types import RPCEndpoint

from mech_catalogue_cli.adapters.ipfs import gateway_get
from mech_catalogue_cli.publisher.ipfs import IpfsApi
from scripts.devnet import Devnet, RegisteredManifest
from scripts.run_local.runner import LocalRun
from scripts.run_local.view import AgentView
from scripts.toolchain import tool_path
from tests.e2e.conftest import wait_for
from tests.e2e.test_one_agent import _view
from tests.faults.one_agent import one_agent, served_legacy_mech

HUGE_BYTES = 400 * 1024 * 1024
CAP = DEFAULT_LIMITS.max_bytes
#: what a bounded read may cost on top of the cap (buffers, bytes + bytearray copies)
IN_PROCESS_PEAK_BOUND = 8 * CAP
#: an agent's peak RSS may move this much between periods for reasons of its own; a read
#: of the file would move it by >= 400 MiB
AGENT_PEAK_GROWTH_BOUND = 64 * 1024 * 1024
START_TIMEOUT = 180.0
PERIOD_TIMEOUT = 120.0


def _ipfs(devnet: Devnet, *args: str, timeout: float = 600) -> str:
    done = subprocess.run(  # nosec B603
        [str(tool_path("ipfs")), *args],
        env={"IPFS_PATH": devnet.info.ipfs_path, "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    return done.stdout.decode().strip()


@pytest.fixture(scope="module")
def huge_manifest(devnet: Devnet) -> Iterator[Tuple[str, str]]:
    """A 400 MiB manifest in the session devnet's kubo; unpinned and collected after.

    :param devnet: the session devnet.
    :yield: ``(cid, digest)``: its dag-pb CIDv1 and the 0x digest to put on chain.
    """
    head = b'{"name": "huge", "tools": ["huge-tool"], "padding": "'
    tail = b'"}'
    with tempfile.NamedTemporaryFile(dir=devnet.info.state_dir) as handle:
        handle.write(head)
        left = HUGE_BYTES - len(head) - len(tail)
        block = b"x" * (1024 * 1024)
        while left > 0:
            handle.write(block[:left])
            left -= len(block)
        handle.write(tail)
        handle.flush()
        cid = _ipfs(
            devnet,
            "add",
            "--cid-version=1",
            "--raw-leaves=false",
            "--pin=true",
            "-Q",
            handle.name,
        )
    _, digest = cid_to_digest(cid)
    try:
        yield cid, digest
    finally:
        _ipfs(devnet, "pin", "rm", cid)
        _ipfs(devnet, "repo", "gc", "--quiet")


def _peak(action: Callable[[], Any]) -> Tuple[Any, int]:
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _fetch(gateway: str, digest: str) -> object:
    session = requests.Session()
    fetcher = manifest_fetcher(
        [digest], ManifestCache(), FetchPolicy(retries=0, max_bytes=CAP)
    )
    _, cids = next(fetcher)
    try:
        while True:
            _, cids = fetcher.send(
                {cid: gateway_get(session, gateway, cid, 30.0, CAP) for cid in cids}
            )
    except StopIteration as done:
        return done.value[digest]


def test_sync_driver_stops_at_the_cap(
    devnet: Devnet, huge_manifest: Tuple[str, str]
) -> None:
    """CLI list / sync driver against kubo: too_large naming CID and cap; peak a few MiB."""
    cid, digest = huge_manifest
    result, peak = _peak(lambda: _fetch(devnet.info.ipfs_gateway_url, digest))
    problem = result.problem  # type: ignore[attr-defined]
    assert problem is not None and problem.code == TOO_LARGE
    assert cid in problem.message and f"max_manifest_bytes={CAP}" in problem.message
    assert peak < IN_PROCESS_PEAK_BOUND, f"peak {peak} bytes"


def test_publish_read_back_stops_at_the_cap(
    devnet: Devnet, huge_manifest: Tuple[str, str]
) -> None:
    """The publisher's cat of the huge CID returns cap + 1 bytes, with a bounded peak."""
    cid, _ = huge_manifest
    data, peak = _peak(lambda: IpfsApi(devnet.info.ipfs_api_url, cap=CAP).cat(cid))
    assert len(data) == CAP + 1  # type: ignore[arg-type]
    assert peak < IN_PROCESS_PEAK_BOUND, f"peak {peak} bytes"


class _EndlessGateway(http.server.BaseHTTPRequestHandler):
    """Answers every GET with 200 and bytes without end, ignoring Range."""

    sent: List[int] = []

    def log_message(self, *args: object) -> None:  # pylint: disable=arguments-differ
        """Stay quiet."""

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        """Stream until the client goes away (or 1 GiB)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        block, sent = b"y" * 65536, 0
        try:
            while sent < 1024**3:
                self.wfile.write(block)
                sent += len(block)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        self.sent.append(sent)


def test_gateway_ignoring_range_is_read_no_further_than_the_cap() -> None:
    """A gateway streaming without end despite Range: the sync driver stops reading at cap + 1."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EndlessGateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        (data, failure), peak = _peak(
            lambda: gateway_get(requests.Session(), url, "bafyany", 10.0, CAP)
        )
        assert failure == "" and len(data) == CAP + 1
        assert peak < IN_PROCESS_PEAK_BOUND, f"peak {peak} bytes"
    finally:
        server.shutdown()
        server.server_close()


# --- the skill, in a real agent ----------------------------------------------------------


def _peak_rss(pid: Optional[int]) -> int:
    """Peak resident set size of a process (``VmHWM``), bytes."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmHWM for pid {pid}")


@pytest.fixture(scope="module")
def agent(
    devnet: Devnet, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalRun]:
    """One agent on the session devnet (mock Tendermint), stopped by pid after the module.

    :param devnet: the session devnet.
    :param tmp_path_factory: pytest's temporary folders.
    :yield: the running agent.
    """
    with one_agent(devnet, tmp_path_factory.mktemp("size_caps")) as run:
        yield run


def _mech(view: AgentView, mech_id: int) -> Optional[dict]:
    return next(
        (
            m
            for m in view.mechs
            if m["ref"]["registry_kind"] == "legacy_mech_registry"
            and m["ref"]["mech_id"] == mech_id
        ),
        None,  # the agent did not answer in time
    )


@pytest.mark.long_faults
def test_agent_quarantines_a_400_mib_manifest_with_flat_memory(
    agent: LocalRun,
    devnet: Devnet,
    huge_manifest: Tuple[str, str],
    registered: Callable[..., List[RegisteredManifest]],
) -> None:
    """A legacy mech's hash set to a 400 MiB file: too_large (last good kept), VmHWM unmoved."""
    cid, digest = huge_manifest

    def served() -> Optional[AgentView]:
        view = _view(agent)
        return view if view.has_catalogue and view.tools else None

    before = wait_for(served, START_TIMEOUT, "the first agreed catalogue")
    target = served_legacy_mech(before, registered)
    pid = agent.processes[0].pid
    baseline = _peak_rss(pid)
    devnet.update_legacy_hash(target.owner, target.id, bytes.fromhex(digest[2:]))
    devnet.w3.provider.make_request(RPCEndpoint("anvil_mine"), [hex(20)])
    try:

        def quarantined() -> Optional[dict]:
            mech = _mech(_view(agent), target.id) or {"problems": []}
            codes = {p["code"] for p in mech["problems"]}
            return mech if TOO_LARGE in codes else None

        mech = wait_for(quarantined, 3 * PERIOD_TIMEOUT, "too_large on the mech")
        problem = next(p for p in mech["problems"] if p["code"] == TOO_LARGE)
        assert cid in problem["message"]
        assert f"max_manifest_bytes={CAP}" in problem["message"]
        assert mech["status"] == "ok"  # the last good manifest is still served
        period = int(_view(agent).health.get("period", 0))
        wait_for(
            lambda: int(_view(agent).health.get("period", 0)) >= period + 1 or None,
            2 * PERIOD_TIMEOUT,
            "one more period with the huge manifest on chain",
        )
        peak = _peak_rss(pid)
        print(
            json.dumps(
                {"vmhwm_before_mib": baseline / 2**20, "vmhwm_after_mib": peak / 2**20}
            )
        )
        assert (
            peak - baseline < AGENT_PEAK_GROWTH_BOUND
        ), f"peak RSS grew from {baseline} to {peak} bytes"
        assert agent.processes[0].alive()
    finally:
        devnet.update_legacy_hash(
            target.owner, target.id, bytes.fromhex(target.digest[2:])
        )


class _SwitchableGateway(http.server.BaseHTTPRequestHandler):
    """Forwards GETs to kubo's gateway, or, once ``endless`` is set, streams without end.

    The endless mode ignores Range, as a misbehaving gateway would.
    """

    upstream = ""
    endless = False
    sent: List[int] = []

    def log_message(self, *args: object) -> None:  # pylint: disable=arguments-differ
        """Stay quiet."""

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        """Forward, or stream."""
        if self.endless:
            _EndlessGateway.do_GET(self)  # type: ignore[arg-type]
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() == "range"}
        try:
            upstream = requests.get(
                self.upstream + self.path, headers=headers, timeout=10, stream=True
            )
            body = upstream.raw.read(2 * CAP)
            status = upstream.status_code
            content_range = upstream.headers.get("Content-Range")
        except requests.RequestException:
            body, status, content_range = b"", 502, None
        self.send_response(status)
        if content_range:
            self.send_header("Content-Range", content_range)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def switchable_gateway(devnet: Devnet) -> Iterator[str]:
    """A gateway in front of the devnet's kubo that can turn into an endless stream.

    :param devnet: the session devnet.
    :yield: its base URL.
    """
    _SwitchableGateway.upstream = devnet.info.ipfs_gateway_url
    _SwitchableGateway.endless = False
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SwitchableGateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        _SwitchableGateway.endless = False
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def agent_behind_switch(
    devnet: Devnet, switchable_gateway: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalRun]:
    """One agent whose IPFS gateway is :func:`switchable_gateway`.

    :param devnet: the session devnet.
    :param switchable_gateway: the gateway URL.
    :param tmp_path_factory: pytest's temporary folders.
    :yield: the running agent.
    """
    with one_agent(
        devnet,
        tmp_path_factory.mktemp("size_caps_endless"),
        IPFS_GATEWAY_URL=switchable_gateway,
        IPFS_ADDRESS=f"{switchable_gateway}/ipfs/",
    ) as run:
        yield run


@pytest.mark.long_faults
def test_agent_behind_a_gateway_ignoring_range_keeps_flat_memory(
    agent_behind_switch: LocalRun,
    devnet: Devnet,
    huge_manifest: Tuple[str, str],
    registered: Callable[..., List[RegisteredManifest]],
) -> None:
    """The gateway turns into an endless stream ignoring Range: too_large, VmHWM unmoved.

    The capped_http_client connection stops reading at the Range however much the
    gateway sends (valory/http_client would have held it all).

    :param agent_behind_switch: the agent.
    :param devnet: the session devnet.
    :param huge_manifest: the 400 MiB manifest (a digest the agent has not fetched yet).
    :param registered: the devnet's registered manifests.
    """
    agent = agent_behind_switch

    def served() -> Optional[AgentView]:
        view = _view(agent)
        return view if view.has_catalogue and view.tools else None

    before = wait_for(served, START_TIMEOUT, "the first agreed catalogue")
    target = served_legacy_mech(before, registered)
    pid = agent.processes[0].pid
    baseline = _peak_rss(pid)
    _SwitchableGateway.endless = True
    _, digest = huge_manifest
    devnet.update_legacy_hash(target.owner, target.id, bytes.fromhex(digest[2:]))
    devnet.w3.provider.make_request(RPCEndpoint("anvil_mine"), [hex(20)])
    try:

        def quarantined() -> Optional[dict]:
            mech = _mech(_view(agent), target.id) or {"problems": []}
            codes = {p["code"] for p in mech["problems"]}
            return mech if TOO_LARGE in codes else None

        wait_for(quarantined, 3 * PERIOD_TIMEOUT, "too_large on the mech")
        peak = _peak_rss(pid)
        print(
            json.dumps(
                {
                    "endless_vmhwm_before_mib": baseline / 2**20,
                    "endless_vmhwm_after_mib": peak / 2**20,
                }
            )
        )
        assert (
            peak - baseline < AGENT_PEAK_GROWTH_BOUND
        ), f"peak RSS grew from {baseline} to {peak} bytes"
        assert agent.processes[0].alive()
    finally:
        _SwitchableGateway.endless = False
        devnet.update_legacy_hash(
            target.owner, target.id, bytes.fromhex(target.digest[2:])
        )
