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

"""Run a check on untrusted input in a child process that is killed when it runs too long.

JSON Schema ``pattern`` and ``patternProperties`` are Python ``re`` searches (jsonschema
calls ``re.search``), which backtrack exponentially on patterns such as ``^(a+)+$``; a
manifest anyone registers chooses the pattern and a ``tools/call`` (or a mech's
response) chooses the text. ``re`` holds the GIL while it matches, so a thread cannot
bound it: it would stall the event loop and every other client. :func:`run_bounded` runs
the check in a ``forkserver`` child (cheap forks of a clean, single-threaded process)
and kills it after ``seconds``.

A forkserver child re-runs the entry script before the check (multiprocessing's
``spawn.prepare``), so the forkserver preloads what the ``mech-catalogue`` script imports:
without it every check re-imported the whole CLI, 2-4 s a call on a loaded machine, and
valid arguments were refused as too slow to check. :func:`warm_up` starts the forkserver
before the first call.

How many checks run at once is bounded too (issue 29, attack 9): 120 concurrent calls with
a backtracking pattern ran about 43 checker processes (load 15 on 2 CPUs), honest checks
took 13.6-20.5 s and ``tools/list`` 19 s. At most :data:`MAX_CHECKS` children run; a check
waits in line at most :data:`QUEUE_SECONDS` for a slot, then :class:`CheckBusy` is raised
(nothing is checked, so nothing is sent). ``tools/list`` runs no check.

The server waits in line in the event loop (:func:`run_bounded_async`: an anyio
semaphore), never in a worker thread: the SDK's stdio transport reads stdin and writes
stdout through anyio's worker threads (``anyio.wrap_file``, 40 of them by default), so
120 calls each holding a thread while queued for a slot left none to read the next
request: ``tools/list`` over stdio waited until checks timed out (issue 29).
"""

import logging
import multiprocessing
import threading
from multiprocessing.connection import Connection
from typing import Any, Callable, Optional, Tuple

import anyio
from anyio.lowlevel import RunVar

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: seconds a schema check of one call's arguments or one response may take
CHECK_SECONDS = 5.0
#: checks (child processes) that run at once at most: the 2-CPU machines the server is
#: measured on; an honest check takes about 0.07 s, so two slots check ~28 calls a second
MAX_CHECKS = 2
#: seconds a check waits for a slot before :class:`CheckBusy` (the line is first come,
#: first served; a check that waited then still has its own CHECK_SECONDS)
QUEUE_SECONDS = 10.0
_SLOTS = threading.BoundedSemaphore(MAX_CHECKS)
#: the event loop's line for check slots (one semaphore per event loop)
_LOOP_SLOTS: RunVar[anyio.Semaphore] = RunVar("mech_catalogue_check_slots")
_CONTEXT = multiprocessing.get_context("forkserver")
#: modules the forkserver imports once: the checks, and the ``mech-catalogue`` entry
#: point's module (pyproject.toml ``[project.scripts]``)
PRELOAD = ("mech_catalogue_cli.mcp_server.definition_checks", "mech_catalogue_cli.app")
_CONTEXT.set_forkserver_preload(list(PRELOAD))


def _answer() -> bool:
    return True


def warm_up() -> None:
    """Start the forkserver and run one trivial check (blocking; seconds on a loaded machine).

    ``CheckTimeout`` comes through when even that does not answer within a minute.
    """
    run_bounded(_answer, (), seconds=60.0)


def warm_up_in_background() -> threading.Thread:
    """Run :func:`warm_up` in a daemon thread; a failure is a warning, not the server's end.

    A daemon thread, so that a client that leaves at once (stdin closed) does not wait
    for the forkserver to finish importing the CLI (about a second): anyio's worker
    threads are joined at exit even when abandoned. If the warm-up fails, each check
    still starts the forkserver itself, within its own time limit.

    :return: the started thread.
    """

    def run() -> None:
        try:
            warm_up()
        except Exception as exc:  # pylint: disable=broad-except  # said, never fatal
            LOGGER.warning(
                "the argument-check process did not start (%s): the first calls' "
                "checks start it and may take longer",
                exc,
            )

    thread = threading.Thread(target=run, name="argument-check warm-up", daemon=True)
    thread.start()
    return thread


class CheckTimeout(RuntimeError):
    """The check did not finish in time (the child was killed)."""


class CheckBusy(CheckTimeout):
    """No check slot came free within the queue deadline: the check was not run."""


def _child(connection: Connection, function: Callable[..., Any], args: Tuple) -> None:
    try:
        outcome: Tuple[bool, Any] = (True, function(*args))
    except Exception as exc:  # pylint: disable=broad-except  # sent back, re-raised
        outcome = (False, exc)
    try:
        connection.send(outcome)
    except BrokenPipeError:  # the server has gone (its client left): nobody waits
        pass
    finally:
        connection.close()


def run_bounded(
    function: Callable[..., Any],
    args: Tuple,
    seconds: float = CHECK_SECONDS,
    queue_seconds: Optional[float] = None,
) -> Any:
    """Return ``function(*args)`` computed in a child process, or raise after ``seconds``.

    Blocking: call it from a worker thread (``anyio.to_thread.run_sync``), never on the
    event loop. ``function`` must be a module-level function and ``args`` picklable. At
    most :data:`MAX_CHECKS` run at once; this one waits for a slot first.

    :param function: the check.
    :param args: its arguments.
    :param seconds: the time limit of the check itself, once it runs.
    :param queue_seconds: most seconds to wait for a slot (None: :data:`QUEUE_SECONDS`).
    :return: what ``function`` returned.
    :raises CheckBusy: when no slot came free in time (the check did not run).
    """
    wait = QUEUE_SECONDS if queue_seconds is None else queue_seconds
    if not _SLOTS.acquire(timeout=wait):  # pylint: disable=consider-using-with
        raise CheckBusy(
            f"{MAX_CHECKS} checks are running and no slot came free within {wait:g} s"
        )
    try:
        return _run_child(function, args, seconds)
    finally:
        _SLOTS.release()


def _loop_slots() -> anyio.Semaphore:
    try:
        return _LOOP_SLOTS.get()
    except LookupError:
        slots = anyio.Semaphore(MAX_CHECKS)
        _LOOP_SLOTS.set(slots)
        return slots


async def run_bounded_async(
    function: Callable[..., Any],
    args: Tuple,
    seconds: float = CHECK_SECONDS,
    queue_seconds: Optional[float] = None,
) -> Any:
    """:func:`run_bounded` for async code: wait in line without holding a thread.

    A slot is taken in the event loop (at most :data:`MAX_CHECKS` per loop, first come
    first served); only then is a worker thread used, to wait for the child. So however
    many calls queue, at most :data:`MAX_CHECKS` worker threads serve checks and the
    transport's own threads (stdin, stdout) stay free for ``tools/list`` and the rest.

    :param function: the check (module-level, picklable arguments).
    :param args: its arguments.
    :param seconds: the time limit of the check itself, once it runs.
    :param queue_seconds: most seconds to wait for a slot (None: :data:`QUEUE_SECONDS`).
    :return: what ``function`` returned.
    :raises CheckBusy: when no slot came free in time (the check did not run).
    """
    wait = QUEUE_SECONDS if queue_seconds is None else queue_seconds
    slots = _loop_slots()
    try:
        with anyio.fail_after(wait):
            await slots.acquire()
    except TimeoutError as exc:
        raise CheckBusy(
            f"{MAX_CHECKS} checks are running and no slot came free within {wait:g} s"
        ) from exc
    try:
        # the thread-wide cap still holds (a blocking caller may hold a slot): wait
        # for it at most as long as for this line
        return await anyio.to_thread.run_sync(
            run_bounded, function, args, seconds, wait
        )
    finally:
        slots.release()


def _run_child(function: Callable[..., Any], args: Tuple, seconds: float) -> Any:
    """Run one check in a forkserver child, killed after ``seconds``.

    :param function: the check.
    :param args: its arguments.
    :param seconds: the time limit.
    :return: what ``function`` returned.
    :raises CheckTimeout: when the child did not answer within ``seconds``.
    :raises value: the exception ``function`` raised in the child.
    """
    receiver, sender = _CONTEXT.Pipe(duplex=False)
    child = _CONTEXT.Process(target=_child, args=(sender, function, args), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(seconds):
            raise CheckTimeout(f"the check did not finish within {seconds:g} s")
        try:
            ok, value = receiver.recv()
        except EOFError as exc:
            raise CheckTimeout("the check's process died without an answer") from exc
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join()
    if not ok:
        raise value
    return value
