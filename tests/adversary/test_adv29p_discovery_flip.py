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

"""``call_tool`` is not served once ``auto`` discovery flips to list mode (adv29p).

Severity: MEDIUM (the fast half of :mod:`.test_adv29p_discovery_flip_devnet`, where a
call paid through ``call_tool`` is then unreadable through it, and calling the tool
itself without the idempotency key pays again).

With the default ``--discovery auto``, ``Discovery.handles`` serves ``call_tool`` only
while more than 40 tools are listed. Any publisher whose tools are listed moves the
count across 40 (adding or removing its own tools); the agent's next ``call_tool``,
the same call as before, is then taken for a mech tool named ``call_tool``: "no tool
named 'call_tool' is served now; list the tools again". No chain here: a dry run shows
the routing (the call key ``call_tool`` gives before the flip is gone after it).

Observed on main: before the flip the dry run names its call key; after it the same
``call_tool`` is an error naming no key.

Expected: ``call_tool`` (a name reserved in every mode) is the same call in every mode.
"""

from typing import Any, Dict, Tuple

from mcp import Client

from mech_catalogue_cli.mcp_server.discovery import CALL_TOOL
from tests.test_mcp_discovery import (
    REALISTIC,
    _fillers,
    _run,
    _server,
    _Source,
    _text,
)
from tests.test_mcp_untrusted_text import served_catalogue

#: the same call_tool call, before and after the flip
CALL: Dict[str, Any] = {
    "name": "prediction-online",
    "arguments": {"question": "Will it rain in Lisbon tomorrow?"},
    "idempotency_key": "adv29p",
}


def test_call_tool_is_the_same_call_after_auto_flips_to_list_mode() -> None:
    """Search mode (41 fillers), then list mode (the fillers gone): call_tool answers."""
    server = _server(served_catalogue(*REALISTIC, *_fillers(41)), discovery="auto")

    async def before(client: Client) -> Tuple[bool, Any]:
        return server.discovery.active(), await client.call_tool(CALL_TOOL, CALL)

    searching, first = _run(server, before)
    server.source = _Source(served_catalogue(*REALISTIC))  # the publisher's fillers go
    assert server.refresh()

    async def after(client: Client) -> Tuple[bool, Any]:
        return server.discovery.active(), await client.call_tool(CALL_TOOL, CALL)

    still_searching, again = _run(server, after)
    observed = (
        f"search mode {searching} -> {still_searching}; first {_text(first)[:120]!r}; "
        f"again error {again.is_error} {_text(again)[:160]!r}"
    )
    assert searching and not still_searching, observed  # premise: the flip
    assert "dry run" in _text(first), observed
    key = first.meta["io.olas/mech-request"]["call_key"]
    # observed on main: "no tool named 'call_tool' is served now; list the tools again"
    # (a dry run's answer is isError, the tool did not run: the same as the first's)
    assert again.is_error == first.is_error and "dry run" in _text(again), observed
    assert (again.meta or {}).get("io.olas/mech-request", {}).get("call_key") == key
