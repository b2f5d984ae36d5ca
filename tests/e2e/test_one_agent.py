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

"""One tool metadata agent (abci connection's mock Tendermint) against the devnet, over periods.

Real components: anvil with the registry stack, kubo, the agent process (``aea run``) with
its real connections. Mocked: Tendermint, by the abci connection's own ``use_mock`` mode
(``use_mock: true``, ``use_tendermint: false``: it simulates the block lifecycle and serves
the Tendermint RPC endpoints itself), because a single agent needs no consensus network.
"""

import json
import socket
import threading
import urllib.error
import urllib.request
from collections import Counter
from typing import Any, Dict, Iterator, Optional, Tuple
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from mech_catalogue_core.exporters.mcp_tool import META_KEY
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

from packages.mech_catalogue.skills.tool_metadata_abci.tests.http_requests import (
    GeneratedRequest,
    wire_requests,
)

from scripts.devnet import RegisteredManifest
from scripts.run_local.logs import agreed_catalogues
from scripts.run_local.runner import LocalRun
from scripts.run_local.view import AgentView, get_json, read_agent
from tests.browser import Page, chromium, missing_browser
from tests.e2e.conftest import E2E_DIR, log_tail, wait_for
from tests.e2e.http_fuzz import RawAnswer, send_raw

START_TIMEOUT = 180.0
PERIOD_TIMEOUT = 120.0
PROBE_TOOL = "e2e-period-probe"
DESCRIBED_TOOL = "e2e-described-sell"
#: generated requests sent to the running agent (a few seconds; CI runs them)
FUZZ_REQUESTS = 300


@pytest.fixture(scope="module")
def agent_run() -> Iterator[LocalRun]:
    """One agent on its own seeded devnet; both stopped (by pid) after the module.

    The work folder is ``.run/e2e/one_agent`` (git-ignored), not pytest's temporary
    folder: pytest removes old temporary folders of concurrent sessions, and the agent's
    files and logs must outlive a few minutes of periods (and stay for reading after a failure).

    :yield: the running agent.
    """
    run = LocalRun(
        agents=1,
        work_dir=E2E_DIR / "one_agent",
        settings={"RESET_PAUSE_DURATION": "10"},
    )
    run.start()
    try:
        yield run
    finally:
        run.stop()


def _view(run: LocalRun) -> AgentView:
    process = run.processes[0]
    assert (
        process.alive()
    ), f"the agent stopped; see {process.log_path}:\n{log_tail(process.log_path)}"
    return read_agent(process.name, process.http_url)


def _registered(run: LocalRun, registry: str, mech_id: int) -> RegisteredManifest:
    assert run.devnet is not None
    return next(
        entry
        for entry in run.devnet.info.registered
        if entry.registry == registry and entry.id == mech_id
    )


def _registered_shape(run: LocalRun, shape: str) -> RegisteredManifest:
    assert run.devnet is not None
    return next(e for e in run.devnet.info.registered if e.shape == shape)


def _with_catalogue(run: LocalRun) -> Optional[AgentView]:
    view = _view(run)
    return view if view.has_catalogue else None


def _first_catalogue(run: LocalRun) -> AgentView:
    return wait_for(
        lambda: _with_catalogue(run), START_TIMEOUT, "the first agreed catalogue"
    )


def _sync_with(run: LocalRun, tool: Optional[str] = None) -> Optional[Dict[str, Any]]:
    data = _sync(run)
    if not data.get("catalogue_digest") or (tool and tool not in data["mech_tools"]):
        return None
    return data


def _sync(run: LocalRun) -> Dict[str, Any]:
    return get_json(f"{run.processes[0].http_url}/synchronized_data")


def test_catalogue_served_over_http(agent_run: LocalRun) -> None:
    """GET /tools lists the seeded tools in MCP shape; GET /mechs shows every registered id, broken ones quarantined."""
    view = _first_catalogue(agent_run)
    assert view.health["status"] == "fresh"
    names = {tool["name"] for tool in view.tools}
    assert "prediction-online" in names
    for tool in view.tools:
        assert tool["inputSchema"]["type"] == "object"
    typed = next(tool for tool in view.tools if tool["name"] == "prediction-online")
    assert {"prompt", "temperature", "max_tokens"} <= set(
        typed["inputSchema"]["properties"]
    )
    mech_ids = {
        (mech["ref"]["registry_kind"], mech["ref"]["mech_id"]) for mech in view.mechs
    }
    assert agent_run.devnet is not None
    expected = {
        (entry.registry, entry.id) for entry in agent_run.devnet.info.registered
    }
    assert expected <= mech_ids
    broken = [
        mech
        for mech in view.mechs
        if mech["ref"]["registry_kind"] == "olas_agent_registry"
        and mech["ref"]["mech_id"] == 3
    ]
    assert broken and broken[0]["status"] != "ok"
    assert "invalid_json" in {problem["code"] for problem in broken[0]["problems"]}


def test_the_agents_catalogue_page_in_a_browser(agent_run: LocalRun) -> None:
    """The agent serves the catalogue page: search, a typed tool's form, its mech's page.

    Headless chromium (tests/browser.py) against the agent's own HTTP server, so the
    page's headers pass the agent's connection as the library's route writes them.

    :param agent_run: the running agent.
    """
    reason = missing_browser()
    if reason is not None:
        pytest.skip(reason)
    _first_catalogue(agent_run)
    base = f"{agent_run.processes[0].http_url}/catalogue/"
    with urllib.request.urlopen(base, timeout=10) as response:  # nosec B310
        policy = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        assert response.headers["X-Content-Type-Options"] == "nosniff"
    with chromium() as driver:
        page = Page(driver, base)
        page.open("/search?q=prediction+online")
        assert "tools from" in page.texts("#status")[0]
        rows = page.offer_rows()
        names = [row["tool"] for row in rows]
        assert "prediction-online" in names[:3], names
        page.click(page.css("#results a.tool-link")[names.index("prediction-online")])
        arguments = page.driver.execute_script(
            "return [...document.querySelectorAll('[data-argument]')]"
            ".map(e => e.getAttribute('data-argument'))"
        )
        assert {"prompt", "temperature", "max_tokens"} <= set(arguments)
        mech_link = page.css("#offers a.mech-link")[0]
        key = mech_link.get_attribute("title")
        page.click(mech_link)
        assert page.texts("#mech-key") == [key]
        assert "prediction-online" in page.texts("#mech-tools li")
        assert driver.execute_script("return typeof window.__pwned") == "undefined"


def test_http_api_survives_generated_requests(agent_run: LocalRun) -> None:
    """Generated requests get answers, not server errors; the agent still answers and advances.

    Issue #10: 300 generated requests (raw bytes: any method, path, query, header, body)
    each get an answer that is not a server error, and afterwards the agent still answers
    /healthcheck and its period still advances.

    :param agent_run: the running agent.
    """
    process = agent_run.processes[0]
    before = _first_catalogue(agent_run).health["period"]
    answers: Counter = Counter()

    @settings(
        max_examples=FUZZ_REQUESTS,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(request=wire_requests)
    def send(request: GeneratedRequest) -> None:
        answer: RawAnswer = send_raw(process.http_url, request)
        answers[answer.status] += 1
        answers["api_error_body"] += answer.json_error
        assert answer.status is not None, f"no HTTP answer to {request}"
        assert answer.status == 503 or answer.status < 500, (answer, request)
        assert answer.status != 408, f"the agent left {request} unanswered"

    send()  # pylint: disable=no-value-for-parameter
    # most requests must reach the skill's handler (the server refuses malformed lines)
    assert answers["api_error_body"] >= FUZZ_REQUESTS // 2, answers
    log = process.log_path.read_text(errors="replace")
    assert "internal_error" not in log, "the handler's guard caught an exception"
    assert _view(agent_run).health["status"] == "fresh"
    wait_for(
        lambda: _view(agent_run).health.get("period", 0) > before,
        PERIOD_TIMEOUT,
        f"a period after {before} (the period must still advance)",
    )


def _raw(http_url: str, target: bytes, host: bytes) -> Tuple[Optional[int], str]:
    """Send ``GET <target> HTTP/1.1`` as raw bytes; return the status and error code."""
    parts = urlsplit(http_url)
    address = (parts.hostname or "127.0.0.1", parts.port or 80)
    received = b""
    with socket.create_connection(address, timeout=20) as client:
        client.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
        while chunk := client.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status = head.split(b" ", 2)[1] if head.count(b" ") >= 2 else b""
    try:
        code = json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = ""
    return (int(status) if status.isdigit() else None), code


def test_the_request_line_reaches_the_skill_as_sent(agent_run: LocalRun) -> None:
    """Issue #34 item 8: GET ftp://host/tools is no longer served 200.

    The agent's HTTP server connection (``mech_catalogue/http_server``) hands the skill
    the target as sent; ``valory/http_server`` rebuilt it as ``http://<host>/tools``.

    :param agent_run: the running agent.
    """
    _first_catalogue(agent_run)
    url = agent_run.processes[0].http_url
    authority = urlsplit(url).netloc.encode()
    assert _raw(url, b"ftp://mechs.example/tools", authority) == (400, "invalid_url")
    assert _raw(url, b"http://mechs.example/tools", b"mechs.example") == (
        421,
        "misdirected_request",
    )
    assert _raw(url, b"*", authority) == (400, "invalid_url")
    assert _raw(url, b"/tools/%zz", authority) == (400, "invalid_path")
    assert _raw(url, b"/tools", authority) == (200, "")
    assert _raw(url, b"http://" + authority + b"/tools", authority) == (200, "")


def test_catalogue_in_shared_state_and_synchronized_data(agent_run: LocalRun) -> None:
    """The agreed digest is the one exposed in shared_state (log) and stored in SynchronizedData."""
    view = _first_catalogue(agent_run)
    digest = view.health["catalogue_digest"]
    exposed = agreed_catalogues(agent_run.processes[0].log_path)
    assert (
        exposed
    ), "no 'catalogue <digest> exposed under shared_state[...]' line in the agent's log"
    assert digest in {entry.digest for entry in exposed}
    log = agent_run.processes[0].log_path.read_text(errors="replace")
    assert "exposed under shared_state['mech_catalogue.tool_catalogue']" in log
    data = wait_for(
        lambda: _sync_with(agent_run),
        PERIOD_TIMEOUT,
        "SynchronizedData with a catalogue",
    )
    assert data["catalogue_digest"] in {
        entry.digest for entry in agreed_catalogues(agent_run.processes[0].log_path)
    }
    assert data["participants"] == 1
    # a name outside the MCP rule is served under a derived one, the mech's in _meta
    served = {
        (tool.get("_meta") or {}).get(META_KEY, {}).get("mechToolName", tool["name"])
        for tool in _view(agent_run).tools
    }
    assert set(data["mech_tools"]) == served
    assert data["mechs_info"], "mechs_info (mech-interact's MechInfo view) is empty"
    for info in data["mechs_info"]:
        assert isinstance(info, dict)


def test_periods_advance_under_a_flood_of_tools_requests(agent_run: LocalRun) -> None:
    """Sixteen clients request /tools pages without pause for two periods: all answered, no stall.

    The period must advance twice during the flood and reset_and_pause must never time
    out (``reset_and_pause_timeout`` sends the agents back to registration).

    :param agent_run: the running agent.
    """
    process = agent_run.processes[0]
    before = _first_catalogue(agent_run).health["period"]
    log_start = len(process.log_path.read_bytes())
    statuses: Counter = Counter()
    lock = threading.Lock()
    stop = threading.Event()
    urls = [f"{process.http_url}/tools", f"{process.http_url}/tools?cursor=1"]

    def client(index: int) -> None:
        while not stop.is_set():
            url = urls[index % len(urls)]
            try:
                with urllib.request.urlopen(  # nosec B310: loopback http only
                    url, timeout=10
                ) as response:
                    response.read()
                    status = response.status
            except urllib.error.HTTPError as error:
                status = error.code
            except (urllib.error.URLError, OSError):
                status = 0
            with lock:
                statuses[status] += 1

    clients = [threading.Thread(target=client, args=(i,)) for i in range(16)]
    for thread in clients:
        thread.start()
    try:
        wait_for(
            lambda: _view(agent_run).health.get("period", 0) >= before + 2,
            2 * PERIOD_TIMEOUT,
            f"two periods after {before} under the flood",
        )
    finally:
        stop.set()
        for thread in clients:
            thread.join(timeout=15)
    log = process.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert "reset_and_pause_timeout" not in log.lower(), log_tail(process.log_path)
    assert statuses[200] >= 100 and set(statuses) == {200}, statuses


def test_several_periods_pass(agent_run: LocalRun) -> None:
    """The chain goes round: registration -> tool metadata -> reset and pause -> tool metadata ..."""
    _first_catalogue(agent_run)
    wait_for(
        lambda: _view(agent_run).health.get("period", 0) >= 2,
        3 * PERIOD_TIMEOUT,
        "period 2",
    )
    assert len(agreed_catalogues(agent_run.processes[0].log_path)) >= 3


def test_manifest_changed_on_chain_shows_up_next_period(agent_run: LocalRun) -> None:
    """A new manifest hash written to the legacy registry between periods reaches /tools and SynchronizedData."""
    before = _first_catalogue(agent_run)
    assert PROBE_TOOL not in {tool["name"] for tool in before.tools}
    devnet = agent_run.devnet
    assert devnet is not None
    target = _registered(agent_run, "legacy_mech_registry", 2)
    manifest = {
        "name": "E2E probe mech",
        "description": "changed between periods",
        "tools": [PROBE_TOOL, "prediction-online"],
    }
    _, digest = devnet.add_manifest(json.dumps(manifest).encode())
    devnet.update_legacy_hash(target.owner, target.id, digest)

    def changed() -> Optional[AgentView]:
        # a view reads /healthcheck, then /tools: an agreement may land in between, so
        # wait for both to show the change
        view = _view(agent_run)
        digest = view.health.get("catalogue_digest")
        if digest == before.health["catalogue_digest"]:
            return None
        return view if PROBE_TOOL in {tool["name"] for tool in view.tools} else None

    after = wait_for(changed, 3 * PERIOD_TIMEOUT, f"{PROBE_TOOL} in GET /tools")
    assert after.health["catalogue_digest"] != before.health["catalogue_digest"]
    assert wait_for(
        lambda: _sync_with(agent_run, PROBE_TOOL),
        PERIOD_TIMEOUT,
        "the probe tool in SynchronizedData",
    )
    detail = get_json(f"{agent_run.processes[0].http_url}/tools/{PROBE_TOOL}")
    assert [offer["mech"]["mech_id"] for offer in detail["offers"]] == [target.id]


def test_description_json_mech_reaches_get_tools_and_synchronized_data(
    agent_run: LocalRun,
) -> None:
    """NFT metadata with typed tools in its description, registered live, is served typed and stays so."""
    before = _first_catalogue(agent_run)
    devnet = agent_run.devnet
    assert devnet is not None
    tool = {
        "name": DESCRIBED_TOOL,
        "kind": "prediction",
        "kwargs": [
            {"identifier": "sender", "type": "hexAddress"},
            {"identifier": "amount", "type": "int", "required": False, "default": 1},
        ],
    }
    metadata = {
        "name": "E2E description-JSON mech",
        "description": "Sells on Omen. " + json.dumps({"tools": [tool]}),
        "code_uri": "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
        "image": "ipfs://bafybeihashofanimage",
        "attributes": [{"trait_type": "version", "value": "0.1.0"}],
    }
    cid, digest = devnet.add_manifest(json.dumps(metadata).encode())
    mech_id = devnet.register_legacy_mech(devnet.address("owner_2"), digest)

    def served() -> Optional[AgentView]:
        view = _view(agent_run)
        if view.health.get("catalogue_digest") == before.health["catalogue_digest"]:
            return None
        return view if DESCRIBED_TOOL in {t["name"] for t in view.tools} else None

    view = wait_for(served, 3 * PERIOD_TIMEOUT, f"{DESCRIBED_TOOL} in GET /tools")
    (listed,) = [t for t in view.tools if t["name"] == DESCRIBED_TOOL]
    assert listed["inputSchema"]["required"] == ["sender"]
    assert set(listed["inputSchema"]["properties"]) == {"sender", "amount"}
    meta = listed["_meta"]["io.olas/mech-tool"]
    assert meta["kind"] == "prediction"
    assert meta["provenance"]["shape"] == "description_json"
    assert meta["provenance"]["cid"] == cid
    assert meta["provenance"]["mech"]["mech_id"] == mech_id
    assert wait_for(
        lambda: _sync_with(agent_run, DESCRIBED_TOOL),
        PERIOD_TIMEOUT,
        "the described tool in SynchronizedData",
    )
    period = view.health["period"]

    def next_period() -> Optional[AgentView]:
        current = _view(agent_run)
        return current if current.health.get("period", 0) > period else None

    later = wait_for(next_period, 3 * PERIOD_TIMEOUT, f"a period after {period}")
    assert [t for t in later.tools if t["name"] == DESCRIBED_TOOL] == [listed]


def _assert_agreed_catalogue_carries_derived(
    run: LocalRun, derived_from: Dict[str, Any]
) -> None:
    """The agreed catalogue itself, not only the HTTP view, holds the derived arguments.

    The agent writes the catalogue it exposes under shared_state to
    ``<state_dir>/catalogues/<digest>.catalogue.json`` when the agents agree on it; the
    file named by SynchronizedData's ``catalogue_digest`` must re-hash to that digest
    (so it is the agreed content) and type the RAG tool with provenance ``derived``.

    :param run: the running agent.
    :param derived_from: the provenance GET /tools gave.
    """
    folder = run.processes[0].agent_dir / "mech_catalogue_state" / "catalogues"

    def agreed() -> Optional[Catalogue]:
        digest = _sync(run).get("catalogue_digest", "")
        path = folder / f"{digest}.catalogue.json"
        if not digest or not path.exists():
            return None
        catalogue = Catalogue.from_json(path.read_text())
        assert catalogue.digest() == digest  # the file is the agreed catalogue
        return catalogue

    catalogue = wait_for(agreed, PERIOD_TIMEOUT, "the agreed catalogue on disk")
    tools = [
        tool
        for mech in catalogue.mechs
        for tool in mech.tools
        if tool.name == "prediction-request-rag"
    ]
    assert tools, "the RAG tool is not in the agreed catalogue"
    for tool in tools:
        by_name = {a.identifier: a for a in tool.arguments}
        assert set(by_name) == {"prompt", "num_urls", "temperature", "model"}
        assert by_name["prompt"].required and not by_name["model"].required
        assert (by_name["num_urls"].type, by_name["temperature"].type) == (
            "int",
            "float",
        )
        assert tool.provenance.arguments_source == "derived"
        assert tool.provenance.derived_component == derived_from["component_id"]
        assert tool.provenance.derived_cid == derived_from["cid"]


def test_code_derived_arguments_served_and_fetched_once(agent_run: LocalRun) -> None:
    """Issue #12: the names-only Olas agent's RAG tool gets arguments from component 1's code.

    Chain (getDependencies -> ComponentRegistry) -> component metadata -> code_uri ->
    the tool package directory in kubo -> GET /tools (marked derived) and GET /mechs; the
    agreed catalogue (its digest in SynchronizedData, the object in shared_state, kept on
    disk as ``<digest>.catalogue.json``) carries the same arguments with provenance; a
    later period makes no IPFS request for the unchanged component (the agent logs the count).

    :param agent_run: the running agent.
    """
    view = _first_catalogue(agent_run)
    tool = next(t for t in view.tools if t["name"] == "prediction-request-rag")
    schema = tool["inputSchema"]
    assert set(schema["properties"]) == {"prompt", "num_urls", "temperature", "model"}
    assert schema.get("required") == ["prompt"]
    assert schema["properties"]["temperature"]["type"] == "number"
    assert schema["properties"]["num_urls"]["type"] == "integer"
    provenance = tool["_meta"]["io.olas/mech-tool"]["provenance"]
    assert provenance["arguments"] == "derived"
    assert provenance["derived_from"]["component_id"] == 1
    assert provenance["derived_from"]["cid"].startswith("bafy")
    names_only = _registered_shape(agent_run, "tools-names-only")
    (mech,) = [
        m
        for m in view.mechs
        if (m["ref"]["registry_kind"], m["ref"]["mech_id"])
        == (names_only.registry, names_only.id)
    ]
    assert "prediction-request-rag" in mech["tools"] and mech["status"] == "ok"
    assert not [p for p in mech["problems"] if p["code"].startswith("code_")]
    _assert_agreed_catalogue_carries_derived(agent_run, provenance["derived_from"])
    wait_for(
        lambda: _view(agent_run).health.get("period", 0) >= 2,
        3 * PERIOD_TIMEOUT,
        "period 2",
    )
    log = agent_run.processes[0].log_path.read_text(errors="replace")
    fetched = [
        int(line.rsplit(" IPFS requests", 1)[0].rsplit(" ", 1)[-1])
        for line in log.splitlines()
        if "code-derived arguments:" in line
    ]
    assert len(fetched) >= 2 and fetched[0] > 0
    assert fetched[1:] == [0] * (len(fetched) - 1)
