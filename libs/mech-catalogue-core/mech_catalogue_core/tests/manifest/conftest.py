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

"""Fixtures shared by the manifest tests."""

import sys
from typing import Any, Iterator

import pytest


@pytest.fixture
def recursion_limit() -> Iterator[Any]:
    """Let a test set Python's recursion limit; the old one is restored after it.

    The results that must not depend on the stack are checked under the default limit
    (1,000, the CLI's) and the one an agent runs with (py_ecc raises it to 100,000).

    :yield: ``sys.setrecursionlimit``.
    """
    old = sys.getrecursionlimit()
    yield sys.setrecursionlimit
    sys.setrecursionlimit(old)
