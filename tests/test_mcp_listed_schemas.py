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

"""A paid answer is readable by the client whatever output schema it last listed (adv29j).

:mod:`mech_catalogue_cli.mcp_server.listed_schemas` on sessions built from the SDK's own
``Connection``/``ServerSession``; then the server through the SDK's own client
(``Client(server)``, in process, one per session), the tool's output schema changed
between a session's listing and its call. The chain and IPFS are the in-process
stand-ins of ``tests/test_mcp_paid_answer_unit.py`` (the market raises if anything is
paid again); the devnet reproduction over stdio is
``tests/adversary/test_adv29j_answer_schema_changed_after_list.py``.
"""

import gc
import json
import logging
import tempfile
from pathlib import Path
from typing import Any, Dict, List

import anyio
import pytest
from mcp import Client
from mcp.server.connection import Connection, NotifyOnlyOutbound
from mcp.server.session import ServerSession
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mech_catalogue_cli.mcp_server import delivery as delivery_module
from mech_catalogue_cli.mcp_server import listed_file as listed_file_module
from mech_catalogue_cli.mcp_server import listed_schemas as listed_schemas_module
from mech_catalogue_cli.mcp_server.answer_envelope import (
    answer_schema_of,
    envelope_schema,
)
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.listed_file import FILE_NAME, MAX_FILE_BYTES
from mech_catalogue_cli.mcp_server.listed_schemas import (
    ANONYMOUS_VERSIONS,
    MAX_NAMES,
    NEVER_LISTED,
    ListedSchemas,
    session_key,
)
from mech_catalogue_cli.mcp_server.offers import check_delivery
from mech_catalogue_cli.mcp_server.results import (
    EARLIER_LISTING,
    answer_result,
    structured_or_why,
)
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool
from tests.answer_shape import answer_of
from tests.test_mcp_paid_answer_unit import (
    PAID,
    SAME,
    DeliveredMarket,
    _entry,
    _offer,
)


def _schema(result: Dict[str, Any]) -> Dict[str, Any]:
    """A paid tool's output schema as listed: the mech's inside the server's envelope."""
    return envelope_schema(
        {
            "type": "object",
            "properties": {"requestId": {"type": "integer"}, "result": result},
            "required": ["requestId", "result"],
        }
    )


#: listed first: every honest answer is longer than 3 characters
OLD = _schema({"type": "string", "maxLength": 3})
#: the manifest's schema after the change
NEW = _schema({"type": "string"})
BODY = json.dumps({"requestId": 1, "result": "sunny"}).encode()
MODERN = sorted(MODERN_PROTOCOL_VERSIONS)[-1]


def _tool_entry(schema: Any) -> Dict[str, Any]:
    entry: Dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if schema is not None:
        entry["outputSchema"] = schema
    return entry


def _served(schema: Any) -> ServedTool:
    return ServedTool("t", "t", _tool_entry(schema), (_offer(PAID), _offer(SAME)))


class Outbound:  # pylint: disable=too-few-public-methods
    """A channel that carries nothing (these sessions are never written to)."""

    async def notify(self, method: str, params: Any, opts: Any = None) -> None:
        """Drop the notification.

        :param method: ignored.
        :param params: ignored.
        :param opts: ignored.
        """
        del method, params, opts


def _handshake_session() -> ServerSession:
    return ServerSession(Outbound(), Connection.for_loop(Outbound()))  # type: ignore


def _modern_stdio_requests(count: int) -> List[ServerSession]:
    """Requests of one 2026-07-28 stdio stream: a connection each, one channel."""
    channel = NotifyOnlyOutbound(Outbound())  # type: ignore[arg-type]
    return [
        ServerSession(
            Outbound(),  # type: ignore[arg-type]
            Connection.from_envelope(MODERN, None, None, outbound=channel),
        )
        for _ in range(count)
    ]


def _sessionless_request() -> ServerSession:
    return ServerSession(Outbound(), Connection.from_envelope(MODERN, None, None))  # type: ignore


# --- ListedSchemas -------------------------------------------------------------------


def test_a_session_that_never_listed_holds_nothing() -> None:
    """Never listed (or no session at all): only the current schema counts."""
    listed, session = ListedSchemas(), _handshake_session()
    listed.remember(session, [_tool_entry(OLD)], complete=True)
    assert listed.held(_handshake_session(), "t") == NEVER_LISTED
    assert listed.held(None, "t") == NEVER_LISTED
    listed.remember(None, [_tool_entry(OLD)], complete=True)  # nothing to remember
    assert listed.sizes()[0] == 1


def test_each_session_holds_what_it_was_last_listed() -> None:
    """Listed old, listed new, two sessions on different versions, stored once each."""
    listed = ListedSchemas()
    first, second, third = (_handshake_session() for _ in range(3))
    listed.remember(first, [_tool_entry(OLD)], complete=True)
    listed.remember(second, [_tool_entry(OLD)], complete=True)
    listed.remember(third, [_tool_entry(NEW)], complete=True)
    assert listed.held(first, "t").schemas == (OLD,)
    assert listed.held(third, "t").schemas == (NEW,)
    assert listed.sizes() == (3, 2)  # OLD stored once for two sessions
    listed.remember(first, [_tool_entry(NEW)], complete=True)
    assert listed.held(first, "t").schemas == (NEW,)
    assert listed.held(second, "t").schemas == (OLD,)


def test_pages_add_and_a_one_page_listing_replaces() -> None:
    """As the SDK's client caches: a cursor page adds; a complete listing drops the rest."""
    listed, session = ListedSchemas(), _handshake_session()
    listed.remember(session, [_tool_entry(OLD)], complete=False)
    listed.remember(session, [{**_tool_entry(NEW), "name": "u"}], complete=False)
    assert listed.held(session, "t").schemas == (OLD,)
    listed.remember(session, [{**_tool_entry(NEW), "name": "u"}], complete=True)
    assert listed.held(session, "t") == NEVER_LISTED  # the client lists it again
    listed.remember(session, [_tool_entry(None)], complete=True)
    assert listed.held(session, "t").schemas == (None,)  # listed without a schema


def test_a_stdio_stream_of_the_2026_protocol_is_one_session() -> None:
    """Each request has its own connection; the stream's channel ties them together."""
    listed = ListedSchemas()
    listing, call = _modern_stdio_requests(2)
    other, _ = _modern_stdio_requests(2)
    listed.remember(listing, [_tool_entry(OLD)], complete=True)
    assert listed.held(call, "t").schemas == (OLD,)
    assert listed.held(other, "t") == NEVER_LISTED


def test_sessionless_requests_hold_every_recent_version_then_unknown() -> None:
    """2026-07-28 HTTP carries no session: recent versions count, then "unknown"."""
    listed = ListedSchemas()
    listed.remember(_sessionless_request(), [_tool_entry(OLD)], complete=True)
    listed.remember(_sessionless_request(), [_tool_entry(NEW)], complete=True)
    assert listed.held(_sessionless_request(), "t").schemas == (OLD, NEW)
    for index in range(ANONYMOUS_VERSIONS - 1):
        versions = _schema({"type": "string", "minLength": index})
        listed.remember(_sessionless_request(), [_tool_entry(versions)], True)
    held = listed.held(_sessionless_request(), "t")
    assert held.unknown and len(held.schemas) == ANONYMOUS_VERSIONS


def test_names_past_the_cap_are_unknown_not_never_listed() -> None:
    """A session past MAX_NAMES forgets its oldest names: those are "unknown"."""
    listed, session = ListedSchemas(), _handshake_session()
    tools = [{**_tool_entry(OLD), "name": f"n{i}"} for i in range(MAX_NAMES + 1)]
    listed.remember(session, tools, complete=False)
    assert listed.held(session, "n0").unknown
    assert listed.held(session, f"n{MAX_NAMES}").schemas == (OLD,)
    listed.remember(session, tools[:1], complete=True)  # the client forgot too
    assert not listed.held(session, "n1").unknown


def test_a_closed_session_and_its_schemas_are_forgotten() -> None:
    """Sessions are held weakly; a schema no session holds is dropped."""
    listed = ListedSchemas()
    session = _handshake_session()
    listed.remember(session, [_tool_entry(OLD)], complete=True)
    key = session_key(session)
    assert key is not None and listed.sizes() == (1, 1)
    del session, key
    gc.collect()
    assert listed.sizes() == (0, 0)


# --- structured_or_why ---------------------------------------------------------------


def test_an_answer_the_listed_schema_refuses_is_text_saying_why() -> None:
    """Matches the current schema, not the one listed: text, naming the change."""
    structured, why = anyio.run(
        structured_or_why, _served(NEW), BODY, ListedSchemas().held(None, "t")
    )
    assert structured == {"requestId": 1, "result": "sunny"} and not why
    listed, session = ListedSchemas(), _handshake_session()
    listed.remember(session, [_tool_entry(OLD)], complete=True)
    structured, why = anyio.run(
        structured_or_why, _served(NEW), BODY, listed.held(session, "t")
    )
    assert structured is None
    assert "output schema changed since this client listed" in why
    # the path in the envelope as listed: what the SDK's client checks (adv29zz E1)
    assert (
        "'maxLength' at schema path properties/answer/anyOf/0/properties/result/"
        "maxLength" in why
    )
    assert "will not pay again" in why


@pytest.mark.parametrize(
    "listed_schema, current, structured",
    [
        (NEW, OLD, False),  # the current one refuses (adv29i's check, unchanged)
        (None, NEW, True),  # listed without a schema: the client checks nothing
        (_schema({"type": "string", "minLength": 1}), NEW, True),  # both accept
    ],
)
def test_an_answer_is_structured_only_when_both_schemas_accept_it(
    listed_schema: Any, current: Any, structured: bool
) -> None:
    """The schema listed and the current one: both must accept the answer."""
    listed, session = ListedSchemas(), _handshake_session()
    listed.remember(session, [_tool_entry(listed_schema)], complete=True)
    value, why = anyio.run(
        structured_or_why, _served(current), BODY, listed.held(session, "t")
    )
    assert (value is not None) is structured, why


def test_a_schema_dropped_since_the_listing_is_text() -> None:
    """No output schema now, one listed: text, which every envelope listed takes."""
    listed, session = ListedSchemas(), _handshake_session()
    listed.remember(session, [_tool_entry(OLD)], complete=True)
    value, why = anyio.run(
        structured_or_why, _served(None), BODY, listed.held(session, "t")
    )
    assert (value, why) == (None, "")
    assert anyio.run(structured_or_why, _served(None), BODY) == (None, "")


@pytest.mark.parametrize("current", [NEW, None])
def test_a_schema_an_earlier_version_listed_makes_the_answer_an_error(
    current: Any,
) -> None:
    """Listed by an earlier version (no envelope): no successful result matches it.

    The MCP SDK's client refuses a successful result that does not match what it
    cached, so the answer is an error saying to list again; re-read free.

    :param current: the tool's output schema now (None: it declares none now).
    """
    listed, session = ListedSchemas(), _handshake_session()
    earlier = _tool_entry(answer_schema_of(NEW))  # the mech's schema alone
    listed.remember(session, [earlier], complete=True)
    value, why = anyio.run(
        structured_or_why, _served(current), BODY, listed.held(session, "t")
    )
    assert value is None and why == EARLIER_LISTING
    check = check_delivery(PAID, PAID, [_offer(PAID), _offer(SAME)])
    result = answer_result(_served(current), _entry(), BODY, check, value, why, {})
    text = str(getattr(result.content[0], "text", ""))
    assert result.is_error and "list the tools again" in text
    assert "sunny" in text  # the answer is there, framed


def test_a_session_the_server_cannot_tell_about_gets_text() -> None:
    """Unknown (names past the cap): text saying to list again, never structured."""
    listed, session = ListedSchemas(), _handshake_session()
    tools = [{**_tool_entry(NEW), "name": f"n{i}"} for i in range(MAX_NAMES + 1)]
    listed.remember(session, tools, complete=False)
    value, why = anyio.run(
        structured_or_why, _served(NEW), BODY, listed.held(session, "n0")
    )
    assert value is None and "cannot tell which output schema" in why


# --- the server, through the SDK's own client ----------------------------------------


class ChangingSource:  # pylint: disable=too-few-public-methods
    """One tool whose output schema is whatever ``schema`` is now."""

    def __init__(self) -> None:
        """Start with :data:`OLD`."""
        self.schema: Any = OLD

    def read(self) -> ServedCatalogue:
        """Return the catalogue.

        :return: it, its digest changing with the schema.
        """
        return ServedCatalogue(json.dumps(self.schema), (_served(self.schema),))


@pytest.fixture(name="app")
def paid_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A server with one paid, delivered request for ``t`` {"prompt": "x"}.

    :param tmp_path: the journal's folder.
    :param monkeypatch: pytest's monkeypatch (the IPFS read of the response).
    :return: ``(server, source)``.
    """
    settings = CallSettings(gateway_url="", ipfs_api_url="", timeout=1.0)
    journal = Journal(tmp_path)
    journal.save(_entry())
    source = ChangingSource()
    app = MechToolServer(source, settings, DeliveredMarket(), journal)  # type: ignore
    app.refresh()
    monkeypatch.setattr(
        delivery_module, "fetch_response", lambda *args: (BODY, "QmResponse")
    )
    return app, source


def _change(app: MechToolServer, source: ChangingSource) -> None:
    source.schema = NEW
    assert app.refresh()


def test_a_session_listed_before_the_change_reads_its_answer_then_structured(
    app: Any,
) -> None:
    """Listed OLD, paid under NEW: text with the warning; listed again: structured.

    :param app: the server and its source.
    """
    server, source = app

    async def main() -> List[Any]:
        async with Client(server.server, mode="legacy") as client:
            await client.list_tools(cache_mode="refresh")
            _change(server, source)
            first = await client.call_tool("t", {"prompt": "x"})
            again = await client.call_tool("t", {"prompt": "x"})
            await client.list_tools(cache_mode="refresh")
            return [first, again, await client.call_tool("t", {"prompt": "x"})]

    first, again, listed_again = anyio.run(main)
    for result in (first, again):
        text = result.content[0].text
        assert answer_of(result) is None and "sunny" in text
        assert "output schema changed since this client listed" in text
    assert not listed_again.is_error
    assert answer_of(listed_again) == {"requestId": 1, "result": "sunny"}


def test_two_sessions_on_two_versions_each_read_the_answer(app: Any) -> None:
    """One session listed OLD, another NEW: text to the first, structured to the second.

    :param app: the server and its source.
    """
    server, source = app

    async def main() -> List[Any]:
        async with Client(server.server, mode="legacy") as before:
            await before.list_tools(cache_mode="refresh")
            _change(server, source)
            async with Client(server.server, mode="legacy") as after:
                await after.list_tools(cache_mode="refresh")
                return [
                    await before.call_tool("t", {"prompt": "x"}),
                    await after.call_tool("t", {"prompt": "x"}),
                ]

    before, after = anyio.run(main)
    assert answer_of(before) is None and "sunny" in before.content[0].text
    assert answer_of(after) == {"requestId": 1, "result": "sunny"}


def test_a_session_that_never_listed_reads_it_structured(app: Any) -> None:
    """Never listed: the SDK's client lists when it validates, and gets the current one.

    :param app: the server and its source.
    """
    server, source = app

    async def main() -> Any:
        _change(server, source)
        async with Client(server.server, mode="legacy") as client:
            return await client.call_tool("t", {"prompt": "x"})

    result = anyio.run(main)
    assert answer_of(result) == {"requestId": 1, "result": "sunny"}


def test_a_sessionless_client_never_loses_the_answer(app: Any) -> None:
    """2026-07-28 in process, no session: text while an old version may be cached.

    The in-process 2026-07-28 path, like Streamable HTTP's, gives its requests no
    shared channel: every such client shares one record, so listing again does not
    clear the old version (another client may hold it), and the answer stays text.

    :param app: the server and its source.
    """
    server, source = app

    async def main() -> List[Any]:
        async with Client(server.server, mode=MODERN) as client:
            await client.list_tools(cache_mode="refresh")
            _change(server, source)
            first = await client.call_tool("t", {"prompt": "x"})
            await client.list_tools(cache_mode="refresh")
            return [first, await client.call_tool("t", {"prompt": "x"})]

    for result in anyio.run(main):
        assert answer_of(result) is None and "sunny" in result.content[0].text


# --- the sessionless record across restarts (adv29l) ---------------------------------


def _sessionless_held(listed: ListedSchemas, name: str = "t") -> Any:
    return listed.held(_sessionless_request(), name)


def _listed_and_saved(folder: Any, *schemas: Any, name: str = "t") -> ListedSchemas:
    """A record on ``folder`` that served ``schemas`` to sessionless requests, saved."""
    listed = ListedSchemas(folder)
    for schema in schemas:
        if listed.remember(
            _sessionless_request(), [{**_tool_entry(schema), "name": name}], True
        ):
            assert listed.save(listed.snapshot()) is (folder is not None)
    return listed


def test_the_sessionless_record_is_read_again_on_the_same_folder(
    tmp_path: Path,
) -> None:
    """A new record on the same folder holds what the last one served; sessions do not.

    :param tmp_path: the state folder.
    """
    _listed_and_saved(tmp_path, OLD, NEW)
    again = ListedSchemas(tmp_path)
    assert _sessionless_held(again) == (((OLD, NEW)), False)
    assert again.held(_handshake_session(), "t") == NEVER_LISTED  # a new session
    assert _sessionless_held(again, "u") == NEVER_LISTED  # complete: never listed


def test_a_first_start_is_a_complete_record_written_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A new folder: said at info level, written at once, a name not in it never listed.

    :param tmp_path: the state folder (new).
    :param caplog: pytest's log capture.
    """
    caplog.set_level(logging.INFO, logger="mech_catalogue.mcp")
    listed = ListedSchemas(tmp_path)
    assert [r.levelno for r in caplog.records] == [logging.INFO], caplog.text
    assert "no sessionless client was listed yet" in caplog.text
    assert _sessionless_held(listed) == NEVER_LISTED
    assert json.loads((tmp_path / FILE_NAME).read_text())["complete"] is True
    assert _sessionless_held(ListedSchemas(tmp_path, used_before=True)) == NEVER_LISTED


def test_a_record_lost_from_a_used_folder_is_unknown_until_listed(
    tmp_path: Path,
) -> None:
    """Missing from a folder used before: not complete, kept so; listed, known.

    :param tmp_path: the state folder.
    """
    listed = ListedSchemas(tmp_path, used_before=True)
    assert _sessionless_held(listed) == ((), True)
    assert json.loads((tmp_path / FILE_NAME).read_text())["complete"] is False
    listed.remember(_sessionless_request(), [_tool_entry(NEW)], complete=True)
    assert _sessionless_held(listed) == ((NEW,), False)
    assert listed.save(listed.snapshot())
    again = ListedSchemas(tmp_path)  # not complete, whatever the journal says now
    assert _sessionless_held(again) == ((NEW,), False)
    assert _sessionless_held(again, "u") == ((), True)
    value, why = anyio.run(
        structured_or_why, _served(NEW), BODY, _sessionless_held(again, "u")
    )
    assert value is None and "cannot tell which output schema" in why
    assert "record of such listings began" in why


def test_without_a_state_folder_the_record_is_in_memory_only(tmp_path: Path) -> None:
    """No folder (no key: nothing is paid): nothing written, forgotten at a restart.

    :param tmp_path: an empty folder (left empty).
    """
    listed = _listed_and_saved(None, OLD)
    assert _sessionless_held(listed) == ((OLD,), False)
    assert not listed.save(listed.snapshot())
    assert _sessionless_held(ListedSchemas()) == NEVER_LISTED
    assert not list(tmp_path.iterdir())


def _oversized(path: Path) -> None:
    path.write_bytes(b" " * (MAX_FILE_BYTES + 1))


def _digest_changed(path: Path) -> None:
    data = json.loads(path.read_text())
    (digest,) = data["schemas"]
    data["schemas"][digest] = NEW
    path.write_text(json.dumps(data))


def _field(key: str, value: Any) -> Any:
    def change(path: Path) -> None:
        data = json.loads(path.read_text())
        data[key] = value
        path.write_text(json.dumps(data))

    return change


BAD_FILES = {
    "missing": lambda path: path.unlink(),
    "unreadable (a folder)": lambda path: path.unlink() or path.mkdir(),
    "oversized": _oversized,
    "not JSON": lambda path: path.write_bytes(b'{"version": 1, "sch'),
    "not UTF-8": lambda path: path.write_bytes(b"\xff\xfe{}"),
    "too deep": lambda path: path.write_text("[" * 100_000 + "]" * 100_000),
    "another version": _field("version", 2),
    "not an object": lambda path: path.write_text("[1, 2]"),
    "names not a list": _field("names", {"t": []}),
    "a name's digest unknown": _field("names", [["t", ["0" * 64]]]),
    "too many versions": _field(
        "names", [["t", ["0" * 64] * (ANONYMOUS_VERSIONS + 1)]]
    ),
    "a repeated name": _field("names", [["t", []], ["t", []]]),
    "overflowed not names": _field("overflowed", [1]),
    "a schema not matching its digest": _digest_changed,
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_a_file_that_cannot_be_used_is_said_once_and_unknown(
    kind: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Each kind: the record starts empty and not complete, one log line, no crash.

    Every name is unknown; the next listing writes a good file again. "missing" is a
    file missing from a state folder whose journal was written.

    :param kind: a key of :data:`BAD_FILES`.
    :param tmp_path: the state folder.
    :param caplog: pytest's log capture.
    """
    _listed_and_saved(tmp_path, OLD)
    path = tmp_path / FILE_NAME
    BAD_FILES[kind](path)
    caplog.set_level(logging.INFO, logger="mech_catalogue.mcp")
    if path.is_dir():  # the write at start fails (said once too): no file replaces it
        listed = ListedSchemas(tmp_path, used_before=True)
        path.rmdir()
    else:
        listed = ListedSchemas(tmp_path, used_before=True)
        assert json.loads(path.read_text())["complete"] is False  # written at once
    said = [
        r for r in caplog.records if "sessionless clients are not known" in r.message
    ]
    assert len(said) == 1 and said[0].levelno == logging.WARNING, caplog.text
    assert _sessionless_held(listed) == ((), True)
    listed.remember(_sessionless_request(), [_tool_entry(NEW)], complete=True)
    assert listed.save(listed.snapshot())
    again = ListedSchemas(tmp_path)
    assert [_sessionless_held(again, n) for n in "tu"] == [((NEW,), False), ((), True)]


def test_a_fifth_version_stays_unknown_after_a_restart(tmp_path: Path) -> None:
    """More versions served than kept: unknown, and still unknown read again.

    :param tmp_path: the state folder.
    """
    versions = [_schema({"type": "string", "minLength": i}) for i in range(5)]
    listed = _listed_and_saved(tmp_path, *versions)
    assert _sessionless_held(listed).unknown
    again = _sessionless_held(ListedSchemas(tmp_path))
    assert again.unknown and again.schemas == tuple(versions[1:])


def test_names_past_the_bounds_stay_unknown_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the names cap, and past the file's byte bound: the oldest names are dropped.

    A dropped name listed again with another schema stays unknown (an older client may
    hold the dropped one); listed again as it was, it is known; the newest names are
    kept; the record stays complete (the dropped name is kept by name); the file stays
    within its bound.

    :param tmp_path: the state folder.
    :param monkeypatch: to lower the bounds.
    """
    monkeypatch.setattr(listed_schemas_module, "MAX_NAMES", 3)
    _listed_and_saved(tmp_path, OLD, name="a")
    for name in "bcd":
        _listed_and_saved(tmp_path, NEW, name=name)
    again = ListedSchemas(tmp_path)
    assert _sessionless_held(again, "a").unknown
    assert [_sessionless_held(again, n) for n in "bcd"] == [((NEW,), False)] * 3
    assert _sessionless_held(again, "z") == NEVER_LISTED  # still complete
    again.remember(_sessionless_request(), [{**_tool_entry(NEW), "name": "a"}], True)
    assert _sessionless_held(again, "a").unknown
    again.remember(_sessionless_request(), [{**_tool_entry(OLD), "name": "a"}], True)
    assert _sessionless_held(again, "a") == ((NEW, OLD), False)

    monkeypatch.setattr(listed_schemas_module, "MAX_NAMES", 4096)
    monkeypatch.setattr(listed_file_module, "MAX_FILE_BYTES", 3000)
    big = [_schema({"type": "string", "description": f"{i}" * 400}) for i in range(8)]
    folder = tmp_path / "bytes"
    for index, schema in enumerate(big):
        _listed_and_saved(folder, schema, name=f"n{index}")
    assert (folder / FILE_NAME).stat().st_size <= 3000
    again = ListedSchemas(folder)
    assert _sessionless_held(again, "n0").unknown
    assert _sessionless_held(again, "n7") == ((big[7],), False)


def _flood(version: int, honest: Dict[str, Any]) -> List[Dict[str, Any]]:
    """One listing: an honest tool first and last, 40 of one publisher's between.

    :param version: the publisher's schema version (its manifests changed).
    :param honest: the honest tools' unchanging schema.
    :return: MCP Tools.
    """
    text = "y" * 1500
    tools = [{**_tool_entry(honest), "name": "early"}]
    for index in range(40):
        flood = _schema({"type": "object", "description": f"{version}{index}{text}"})
        tools.append({**_tool_entry(flood), "name": f"flood{index}"})
    return tools + [{**_tool_entry(honest), "name": "late"}]


def test_one_publishers_flood_drops_only_its_own_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Large changing schemas of one publisher: its tools are dropped, not the honest.

    The file's bound is lowered to 60,000 bytes (40 tools x 4 versions x ~1.6 KB would
    take 256 KB): the honest tools listed before and after the flood stay known across
    a restart and another listing; the dropped flood tools are unknown (their clients
    may hold a dropped schema) and the record stays complete (a name never listed is
    never listed); the file keeps within its bound at every write.

    :param tmp_path: the state folder.
    :param monkeypatch: to lower the bound.
    """
    monkeypatch.setattr(listed_file_module, "MAX_FILE_BYTES", 60_000)
    listed = ListedSchemas(tmp_path)
    for version in range(4):
        if listed.remember(_sessionless_request(), _flood(version, NEW), True):
            assert listed.save(listed.snapshot())
        assert (tmp_path / FILE_NAME).stat().st_size <= 60_000
    again = ListedSchemas(tmp_path)  # a restart on the same folder
    assert [_sessionless_held(again, n) for n in ("early", "late")] == [
        ((NEW,), False)
    ] * 2
    held = [_sessionless_held(again, f"flood{i}") for i in range(40)]
    assert any(h.unknown for h in held) and not all(h.unknown for h in held)
    assert _sessionless_held(again, "never") == NEVER_LISTED
    assert again.remember(_sessionless_request(), _flood(4, NEW), True)
    assert again.save(again.snapshot())
    assert (tmp_path / FILE_NAME).stat().st_size <= 60_000
    third = ListedSchemas(tmp_path)
    assert _sessionless_held(third, "early") == ((NEW,), False)
    assert _sessionless_held(third, "late") == ((NEW,), False)


def test_a_dropped_tool_listed_again_unchanged_is_known_across_restarts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dropped past the bytes, listed again as it was: known again, in the file too.

    :param tmp_path: the state folder.
    :param monkeypatch: to lower the bound.
    """
    monkeypatch.setattr(listed_file_module, "MAX_FILE_BYTES", 3000)
    big = _schema({"type": "string", "description": "b" * 2000})
    _listed_and_saved(tmp_path, big, name="big")
    _listed_and_saved(tmp_path, _schema({"type": "string", "description": "c" * 1500}))
    again = ListedSchemas(tmp_path)
    assert _sessionless_held(again, "big") == ((), True)  # the heaviest went
    assert (
        _sessionless_held(again, "t").schemas and not _sessionless_held(again).unknown
    )
    monkeypatch.setattr(listed_file_module, "MAX_FILE_BYTES", 8 * 1024 * 1024)
    assert again.remember(
        _sessionless_request(), [{**_tool_entry(big), "name": "big"}], False
    )
    assert _sessionless_held(again, "big") == ((big,), False)
    assert again.save(again.snapshot())
    assert _sessionless_held(ListedSchemas(tmp_path), "big") == ((big,), False)


def test_forgetting_a_dropped_name_makes_the_record_not_complete() -> None:
    """Past the dropped names' bound the oldest is forgotten: every unrecorded unknown."""
    disk = listed_file_module.Memory({}, (), (), True, (("a", ("0" * 64,)),))
    ours = listed_file_module.Memory({}, (), (), True, (("b", ("1" * 64,)),))
    memory = listed_file_module.merged(disk, ours, 4, 1)
    assert memory.dropped == (("b", ("1" * 64,)),) and not memory.complete
    kept = listed_file_module.merged(disk, ours, 4, 2)
    assert len(kept.dropped) == 2 and kept.complete


def test_servers_sharing_a_folder_each_add_what_they_served(tmp_path: Path) -> None:
    """Two records on one folder: the file holds both versions, not the last writer's.

    :param tmp_path: the state folder.
    """
    first, second = ListedSchemas(tmp_path), ListedSchemas(tmp_path)
    for listed, schema in ((first, OLD), (second, NEW)):
        listed.remember(_sessionless_request(), [_tool_entry(schema)], complete=True)
        assert listed.save(listed.snapshot())
    assert _sessionless_held(ListedSchemas(tmp_path)) == ((OLD, NEW), False)


def test_a_file_spoiled_while_running_is_written_again_not_complete(
    tmp_path: Path,
) -> None:
    """Unusable when a listing is saved: what it held is lost, so not complete.

    :param tmp_path: the state folder.
    """
    listed = ListedSchemas(tmp_path)
    (tmp_path / FILE_NAME).write_text("{")
    assert listed.remember(_sessionless_request(), [_tool_entry(NEW)], True)
    assert listed.save(listed.snapshot())
    again = ListedSchemas(tmp_path)
    assert [_sessionless_held(again, n) for n in "tu"] == [((NEW,), False), ((), True)]


def test_a_write_that_fails_is_said_once_and_leaves_no_stale_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk refuses: logged once, the old file removed (unknown beats stale).

    :param tmp_path: the state folder.
    :param caplog: pytest's log capture.
    :param monkeypatch: to make the rename fail.
    """
    listed = _listed_and_saved(tmp_path, OLD)

    def refuse(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(listed_file_module.os, "replace", refuse)
    for schema in (NEW, _schema({"type": "string", "minLength": 1})):
        assert listed.remember(_sessionless_request(), [_tool_entry(schema)], True)
        assert not listed.save(listed.snapshot())
    said = [r for r in caplog.records if "could not be written" in r.message]
    assert len(said) == 1 and "No space left" in said[0].message
    assert not (tmp_path / FILE_NAME).exists()
    assert [p.name for p in tmp_path.iterdir() if "listed-schemas-" in p.name] == []
    last = answer_schema_of(_sessionless_held(listed).schemas[-1])
    assert last and last["properties"]["result"]["minLength"]
    monkeypatch.undo()
    # its journal written (a paid call): the missing file is read as lost
    assert _sessionless_held(ListedSchemas(tmp_path, used_before=True)) == ((), True)


def _app_on(
    folder: Any, schema: Any, monkeypatch: pytest.MonkeyPatch, first: bool = False
) -> Any:
    """A server on ``folder``, the paid request for ``t`` {"prompt": "x"} delivered.

    :param folder: the state folder (None: none; the journal in a folder of its own).
    :param schema: the tool's output schema.
    :param monkeypatch: pytest's monkeypatch (the IPFS read of the response).
    :param first: the server starts before its journal holds anything (a first start).
    :return: the server, its catalogue read.
    """
    settings = CallSettings(gateway_url="", ipfs_api_url="", timeout=1.0)
    journal = Journal(folder or Path(tempfile.mkdtemp()))
    if not first:
        journal.save(_entry())
    source = ChangingSource()
    source.schema = schema
    app = MechToolServer(
        source, settings, DeliveredMarket(), journal, folder  # type: ignore
    )
    if first:
        journal.save(_entry())
    app.refresh()
    monkeypatch.setattr(
        delivery_module, "fetch_response", lambda *args: (BODY, "QmResponse")
    )
    return app


def test_a_sessionless_listing_survives_a_new_server_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listed OLD before a "restart" (a new server object on the folder): text after it.

    The SDK's in-process 2026-07-28 client; after the restart a client lists (it
    never listed on this server object) and is served NEW, yet OLD, listed before the
    restart, may still be cached by the first client: text, never structured against
    NEW alone. A state folder used before without the file (lost, or an older version
    ran) is not complete: a client that calls without listing reads text saying the
    server cannot tell (a successful result: the SDK's client lists to validate it),
    then structured at the free re-read; one that lists first reads it structured. At a
    first start, or with no state folder, such a client reads it structured (its client
    lists to validate and is served the schema checked).

    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    before = _app_on(tmp_path, OLD, monkeypatch)

    async def listing(app: MechToolServer) -> None:
        async with Client(app.server, mode=MODERN) as client:
            await client.list_tools(cache_mode="refresh")

    async def calls(app: MechToolServer) -> List[Any]:
        async with Client(app.server, mode=MODERN) as client:
            return [await client.call_tool("t", {"prompt": "x"}) for _ in range(2)]

    anyio.run(listing, before)
    assert (tmp_path / FILE_NAME).exists()  # written before the listing was answered
    for result in anyio.run(calls, _app_on(tmp_path, NEW, monkeypatch)):
        assert answer_of(result) is None and "sunny" in result.content[0].text
        assert (
            "output schema changed since this client listed" in result.content[0].text
        )
    used = tmp_path / "used"
    first, again = anyio.run(calls, _app_on(used, NEW, monkeypatch))
    assert answer_of(first) is None and "sunny" in first.content[0].text
    assert "cannot tell which output schema" in first.content[0].text
    # a successful result: its client listed to validate it, and reads it structured
    assert not first.is_error and answer_of(again) == {
        "requestId": 1,
        "result": "sunny",
    }
    assert anyio.run(listed_then_called, _app_on(used, NEW, monkeypatch)) == {
        "requestId": 1,
        "result": "sunny",
    }
    for folder in (tmp_path / "first", None):
        for result in anyio.run(calls, _app_on(folder, NEW, monkeypatch, first=True)):
            assert answer_of(result) == {"requestId": 1, "result": "sunny"}


async def listed_then_called(app: MechToolServer) -> Any:
    """A 2026-07-28 in-process client lists, then calls ``t``: its structured content."""
    async with Client(app.server, mode=MODERN) as client:
        await client.list_tools(cache_mode="refresh")
        return answer_of(await client.call_tool("t", {"prompt": "x"}))


def test_a_handshake_session_after_a_restart_lists_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sessions are unchanged: a new session never listed, its client lists first.

    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    before = _app_on(tmp_path, OLD, monkeypatch)

    async def listing(app: MechToolServer) -> None:
        async with Client(app.server, mode="legacy") as client:
            await client.list_tools(cache_mode="refresh")

    async def call(app: MechToolServer) -> Any:
        async with Client(app.server, mode="legacy") as client:
            return await client.call_tool("t", {"prompt": "x"})

    anyio.run(listing, before)
    assert json.loads((tmp_path / FILE_NAME).read_text())["names"] == []  # not kept
    result = anyio.run(call, _app_on(tmp_path, NEW, monkeypatch))
    assert answer_of(result) == {"requestId": 1, "result": "sunny"}
