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

"""Paid calls that outlive the client's request: MCP tasks (protocol 2025-11-25).

A paid call waits for a mech for seconds to minutes; clients give up earlier. A client
that declares task support sends ``tools/call`` with ``params.task`` (``{"ttl": ms}``);
the server answers at once with a task (``CreateTaskResult``) and runs the call in the
background; the client polls ``tasks/get`` (status, and the call's progress as
``statusMessage``), reads ``tasks/result`` (waits for the end, then the call's
``CallToolResult``), lists ``tasks/list`` or stops waiting with ``tasks/cancel``.
Wire format: the MCP specification 2025-11-25, "Tasks" (SEP-1686; in the 2026-07-28
revision tasks moved to the ``io.modelcontextprotocol/tasks`` extension, not served here).

Money: a task runs the same :meth:`.server.MechToolServer.call` as a plain call (the
journal, the caps, the trust rules). Cancelling a task stops the waiting, never a payment
already sent; calling again with the same arguments (as a task or not) reads the paid
answer without paying again. A call that ends in an ``isError`` result ends its task as
``failed`` with the server's words as ``statusMessage`` (:func:`status_message`: a
delivered answer's notes, never the answer), and ``tasks/result`` still returns it.

The SDK (``mcp`` 2.x) has no task support on its low-level server, so this is a
``Server.middleware``: it answers the ``tasks/*`` methods and task-augmented
``tools/call`` itself, adds the ``tasks`` capability to ``initialize`` and
``execution.taskSupport: "optional"`` to every listed tool, only on connections that
negotiated 2025-11-25. Tasks live in this process's memory (a restart forgets them; the
journal does not).
"""

import datetime
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Optional

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.shared.exceptions import MCPError

from .call_identity import IDEMPOTENCY_META_KEY
from .results import REQUEST_META_KEY, SERVER_NOTE, called_name

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: the protocol revision whose core has tasks
TASKS_PROTOCOL_VERSION = "2025-11-25"
#: ``_meta`` key tying a message to its task (spec 2025-11-25, Tasks)
RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task"
#: what the server can do with tasks (``ServerCapabilities.tasks``)
TASKS_CAPABILITY: Dict[str, Any] = {
    "list": {},
    "cancel": {},
    "requests": {"tools": {"call": {}}},
}
#: kept this long after creation when the client asks for no ttl (ms)
DEFAULT_TTL_MS = 3_600_000
#: never kept longer than this, whatever the client asks (ms)
MAX_TTL_MS = 86_400_000
#: tasks kept at once (a client creating more gets an error, not memory growth)
MAX_TASKS = 1_000
#: suggested polling interval (ms)
POLL_INTERVAL_MS = 1_000
#: tasks per ``tasks/list`` page
LIST_PAGE_SIZE = 100
TERMINAL = ("completed", "failed", "cancelled")
#: the longest ``statusMessage`` (characters): a failure text is quoted shortened
MAX_STATUS_MESSAGE = 500
#: how a cut ``statusMessage`` ends
STATUS_CUT = "… (cut; tasks/result has the whole text)"

#: runs one call: (tool name, arguments, idempotency key, progress session) -> result
RunCall = Callable[[str, Dict[str, Any], str, Any], Awaitable[types.CallToolResult]]


def _iso(seconds: float) -> str:
    return (
        datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


@dataclass
class CallTask:  # pylint: disable=too-many-instance-attributes
    """One task-augmented ``tools/call``.

    :param task_id: the id handed to the client (random, 128 bits).
    :param created: unix time of creation (seconds).
    :param ttl_ms: how long it is kept after creation (ms).
    """

    task_id: str
    created: float
    ttl_ms: int
    status: str = "working"
    status_message: Optional[str] = None
    updated: float = 0.0
    result: Optional[Dict[str, Any]] = None
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: Optional[anyio.CancelScope] = None

    def wire(self) -> Dict[str, Any]:
        """Return the task as the spec's ``Task`` object (camelCase keys)."""
        task: Dict[str, Any] = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created),
            "lastUpdatedAt": _iso(self.updated or self.created),
            "ttl": self.ttl_ms,
            "pollInterval": POLL_INTERVAL_MS,
        }
        if self.status_message:
            task["statusMessage"] = self.status_message
        return task

    def expired(self, now: float) -> bool:
        """Return whether a finished task is past its ttl (a running one is kept)."""
        return self.status in TERMINAL and now > self.created + self.ttl_ms / 1000

    def finish(self, status: str, message: Optional[str], now: float) -> None:
        """Move to a terminal status once; later calls change nothing."""
        if self.status in TERMINAL:
            return
        self.status, self.status_message, self.updated = status, message, now
        self.done.set()


class _StatusSession:
    """The session a task's call reports progress to: it becomes ``statusMessage``.

    (The client that created the task may be gone.)
    """

    def __init__(self, task: CallTask, clock: Callable[[], float]) -> None:
        self.task, self.clock = task, clock

    async def report_progress(self, done: float, total: float, message: str) -> None:
        """Keep the latest progress as the task's status message."""
        if self.task.status == "working":
            self.task.status_message = f"{message} ({done:g} of {total:g} s)"
            self.task.updated = self.clock()


class TaskParamsError(MCPError):
    """A task request the server cannot serve; the message says what to do.

    JSON-RPC INVALID_PARAMS, as the spec says for an unknown task id.
    """

    def __init__(self, message: str) -> None:
        """Make the error.

        :param message: what was wrong and what to do.
        """
        super().__init__(types.INVALID_PARAMS, message)


def status_message(result: Dict[str, Any]) -> str:
    """A failed call's ``statusMessage``: the server's words, the cut said.

    A delivered answer's result holds the server's notes apart
    (``_meta[REQUEST_META_KEY][SERVER_NOTE]``, :func:`.results.answer_result`): the
    status is those only, never the mech's fenced answer after them (adv29w). Other
    failures are the server's sentences (``results.error_result``). Either is cut at
    :data:`MAX_STATUS_MESSAGE` characters with :data:`STATUS_CUT` saying so.

    :param result: the call's result as on the wire.
    :return: at most :data:`MAX_STATUS_MESSAGE` characters ("the call failed" when the
        result has no text).
    """
    meta = result.get("_meta")
    ours = meta.get(REQUEST_META_KEY) if isinstance(meta, dict) else None
    note = ours.get(SERVER_NOTE) if isinstance(ours, dict) else None
    if isinstance(note, str) and note.strip():
        text = f"{note.strip()} The answer is in tasks/result."
    else:
        texts = [
            str(block.get("text", ""))
            for block in result.get("content", [])
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        text = " ".join(texts).strip() or "the call failed"
    if len(text) <= MAX_STATUS_MESSAGE:
        return text
    return text[: MAX_STATUS_MESSAGE - len(STATUS_CUT)] + STATUS_CUT


class CallTasks:
    """The tasks of one server process, and the middleware that serves them."""

    def __init__(self, run_call: RunCall, clock: Callable[[], float] = time.time):
        """Keep the call runner.

        :param run_call: runs one call (:meth:`.server.MechToolServer.call`).
        :param clock: unix time (seconds).
        """
        self.run_call = run_call
        self.clock = clock
        self.tasks: Dict[str, CallTask] = {}
        self.group: Optional[TaskGroup] = None

    # --- the middleware ------------------------------------------------------------
    async def __call__(
        self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]
    ) -> Any:
        """Serve tasks on 2025-11-25 connections; pass everything else on.

        :param ctx: the SDK's request context (``method``, raw ``params``,
            ``protocol_version``).
        :param call_next: the rest of the SDK's chain.
        :return: the wire result (a :class:`TaskParamsError` for an unknown or expired
            task id, a cancel of a finished task, or too many tasks).
        """
        method, params = ctx.method, ctx.params if isinstance(ctx.params, dict) else {}
        if method == "initialize":
            return self._with_capability(await call_next(ctx))
        if ctx.protocol_version != TASKS_PROTOCOL_VERSION:
            return await call_next(ctx)
        if method == "tools/list":
            return self._with_task_support(await call_next(ctx))
        if method == "tools/call" and isinstance(params.get("task"), dict):
            return self.start(params)
        if method in ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel"):
            return await self._answer(method, params)
        return await call_next(ctx)

    async def _answer(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        if method == "tasks/list":
            return self.page(params.get("cursor"))
        task = self._task(params)
        if method == "tasks/result":
            return await self.result(task)
        return self.cancel(task) if method == "tasks/cancel" else task.wire()

    @staticmethod
    def _with_capability(result: Any) -> Any:
        if isinstance(result, dict) and result.get("protocolVersion") == (
            TASKS_PROTOCOL_VERSION
        ):
            capabilities = dict(result.get("capabilities") or {})
            capabilities["tasks"] = TASKS_CAPABILITY
            result = {**result, "capabilities": capabilities}
        return result

    @staticmethod
    def _with_task_support(result: Any) -> Any:
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            result = {
                **result,
                "tools": [
                    {**tool, "execution": {"taskSupport": "optional"}}
                    for tool in result["tools"]
                ],
            }
        return result

    # --- the methods ---------------------------------------------------------------
    def start(self, params: Dict[str, Any]) -> Dict[str, Any]:
        """Create a task running one call; answer ``CreateTaskResult``.

        :param params: the raw ``tools/call`` params (``name``, ``arguments``,
            ``task``, ``_meta``).
        :return: ``{"task": Task}``.
        :raises TaskParamsError: INVALID_PARAMS when the name is missing or
            :data:`MAX_TASKS` tasks are kept (finished ones expire after their ttl).
        """
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise TaskParamsError(
                "tools/call needs a tool name and an arguments object"
            )
        if self.group is None:
            raise TaskParamsError(
                "this server runs no background tasks; call without a task"
            )
        now = self.clock()
        self._forget_expired(now)
        if len(self.tasks) >= MAX_TASKS:
            raise TaskParamsError(
                f"{MAX_TASKS} tasks are kept already; read or cancel some, or call "
                "without a task"
            )
        ttl = params["task"].get("ttl")
        ttl_ms = (
            min(max(int(ttl), 0), MAX_TTL_MS)
            if isinstance(ttl, int) and not isinstance(ttl, bool)
            else DEFAULT_TTL_MS
        )
        task = CallTask(secrets.token_hex(16), now, ttl_ms, updated=now)
        self.tasks[task.task_id] = task
        raw_meta = params.get("_meta")
        meta: Dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        self.group.start_soon(self._run, task, name, arguments, meta)
        return {"task": task.wire()}

    async def _run(
        self,
        task: CallTask,
        name: str,
        arguments: Dict[str, Any],
        meta: Dict[str, Any],
    ) -> None:
        if task.status in TERMINAL:
            return  # cancelled before it started: nothing is sent
        with anyio.CancelScope() as scope:
            task.scope = scope
            try:
                result = await self.run_call(
                    name,
                    arguments,
                    str(meta.get(IDEMPOTENCY_META_KEY, "")),
                    _StatusSession(task, self.clock),
                )
                wire = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            except Exception as exc:  # pylint: disable=broad-exception-caught
                # the call's own guard returns isError results; this is a bug
                LOGGER.exception("task %s: the call raised", task.task_id)
                wire = {
                    "content": [
                        {
                            "type": "text",
                            "text": f"{called_name(name)}: {type(exc).__name__}",
                        }
                    ],
                    "isError": True,
                }
            task.result = wire
            failed = bool(wire.get("isError"))
            task.finish(
                "failed" if failed else "completed",
                status_message(wire) if failed else None,
                self.clock(),
            )
        if scope.cancelled_caught:
            task.finish(
                "cancelled",
                "cancelled by the client: a request already paid stays paid; calling "
                "again with the same arguments reads its answer without paying again",
                self.clock(),
            )

    def _task(self, params: Dict[str, Any]) -> CallTask:
        task_id = params.get("taskId")
        task = self.tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None or task.expired(self.clock()):
            raise TaskParamsError(
                f"no task {str(task_id)[:80]!r} is kept by this server"
            )
        return task

    async def result(self, task: CallTask) -> Dict[str, Any]:
        """Answer ``tasks/result``: wait for the task to end, then its call's result.

        :param task: the task.
        :return: the ``CallToolResult`` wire object, ``_meta`` naming the task.
        :raises TaskParamsError: INVALID_PARAMS for a cancelled task (it has no result).
        """
        await task.done.wait()
        if task.result is None:
            raise TaskParamsError(
                f"task {task.task_id} was cancelled: {task.status_message}"
            )
        meta = dict(task.result.get("_meta") or {})
        meta[RELATED_TASK_META_KEY] = {"taskId": task.task_id}
        return {**task.result, "_meta": meta}

    def page(self, cursor: Any) -> Dict[str, Any]:
        """One page of the kept tasks, oldest first (``tasks/list``).

        :param cursor: the ``nextCursor`` of the previous page, or None.
        :return: ``{"tasks": [...], "nextCursor"?: str}``.
        :raises TaskParamsError: INVALID_PARAMS for a cursor this server did not issue.
        """
        self._forget_expired(self.clock())
        start = 0
        if cursor is not None:
            if not (isinstance(cursor, str) and cursor.isdigit() and len(cursor) < 10):
                raise TaskParamsError(
                    "invalid cursor: give the nextCursor of the previous page"
                )
            start = int(cursor)
        kept: List[CallTask] = sorted(self.tasks.values(), key=lambda t: t.created)
        page = kept[start : start + LIST_PAGE_SIZE]
        body: Dict[str, Any] = {"tasks": [task.wire() for task in page]}
        if start + LIST_PAGE_SIZE < len(kept):
            body["nextCursor"] = str(start + LIST_PAGE_SIZE)
        return body

    def cancel(self, task: CallTask) -> Dict[str, Any]:
        """Stop waiting for a task's call (``tasks/cancel``); a payment sent stays.

        :param task: the task.
        :return: the task, cancelled.
        :raises TaskParamsError: INVALID_PARAMS when it has ended already.
        """
        if task.status in TERMINAL:
            raise TaskParamsError(
                f"task {task.task_id} has ended already ({task.status})"
            )
        if task.scope is not None:
            task.scope.cancel()
        task.finish(
            "cancelled",
            "cancelled by the client: a request already paid stays paid; calling "
            "again with the same arguments reads its answer without paying again",
            self.clock(),
        )
        return task.wire()

    def _forget_expired(self, now: float) -> None:
        for task_id in [t for t, task in self.tasks.items() if task.expired(now)]:
            del self.tasks[task_id]
