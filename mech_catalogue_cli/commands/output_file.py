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

"""Writing a command's output file (``generate -o``): folders made, failures coded."""

from pathlib import Path

from ..output import CliFailure

#: the code of a failure to write an output file (docs/cli.md)
FILE_NOT_WRITABLE = "file_not_writable"


def write_output(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, creating its missing parent folders.

    :param path: the output file (``-o``/``--output``).
    :param data: the bytes to write.
    :raises CliFailure: ``file_not_writable`` when a folder cannot be made (a parent is
        a file, no permission) or the file cannot be written, naming the path, the
        system's reason and what to do; nothing else was written then.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, (FileExistsError, NotADirectoryError)):
            reason = "part of its folder path is a file, not a folder"
        raise CliFailure(
            FILE_NOT_WRITABLE,
            f"Cannot write {path}: {reason}. Choose a file in a folder you can write "
            "to, or leave out -o to print the manifest instead.",
        ) from exc
