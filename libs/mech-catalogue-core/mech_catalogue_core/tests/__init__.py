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

"""Tests of the mech_catalogue_core library, under the suite's Hypothesis profile.

Hypothesis's defaults time every example (``deadline``: 200 ms) and every data generation
(``HealthCheck.too_slow``) and fail the test past them: timed assertions, which failed at
random on a loaded machine (``test_spliced_text_gives_the_decoded_values_bytes``, 460 ms
under a mutation run). The profile loaded here drops both; speed is measured by the
benchmarks instead (docs/benchmarks.md). It is loaded when this package is imported, i.e.
before any test module of the library; the skills' test packages and the root
``conftest.py`` import it too, so every ``@settings`` of the suite inherits it.
"""

from hypothesis import HealthCheck, settings

#: the suite's Hypothesis profile: no wall-clock limit on an example or on generation
PROFILE = "mech_catalogue"

settings.register_profile(
    PROFILE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(PROFILE)
