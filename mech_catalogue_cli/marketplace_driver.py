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

"""Read the MechMarketplace's mechs and their facts with plain HTTP, as the skill reads them.

The decisions are the library's (:mod:`mech_catalogue_core.chain.marketplace`: which
``CreateMech`` logs to ask for, which Multicall2 calls make up each fact, how a reply
decodes; :mod:`mech_catalogue_core.chain.rpc_limits`: a refused log range is read in
halves, a batch of mechs' getters is bounded in gas and one mech's failing call fails
alone); this module only drives them, moving bytes through :mod:`.adapters.jsonrpc`
(``eth_blockNumber``, ``eth_getLogs``, ``eth_call``, each one JSON-RPC POST). ``mech-catalogue list`` and the MCP
server's direct reader both read the marketplace through :class:`MarketplaceReader`.

``list`` keeps what discovery found in a file (:func:`save_checkpoint`), so the next run
on a public chain reads only the blocks since, not every block since the marketplace's
deployment (gnosis: over a thousand ``eth_getLogs`` ranges). A checkpoint that cannot be
this chain's (:func:`usable_checkpoint`) or cannot be read is ignored: the scan starts
again from the first blocks.
"""

import json
import logging
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from mech_catalogue_core.chain.facts_kept import keep_last_good
from mech_catalogue_core.chain.marketplace import (
    DiscoveryCheckpoint,
    MarketplaceSource,
    discover_mechs,
    facts_reader,
    start_checkpoint,
)
from mech_catalogue_core.chain.read_apart import (
    MechsReadApart,
    own_getters_failed,
)
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    Call,
    ChainReadError,
    block_number_call,
    decode_batch,
    encode_batch,
)
from mech_catalogue_core.chain.rpc_limits import (
    batch_gas,
    isolate_failing_calls,
    narrow_log_range,
)
from mech_catalogue_core.driver import (
    drive,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)

from mech_catalogue_cli.adapters.http import Session
from mech_catalogue_cli.adapters.jsonrpc import (
    JsonRpc,
    block_number,
    eth_call,
    get_logs,
)
from mech_catalogue_cli.sync_driver import SyncConfig

LOGGER = logging.getLogger(__name__)
#: bytes of a kept checkpoint at most (a mech is about 150 bytes: 64 MiB is far above any
#: real marketplace, and stops a stray file from filling memory)
MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024


def usable_checkpoint(
    checkpoint: Optional[DiscoveryCheckpoint], source: MarketplaceSource, head: int
) -> DiscoveryCheckpoint:
    """Return the checkpoint to go on from, or a fresh one when it cannot be this chain's.

    :param checkpoint: what an earlier read found, or None.
    :param source: the marketplace read now.
    :param head: the chain's head block now.
    :return: ``checkpoint``, unless it is None, starts before the source's first blocks,
        or has read past ``head`` (a chain restarted from scratch, e.g. a devnet): then
        :func:`start_checkpoint`.
    """
    if checkpoint is None:
        return start_checkpoint(source)
    before = (
        checkpoint.next_block < source.first_block
        or checkpoint.legacy_next_block < source.legacy_first_block
    )
    beyond = max(checkpoint.next_block, checkpoint.legacy_next_block) > head + 1
    return start_checkpoint(source) if before or beyond else checkpoint


class MarketplaceReader:
    """The mechs one MechMarketplace created and their facts, read period after period.

    Discovery keeps its checkpoint between calls, so each :meth:`facts` reads only the
    blocks it has not read (as the skill's ``marketplace_checkpoint``); mechs whose
    getters failed or were left unread are read apart in the next (``read_apart``, as
    the skill's ``mechs_read_apart``: ``chain.read_apart``), and a mech whose calls a
    read left unread keeps the facts of its last read that did not (``last_read``, with
    that read's block), so strangers' failing getters beside it cannot make its offer
    look unread (adv29zz I2).
    """

    def __init__(
        self,
        config: SyncConfig,
        source: MarketplaceSource,
        session: Session,
        checkpoint: Optional[DiscoveryCheckpoint] = None,
    ) -> None:
        """Prepare the reader.

        :param config: the RPC URL, Multicall2, batch size and timeout.
        :param source: the chain's MechMarketplace (and legacy factory), first blocks.
        :param session: the HTTP session (shared with the registry reads).
        :param checkpoint: what an earlier read found (kept on disk by ``list``), or
            None to scan from the first blocks.
        """
        self.config = config
        self.source = source
        self.session = session
        self.rpc = JsonRpc(config.rpc_url, config.rpc_timeout, session)
        self.checkpoint: Optional[DiscoveryCheckpoint] = checkpoint
        #: which mechs' calls are read apart, learnt from the reads before
        self.read_apart = MechsReadApart()
        #: mech address (lower case) -> its facts of the last read that left none of
        #: its calls unread (the mechs of the last read only)
        self.last_read: Dict[str, MechFacts] = {}

    def head(self) -> int:
        """Return the chain's head block.

        :return: ``eth_blockNumber``.
        """
        return block_number(self.rpc)

    def _logs(self, query: Any) -> List[Dict[str, Any]]:
        return get_logs(
            self.rpc, query.address, query.topic, query.from_block, query.to_block
        )

    @staticmethod
    def _narrowed(query: Any, why: str) -> None:
        LOGGER.warning(
            "eth_getLogs %s-%s on %s was refused as too wide (%s); it is read in halves",
            query.from_block,
            query.to_block,
            query.address,
            why[:200],
        )

    def facts(self) -> List[MechFacts]:
        """Discover the mechs created since the last call, then read every mech's facts.

        A failed log or call read raises :class:`ChainReadError` (the RPC's words kept);
        a log that is not the event asked for, ``MarketplaceLogError`` (a ValueError).

        :return: one :class:`MechFacts` per mech found so far, at one block.
        """
        head = self.head()
        self.checkpoint = drive(
            discover_mechs(
                self.source, usable_checkpoint(self.checkpoint, self.source, head), head
            ),
            narrow_log_range(self._logs, (ChainReadError,), self._narrowed),
        )
        self.read_apart.incumbents = frozenset(  # mechs whose getters answered before
            address
            for address, fact in self.last_read.items()
            if not own_getters_failed(fact)
        )
        reader = facts_reader(
            self.source.marketplace,
            self.config.multicall,
            list(self.checkpoint.mechs),
            self.config.batch_size,
            read_apart=self.read_apart,
        )
        unread: List[Call] = []

        def said_unread(calls: List[Call], why: str) -> None:
            unread.extend(calls)
            self._unread(calls, why)

        _, facts = drive(
            reader,
            isolate_failing_calls(
                self._batch,
                (ChainReadError,),
                block_number_call(self.config.multicall),
                self._failed,
                said_unread,
            ),
        )
        self.read_apart.after_read(facts, unread)
        return self._last_good(facts, unread)

    def _last_good(self, facts: List[MechFacts], unread: List[Call]) -> List[MechFacts]:
        """Each mech's facts, its last good ones where this read left its calls unread.

        The agent's rule (``chain.facts_kept.keep_last_good``): a call left unread
        concerns a mech when it is one of its getters, a marketplace or Karma call about
        it, its operator's count or ``karma()``; the last good facts are this reader's
        last read's, not an agreed catalogue's.

        :param facts: this read's facts, in mechs order.
        :param unread: the calls it left unread (not told apart: ``on_unread``).
        :return: the facts to serve, same order: a mech with a call left unread gets
            its facts of the last read that left none unread (their own block) when
            there is one; a mech whose own getters were told apart failing keeps this
            read's (its own doing).
        """
        result = keep_last_good(facts, unread, self.last_read)
        never_read_whole = set(result.unread)
        if result.kept:
            LOGGER.warning(
                "%s mech(s) keep their facts of an earlier read (this one left their "
                "calls unread): %s",
                len(result.kept),
                ", ".join(result.kept[:20]) + (" ..." if len(result.kept) > 20 else ""),
            )
        self.last_read = {
            fact.address.lower(): fact
            for fact in result.facts
            if fact.address.lower() not in never_read_whole
        }
        return result.facts

    def _batch(self, request: BatchRequest) -> BatchReply:
        """Run one batch of mechs' getters as one ``eth_call``, its gas bounded.

        :param request: the calls and the block.
        :return: the reply.
        """
        calls, block = request
        data = eth_call(
            self.rpc,
            self.config.multicall,
            encode_batch(calls),
            block,
            batch_gas(len(calls)),
        )
        return decode_batch(data, len(calls))

    @staticmethod
    def _unread(calls: List[Call], why: str) -> None:
        """Say which mechs' facts are unread this period (read the next).

        Telling failing calls apart is bounded (``rpc_limits.isolate_failing_calls``,
        adv29zx I1).

        :param calls: the calls left unread.
        :param why: why (the runs spent, or the node's rate limit).
        """
        mechs = sorted({call.target for call in calls})
        LOGGER.warning(
            "the facts of %s mech(s) are unread this period and read the next (%s): %s",
            len(mechs),
            why[:200],
            ", ".join(mechs[:20]) + (" ..." if len(mechs) > 20 else ""),
        )

    @staticmethod
    def _failed(calls: int, why: str) -> None:
        if calls > 1:
            LOGGER.warning(
                "a batch of %s mech facts calls failed (%s); it is read in halves",
                calls,
                why[:200],
            )
        else:
            LOGGER.warning(
                "a mech facts call failed alone (%s): that contract's fact is unread",
                why[:200],
            )


def checkpoint_path(folder: Path, source: MarketplaceSource) -> Path:
    """Return the file a marketplace's discovery checkpoint is kept in.

    :param folder: the state folder (``list --state-dir``).
    :param source: the marketplace: chain id, addresses and first blocks name the file,
        so another marketplace or a changed first block never reuses it.
    :return: ``<folder>/marketplace-<chain>-<marketplace>-<legacy factory>-<blocks>.json``.
    """
    name = "-".join(
        (
            "marketplace",
            str(source.chain_id),
            source.marketplace or "none",
            source.legacy_factory or "none",
            f"{source.first_block}_{source.legacy_first_block}",
        )
    )
    return folder / f"{name}.json"


def load_checkpoint(path: Path) -> Tuple[Optional[DiscoveryCheckpoint], str]:
    """Read a kept checkpoint.

    :param path: from :func:`checkpoint_path`.
    :return: ``(checkpoint, "")``; ``(None, "")`` when there is none; ``(None, why)``
        when the file cannot be used (the caller scans again and says why).
    """
    if not path.is_file():
        return None, ""
    try:
        if path.stat().st_size > MAX_CHECKPOINT_BYTES:
            return None, f"{path} is over {MAX_CHECKPOINT_BYTES} bytes"
        data = json.loads(path.read_text(encoding="utf-8"))
        return DiscoveryCheckpoint.from_dict(data), ""
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"{path} is not a checkpoint ({type(exc).__name__})"


def save_checkpoint(path: Path, checkpoint: DiscoveryCheckpoint) -> str:
    """Keep a checkpoint for the next read (written whole, then renamed).

    :param path: from :func:`checkpoint_path`.
    :param checkpoint: what the read found.
    :return: "" when kept, else why not (the read itself succeeded).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(checkpoint.to_dict()), encoding="utf-8")
        os.replace(partial, path)
        return ""
    except OSError as exc:
        return f"cannot write {path} ({type(exc).__name__})"
