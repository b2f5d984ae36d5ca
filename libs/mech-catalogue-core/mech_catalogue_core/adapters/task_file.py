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


"""The requester's task file, read from disk (the library's one file read for it)."""

from pathlib import Path

from mech_catalogue_core.catalogue.request_task import (
    MAX_TASK_FILE_BYTES,
    RequestTask,
    TaskError,
    task_from_bytes,
)


def load_task(path: str) -> RequestTask:
    """Read and validate a task file (YAML or JSON).

    :param path: the file's path.
    :return: the task.
    :raises TaskError: when the file cannot be read, is over
        :data:`~mech_catalogue_core.catalogue.request_task.MAX_TASK_FILE_BYTES`, is not
        YAML, or is not a valid task.
    """
    try:
        with Path(path).open("rb") as stream:
            raw = stream.read(MAX_TASK_FILE_BYTES + 1)
    except OSError as error:
        raise TaskError(
            f"task file {path}: cannot be read ({error.strerror})"
        ) from None
    return task_from_bytes(raw, f"task file {path}")
