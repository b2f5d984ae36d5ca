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

"""The suite's Hypothesis profile: a slow example is not a failure (tests/__init__.py)."""

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from packages.mech_catalogue.skills.tool_metadata_abci.tests import PROFILE


def test_a_property_whose_example_outlasts_the_default_deadline_passes() -> None:
    """An example taking 0.3 s (a loaded machine) passes; Hypothesis's default fails it at 0.2 s."""
    calls = []

    @settings(max_examples=2, database=None)  # as the suite's tests write it
    @given(st.integers())
    def slow_property(value: int) -> None:
        calls.append(value)
        time.sleep(0.3)

    slow_property()  # pylint: disable=no-value-for-parameter  # given supplies it
    assert calls


def test_the_profile_is_the_default_for_every_settings() -> None:
    """``@settings`` without a deadline inherits none, in this skill's tests and in tests/."""
    assert settings._current_profile == PROFILE  # pylint: disable=protected-access
    assert settings().deadline is None
