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

from scripts.sync_packages import ipfs_hash, mech_interact_missing_notice
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
        pytest.skip(mech_interact_missing_notice(MECH_INTERACT))
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


def load_mech_interact() -> Any:
    """Sync mech-interact's packages (verified) and make them importable, unchanged.

    Its skill and contracts come from ``.run/mech_interact/packages`` (synced by
    :func:`scripts.sync_packages.sync_mech_interact`, git-ignored, never ``packages/``); the
    open-autonomy packages it uses that this repository does not sync (``agent_mech``,
    ``erc20``, the ``acn_data_share`` protocol...) come from the installed open-autonomy
    0.21.30 wheel, under that release's hashes (mech-interact was locked against 0.21.23).

    :return: mech-interact's ``rounds`` module.
    """
    # pylint: disable=import-outside-toplevel
    from scripts.sync_packages import (
        MECH_INTERACT_DIR,
        SyncError,
        open_autonomy_packages,
        sync_mech_interact,
    )

    try:
        sync_mech_interact()
    except SyncError as exc:
        pytest.skip(str(exc.message), allow_module_level=True)
    import packages.valory.contracts
    import packages.valory.protocols
    import packages.valory.skills

    wheel = open_autonomy_packages() / "valory"
    for module, folders in (
        (packages.valory.skills, [MECH_INTERACT_DIR / "valory" / "skills"]),
        (
            packages.valory.contracts,
            [MECH_INTERACT_DIR / "valory" / "contracts", wheel / "contracts"],
        ),
        (packages.valory.protocols, [wheel / "protocols"]),
    ):
        for folder in folders:
            if str(folder) not in module.__path__:
                module.__path__.append(str(folder))
    from packages.valory.skills.mech_interact_abci import (  # pylint: disable=import-error,no-name-in-module
        rounds,
    )

    return rounds
