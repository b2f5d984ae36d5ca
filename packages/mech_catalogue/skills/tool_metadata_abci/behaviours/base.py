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

"""The base behaviour of the tool metadata skill: typed accessors and the raw eth_call."""

from abc import ABC
from typing import Any, Dict, Generator, List, Optional, Sequence, Tuple, cast

from mech_catalogue_core.catalogue.views import IncumbentViews
from mech_catalogue_core.chain.facts_kept import (
    KeptFacts,
    keep_last_good,
    last_good_facts,
)
from mech_catalogue_core.chain.marketplace import (
    DiscoveryCheckpoint,
    LogQuery,
    MarketplaceLogError,
    MarketplaceSource,
    MechCreation,
    attach_facts,
    discover_mechs,
    facts_reader,
    start_checkpoint,
)
from mech_catalogue_core.chain.registry import (
    Call,
    ChainReadError,
    RegistryConfigError,
    RegistryDecodeError,
    block_number_call,
    decode_batch,
    encode_batch,
    snapshot_reader,
)
from mech_catalogue_core.chain.rpc_limits import (
    batch_gas,
    isolate_failing_calls_yielding,
    narrow_log_range_yielding,
    split_oversized_yielding,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.driver import (
    drive_yielding,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)

from packages.mech_catalogue.contracts.multicall_reader.contract import (
    PUBLIC_ID as MULTICALL_READER_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.framework import (
    FrameworkCalls,
)
from packages.mech_catalogue.skills.tool_metadata_abci.models import (
    SharedState,
    ToolMetadataParams,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    SynchronizedData,
)

BatchResult = Tuple[int, List[Tuple[bool, bytes]]]


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
        self, calls: Sequence[Call], block: Optional[int], gas: Optional[int] = None
    ) -> Generator[None, None, BatchResult]:
        """Run one Multicall2 ``tryBlockAndAggregate(false, calls)`` through the ledger connection.

        :param calls: the calls (at most ``multicall_batch_size``).
        :param block: block number to read at; None reads ``latest``.
        :param gas: the gas the ``eth_call`` is given at most; None: the node's default.
        :yield: while waiting for the ledger connection.
        :return: ``(block_number, [(success, return_data)])``.
        :raises ChainReadError: the ``eth_call`` failed or returned something that is not a
            Multicall2 result.
        """
        kwargs: Dict[str, Any] = {"data": "0x" + encode_batch(calls).hex()}
        if block is not None:
            kwargs["block_identifier"] = block
        if gas is not None:
            kwargs["gas"] = gas
        body, why = yield from self.contract_state(
            self.params.multicall2_address, str(MULTICALL_READER_ID), "call", **kwargs
        )
        if body is None:
            raise ChainReadError(
                f"eth_call to Multicall2 at {self.params.multicall2_address} failed: "
                f"{why}; check the RPC and multicall2_address",
                reason=why,
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
            self.skill_state.supply_holders,
            self.skill_state.supply_hints,
        )
        block, reads = yield from drive_yielding(
            reader,
            split_oversized_yielding(
                lambda request: self.multicall(*request),
                (ChainReadError,),
                self._batch_split,
            ),
        )
        return RegistrySnapshot.build(block, reads)

    def _batch_split(self, size: int, why: str) -> None:
        """Log a Multicall2 batch the RPC refused as too large (it is sent again in halves).

        :param size: calls in the refused batch.
        :param why: the RPC's error text.
        """
        self.context.logger.warning(
            f"the RPC refused a batch of {size} calls as too large ({why[:200]}); it is "
            "sent again in halves: lower multicall_batch_size to avoid this"
        )

    def get_logs(self, query: LogQuery) -> Generator[None, None, List[Dict[str, Any]]]:
        """Run one ``eth_getLogs`` through the ledger connection.

        :param query: the emitting contract, topic and inclusive block range.
        :yield: while waiting for the ledger connection.
        :return: the logs (``address``, ``topics``, ``blockNumber``).
        :raises ChainReadError: the RPC refused or failed the query.
        """
        body, why = yield from self.contract_state(
            query.address,
            str(MULTICALL_READER_ID),
            "get_logs",
            topic=query.topic,
            from_block=query.from_block,
            to_block=query.to_block,
        )
        if body is None:
            raise ChainReadError(
                f"eth_getLogs of {query.address} for blocks {query.from_block}..{query.to_block} "
                f"failed: {why}; "
                "check the RPC (some refuse wide ranges: lower marketplace_max_log_range)",
                reason=why,
            )
        logs = body.get("logs", [])
        return list(logs) if isinstance(logs, list) else []

    def _discover(
        self, source: MarketplaceSource, checkpoint: DiscoveryCheckpoint, head: int
    ) -> Generator[None, None, DiscoveryCheckpoint]:
        """Drive :func:`discover_mechs` with :meth:`get_logs`; a too-wide range is read in halves.

        :param source: the marketplace.
        :param checkpoint: where the last read stopped.
        :param head: the block to read up to (before the confirmation margin).
        :yield: while waiting for the ledger connection.
        :return: the advanced checkpoint.
        """
        checkpoint = yield from drive_yielding(
            discover_mechs(source, checkpoint, head),
            narrow_log_range_yielding(self.get_logs, (ChainReadError,), self._narrowed),
        )
        return checkpoint

    def _narrowed(self, query: LogQuery, why: str) -> None:
        """Log an ``eth_getLogs`` range the RPC refused as too wide (read in halves).

        :param query: the refused query.
        :param why: the RPC's error text.
        """
        self.context.logger.warning(
            f"eth_getLogs of {query.address} for blocks {query.from_block}..{query.to_block} "
            f"was refused as too wide ({why[:200]}); it is read in halves: lower "
            "marketplace_max_log_range to avoid this"
        )

    def _read_facts(
        self, marketplace: str, mechs: List[MechCreation], block: int
    ) -> Generator[None, None, Tuple[List[MechFacts], List[Call]]]:
        """Drive :func:`facts_reader` with :meth:`multicall`, one mech's failing calls its own.

        Each batch is bounded in gas (``rpc_limits.batch_gas``); a batch the node errs
        on is read in halves, a call failing alone while Multicall2's block read answers
        is that mech's, and calls failing after another are asked again
        (``rpc_limits.isolate_failing_calls_yielding``). Mechs whose getters failed or
        were left unread are read apart in the next period (``mechs_read_apart``,
        ``chain.read_apart``), so no honest mech is unread two periods running.

        :param marketplace: the MechMarketplace address.
        :param mechs: the mechs to read.
        :param block: the block to read at.
        :yield: while waiting for the ledger connection.
        :return: ``(facts in mechs order, the calls left unread)``: a call left unread
            (not told apart within the read's bound, or after the node limited the
            rate) reads as failed in the facts.
        """
        read_apart = self.skill_state.mechs_read_apart
        read_apart.incumbents = frozenset(  # the agreed views: the same on every agent
            address
            for _, address in IncumbentViews.from_views(
                self.synchronized_data.mechs_info, self.synchronized_data.mech_tools
            ).items
        )
        reader = facts_reader(
            marketplace,
            self.params.multicall2_address,
            mechs,
            self.params.multicall_batch_size,
            block,
            read_apart,
        )
        unread: List[Call] = []

        def said_unread(calls: List[Call], why: str) -> None:
            unread.extend(calls)
            self._facts_unread(calls, why)

        _, facts = yield from drive_yielding(
            reader,
            isolate_failing_calls_yielding(
                lambda request: self.multicall(*request, batch_gas(len(request[0]))),
                (ChainReadError,),
                block_number_call(self.params.multicall2_address),
                self._facts_call_failed,
                said_unread,
            ),
        )
        read_apart.after_read(facts, unread)
        return facts, unread

    def _facts_unread(self, calls: List[Call], why: str) -> None:
        """Log the mechs whose calls are unread this period (read apart the next).

        Telling failing calls apart is bounded per batch and per read
        (``rpc_limits.isolate_failing_calls_yielding``, adv29zx I1); such a mech keeps
        the facts last agreed (:meth:`with_marketplace`).

        :param calls: the calls left unread.
        :param why: why (the runs spent, or the node's rate limit).
        """
        mechs = sorted({call.target for call in calls})
        shown = ", ".join(mechs[:20]) + (" ..." if len(mechs) > 20 else "")
        self.context.logger.warning(
            f"the calls to {len(mechs)} contract(s) are unread this period and read "
            f"apart the next ({why[:200]}): {shown}"
        )

    def _facts_call_failed(self, size: int, why: str) -> None:
        """Log a batch of mechs' getters the node answered with an error.

        :param size: calls in the batch: read again in halves when more than one; one
            call failing alone is that mech's (its fact unread, the others kept).
        :param why: the RPC's error text.
        """
        if size > 1:
            self.context.logger.warning(
                f"a batch of {size} mech facts calls failed ({why[:200]}); it is read "
                "in halves"
            )
        else:
            self.context.logger.warning(
                f"a mech facts call failed alone ({why[:200]}): that contract's fact "
                "is unread"
            )

    def with_marketplace(
        self, catalogue: Catalogue, block: int, previous: Optional[Catalogue] = None
    ) -> Generator[None, None, Catalogue]:
        """Put each mech contract's marketplace facts, read at ``block``, on the catalogue.

        Discovery reads ``CreateMech`` logs from this agent's checkpoint up to ``block -
        marketplace_confirmations``; only mechs created by then are read, at ``block``, so
        every agent reading the agreed block builds the same facts whatever its checkpoint.

        A mech whose calls the read left unread (strangers' failing getters beside its
        own, a node limiting the rate: ``on_unread``) keeps its facts of ``previous``,
        whole, with the block they were read at (``chain.facts_kept``); so does every
        mech when the read fails whole. ``previous`` is the last agreed catalogue, the
        same on every agent, so agents reading alike still build the same catalogue. A
        mech whose own getter was told apart failing, or with no facts in ``previous``,
        shows this read's facts, unread fields and all.

        :param catalogue: the catalogue built from the agreed snapshot.
        :param block: the agreed snapshot's block.
        :param previous: the last agreed catalogue
            (``FetchManifestsBehaviour.previous_catalogue``; None: none held).
        :yield: while waiting for the ledger connection.
        :return: the catalogue with facts; unchanged when no marketplace is configured;
            with ``previous``'s facts (the reason logged) when the chain could not be read.
        """
        source = self.params.marketplace
        if source is None:
            return catalogue
        state = self.skill_state
        last_good = last_good_facts(previous)
        try:
            checkpoint = yield from self._discover(
                source, state.marketplace_checkpoint or start_checkpoint(source), block
            )
            state.marketplace_checkpoint = checkpoint
            last = block - source.confirmations
            facts, unread = yield from self._read_facts(
                source.marketplace,
                [m for m in checkpoint.mechs if m.block <= last],
                block,
            )
        except (ChainReadError, MarketplaceLogError) as exc:
            kept = (
                f"the {len(last_good)} mech(s) of the last agreed catalogue keep its "
                "facts this period"
                if last_good
                else "the catalogue goes without them this period"
            )
            self.context.logger.error(
                f"marketplace facts (marketplace {source.marketplace or 'none'}, legacy factory "
                f"{source.legacy_factory or 'none'}) not read at block {block}: {exc}; "
                f"{kept}"
            )
            return attach_facts(catalogue, list(last_good.values()))
        served = keep_last_good(facts, unread, last_good)
        self._facts_kept(served, last_good)
        self.context.logger.info(
            f"marketplace facts at block {block}: {len(facts)} mechs, "
            f"{sum(1 for f in served.facts if f.rankable)} rankable"
        )
        return attach_facts(catalogue, served.facts)

    def _facts_kept(self, served: KeptFacts, last_good: Dict[str, MechFacts]) -> None:
        """Log the mechs that kept the facts last agreed, and those left unread without.

        :param served: what :func:`keep_last_good` made of the read.
        :param last_good: the facts last agreed, by mech address.
        """

        def shown(mechs: List[str], block: bool) -> str:
            named = [
                f"{mech} (block {last_good[mech].block})" if block else mech
                for mech in mechs[:20]
            ]
            return ", ".join(named) + (" ..." if len(mechs) > 20 else "")

        if served.kept:
            self.context.logger.warning(
                f"{len(served.kept)} mech(s) keep the facts last agreed (this read left "
                f"their calls unread): {shown(served.kept, True)}"
            )
        if served.unread:
            self.context.logger.warning(
                f"{len(served.unread)} mech(s) left unread by this read have no facts "
                f"agreed before: {shown(served.unread, False)}"
            )
