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

"""A paid call is always readable again: found by its call key before anything else.

A call's journal entry is keyed by the mech tool name, the arguments, the requester and
the idempotency key (:func:`.call_identity.call_key`). Validating the arguments against the
schema served now, or resolving the MCP name in the catalogue served now, before looking
in the journal lost paid answers: a changed schema refused the same arguments, a tool
that left the catalogue was "no tool named ...". :func:`recall_paid` looks first.

The MCP name of a tool that left no longer says its mech tool name, so
:class:`NameIndex` remembers, per call, which key the MCP name and arguments stood for
(``<state>/names/<sha256>``: the call key, 64 hex characters).
"""

import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from mech_catalogue_core.model.vocabulary import CallStatus

from .call_identity import call_key
from .journal import Journal, JournalEntry
from .source import ServedCatalogue, ServedTool

#: statuses of an entry whose request is on chain (paid): only waited for
PAID_STATUSES = (CallStatus.SENT, CallStatus.DELIVERED)
_KEY_CHARS = frozenset("0123456789abcdef")


class NameIndex:
    """MCP name + arguments + requester + idempotency key -> the call key, on disk."""

    def __init__(self, journal: Journal) -> None:
        """Keep the index next to the journal (``<state>/names``).

        :param journal: the call journal.
        """
        self.folder = journal.folder.parent / "names"

    def _path(
        self, name: str, arguments: Dict[str, Any], requester: str, idempotency: str
    ) -> Path:
        # the same hash as a call key, of the MCP name in a namespace of its own
        alias = call_key("mcp-name:" + name, arguments, requester, idempotency)
        return self.folder / alias

    def remember(  # pylint: disable=too-many-arguments
        self,
        name: str,
        arguments: Dict[str, Any],
        requester: str,
        idempotency: str,
        key: str,
    ) -> None:
        """Write which call key this MCP call stands for (atomically; idempotent).

        :param name: the MCP tool name.
        :param arguments: the arguments.
        :param requester: the paying account.
        :param idempotency: the client's idempotency key.
        :param key: the call key.
        """
        path = self._path(name, arguments, requester, idempotency)
        if path.exists():
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(key)
        os.replace(tmp, path)

    def recall(
        self, name: str, arguments: Dict[str, Any], requester: str, idempotency: str
    ) -> Optional[str]:
        """Return the call key remembered for this MCP call.

        :param name: the MCP tool name.
        :param arguments: the arguments.
        :param requester: the paying account.
        :param idempotency: the client's idempotency key.
        :return: the key, or None when none (or the file is not a key).
        """
        path = self._path(name, arguments, requester, idempotency)
        try:
            text = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return text if len(text) == 64 and set(text) <= _KEY_CHARS else None


def departed_tool(name: str, entry: JournalEntry) -> ServedTool:
    """A stand-in for a paid tool no longer served: its name, no schema, no offers.

    Without an output schema its answer is returned as text; with no offers only the
    paid mech's delivery is trusted (:func:`.offers.check_delivery`).

    :param name: the MCP name called.
    :param entry: the journal entry of the paid request.
    :return: the tool.
    """
    return ServedTool(name, entry.tool, {"name": name, "inputSchema": {}}, ())


def recall_paid(  # pylint: disable=too-many-arguments
    journal: Journal,
    names: NameIndex,
    catalogue: ServedCatalogue,
    name: str,
    arguments: Dict[str, Any],
    requester: str,
    idempotency: str,
) -> Optional[Tuple[ServedTool, JournalEntry]]:
    """Find a paid call's entry before the arguments or the tool are checked again.

    :param journal: the call journal.
    :param names: the name index.
    :param catalogue: every tool served now.
    :param name: the MCP name called.
    :param arguments: the arguments as sent (not yet validated).
    :param requester: the paying account.
    :param idempotency: the client's idempotency key.
    :return: the tool (as served now, else :func:`departed_tool`) and the entry of a
        request on chain, or None. A tampered entry raises the journal's
        ``JournalError`` (a ``MarketError``), as a later lookup would.
    """
    tool = catalogue.named(name)
    keys: List[str] = []
    if tool is not None:
        keys.append(call_key(tool.mech_tool, arguments, requester, idempotency))
    remembered = names.recall(name, arguments, requester, idempotency)
    if remembered:
        keys.append(remembered)
    for key in dict.fromkeys(keys):
        entry = journal.load(key)
        if entry is not None and entry.status in PAID_STATUSES:
            same = tool is not None and tool.mech_tool == entry.tool
            return (tool if same and tool else departed_tool(name, entry)), entry
    return None
