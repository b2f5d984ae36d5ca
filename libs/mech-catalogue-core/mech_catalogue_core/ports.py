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

"""The I/O the library is handed: what its caches and stores need from a caller.

The library's modules decide; they read and write nothing themselves. Where a cache or
store keeps something across restarts (verified manifests, code derivations, the last
agreed catalogue), the caller hands it a :class:`BlobStore`; where work must go on beside
the agent's loop (writing a large catalogue), a :class:`Background`. The implementations
the skills and the CLI use are in :mod:`mech_catalogue_core.adapters`; tests may hand in
their own.
"""

from concurrent.futures import Future
from typing import Callable, Iterable, List, Optional, Protocol, TypeVar

T = TypeVar("T")


class BlobStore(Protocol):
    """Named byte strings kept across restarts (e.g. one folder, one file a name).

    Names are what the library builds from CIDs and digests (ASCII letters, digits, ``.``
    and ``_``); a store may refuse any other name by answering as if it were absent.
    """

    def read(self, name: str, cap: Optional[int] = None) -> Optional[bytes]:
        """Read one blob.

        :param name: the blob's name.
        :param cap: read at most ``cap`` bytes (None: all).
        :return: the bytes, or None when there is no such blob or it cannot be read.

        # noqa: DAR202
        """

    def write(self, name: str, parts: Iterable[bytes]) -> bool:
        """Write one blob atomically (a reader sees the old one or the whole new one).

        :param name: the blob's name.
        :param parts: its bytes, in order.
        :return: False when the store refused (e.g. a full disk): nothing was kept.

        # noqa: DAR202
        """

    def remove(self, name: str) -> bool:
        """Remove one blob.

        :param name: the blob's name.
        :return: True when a blob of that name was removed.

        # noqa: DAR202
        """

    def names(self) -> List[str]:
        """List the blobs held.

        :return: their names, sorted.

        # noqa: DAR202
        """


class Background(Protocol):
    """Runs work beside the caller's loop, one task after the other, in order."""

    def submit(self, work: Callable[[], T]) -> "Future[T]":
        """Start ``work`` after the tasks submitted before it.

        :param work: what to run.
        :return: its future.

        # noqa: DAR202
        """
