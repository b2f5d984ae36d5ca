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

"""What the agent-level fault tests share: one agent on the session devnet, and its target.

The agent is a real process (``scripts.run_local``, the abci connection's mock Tendermint,
as in ``tests/e2e/test_one_agent.py``); the target is a legacy mech the agent serves, whose
manifest a test replaces on chain.
"""

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, List

from scripts.devnet import Devnet, RegisteredManifest
from scripts.run_local.runner import LocalRun
from scripts.run_local.view import AgentView

LEGACY = "legacy_mech_registry"


@contextmanager
def one_agent(devnet: Devnet, work_dir: Path, **settings: str) -> Iterator[LocalRun]:
    """Run one agent on ``devnet``, periods 10 s apart; stopped (by pid) on exit.

    :param devnet: the running devnet.
    :param work_dir: the agent's folder (its files and log).
    :param settings: environment overrides of the agent's parameters, e.g.
        ``IPFS_GATEWAY_URL`` (``scripts/run_local/agents.py``).
    :yield: the started agent.
    """
    run = LocalRun(
        agents=1,
        work_dir=work_dir,
        devnet=devnet,
        settings={"RESET_PAUSE_DURATION": "10", **settings},
    )
    run.start()
    try:
        yield run
    finally:
        run.stop()


def served_legacy_mech(
    view: AgentView, registered: Callable[..., List[RegisteredManifest]]
) -> RegisteredManifest:
    """The seed's registration of the first legacy mech the agent serves as ``ok``.

    :param view: what the agent serves.
    :param registered: the ``registered`` fixture (tests/conftest.py).
    :return: its latest registration (owner, id, digest to restore).
    """
    mech_id = next(
        m["ref"]["mech_id"]
        for m in view.mechs
        if m["ref"]["registry_kind"] == LEGACY and m["status"] == "ok"
    )
    return registered(registry=LEGACY, id=mech_id)[-1]


def add_probe_manifest(devnet: Devnet, tool: str, description: str) -> bytes:
    """Pin a manifest naming one tool, to be set on chain during a fault.

    :param devnet: the running devnet (its kubo).
    :param tool: the tool's name, looked for in ``GET /tools`` afterwards.
    :param description: the manifest's description (says when it was set).
    :return: its 32-byte digest, for ``update_legacy_hash``.
    """
    manifest = {"name": f"{tool} manifest", "description": description, "tools": [tool]}
    _, digest = devnet.add_manifest(json.dumps(manifest).encode())
    return digest
