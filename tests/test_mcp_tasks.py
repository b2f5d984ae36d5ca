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

"""The task store's rules, in process: what a client cannot make it do.

The paid call behind a task is a stand-in here (an awaitable that returns a result, or
never returns): the tasks themselves are what is tested. A real client paying real mechs
through tasks is tests/devnet/test_mcp_tasks.py.
"""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import anyio
import mcp_types as types
import pytest

from mech_catalogue_cli.mcp_server import tasks as tasks_module
from mech_catalogue_cli.mcp_server.tasks import (
    MAX_TTL_MS,
    TASKS_PROTOCOL_VERSION,
    CallTasks,
    TaskParamsError,
)


@dataclass
class Ctx:
    """The fields of the SDK's request context the middleware reads."""

    method: str
    params: Optional[Dict[str, Any]]
    protocol_version: str = TASKS_PROTOCOL_VERSION


class Calls:
    """A stand-in paid call: answers ``text`` (isError when ``fail``) once released."""

    def __init__(self, text: str = "the answer", fail: bool = False) -> None:
        """Hold the answer until released."""
        self.text, self.fail = text, fail
        self.release = anyio.Event()
        self.seen: List[Any] = []

    async def __call__(
        self, name: str, arguments: Dict[str, Any], idempotency: str, session: Any
    ) -> types.CallToolResult:
        """Report progress, wait for the release, answer."""
        self.seen.append((name, arguments, idempotency))
        await session.report_progress(1.0, 60.0, "waiting for mech 0xabc to deliver")
        await self.release.wait()
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=self.text)], is_error=self.fail
        )


async def passed_on(ctx: Any) -> Dict[str, Any]:
    """What the rest of the SDK's chain would answer."""
    if ctx.method == "initialize":
        return {"protocolVersion": ctx.params["v"], "capabilities": {"tools": {}}}
    if ctx.method == "tools/list":
        return {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    return {"passed_on": ctx.method}


def call(name: str = "t", **task: Any) -> Ctx:
    """A task-augmented tools/call."""
    return Ctx("tools/call", {"name": name, "arguments": {"a": 1}, "task": task})


def test_a_task_reports_progress_then_its_result() -> None:
    """tools/call returns a task at once; status follows progress; result is the call's."""
    calls = Calls()

    async def main() -> None:
        async with anyio.create_task_group() as group:
            store = CallTasks(calls)
            store.group = group
            created = await store(call(ttl=5_000, **{}), passed_on)
            task_id = created["task"]["taskId"]
            assert created["task"]["status"] == "working"
            await anyio.sleep(0.01)
            got = await store(Ctx("tasks/get", {"taskId": task_id}), passed_on)
            assert "waiting for mech 0xabc" in got["statusMessage"]
            calls.release.set()
            result = await store(Ctx("tasks/result", {"taskId": task_id}), passed_on)
            assert result["content"][0]["text"] == "the answer"
            assert result["_meta"]["io.modelcontextprotocol/related-task"] == {
                "taskId": task_id
            }
            done = await store(Ctx("tasks/get", {"taskId": task_id}), passed_on)
            assert done["status"] == "completed"

    anyio.run(main)
    assert calls.seen == [("t", {"a": 1}, "")]


def test_an_error_result_fails_the_task_and_is_still_returned() -> None:
    """isError: status failed with the text as statusMessage; tasks/result returns it."""
    calls = Calls("t: paid, not delivered within 60 s; call again", fail=True)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            store = CallTasks(calls)
            store.group = group
            task_id = (await store(call(), passed_on))["task"]["taskId"]
            calls.release.set()
            result = await store(Ctx("tasks/result", {"taskId": task_id}), passed_on)
            assert result["isError"] is True
            got = await store(Ctx("tasks/get", {"taskId": task_id}), passed_on)
            assert got["status"] == "failed"
            assert got["statusMessage"].startswith("t: paid, not delivered")

    anyio.run(main)


@pytest.mark.parametrize(
    "request_",
    [
        Ctx("tasks/get", {"taskId": "nope"}),
        Ctx("tasks/result", {"taskId": 7}),
        Ctx("tasks/cancel", {}),
        Ctx("tasks/list", {"cursor": "x" * 20}),
        Ctx("tasks/list", {"cursor": -1}),
    ],
)
def test_unknown_tasks_and_bad_cursors_are_invalid_params(request_: Ctx) -> None:
    """An id this server never issued, or a cursor it did not, is INVALID_PARAMS."""

    async def main() -> None:
        store = CallTasks(Calls())
        with pytest.raises(TaskParamsError) as raised:
            await store(request_, passed_on)
        assert raised.value.code == types.INVALID_PARAMS

    anyio.run(main)


def test_cancel_stops_waiting_once_and_a_finished_task_cannot_be_cancelled() -> None:
    """Cancel: cancelled, says the payment stays; a second cancel is refused."""

    async def main() -> None:
        async with anyio.create_task_group() as group:
            store = CallTasks(Calls())
            store.group = group
            task_id = (await store(call(), passed_on))["task"]["taskId"]
            await anyio.sleep(0.01)
            cancelled = await store(Ctx("tasks/cancel", {"taskId": task_id}), passed_on)
            assert cancelled["status"] == "cancelled"
            assert "stays paid" in cancelled["statusMessage"]
            with pytest.raises(TaskParamsError):
                await store(Ctx("tasks/cancel", {"taskId": task_id}), passed_on)
            with pytest.raises(TaskParamsError, match="cancelled"):
                await store(Ctx("tasks/result", {"taskId": task_id}), passed_on)

    anyio.run(main)


def test_ttl_is_capped_tasks_are_bounded_and_expired_ones_forgotten(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A huge ttl is capped; past MAX_TASKS kept, creation is refused; expiry frees."""
    monkeypatch.setattr(tasks_module, "MAX_TASKS", 3)
    now = [1_000.0]
    calls = Calls()
    calls.release.set()

    async def main() -> None:
        async with anyio.create_task_group() as group:
            store = CallTasks(calls, clock=lambda: now[0])
            store.group = group
            first = await store(call(ttl=10**15), passed_on)
            assert first["task"]["ttl"] == MAX_TTL_MS
            await store(call(ttl=1_000), passed_on)
            await store(call(ttl=1_000), passed_on)
            with pytest.raises(TaskParamsError, match="3 tasks are kept"):
                await store(call(), passed_on)
            await anyio.sleep(0.01)  # all three finish
            now[0] += 2  # the two 1 s tasks expire
            page = await store(Ctx("tasks/list", None), passed_on)
            assert [t["taskId"] for t in page["tasks"]] == [first["task"]["taskId"]]
            await store(call(), passed_on)  # room again

    anyio.run(main)


def test_only_2025_11_25_connections_see_tasks() -> None:
    """Other protocol versions: no capability, no taskSupport, tools/call passed on."""

    async def main() -> None:
        store = CallTasks(Calls())
        modern = "2026-07-28"
        init = await store(Ctx("initialize", {"v": modern}, modern), passed_on)
        assert "tasks" not in init["capabilities"]
        listed = await store(Ctx("tools/list", {}, modern), passed_on)
        assert "execution" not in listed["tools"][0]
        passed = await store(Ctx("tools/call", call().params, modern), passed_on)
        assert passed == {"passed_on": "tools/call"}
        init = await store(Ctx("initialize", {"v": TASKS_PROTOCOL_VERSION}), passed_on)
        assert init["capabilities"]["tasks"]["requests"] == {"tools": {"call": {}}}
        listed = await store(Ctx("tools/list", {}), passed_on)
        assert listed["tools"][0]["execution"] == {"taskSupport": "optional"}

    anyio.run(main)


def test_a_task_needs_a_name_and_an_arguments_object() -> None:
    """A malformed task-augmented call creates nothing."""

    async def main() -> None:
        async with anyio.create_task_group() as group:
            store = CallTasks(Calls())
            store.group = group
            malformed: List[Dict[str, Any]] = [
                {"task": {}},
                {"name": "t", "arguments": [1], "task": {}},
            ]
            for params in malformed:
                with pytest.raises(TaskParamsError):
                    await store(Ctx("tools/call", params), passed_on)
            assert not store.tasks
            group.cancel_scope.cancel()

    anyio.run(main)


def test_a_task_cancelled_before_its_call_starts_sends_nothing() -> None:
    """Cancel in the same tick as creation: the call never runs (nothing can be paid)."""
    calls = Calls()
    calls.release.set()

    async def main() -> None:
        async with anyio.create_task_group() as group:
            store = CallTasks(calls)
            store.group = group
            task_id = (await store(call(), passed_on))["task"]["taskId"]
            await store(Ctx("tasks/cancel", {"taskId": task_id}), passed_on)
            await anyio.sleep(0.01)
            got = await store(Ctx("tasks/get", {"taskId": task_id}), passed_on)
            assert got["status"] == "cancelled"

    anyio.run(main)
    assert not calls.seen
