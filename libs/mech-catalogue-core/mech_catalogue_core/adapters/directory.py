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

"""One folder as a :class:`~mech_catalogue_core.ports.BlobStore`: one file a name."""

import os
from typing import Iterable, List, Optional

#: the suffix of a blob being written (renamed over the blob when complete)
PARTIAL_SUFFIX = ".tmp"


def _plain(name: str) -> bool:
    """Say whether ``name`` stays inside the folder: no separator, not ``.``/``..``."""
    return (
        bool(name) and "/" not in name and "\\" not in name and name not in (".", "..")
    )


class DirectoryStore:
    """Blobs as files of one folder (created when missing).

    Writes go to ``<name>.tmp`` and are renamed over ``<name>``, so a reader never sees
    half a blob. A name with a path separator, ``.`` or ``..`` is treated as absent.
    """

    def __init__(self, directory: str) -> None:
        """Open the folder, creating it when missing.

        :param directory: the folder (``OSError`` when it cannot be created).
        """
        self.directory = directory
        os.makedirs(directory, exist_ok=True)

    def __repr__(self) -> str:
        """Name the folder.

        :return: ``DirectoryStore('<folder>')``.
        """
        return f"DirectoryStore({self.directory!r})"

    def read(self, name: str, cap: Optional[int] = None) -> Optional[bytes]:
        """Read one file.

        :param name: the file's name.
        :param cap: read at most ``cap`` bytes (None: all).
        :return: the bytes, or None when absent or unreadable.
        """
        if not _plain(name):
            return None
        try:
            with open(os.path.join(self.directory, name), "rb") as handle:
                return handle.read() if cap is None else handle.read(cap)
        except OSError:
            return None

    def write(self, name: str, parts: Iterable[bytes]) -> bool:
        """Write one file atomically.

        :param name: the file's name.
        :param parts: its bytes, in order.
        :return: False when the disk refused (nothing is left behind).
        """
        if not _plain(name):
            return False
        path = os.path.join(self.directory, name)
        partial = path + PARTIAL_SUFFIX
        try:
            with open(partial, "wb") as handle:
                for part in parts:
                    handle.write(part)
            os.replace(partial, path)
        except OSError:
            self.remove(name + PARTIAL_SUFFIX)
            return False
        return True

    def remove(self, name: str) -> bool:
        """Remove one file.

        :param name: the file's name.
        :return: True when it was there and is gone.
        """
        if not _plain(name):
            return False
        try:
            os.remove(os.path.join(self.directory, name))
        except OSError:
            return False
        return True

    def names(self) -> List[str]:
        """List the files (not the partial ones being written).

        :return: their names, sorted; empty when the folder is gone.
        """
        try:
            found = os.listdir(self.directory)
        except OSError:
            return []
        return sorted(n for n in found if not n.endswith(PARTIAL_SUFFIX))
