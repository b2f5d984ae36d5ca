"""RegistrySnapshotBehaviour: read every configured id's latest digest at one block."""

from typing import Generator, Optional

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.base import (
    ChainReadError,
    ToolMetadataBaseBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.registry import (
    BatchReply,
    RegistryConfigError,
    RegistryDecodeError,
    snapshot_reader,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.snapshot import (
    RegistrySnapshot,
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
            payload = RegistrySnapshotPayload(
                self.context.agent_address,
                snapshot_digest=None if snapshot is None else snapshot.digest(),
                snapshot=None if snapshot is None else snapshot.to_json(),
            )
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def read_snapshot(self) -> Generator[None, None, Optional[RegistrySnapshot]]:
        """Read every configured registry at a block aligned to ``snapshot_block_interval``.

        :yield: while waiting for the ledger connection.
        :return: the snapshot, or None when the chain could not be read (logged with the reason).
        """
        try:
            snapshot = yield from self._read()
        except (ChainReadError, RegistryDecodeError, RegistryConfigError) as exc:
            self.context.logger.error(f"registry snapshot not taken: {exc}")
            return None
        self.context.logger.info(
            f"registry snapshot at block {snapshot.block_number}: {len(snapshot.reads)} ids, "
            f"{len(snapshot.digests)} distinct digests, digest {snapshot.digest()}"
        )
        return snapshot

    def _read(self) -> Generator[None, None, RegistrySnapshot]:
        params = self.params
        reader = snapshot_reader(
            params.registry_sources,
            params.multicall2_address,
            params.multicall_batch_size,
            params.max_ids_per_registry,
            params.snapshot_block_interval,
        )
        reply: Optional[BatchReply] = None
        while True:
            try:
                request = reader.send(reply)  # type: ignore[arg-type]  # None starts it
            except StopIteration as done:
                block, reads = done.value
                return RegistrySnapshot.build(block, reads)
            reply = yield from self.multicall(*request)
