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

"""The paid path's last holes of issue 29 on the devnet (fix29f).

Anvil with the real MechMarketplace bytecode, kubo, the stand-in endpoint
(:mod:`scripts.devnet.offchain_responder`, accepting and never settling:
``no_settle``), the MCP SDK's client launching ``mech-catalogue mcp`` over stdio, and
the TypeScript SDK's tasks client for ``tasks/get``. Nothing is mocked; one journal
entry's acceptance time and bound are rewritten (the wall clock the server compares
with a request's bound, its call's ``--timeout``, cannot be moved).

- An accepted request older than ``--spend-window`` still counts while its nonce is
  not passed: the mech may settle it, and the marketplace charges it whatever its age.
- A call whose nonce another call's accepted request holds is not signed behind it
  (fix29g): it waits up to its ``--timeout``, its progress and its task's
  ``statusMessage`` naming the request ("waiting for request 0x... (nonce N) to be
  settled or to pass"), then says how to give that request up.
- An accepted request its mech never settles: the timeout says when it is given up (its
  call's ``--timeout`` from its acceptance: fix29i); past it an on-chain call takes its
  nonce, calling again says it can never be settled, and the next call signs anew and
  is charged once.
"""

import json
import time
from pathlib import Path
from typing import Any, List, Optional

import anyio

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import market_nonce, stdio_client
from tests.devnet.test_mcp_offchain import (
    ARGUMENTS,
    TOOL,
    calls,
    declare_url,
    native_mech,
    prepaid,
    prepay,
)
from tests.devnet.test_mcp_tasks import (  # noqa: F401  # pylint: disable=unused-import
    _node_client,
    run_client,
    stdio_server,
)

ONLY = ("--offchain", "only", "--timeout", "2")


def _text(result: Any) -> str:
    return str(result.content[0].text)


def _posted_id(form: dict) -> str:
    """The request id of a posted form, as the server says it (0x + 64 hex)."""
    return f"0x{int(form['request_id']):064x}"


def test_an_accepted_request_older_than_the_window_still_counts(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Accepted, unsettled, past --spend-window: a second call is over --max-spend."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    capped = ("--mech", mech, *ONLY, "--max-spend", str(price), "--spend-window", "1s")
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        (first,) = calls(devnet, tmp_path, 1, *capped, prompt="first")
        assert "posted to its endpoint and accepted" in _text(first), _text(first)
        time.sleep(1.5)  # the window passes; the nonce does not
        (second,) = calls(devnet, tmp_path, 1, *capped, prompt="second")
        text = _text(second)
        # observed before fix29f: signed at the next nonce and accepted, so two
        # requests the mech may settle (two prices) under a cap of one
        assert second.is_error and "over --max-spend" in text, text
        assert len(endpoint.posts) == 1
    assert not endpoint.errors, endpoint.errors


#: a call held for the rest of 6 s: its checks and reads before the hold count against
#: its --timeout (fix29yb), 2 s of which a loaded machine can spend
HELD_FOR = ("--timeout", "6", "--delivery-poll", "0.3")


def test_a_call_behind_an_accepted_request_says_which_request_it_waits_for(
    chain_snapshot: Devnet, tmp_path: Path, node_client: Path
) -> None:
    """Nothing signed behind; progress and the task's statusMessage name the holder."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    messages: List[str] = []
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 4 * price)
        start = market_nonce(devnet)
        (first,) = calls(devnet, tmp_path, 1, "--mech", mech, *ONLY, prompt="first")
        assert "accepted" in _text(first), _text(first)
        holder = _posted_id(endpoint.posts[0])
        # its bound (its call's --timeout, 2 s) made longer in the journal: past it the
        # next call would sign at its nonce (fix29i); a 600 s call is no test
        (path,) = (tmp_path / "calls").glob("*.json")
        entry = json.loads(path.read_text())
        entry["extra"]["offchain"]["give_up_after"] = 600
        path.write_text(json.dumps(entry))
        expected = (
            f"waiting for request {holder} (nonce {start}) to be settled or to pass"
        )

        async def second() -> Any:
            async def on_progress(
                progress: float, total: Optional[float], message: Optional[str]
            ) -> None:
                del progress, total
                messages.append(message or "")

            async with stdio_client(
                devnet,
                tmp_path,
                "--mech",
                mech,
                *ONLY,
                *HELD_FOR,
            ) as client:
                return await client.call_tool(
                    TOOL,
                    dict(ARGUMENTS, prompt="second"),
                    progress_callback=on_progress,
                )

        held = anyio.run(second)
        text = _text(held)
        assert held.is_error and "no request is signed behind it" in text, text
        assert holder in text and f"takes nonce {start}" in text, text
        seen = run_client(
            node_client,
            "complete",
            stdio_server(
                devnet,
                tmp_path,
                "--mech",
                mech,
                *ONLY,
                *HELD_FOR,
            ),
            dict(ARGUMENTS, prompt="third"),
        )
    statuses = [u.get("statusMessage", "") for u in seen["updates"]]
    # before fix29g: the second request signed at nonce N + 1 behind the first,
    # accepted, unsettleable while the first stands, and counted against --max-spend
    assert any(expected in m for m in messages), messages
    assert any(expected in m for m in statuses), json.dumps(seen)[-3000:]
    assert [int(form["nonce"]) for form in endpoint.posts] == [start]
    assert not endpoint.errors, endpoint.errors


def test_an_accepted_request_never_settled_can_be_given_up_as_its_timeout_says(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The timeout says when; past its bound, an on-chain call takes the nonce (fix29i)."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    only = ("--mech", mech, *ONLY)
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 3 * price)
        start = market_nonce(devnet)
        for _ in range(2):  # times out, and a retry waits again (nothing posted)
            (stuck,) = calls(devnet, tmp_path, 1, *only)
            text = _text(stuck)
            assert stuck.is_error and "was not delivered within 2 s" in text, text
        assert len(endpoint.posts) == 1
        # observed before fix29f: only "Call again ... to keep waiting"; before
        # fix29i the bound was the marketplace's maxResponseTimeout (an hour here)
        assert "after 2 s from its acceptance" in text, text
        assert f"may take nonce {start}" in text and "given up" in text, text
        never = ("--mech", mech, "--offchain", "never", "--timeout", "2")
        (path,) = (tmp_path / "calls").glob("*.json")
        entry = json.loads(path.read_text())
        # within a longer bound (the wall clock cannot be moved: the entry is)
        entry["paid_at"], entry["extra"]["offchain"]["give_up_after"] = time.time(), 600
        path.write_text(json.dumps(entry))
        (early,) = calls(devnet, tmp_path, 1, *never, prompt="other")
        assert f"would take nonce {start}" in _text(early), _text(early)
        assert "after 600 s from its acceptance" in _text(early), _text(early)
        assert market_nonce(devnet) == start  # within its bound: nothing sent
        entry["paid_at"] -= 601  # accepted one bound ago
        path.write_text(json.dumps(entry))
        (taken,) = calls(devnet, tmp_path, 1, *never, prompt="other")
        assert "tx 0x" in _text(taken), _text(taken)  # on chain: nonce N taken
        assert market_nonce(devnet) == start + 1
        (said,) = calls(devnet, tmp_path, 1, *only)
        text = _text(said)
        assert said.is_error and "can never be settled nor charged" in text, text
        assert f"{_posted_id(endpoint.posts[0])} (nonce {start})" in text
        endpoint.behaviour = "honest"
        before = prepaid(devnet)
        (answered,) = calls(devnet, tmp_path, 1, "--mech", mech, "--offchain", "only")
        assert not answered.is_error, _text(answered)
        assert int(endpoint.posts[-1]["nonce"]) == start + 1
    assert not endpoint.errors, endpoint.errors
    assert before - prepaid(devnet) == price  # only the new request was charged
