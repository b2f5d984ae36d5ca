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

"""The manifest digests this server read before, kept in its state folder.

A fresh process has no previous catalogue, so without a record every digest of the
first read is new to it and strangers' registrations compete with the manifests it
served yesterday (adversarial review adv29v). ``<state-dir>/``:data:`FILE_NAME` holds
``{"version": 1, "digests": ["0x" + 64 hex, ...]}``: the digests whose manifest the last
read fetched and verified (at most :data:`MAX_DIGESTS`), asked for first on the next
start (``fetching.fetch_ranks``'s ``readable``). It only orders fetches: a digest in it
is still fetched and verified, so a file that was tampered with costs order, never
content. An unreadable file is a warning and an empty record.
"""

import json
import logging
import re
from pathlib import Path
from typing import Any, FrozenSet, Iterable, Optional

from .whole_file import written_whole

LOGGER = logging.getLogger("mech_catalogue.mcp")

FILE_NAME = "readable-manifests.json"
FILE_VERSION = 1
#: digests kept (about 70 bytes each in the file)
MAX_DIGESTS = 100_000
DIGEST = re.compile(r"0x[0-9a-f]{64}")


class ReadableRecord:
    """Load and save the record of readable manifest digests (none without a folder)."""

    def __init__(self, folder: Optional[Path]) -> None:
        """Name the file.

        :param folder: ``--state-dir``, or None (nothing is read or written).
        """
        self.path = Path(folder) / FILE_NAME if folder is not None else None
        self._saved: FrozenSet[str] = frozenset()

    def load(self) -> FrozenSet[str]:
        """Read the record.

        :return: the digests (lowercase ``0x`` + 64 hex); empty when there is no file,
            and, with a warning naming the file, when it is not a record.
        """
        if self.path is None or not self.path.exists():
            return frozenset()
        digests: Any = None
        problem = "not a version 1 record"
        try:
            body = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            body, problem = None, str(exc)
        if isinstance(body, dict) and body.get("version") == FILE_VERSION:
            digests = body.get("digests")
            if not isinstance(digests, list) or not all(
                isinstance(d, str) and DIGEST.fullmatch(d) for d in digests
            ):
                digests, problem = None, "not a list of 0x + 64 hex digests"
        if digests is None:
            LOGGER.warning(
                "%s is not a record of readable manifests (%s): ignored; the first "
                "read orders its fetches by registration age alone",
                self.path,
                problem,
            )
            return frozenset()
        self._saved = frozenset(digests[:MAX_DIGESTS])
        return self._saved

    def save(self, digests: Iterable[str]) -> None:
        """Write the record when it changed (atomically); a failure is a warning.

        :param digests: the digests the last read verified.
        """
        kept = frozenset(sorted(digests)[:MAX_DIGESTS])
        if self.path is None or kept == self._saved:
            return
        body = json.dumps({"version": FILE_VERSION, "digests": sorted(kept)})
        if written_whole(self.path, body):
            self._saved = kept
