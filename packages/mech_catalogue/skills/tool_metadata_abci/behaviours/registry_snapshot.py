"""RegistrySnapshotBehaviour: read every configured id's latest digest at one block."""

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
            snapshot = yield from self.read_snapshot()
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
