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

"""RegistrySnapshotBehaviour: read every configured id's latest digest at one block."""

import time
from typing import Generator

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.base import (
    ToolMetadataBaseBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.registry_snapshot import (
    RegistrySnapshotRound,
)


class RegistrySnapshotBehaviour(
    ToolMetadataBaseBehaviour
):  # pylint: disable=too-many-ancestors
    """Read the registries through Multicall2 and send the snapshot and its digest."""

    matching_round = RegistrySnapshotRound

    def async_act(self) -> Generator:
        """Read, send the payload, wait for the round to end.

        :yield: while waiting for the ledger connection and Tendermint.
        """
        with self.context.benchmark_tool.measure(self.behaviour_id).local():
            began = time.monotonic()
            snapshot = yield from self.read_snapshot()
            self._warn_if_slow(time.monotonic() - began)
            digest = None
            if snapshot is not None:
                digest = snapshot.digest()
                self.skill_state.snapshots.put(digest, snapshot)
            payload = RegistrySnapshotPayload(
                self.context.agent_address,
                block_number=None if snapshot is None else snapshot.block_number,
                snapshot_digest=digest,
            )
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def _warn_if_slow(self, seconds: float) -> None:
        """Warn when the read took over half the round's timeout (the round would restart it).

        :param seconds: how long :meth:`read_snapshot` took, in seconds.
        """
        params = self.params
        timeout = params.snapshot_round_timeout_seconds
        if seconds > timeout / 2:
            self.context.logger.warning(
                f"the registry snapshot took {seconds:.1f} s of the round's "
                f"{timeout:.0f} s (snapshot_round_timeout_seconds; one eth_call per "
                f"{params.multicall_batch_size} ids, max_ids_per_registry="
                f"{params.max_ids_per_registry}): past the timeout the round restarts the "
                "read and never ends; raise snapshot_round_timeout_seconds or "
                "multicall_batch_size"
            )
