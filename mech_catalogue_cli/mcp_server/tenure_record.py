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

"""What the tenure walks learnt, kept in the state folder for the next process.

The tenure reader's two defences against a stranger's dead manifest hashes (adversarial
reviews adv29v, adv29yp) are memory: the manifests that could not be fetched (asked for
after the others) and each service's last complete walk (a walk the fetch budget cut
short keeps its tenure). A fresh process (every stdio session) knew neither, so an old
pool of dead hashes spent its first read's budget and a copy ranked first until the
second read. ``<state-dir>/``:data:`FILE_NAME` holds::

    {"version": 1,
     "unreadable": ["0x" + 64 hex, ...],              # the newest last
     "walks": [{"registry": "0x" + 40 hex, "service": 7,
                "tools": {"name": ["sha256:" + 64 hex, block], ...}}, ...]}

at most :data:`MAX_UNREADABLE` digests and :data:`MAX_WALKED_TOOLS` tools in all. It only
orders fetches and bounds a walk that was cut short: a walk's block is used only when it
is one of the service's manifest updates on the chain at or before the current one and
the tool's definition is the current one (``tenure.TenureReader``), so a file that was
tampered with cannot date a tool before its service declared anything. An unreadable
file is a warning and an empty record.
"""

import json
import logging
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from .whole_file import written_whole

LOGGER = logging.getLogger("mech_catalogue.mcp")

FILE_NAME = "tenure-walks.json"
FILE_VERSION = 1
#: unreadable manifest digests kept (about 70 bytes each in the file)
MAX_UNREADABLE = 100_000
#: tools of complete walks kept, all services together (about 120 bytes each)
MAX_WALKED_TOOLS = 100_000
#: a tool name longer than this is not kept (its walk is read again)
MAX_NAME_CHARS = 256

DIGEST = re.compile(r"0x[0-9a-f]{64}")
ADDRESS = re.compile(r"0x[0-9a-f]{40}")
DEFINITION = re.compile(r"sha256:[0-9a-f]{64}")

#: a service: (registry address, service id)
Service = Tuple[str, int]
#: its last complete walk: (name -> definition digest, name -> block)
Walked = Tuple[Dict[str, str], Dict[str, int]]


class _NotARecord(ValueError):
    """The file's body is not a version 1 record."""


def _walk_of(entry: Any) -> Tuple[Service, Walked]:
    """One ``walks`` entry read back, or :class:`_NotARecord`."""
    if not isinstance(entry, dict) or set(entry) != {"registry", "service", "tools"}:
        raise _NotARecord("a walk is not {registry, service, tools}")
    registry, service, tools = entry["registry"], entry["service"], entry["tools"]
    if not (isinstance(registry, str) and ADDRESS.fullmatch(registry)):
        raise _NotARecord("a registry is not 0x + 40 lowercase hex")
    if isinstance(service, bool) or not isinstance(service, int) or service < 0:
        raise _NotARecord("a service id is not a non-negative integer")
    if not isinstance(tools, dict):
        raise _NotARecord("a walk's tools are not an object")
    definitions: Dict[str, str] = {}
    blocks: Dict[str, int] = {}
    for name, pair in tools.items():
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and isinstance(pair[0], str)
            and DEFINITION.fullmatch(pair[0])
            and isinstance(pair[1], int)
            and not isinstance(pair[1], bool)
            and pair[1] >= 0
            and len(name) <= MAX_NAME_CHARS
        ):
            raise _NotARecord("a tool is not [sha256 digest, block]")
        definitions[name], blocks[name] = pair[0], pair[1]
    return (registry, service), (definitions, blocks)


def _parsed(body: Any) -> Tuple[List[str], Dict[Service, Walked]]:
    """A file's body read back, or :class:`_NotARecord`."""
    if not isinstance(body, dict) or body.get("version") != FILE_VERSION:
        raise _NotARecord("not a version 1 record")
    unreadable, walks = body.get("unreadable"), body.get("walks")
    if not isinstance(unreadable, list) or not all(
        isinstance(d, str) and DIGEST.fullmatch(d) for d in unreadable
    ):
        raise _NotARecord("unreadable is not a list of 0x + 64 hex digests")
    if not isinstance(walks, list):
        raise _NotARecord("walks is not a list")
    settled: Dict[Service, Walked] = {}
    kept = 0
    for entry in walks:
        service, walked = _walk_of(entry)
        kept += len(walked[0])
        if kept > MAX_WALKED_TOOLS:
            break
        settled[service] = walked
    return unreadable[-MAX_UNREADABLE:], settled


class TenureRecord:
    """Load and save what the tenure walks learnt (nothing without a folder)."""

    def __init__(self, folder: Optional[Path]) -> None:
        """Name the file.

        :param folder: ``--state-dir``, or None (nothing is read or written).
        """
        self.path = Path(folder) / FILE_NAME if folder is not None else None
        self._saved = ""

    def load(self) -> Tuple[List[str], Dict[Service, Walked]]:
        """Read the record.

        :return: ``(unreadable digests, the newest last; (registry, service id) -> its
            last complete walk)``; empty when there is no file, and, with a warning
            naming the file, when it is not a record.
        """
        if self.path is None or not self.path.exists():
            return [], {}
        try:
            text = self.path.read_text(encoding="utf-8")
            unreadable, settled = _parsed(json.loads(text))
        except (OSError, ValueError) as exc:  # _NotARecord is a ValueError
            LOGGER.warning(
                "%s is not a record of tenure walks (%s): ignored; the first read "
                "walks every service's manifests afresh",
                self.path,
                exc,
            )
            return [], {}
        self._saved = text
        return unreadable, settled

    def save(
        self, unreadable: Iterable[str], settled: Mapping[Service, Walked]
    ) -> None:
        """Write the record when it changed (atomically); a failure is a warning.

        :param unreadable: digests unreadable when last asked for, the newest last (the
            last :data:`MAX_UNREADABLE` are kept).
        :param settled: each service's last complete walk (services in key order until
            :data:`MAX_WALKED_TOOLS` tools; names over :data:`MAX_NAME_CHARS` left out).
        """
        if self.path is None:
            return
        walks: List[Dict[str, Any]] = []
        kept = 0
        for (registry, service), (definitions, blocks) in sorted(settled.items()):
            tools = {
                name: [definitions[name], blocks[name]]
                for name in sorted(definitions)
                if name in blocks and len(name) <= MAX_NAME_CHARS
            }
            kept += len(tools)
            if kept > MAX_WALKED_TOOLS:
                break
            walks.append({"registry": registry, "service": service, "tools": tools})
        body = json.dumps(
            {
                "version": FILE_VERSION,
                "unreadable": list(unreadable)[-MAX_UNREADABLE:],
                "walks": walks,
            }
        )
        if body != self._saved and written_whole(self.path, body):
            self._saved = body
