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

"""mech-interact's skill (v0.32.3, unchanged, NOT re-locked) loads under our framework.

The framework's own skill test harness (``FSMBehaviourBaseCase``: ``Skill.from_dir`` with
an agent context whose connections are the harness's) loads the synced skill folder from
``.run/mech_interact``, its yaml still pinning open-autonomy 0.21.23 hashes; its contract
dependencies resolve to the synced ones and the open-autonomy 0.21.30 wheel's. This is the
"agent that loads them" stage: its behaviours are built and its parameters parsed.
"""

from typing import Any

from tests.mech_interact import load_mech_interact

load_mech_interact()

# pylint: disable=wrong-import-position,wrong-import-order
from packages.valory.skills.abstract_round_abci.test_tools.base import (  # noqa: E402
    FSMBehaviourBaseCase,
)

from scripts.sync_packages import MECH_INTERACT_DIR  # noqa: E402


class TestMechInteractSkillLoads(FSMBehaviourBaseCase):
    """Load the released skill folder as an AEA skill."""

    path_to_skill = MECH_INTERACT_DIR / "valory" / "skills" / "mech_interact_abci"

    def test_its_rounds_behaviours_and_parameters_load(self) -> None:
        """Its five behaviours, its app, and the marketplace parameters we configure."""
        behaviour: Any = self.behaviour
        assert sorted(b.auto_behaviour_id() for b in behaviour.behaviours) == [
            "mech_information_behaviour",
            "mech_purchase_subscription_behaviour",
            "mech_request_behaviour",
            "mech_response_behaviour",
            "mech_version_detection_behaviour",
        ]
        assert behaviour.abci_app_cls.__name__ == "MechInteractAbciApp"
        params = self.skill.skill_context.params
        config = params.mech_marketplace_config
        assert config.use_dynamic_mech_selection is True
        assert config.response_timeout == 300
        assert params.ipfs_address.endswith("/ipfs/")
