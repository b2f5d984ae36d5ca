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

"""The catalogue's first read, bounded at start: a slow node never holds ``initialize``.

The first read of the catalogue (the registries, the marketplace's mechs and their
facts, each manifest) makes one node read after another, each with its own per-request
timeout: a node holding each of 26 reads 3 s held the server's start 82.7 s before it
answered ``initialize`` (adv29zq2 S1; MCP hosts give up on a server after about a
minute). So the read runs in a thread of its own (:class:`FirstRead`) and the start
waits for it ``--start-wait`` seconds at most; past that the server serves with no
tool listed (``tools/list`` says in its ``_meta`` that the catalogue is still being
read, :data:`READING_NOTE`, until a read succeeds), and once the read ends the
server's poll announces it (``notifications/tools/list_changed``). ``tools/list``
never waits on the node.
"""

import threading
from typing import Callable, Optional

#: ``tools/list`` ``_meta`` key of the server's note on the catalogue itself
CATALOGUE_META_KEY = "io.olas/catalogue"
#: the note while the first read is not done
READING_NOTE = (
    "The catalogue is still being read (its first read took longer than the "
    "server's --start-wait): no tool is listed yet; the server sends "
    "notifications/tools/list_changed once it is read."
)
#: default ``--start-wait``: seconds the start waits for the first read (a direct read of
#: a large catalogue can take tens of seconds on a loaded machine; hosts give up near 60 s)
START_WAIT = 45.0


class FirstRead:
    """The first catalogue read, run once in a daemon thread as soon as it is made.

    :param read: the read (``MechToolServer.refresh``: blocking; its errors kept).
    """

    def __init__(self, read: Callable[[], object]) -> None:
        """Start the read.

        :param read: the read; its return value is not kept.
        """
        self._read = read
        self._done = threading.Event()
        self.error: Optional[BaseException] = None
        threading.Thread(
            target=self._run, name="catalogue first read", daemon=True
        ).start()

    def _run(self) -> None:
        try:
            self._read()
        except BaseException as exc:  # pylint: disable=broad-exception-caught
            self.error = exc  # the start, or the poll, says it
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        """Whether the read ended (read, or failed: :attr:`error`)."""
        return self._done.is_set()

    def ended_within(self, seconds: float) -> bool:
        """Wait for the read at most ``seconds`` (blocking).

        :param seconds: the wait's bound.
        :return: whether it ended by then.
        """
        return self._done.wait(seconds)
