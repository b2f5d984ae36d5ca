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

"""Import mech-interact's own code (v0.32.3, ``../shared/third_party``) for composition tests.

The released skill folder is never copied into the repository: its hash is checked against
mech-interact's ``packages.json`` and its folder is added to ``packages.valory.skills``'
search path, so ``packages.valory.skills.mech_interact_abci`` imports from there unchanged.
"""

import json
from typing import Any

import pytest

from scripts.sync_packages import ipfs_hash
from scripts.toolchain import REPO_ROOT

MECH_INTERACT = (
    REPO_ROOT.parent / "shared" / "third_party" / "mech-interact-v0.32.3" / "packages"
)
SKILL_ID = "skill/valory/mech_interact_abci/0.1.0"


def mech_interact_states_base() -> Any:
    """Import mech-interact's ``states/base.py`` (``MechInfo``), verified by hash.

    :return: the module.
    :raises AssertionError: when the folder does not hash to mech-interact's packages.json.
    """
    skills = MECH_INTERACT / "valory" / "skills"
    if not (skills / "mech_interact_abci").is_dir():
        pytest.skip(f"mech-interact v0.32.3 packages not present at {MECH_INTERACT}")
    expected = json.loads((MECH_INTERACT / "packages.json").read_text())["dev"][
        SKILL_ID
    ]
    assert (
        ipfs_hash(skills / "mech_interact_abci") == expected
    ), "mech-interact's skill folder does not hash to its packages.json entry"
    import packages.valory.skills  # pylint: disable=import-outside-toplevel

    if str(skills) not in packages.valory.skills.__path__:
        packages.valory.skills.__path__.append(str(skills))
    from packages.valory.skills.mech_interact_abci.states import (  # pylint: disable=import-outside-toplevel,import-error,no-name-in-module
        base,
    )

    return base
