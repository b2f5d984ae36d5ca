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

"""A stranger's manifest dripped by the gateway freezes the server's catalogue (adv29q).

Severity: MEDIUM (STALL of the catalogue, no key and no money needed: a registrant
points its service at a manifest whose blocks its own node serves slowly; the
gateway streams what it gets, a byte more often than the read timeout).

On the devnet with the MCP SDK's client over Streamable HTTP, one agent, ``--poll 2``;
the server's gateway is a proxy to kubo's that, once armed, drips (a byte each 0.5 s)
the first CID it had not been asked for before, and passes everything else on:

- the agent lists the tools; the proxy is armed; service A's manifest is moved to one
  adding tool ``adv29q-dripped`` (its CID is dripped);
- service B's manifest is then moved to one adding tool ``adv29q-honest`` (served at
  once).

Observed on main: ``tools/list`` stays fast (at most 0.041 s) but serves the catalogue as
it was: the honest tool is not listed within 40 s (16 tools before and after), while
without the drip (the same run, proxy never armed) it is listed after 3.1 s. The
manifest read (a per-socket-read timeout, as in ``test_adv29q_dripped_delivery.py``)
holds the refresh, so no registry change (new tools, mechs leaving, new schemas)
reaches the server while the drip lasts.

Expected: the honest tool is listed within a few polls (a stalled manifest read is
given up within its timeout, the other registries' changes still arrive).
"""

import contextlib
import http.server
import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Set

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from scripts.devnet import Devnet
from tests.adversary.test_adv29q_dripped_delivery_devnet import (
    DRIP,
    devnet_dir_with_gateway,
)
from tests.devnet.mcp_helpers import declare_tool, http_server

#: how long the honest tool may take to be listed
BOUND = 40.0


class FirstNewCidDripped:
    """A proxy to kubo's gateway that drips the first CID unseen before it was armed.

    :param upstream: kubo's gateway URL.
    """

    def __init__(self, upstream: str) -> None:
        """Bind a free loopback port (serve with :meth:`running`)."""
        self.armed = threading.Event()
        self.stop = threading.Event()
        self.seen: Set[str] = set()
        self.dripped: List[str] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            """Proxy a GET, or drip it."""

            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # pylint: disable=invalid-name
                """Answer one GET."""
                cid = self.path.split("?")[0].split("/")[2]
                if proxy.armed.is_set() and cid not in proxy.seen:
                    proxy.armed.clear()
                    proxy.dripped.append(self.path)
                if proxy.dripped and cid in proxy.dripped[0]:
                    self.send_response(200)
                    self.send_header("Content-Length", str(1 << 30))
                    self.end_headers()
                    while not proxy.stop.wait(DRIP):
                        self.wfile.write(b"\0")
                        self.wfile.flush()
                    return
                proxy.seen.add(cid)
                try:
                    with urllib.request.urlopen(  # nosec: loopback kubo
                        upstream.rstrip("/") + self.path, timeout=30
                    ) as answer:
                        data, status = answer.read(), answer.status
                except urllib.error.HTTPError as refused:
                    data, status = refused.read(), refused.code
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(
                self, *args: Any
            ) -> None:  # pylint: disable=arguments-differ
                """Quiet."""

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @contextlib.contextmanager
    def running(self) -> Iterator["FirstNewCidDripped"]:
        """Serve in a thread; stop every drip on exit.

        :yield: the proxy.
        """
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.stop.set()
            self.server.shutdown()
            self.server.server_close()


def test_a_dripped_manifest_does_not_freeze_the_catalogue(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """One manifest dripped: another service's new tool is still listed.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    services = sorted(
        {int(m["service_id"]) for m in devnet.info.mechs if m["kind"] == "marketplace"}
    )
    proxy = FirstNewCidDripped(devnet.info.ipfs_gateway_url)
    dripping = devnet_dir_with_gateway(devnet, tmp_path / "dripping", proxy.url)
    state = tmp_path / "state"
    state.mkdir()
    options = ["--poll", "2", "--all-tools", "--discovery", "list"]
    options += ["--devnet-dir", str(dripping)]
    seen: Dict[str, Any] = {"lists": []}

    async def main(url: str) -> None:
        async with Client(streamable_http_client(url), mode="legacy") as client:
            listed = await client.list_tools()
            seen["first"] = sorted(t.name for t in listed.tools)
            proxy.armed.set()
            declare_tool(devnet, services[0], "adv29q-dripped", {})
            await anyio.sleep(6)
            declare_tool(devnet, services[1], "adv29q-honest", {})
            began = time.monotonic()
            while time.monotonic() - began < BOUND:
                started = time.monotonic()
                listed = await client.list_tools()
                seen["lists"].append(round(time.monotonic() - started, 3))
                names = [t.name for t in listed.tools]
                if any("adv29q-honest" in name for name in names):
                    seen["honest after"] = round(time.monotonic() - began, 1)
                    break
                await anyio.sleep(1)
            seen["last"] = sorted(names)

    with proxy.running():
        with http_server(devnet, state, *options) as url:
            anyio.run(main, url)
    observed = json.dumps(
        {
            "services": services[:2],
            "dripped": proxy.dripped,
            "honest listed after s": seen.get("honest after"),
            "tools/list seconds max": max(seen["lists"]),
            "tools first": len(seen["first"]),
            "tools last": len(seen["last"]),
        }
    )
    assert proxy.dripped, observed  # premise: a manifest was read dripping
    # observed on main: "honest listed after s": null, 16 tools first and last
    assert "honest after" in seen, observed
