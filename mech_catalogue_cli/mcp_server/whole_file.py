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

"""Write a state file whole: a reader sees the old file or the new one, never a part.

A process started after a crash reads a whole file too. Every state file of the
server (pins, the name index, journal entries and their list of writes, prepay
entries, the listed schemas, the readable manifests, tenure) is written the one way
of :func:`write_whole`: a temporary file in the same folder, flushed to disk
(``fsync``), renamed over the file (``os.replace``: atomic within a folder), then,
for the journal's entries and list of writes and the listed schemas, the folder
flushed too (the rename is a change of the folder: without it a power cut may bring
back the file before). A failure at any step leaves the previous file as it was and
no temporary file behind.
"""

import contextlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Callable, ContextManager, Optional, Union

LOGGER = logging.getLogger("mech_catalogue.mcp")


def write_whole(
    path: Path,
    body: Union[str, bytes],
    *,
    sync_folder: bool = False,
    temporary: Optional[str] = None,
    placing: Callable[[], ContextManager[object]] = contextlib.nullcontext,
) -> None:
    """Replace ``path`` by ``body`` atomically, flushed to disk.

    :param path: the file; its folder is made when missing.
    :param body: its content (text is written as UTF-8).
    :param sync_folder: also flush the folder after the rename, so the new file
        survives a power loss (``changes.fsync_folder``).
    :param temporary: a fixed name for the temporary file in the folder (opened
        truncated, with the umask's permissions: one writer at a time); None: a new
        ``.<stem>-XXXXXXXX.tmp`` readable by its owner only (``tempfile.mkstemp``).
    :param placing: a context the rename happens in (the journal's: its write lock
        held and the key logged first); what it raises leaves the old file.

    ``OSError`` is raised when a step fails (a full disk, a read-only folder ...): the
    old file, if any, is then unchanged and the temporary file removed (unless the
    folder's flush failed, after the rename).
    """
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    if temporary is None:
        handle, name = tempfile.mkstemp(
            dir=folder, prefix=f".{path.stem}-", suffix=".tmp"
        )
    else:
        name = str(folder / temporary)
        handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    placed = False
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(body.encode("utf-8") if isinstance(body, str) else body)
            out.flush()
            os.fsync(out.fileno())
        with placing():
            os.replace(name, path)
        placed = True
    finally:
        if not placed:
            with contextlib.suppress(OSError):
                os.unlink(name)
    if sync_folder:
        fsync_folder(folder)


def written_whole(path: Path, body: str) -> bool:
    """:func:`write_whole` for a file whose loss costs nothing but a warning.

    :param path: the file; its folder is made when missing.
    :param body: its text.
    :return: True when written; False (a warning logged, the old file kept) when it
        cannot be written.
    """
    try:
        write_whole(path, body)
    except OSError as exc:
        LOGGER.warning("%s cannot be written (%s)", path, exc)
        return False
    return True


def fsync_folder(folder: Path) -> None:
    """Flush a folder's names to disk: a rename or a new file in it survives a power loss.

    Until then the change is in the page cache only (``fsync(2)``: flushing a file does
    not flush the folder entry naming it).

    :param folder: the folder (``OSError`` when it cannot be opened or flushed).
    """
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
