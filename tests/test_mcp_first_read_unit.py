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

"""The catalogue's first read bounded at start (``--start-wait``; adv29zq2 S1).

A read within the wait is served as before (a failed one ends the start: no
catalogue source); one past it goes on in the background while the server serves
with no tool listed, ``tools/list`` saying so in its ``_meta`` and never waiting for
the read; once it ends the poll announces the catalogue, or logs why it was not read.
"""

import logging
import threading
import time
from typing import Any, List

import anyio
import pytest
from mcp import Client

from mech_catalogue_cli.commands import mcp_run
from mech_catalogue_cli.mcp_server.first_read import (
    CATALOGUE_META_KEY,
    READING_NOTE,
    FirstRead,
)
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import SourceError
from mech_catalogue_cli.output import CliFailure
from tests.test_mcp_untrusted_text import served_catalogue

#: the catalogue read once the gate opens
TOOL = {"name": "tide-table", "description": "Tide times for a port."}
#: how long a test waits for what must come at once
PROMPT = 5.0


class GatedSource:  # pylint: disable=too-few-public-methods
    """A source whose read waits for :attr:`gate`, then returns or raises ``error``."""

    def __init__(self, error: Any = None) -> None:
        """Closed gate.

        :param error: what the read raises once open (None: it returns the catalogue).
        """
        self.gate = threading.Event()
        self.error = error
        self.reads = 0

    def read(self) -> Any:
        """Wait for the gate (a node holding every read), then read."""
        self.reads += 1
        assert self.gate.wait(PROMPT * 4), "the gate was never opened"
        if self.error is not None:
            raise self.error
        return served_catalogue(TOOL)


def _server(source: GatedSource) -> MechToolServer:
    return MechToolServer(source, CallSettings("g", "a"), None, None)


def _started(
    app: MechToolServer, monkeypatch: pytest.MonkeyPatch, wait: float
) -> List[Any]:
    """Run ``mcp_run.start`` with its serving replaced: what it served, when."""
    served: List[Any] = []

    async def serve(*args: Any) -> None:
        served.append((args, app.first_read))

    monkeypatch.setattr(mcp_run, "serve", serve)
    mcp_run.start(app, "stdio", "127.0.0.1", 0, None, start_wait=wait)
    return served


def test_a_read_past_the_wait_serves_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The node holds the read: the start serves after the wait, the read going on."""
    source = GatedSource()
    app = _server(source)
    began = time.monotonic()
    served = _started(app, monkeypatch, 0.3)
    took = time.monotonic() - began
    assert 0.3 <= took < PROMPT, took
    assert len(served) == 1
    first = served[0][1]
    assert isinstance(first, FirstRead) and not first.done
    source.gate.set()
    assert first.ended_within(PROMPT) and first.error is None
    assert [tool.mech_tool for tool in app.catalogue.tools] == ["tide-table"]
    assert source.reads == 1


def test_a_read_within_the_wait_is_served_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read in time: served with its catalogue, nothing running behind."""
    source = GatedSource()
    source.gate.set()
    app = _server(source)
    served = _started(app, monkeypatch, PROMPT)
    assert len(served) == 1
    first = served[0][1]
    assert first is None and app.catalogue.tools


def test_a_read_failing_within_the_wait_ends_the_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No catalogue source: the start fails as before, nothing served."""
    source = GatedSource(SourceError("the registry at http://node could not be read"))
    source.gate.set()
    with pytest.raises(CliFailure) as raised:
        _started(_server(source), monkeypatch, PROMPT)
    assert raised.value.code == mcp_run.NO_SOURCE
    assert "could not be read" in str(raised.value)


def test_a_bug_of_the_read_within_the_wait_is_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not a source's failure: raised as it is (a bug), never served around."""
    source = GatedSource(KeyError("bug"))
    source.gate.set()
    with pytest.raises(KeyError):
        _started(_server(source), monkeypatch, PROMPT)


def test_listing_while_read_says_so_then_the_read_is_announced() -> None:
    """tools/list answers at once with none listed and the note; then the catalogue."""
    source = GatedSource()
    app = _server(source)
    app.first_read = FirstRead(app.refresh)
    announced: List[int] = []

    async def announce() -> None:
        announced.append(len(app.listed.tools))

    app.announce = announce  # type: ignore[method-assign]

    async def main() -> Any:
        async with Client(app.server) as client:
            began = time.monotonic()
            reading = await client.list_tools(cache_mode="refresh")
            took = time.monotonic() - began
            source.gate.set()
            with anyio.fail_after(PROMPT):
                await app._first_read_ended()  # pylint: disable=protected-access
            read = await client.list_tools(cache_mode="refresh")
            return reading, took, read

    reading, took, read = anyio.run(main)
    assert took < 1.0, took
    assert not reading.tools
    assert (reading.meta or {}).get(CATALOGUE_META_KEY) == READING_NOTE
    assert [tool.name for tool in read.tools] and announced == [len(read.tools)]
    assert CATALOGUE_META_KEY not in (read.meta or {})
    assert app.first_read is None


@pytest.mark.parametrize(
    "error, level",
    [
        (SourceError("the registry could not be read"), "WARNING"),
        (KeyError("bug"), "ERROR"),
    ],
    ids=["source", "bug"],
)
def test_a_read_failing_past_the_wait_is_logged_and_serving_goes_on(
    caplog: pytest.LogCaptureFixture, error: Exception, level: str
) -> None:
    """Failed in the background: logged, nothing announced, the poll reads again."""
    source = GatedSource(error)
    source.gate.set()
    app = _server(source)
    app.first_read = FirstRead(app.refresh)
    announced: List[bool] = []

    async def announce() -> None:
        announced.append(True)

    app.announce = announce  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO, logger="mech_catalogue.mcp"):
        anyio.run(app._first_read_ended)  # pylint: disable=protected-access
    assert not announced and app.first_read is None and not app.catalogue.tools

    async def listed() -> Any:
        async with Client(app.server) as client:
            return await client.list_tools(cache_mode="refresh")

    still = anyio.run(listed)  # said until a read succeeds
    assert (
        not still.tools and (still.meta or {}).get(CATALOGUE_META_KEY) == READING_NOTE
    )
    assert [r.levelname for r in caplog.records if "first read" in r.message] == [level]
