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

"""Paid calls as MCP tasks, driven by a client nobody here wrote.

The client is the TypeScript SDK's ``Client`` with the official Tasks package
(``@modelcontextprotocol/ext-tasks``), installed from npm in test set-up into
``.tools/mcp-js`` (``tests/devnet/js/tasks_client.mjs`` is the script it runs); the server
is ``mech-catalogue mcp`` on the devnet (anvil with the marketplace's bytecode, kubo, the
stand-in responder mech). Money is read on chain: one request per task, never one more.
"""

import json
import shutil
import subprocess  # nosec: runs node on our own test script
import sys
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

from scripts.devnet import Devnet
from tests.answer_shape import answer_of
from tests.devnet.mcp_helpers import (
    ROOT,
    _env,
    command,
    http_server,
    market_nonce,
    responder,
)

TOOL = "prediction-online"
#: the npm packages of the client, pinned
JS_PACKAGES = (
    "@modelcontextprotocol/client@2.4.0",
    "@modelcontextprotocol/ext-tasks@0.2.2",
)
JS_DIR = ROOT / ".tools" / "mcp-js"
SCRIPT = Path(__file__).parent / "js" / "tasks_client.mjs"


@pytest.fixture(scope="module", name="node_client")
def _node_client() -> Iterator[Path]:
    """The TypeScript client's folder, installed once (skipped without node/npm)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("the TypeScript MCP client needs Node.js >= 20 and npm on PATH")
    stamp = JS_DIR / ".installed"
    if not stamp.is_file() or stamp.read_text() != " ".join(JS_PACKAGES):
        JS_DIR.mkdir(parents=True, exist_ok=True)
        (JS_DIR / "package.json").write_text('{"private": true, "type": "module"}')
        subprocess.run(  # nosec: fixed arguments
            ["npm", "install", "--no-audit", "--no-fund", "--save-exact", *JS_PACKAGES],
            cwd=JS_DIR,
            check=True,
            capture_output=True,
            timeout=600,
        )
        stamp.write_text(" ".join(JS_PACKAGES))
    shutil.copy(SCRIPT, JS_DIR / SCRIPT.name)
    yield JS_DIR / SCRIPT.name


def run_client(
    script: Path, scenario: str, server: Dict[str, Any], arguments: Dict[str, Any]
) -> Dict[str, Any]:
    """Run the TypeScript client once; return what it saw."""
    done = subprocess.run(  # nosec: our own script and arguments
        [
            "node",
            str(script),
            scenario,
            json.dumps(server),
            TOOL,
            json.dumps(arguments),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.stdout.strip(), done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert "error" not in seen, seen["error"] + done.stderr[-3000:]
    return seen


def stdio_server(devnet: Devnet, state: Path, *extra: str) -> Dict[str, Any]:
    """The server's stdio launch description, as the TypeScript transport takes it."""
    argv = command(devnet, state, *extra)
    argv[0] = sys.executable
    return {"command": argv[0], "args": argv[1:], "env": _env(), "cwd": str(ROOT)}


def test_a_paid_call_runs_as_a_task_and_its_result_is_read(
    chain_snapshot: Devnet, tmp_path: Path, node_client: Path
) -> None:
    """tools/call with a task: a task at once, progress as status, the paid answer."""
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    arguments = {"prompt": "Will the task outlive its request?"}
    with responder(devnet):
        seen = run_client(
            node_client,
            "complete",
            stdio_server(devnet, tmp_path, "--timeout", "60"),
            arguments,
        )
    assert seen["capabilities"]["requests"]["tools"]["call"] == {}
    assert seen["taskSupport"] == "optional"
    assert seen["kind"] == "task" and seen["taskId"]
    assert seen["outcome"]["status"] == "completed", seen
    result = seen["outcome"]["result"]
    assert not result.get("isError"), result
    meta = result["_meta"]
    assert meta["io.modelcontextprotocol/related-task"] == {"taskId": seen["taskId"]}
    assert meta["io.olas/mech-request"]["request_id"].startswith("0x")
    assert answer_of(result)["arguments"] == {}  # the responder's echo
    assert market_nonce(devnet) == nonce + 1  # one request paid, once


def test_a_cancelled_task_keeps_its_request_and_a_retry_does_not_pay_again(
    chain_snapshot: Devnet, tmp_path: Path, node_client: Path
) -> None:
    """Cancelling stops the waiting; the request sent stays paid and is read later.

    The client cancels once the task's status says the request was sent (nobody answers
    yet); a second call with the same arguments, answered now, reads that request.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    :param node_client: the TypeScript client's script.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    arguments = {"prompt": "Cancel me, then read me"}
    server = stdio_server(devnet, tmp_path, "--timeout", "60", "--delivery-poll", "0.5")
    cancelled = run_client(node_client, "cancel", server, arguments)  # nobody answers
    assert cancelled["outcome"]["status"] == "cancelled", cancelled
    sent = [
        u
        for u in cancelled["updates"]
        if "to deliver request" in u.get("statusMessage", "")
    ]
    assert (
        sent
    ), cancelled  # the call's progress reached the client as the task's status
    assert market_nonce(devnet) == nonce + 1  # cancelled after sending: it stays paid
    with responder(devnet):
        again = run_client(node_client, "complete", server, arguments)
    assert again["outcome"]["status"] == "completed", again
    assert (
        market_nonce(devnet) == nonce + 1
    )  # the cancelled task's request, if sent, is reused


def test_a_task_outlives_the_client_connection_that_created_it(
    chain_snapshot: Devnet, tmp_path: Path, node_client: Path
) -> None:
    """Over HTTP: one connection creates the task and leaves; another reads its result."""
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    with http_server(devnet, tmp_path, "--timeout", "60") as url, responder(devnet):
        seen = run_client(
            node_client, "handoff", {"url": url}, {"prompt": "Still there?"}
        )
    assert seen["outcome"]["status"] == "completed", seen
    assert not seen["outcome"]["result"].get("isError"), seen
    assert market_nonce(devnet) == nonce + 1
