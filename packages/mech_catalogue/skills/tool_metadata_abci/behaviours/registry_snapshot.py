"""RegistrySnapshotBehaviour: read every configured id's latest digest at one block."""

from typing import Dict, Generator, List, Optional, Tuple

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.base import (
    ChainReadError,
    ToolMetadataBaseBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.registry import (
    Call,
    RegistryConfigError,
    RegistryDecodeError,
    block_number_call,
    chunks,
    decode_digest_query,
    digest_queries,
    flatten,
    split_results,
    supply_calls,
    supply_holder_calls,
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


class RegistrySnapshotBehaviour(ToolMetadataBaseBehaviour):  # pylint: disable=too-many-ancestors
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

    def _single(self, calls: Dict[int, Call], block: int) -> Generator[None, None, Dict[int, bytes]]:
        if not calls:
            return {}
        keys = list(calls)
        _, results = yield from self.multicall([calls[k] for k in keys], block)
        out = {}
        for key, (ok, data) in zip(keys, results):
            if not ok:
                raise ChainReadError(
                    f"{self.params.registry_sources[key].kind} at {self.params.registry_sources[key].address} "
                    "reverted on totalSupply()/serviceRegistry(); check the address and kind in registries"
                )
            out[key] = data
        return out

    def _read(self) -> Generator[None, None, RegistrySnapshot]:
        params = self.params
        sources = params.registry_sources
        latest, _ = yield from self.multicall([block_number_call(params.multicall2_address)], None)
        block = latest - latest % params.snapshot_block_interval
        holder_calls = supply_holder_calls(sources)
        holders_raw = yield from self._single(holder_calls, block)
        holders = {i: holder_calls[i].decode(data)[0] for i, data in holders_raw.items()}
        counts = supply_calls(sources, holders)
        supplies_raw = yield from self._single(counts, block)
        ids_by_source = {
            i: source.ids.resolve(
                counts[i].decode(supplies_raw[i])[0] if i in supplies_raw else None,
                params.max_ids_per_registry,
            )
            for i, source in enumerate(sources)
        }
        queries = digest_queries(sources, ids_by_source)
        results: List[Tuple[bool, bytes]] = []
        for batch in chunks(flatten(queries), params.multicall_batch_size):
            _, batch_results = yield from self.multicall(batch, block)
            results.extend(batch_results)
        reads = [
            decode_digest_query(query, sources[query.source_index], grouped)
            for query, grouped in zip(queries, split_results(queries, results))
        ]
        return RegistrySnapshot.build(block, reads)
