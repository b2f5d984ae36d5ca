"""The base behaviour of the tool metadata skill: typed accessors and the raw eth_call."""

from abc import ABC
from typing import Any, Dict, Generator, List, Optional, Sequence, Tuple, cast

from packages.mech_catalogue.contracts.multicall_reader.contract import (
    PUBLIC_ID as MULTICALL_READER_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.framework import (
    FrameworkCalls,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.registry import (
    Call,
    RegistryConfigError,
    RegistryDecodeError,
    decode_batch,
    encode_batch,
    snapshot_reader,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.snapshot import (
    RegistrySnapshot,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.driver import (
    drive_yielding,
)
from packages.mech_catalogue.skills.tool_metadata_abci.models import (
    SharedState,
    ToolMetadataParams,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    SynchronizedData,
)

BatchResult = Tuple[int, List[Tuple[bool, bytes]]]


class ChainReadError(Exception):
    """A Multicall2 read failed as a whole (RPC error, wrong address); the message says which."""


class ToolMetadataBaseBehaviour(
    FrameworkCalls, ABC
):  # pylint: disable=too-many-ancestors
    """Base behaviour: typed params, synchronized data and skill state; I/O through :class:`FrameworkCalls`."""

    @property
    def params(self) -> ToolMetadataParams:
        """Get the skill parameters.

        :return: the skill parameters.
        """
        return cast(ToolMetadataParams, super().params)

    @property
    def synchronized_data(self) -> SynchronizedData:
        """Get the synchronized data of this app.

        :return: the synchronized data of this app.
        """
        return cast(SynchronizedData, super().synchronized_data)

    @property
    def skill_state(self) -> SharedState:
        """Get the skill's shared state model.

        :return: the skill's shared state model (manifest cache, exposed catalogue).
        """
        return cast(SharedState, self.context.state)

    def multicall(
        self, calls: Sequence[Call], block: Optional[int]
    ) -> Generator[None, None, BatchResult]:
        """Run one Multicall2 ``tryBlockAndAggregate(false, calls)`` through the ledger connection.

        :param calls: the calls (at most ``multicall_batch_size``).
        :param block: block number to read at; None reads ``latest``.
        :yield: while waiting for the ledger connection.
        :return: ``(block_number, [(success, return_data)])``.
        :raises ChainReadError: the ``eth_call`` failed or returned something that is not a
            Multicall2 result.
        """
        kwargs: Dict[str, Any] = {"data": "0x" + encode_batch(calls).hex()}
        if block is not None:
            kwargs["block_identifier"] = block
        body, why = yield from self.contract_state(
            self.params.multicall2_address, str(MULTICALL_READER_ID), "call", **kwargs
        )
        if body is None:
            raise ChainReadError(
                f"eth_call to Multicall2 at {self.params.multicall2_address} failed: "
                f"{why}; check the RPC and multicall2_address"
            )
        data = str(body.get("data", ""))
        try:
            return decode_batch(
                bytes.fromhex(data[2:] if data.startswith("0x") else data), len(calls)
            )
        except (RegistryDecodeError, ValueError) as exc:
            raise ChainReadError(str(exc)) from exc

    def read_snapshot(
        self, at_block: Optional[int] = None
    ) -> Generator[None, None, Optional[RegistrySnapshot]]:
        """Read every configured registry at a block aligned to ``snapshot_block_interval``.

        :param at_block: read at exactly this block (rebuilding an agreed snapshot).
        :yield: while waiting for the ledger connection.
        :return: the snapshot, or None when the chain could not be read (logged with the reason).
        """
        try:
            snapshot = yield from self._read(at_block)
        except (ChainReadError, RegistryDecodeError, RegistryConfigError) as exc:
            self.context.logger.error(f"registry snapshot not taken: {exc}")
            return None
        self.context.logger.info(
            f"registry snapshot at block {snapshot.block_number}: {len(snapshot.reads)} ids, "
            f"{len(snapshot.digests)} distinct digests, digest {snapshot.digest()}"
        )
        return snapshot

    def _read(self, at_block: Optional[int]) -> Generator[None, None, RegistrySnapshot]:
        params = self.params
        reader = snapshot_reader(
            params.registry_sources,
            params.multicall2_address,
            params.multicall_batch_size,
            params.max_ids_per_registry,
            params.snapshot_block_interval,
            at_block,
        )
        block, reads = yield from drive_yielding(
            reader, lambda request: self.multicall(*request)
        )
        return RegistrySnapshot.build(block, reads)
