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

"""The publish rounds use the domain's one PublishStatus vocabulary."""

from mech_catalogue_core.model.vocabulary import (
    PublishStatus,
)
from mech_catalogue_core.publish import publish

from packages.mech_catalogue.skills.manifest_publish_abci.states import (
    base as publish_base,
)


def test_states_and_domain_share_one_publish_status() -> None:
    """The publish rounds and the domain's decision use the same class and members."""
    assert publish_base.PublishStatus is PublishStatus
    assert (
        publish.decide("0x" + "11" * 32, "0x" + "11" * 32) is PublishStatus.UP_TO_DATE
    )
    assert publish.decide("0x" + "11" * 32, "0x" + "22" * 32) is PublishStatus.UPDATE
    assert publish_base.SKIP_STATUSES == {"disabled", "up_to_date"}
