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

"""Another publisher's large schemas push an honest tool out of the listed record (adv29m).

Severity: LOW (no payment lost or doubled, the answer is still read as text; but an
honest tool's answers to sessionless clients are text for good after a restart, with
advice that cannot help).

What 2026-07-28 HTTP clients were listed is kept in ``listed-schemas.json``
(``mcp_server.listed_file``), at most 8 MiB: past it ``merged`` moves the *oldest*
names (the first of the last listing) to ``overflowed``. A served tool's JSON may be
32 KiB (``source.MAX_LISTED_TOOL_BYTES``) and four versions of each are kept, so a
publisher of about 70 tools whose output schemas are ~30 KiB, each changed a few times
(or ~270 tools changed never), fills the file; the honest tools listed before them are
the names dropped. After a restart such a name is "overflowed": unknown to every
sessionless client for good; listed again, it stays unknown
(``ListedSchemas.remember``), so each paid answer of the honest tool is an error text
saying "list the tools again and call again ... to read it", which never makes it
structured. The record is also "not complete" for good, so every tool it does not hold
is unknown too.

Expected: a publisher's own schemas cannot push another mech's tools out of the record
(for instance: the bytes bounded per publisher, or the largest schemas dropped first),
or an honest tool listed again after its name overflowed is known again once no client
can hold another version of it.
"""

from pathlib import Path
from typing import Any, Dict, List

from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mech_catalogue_cli.mcp_server.listed_file import FILE_NAME, MAX_FILE_BYTES
from mech_catalogue_cli.mcp_server.listed_schemas import ListedSchemas
from mech_catalogue_cli.mcp_server.source import MAX_LISTED_TOOL_BYTES

MODERN = sorted(MODERN_PROTOCOL_VERSIONS)[-1]
HONEST = {
    "type": "object",
    "properties": {"p_yes": {"type": "number"}},
    "required": ["p_yes"],
}


class Outbound:  # pylint: disable=too-few-public-methods
    """A channel that carries nothing (these sessions are never written to)."""

    async def notify(self, method: str, params: Any, opts: Any = None) -> None:
        """Drop the notification.

        :param method: ignored.
        :param params: ignored.
        :param opts: ignored.
        """
        del method, params, opts


def _sessionless_request() -> ServerSession:
    """A 2026-07-28 HTTP request: no session."""
    return ServerSession(
        Outbound(), Connection.from_envelope(MODERN, None, None)  # type: ignore
    )


def _listing(version: int) -> List[Dict[str, Any]]:
    """The catalogue's one-page listing: the honest tool, then the publisher's 70.

    :param version: the publisher's schema version (its manifests changed).
    :return: MCP Tools.
    """
    text = "x" * (MAX_LISTED_TOOL_BYTES - 2048)
    tools = [{"name": "a_honest", "inputSchema": {"type": "object"}}]
    tools[0]["outputSchema"] = HONEST
    for index in range(70):
        schema = {"type": "object", "description": f"{version}-{index}-{text}"}
        tools.append(
            {
                "name": f"z{index}",
                "inputSchema": {"type": "object"},
                "outputSchema": schema,
            }
        )
    return tools


def test_an_honest_tool_is_not_crowded_out(tmp_path: Path) -> None:
    """After a restart an honest tool listed again is known to sessionless clients.

    :param tmp_path: the state folder.
    """
    listed = ListedSchemas(tmp_path)
    for version in range(4):  # the publisher changed its manifests three times
        if listed.remember(_sessionless_request(), _listing(version), True):
            assert listed.save(listed.snapshot())
    assert (tmp_path / FILE_NAME).stat().st_size <= MAX_FILE_BYTES
    before = listed.held(_sessionless_request(), "a_honest")
    again = ListedSchemas(tmp_path)  # the server restarted on the same state folder
    after = again.held(_sessionless_request(), "a_honest")
    if again.remember(_sessionless_request(), _listing(4), True):
        again.save(again.snapshot())
    listed_again = again.held(_sessionless_request(), "a_honest")
    # observed on main: before ((HONEST,), False); after and listed again unknown
    assert before == ((HONEST,), False), before
    assert not listed_again.unknown, (after, listed_again)
