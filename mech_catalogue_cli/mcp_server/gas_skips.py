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

"""Mechs skipped for a request gas estimate over ``--max-gas``, kept in the state folder.

A mech's code runs inside the user's request, so the mech decides its gas; one whose
request the node estimates over ``--max-gas`` is refused before signing and skipped for
``--spend-window`` (fix29yh). That memory was the process's: a restart, or another
server on the same ``--state-dir``, estimated the mech again. ``<state-dir>/``
:data:`FILE_NAME` holds ``{"version": 1, "mechs": {"0x" + 40 hex (lowercase):
{"at": unix seconds, "estimate": gas, "bound": --max-gas then}}}``, written whole
(:func:`.readable_record.written_whole`) under the send lock, read at every journal
read (``sending.RequestSender.journal_records``; parsed again only when the file
changed). A skip applies while the estimate is over the ``--max-gas`` in use now and
its date is within the window (a date in the future is read as now, never as a
longer skip). The state folder is the user's, not a stranger's: a file that is not
such a record is a warning naming it and is ignored (the mechs are estimated again:
an estimate costs nothing, and the bound is checked again before signing, so nothing
is paid over it); an entry not of this shape is left out.
"""

import json
import logging
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .readable_record import written_whole

LOGGER = logging.getLogger("mech_catalogue.mcp")

FILE_NAME = "gas-over-bound.json"
FILE_VERSION = 1
#: mechs kept at most (the most recent): a window's refusals are far fewer
MAX_MECHS = 10_000
_ADDRESS = re.compile(r"0x[0-9a-f]{40}")


@dataclass(frozen=True)
class GasSkip:
    """One mech skipped because its request's gas estimate was over the bound.

    :param mech: its address, lowercase.
    :param at: unix seconds it was refused (the window counts from it).
    :param estimate: the node's gas estimate of its request.
    :param bound: ``--max-gas`` it was refused under.
    """

    mech: str
    at: float
    estimate: int
    bound: int


def _count(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def _skip_of(mech: Any, value: Any, now: float) -> Optional[GasSkip]:
    """One entry of the file as a :class:`GasSkip`, or None when not of its shape."""
    if not isinstance(mech, str) or not _ADDRESS.fullmatch(mech):
        return None
    if not isinstance(value, dict):
        return None
    at = value.get("at")
    if isinstance(at, bool) or not isinstance(at, (int, float)):
        return None
    estimate, bound = _count(value.get("estimate")), _count(value.get("bound"))
    if not math.isfinite(at) or estimate is None or bound is None:
        return None
    return GasSkip(mech, min(float(at), now), estimate, bound)


class GasSkipRecord:
    """Load and add the mechs skipped for gas (nothing without a folder)."""

    def __init__(self, folder: Optional[Path]) -> None:
        """Name the file.

        :param folder: ``--state-dir``, or None (nothing is read or written).
        """
        self.path = Path(folder) / FILE_NAME if folder is not None else None
        self._seen: Optional[Tuple[int, int, int]] = None
        self._skips: Dict[str, GasSkip] = {}

    def load(self, now: Optional[float] = None) -> List[GasSkip]:
        """Read the record (blocking; parsed again only when the file changed).

        :param now: unix seconds (None: now); a later date is read as it.
        :return: the skips of the shape this server writes, any age; none when there
            is no file, and, with a warning naming the file, when it is not a record.
        """
        when = time.time() if now is None else now
        if self.path is None:
            return []
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._seen, self._skips = None, {}
            return []
        except OSError as exc:
            LOGGER.warning("%s cannot be read (%s): ignored", self.path, exc)
            return list(self._skips.values())
        seen = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if seen != self._seen:
            self._skips = self._parsed(when)
            self._seen = seen
        return [
            GasSkip(s.mech, min(s.at, when), s.estimate, s.bound)
            for s in self._skips.values()
        ]

    def _parsed(self, now: float) -> Dict[str, GasSkip]:
        assert self.path is not None  # nosec: load checked it
        try:
            body = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return self._not_a_record(str(exc))
        mechs = body.get("mechs") if isinstance(body, dict) else None
        if (
            not isinstance(body, dict)
            or body.get("version") != FILE_VERSION
            or not isinstance(mechs, dict)
        ):
            return self._not_a_record("not a version 1 record of mechs")
        skips = [_skip_of(mech, value, now) for mech, value in mechs.items()]
        return {skip.mech: skip for skip in skips if skip is not None}

    def _not_a_record(self, problem: str) -> Dict[str, GasSkip]:
        LOGGER.warning(
            "%s is not a record of mechs skipped for gas (%s): ignored; their "
            "requests' gas is estimated again (--max-gas is checked before signing)",
            self.path,
            problem,
        )
        return {}

    def add(self, skip: GasSkip, period: float) -> None:
        """Add a skip and write the record (call it under the send lock; blocking).

        The file is read again first (another process may have added to it), skips
        older than ``period`` are dropped, the newest :data:`MAX_MECHS` kept; a
        failure to write is a warning (the skip stays in this process's memory).

        :param skip: the mech refused now.
        :param period: seconds a skip is kept (``--spend-window``).
        """
        if self.path is None:
            return
        kept = {s.mech: s for s in self.load(skip.at) if s.at >= skip.at - period}
        kept[skip.mech] = skip
        newest = sorted(kept.values(), key=lambda s: s.at, reverse=True)[:MAX_MECHS]
        body = json.dumps(
            {
                "version": FILE_VERSION,
                "mechs": {
                    s.mech: {"at": s.at, "estimate": s.estimate, "bound": s.bound}
                    for s in newest
                },
            }
        )
        if written_whole(self.path, body):
            self._seen, self._skips = None, {s.mech: s for s in newest}
