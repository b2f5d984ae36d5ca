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

"""One worker thread as a :class:`~mech_catalogue_core.ports.Background`."""

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Optional, TypeVar

T = TypeVar("T")


class OneWorker:
    """Runs submitted work on one thread, in submission order; the thread starts on first use."""

    def __init__(self, name: str) -> None:
        """Prepare the worker.

        :param name: the thread's name prefix (seen in thread dumps).
        """
        self.name = name
        self._executor: Optional[ThreadPoolExecutor] = None
        self._lock = threading.Lock()

    def submit(self, work: Callable[[], T]) -> "Future[T]":
        """Run ``work`` after what was submitted before it.

        :param work: what to run.
        :return: its future.
        """
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix=self.name
                )
            return self._executor.submit(work)
