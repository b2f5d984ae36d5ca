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

"""Run the skill's own behaviours for one period, their I/O answered by the real network.

:class:`AgentPeriod` runs the REAL ``RegistrySnapshotBehaviour`` and
``FetchManifestsBehaviour`` generators (the skill loaded by the framework's
``FSMBehaviourBaseCase``), then the real ``FetchManifestsRound`` on the payload, which
exposes the catalogue as in a one-agent service. Every framework call the behaviours make
through ``behaviours/framework.py`` (``FrameworkCalls``) leaves as a message in the outbox
and is answered over the network, through the fault-injecting loopback proxies:

- ``HttpMessage`` requests (``request_gateway``) go to a running
  ``mech_catalogue/capped_http_client`` connection (the agent's own connection code,
  aiohttp, in a thread of its own); its response envelopes go to the skill's HTTP handler;
- ``ContractApiMessage`` GET_STATE requests (``contract_state``) are answered as the
  ledger connection's contract dispatcher does: the real ``multicall_reader`` contract
  package's callable is called with the ledger connection's ``EthereumApi`` on the RPC URL
  (HTTP timeout ``rpc_timeout``); STATE with its body, or ERROR with the dispatcher's own
  ``aea.exceptions.parse_exception`` text of what it raised (the traceback);
- the waits (``wait_until``, ``sleep``) are the framework's own, in real time.

What is not real: Tendermint and the signing of payloads (``send_a2a_transaction`` and
``wait_until_round_end`` return at once with the payload kept), as in every behaviour
test; the four-agent runs in ``test_four_agent_consensus.py`` and ``tests/e2e`` have them.
The behaviours' code path is otherwise the agent's: ``mech_catalogue_core/driver.py``'s
``drive_yielding``, ``FetchManifestsBehaviour.fetch_many``'s window over the outbox,
reply callbacks, deadlines, parse-on-arrival, ``refresh_catalogue``, the agreed digest and
the exposure by the round.
"""

import asyncio
import logging
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple, Type
from unittest.mock import MagicMock

from aea.configurations.base import ConnectionConfig
from aea.exceptions import parse_exception
from aea.identity.base import Identity
from aea.mail.base import Envelope
from aea_ledger_ethereum import EthereumApi
from mech_catalogue_core.catalogue.exposure import (
    SHARED_STATE_KEY,
)
from mech_catalogue_core.catalogue.fetching import (
    ManifestCache,
)
from mech_catalogue_core.chain.marketplace import (
    MarketplaceSource,
)
from mech_catalogue_core.ipfs.gateways import (
    GatewayPool,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

from packages.mech_catalogue.connections.capped_http_client.connection import (
    PUBLIC_ID as CAPPED_HTTP_CLIENT_ID,
)
from packages.mech_catalogue.connections.capped_http_client.connection import (
    CappedHttpClientConnection,
)
from packages.mech_catalogue.contracts.multicall_reader.contract import (
    MulticallReaderContract,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.fetch_manifests import (
    FetchManifestsRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    ToolMetadataBehaviourCase,
)
from packages.valory.connections.ledger.connection import (
    PUBLIC_ID as LEDGER_CONNECTION_ID,
)
from packages.valory.protocols.contract_api import ContractApiMessage
from packages.valory.protocols.contract_api.custom_types import State
from packages.valory.protocols.http import HttpMessage
from packages.valory.skills.abstract_round_abci.base import _MetaPayload

from mech_catalogue_cli.sync_driver import PeriodOutcome, SyncConfig

#: the longest one behaviour may run here before the harness calls it stalled
BEHAVIOUR_LIMIT_SECONDS = 60.0
#: the capped_http_client connection's own timeout (its skill.yaml default order)
CONNECTION_TIMEOUT_SECONDS = 20.0


class _SkillCase(ToolMetadataBehaviourCase):
    """The framework's behaviour test case, used as a loader of the skill (not a test)."""

    __test__ = False


class _Connections:
    """The real capped_http_client connection in an event loop of its own, and a pool for eth_calls."""

    def __init__(self, rpc_url: str, chain_id: int, rpc_timeout: float) -> None:
        self.replies: "queue.Queue[Tuple[str, Any, Any]]" = queue.Queue()
        self.rpc_url, self.chain_id = rpc_url, chain_id
        self.ledger_api = self._ledger_api(rpc_timeout)
        self._calls = ThreadPoolExecutor(max_workers=4)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self.http = CappedHttpClientConnection(
            configuration=ConnectionConfig(
                connection_id=CAPPED_HTTP_CLIENT_ID, timeout=CONNECTION_TIMEOUT_SECONDS
            ),
            data_dir=MagicMock(),
            identity=Identity("agent", address="agent", public_key="key"),
        )
        self._run(self.http.connect()).result(10)
        self._receiver = asyncio.run_coroutine_threadsafe(self._receive(), self._loop)

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    async def _receive(self) -> None:
        while True:
            envelope = await self.http.receive()
            if envelope is None:
                return
            self.replies.put(("http", None, envelope.message))

    def _ledger_api(self, rpc_timeout: float) -> EthereumApi:
        # the ledger connection's own ledger API (its RPC rotation, retries, cached chain id)
        return EthereumApi(
            address=self.rpc_url, chain_id=self.chain_id, timeout=rpc_timeout
        )

    def set_rpc_timeout(self, rpc_timeout: float) -> None:
        """Answer the next calls with a ledger API of another HTTP timeout.

        :param rpc_timeout: seconds per RPC request.
        """
        self.ledger_api = self._ledger_api(rpc_timeout)

    def send_http(self, message: HttpMessage) -> None:
        """Hand a skill's HTTP request to the connection (its reply arrives in :attr:`replies`)."""
        envelope = Envelope(to=message.to, sender=message.sender, message=message)
        self._run(self.http.send(envelope))

    def call_contract(self, message: ContractApiMessage) -> None:
        """Run a GET_STATE as the ledger connection's contract dispatcher does."""

        def run() -> None:
            kwargs = dict(message.kwargs.body)
            callable_ = getattr(MulticallReaderContract, message.callable)
            try:
                body = callable_(self.ledger_api, message.contract_address, **kwargs)
            except Exception as exc:  # pylint: disable=broad-exception-caught
                # the dispatcher answers ERROR for whatever the ledger API raised
                self.replies.put(("contract", message, parse_exception(exc)))
                return
            self.replies.put(("contract", message, body))

        self._calls.submit(run)

    def close(self) -> None:
        """Disconnect and stop the loop and the pool."""
        self._run(self.http.disconnect()).result(10)
        self._receiver.cancel()
        self._run(asyncio.sleep(0.05)).result(
            10
        )  # let the receiver see its cancellation
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._calls.shutdown(wait=False, cancel_futures=True)


class _Errors(logging.Handler):
    """Keep the ERROR lines the skill logs during a period, its batch-split and log-range warnings."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: List[str] = []
        self.splits: List[str] = []
        self.narrowed: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.levelno >= logging.ERROR:
            self.lines.append(message)
        elif "refused a batch" in message and "halves" in message:
            self.splits.append(message)
        elif "refused as too wide" in message and "halves" in message:
            self.narrowed.append(message)


class AgentPeriod:  # pylint: disable=too-many-instance-attributes
    """The skill's registry-read and fetch behaviours, one period per :meth:`period`.

    The same interface as ``mech_catalogue_cli.sync_driver.CatalogueSync`` (``period``,
    ``catalogue``, ``cache``, ``config``, ``close``), so a fault test can run either.
    """

    def __init__(
        self, config: SyncConfig, marketplace: Optional[MarketplaceSource] = None
    ) -> None:
        """Load the skill and point its parameters at ``config``.

        :param config: the period's parameters (the proxies' URLs, timeouts, policies).
        :param marketplace: the skill's ``marketplace`` parameter (None: no marketplace
            facts are read, as in the CLI's period).
        """
        self.marketplace = marketplace
        self._payload_classes = dict(_MetaPayload.registry)
        _SkillCase.setup_class()
        self.case = _SkillCase()
        self.case.setup_method()
        self.case.skill.skill_context.state.gateways = None
        self.config = config
        self.catalogue: Optional[Catalogue] = None
        self.catalogue_digest = ""
        self.io = _Connections(
            config.rpc_url, config.sources[0].chain_id, config.rpc_timeout
        )
        self.errors = _Errors()
        self._logger().addHandler(self.errors)
        self.eth_calls = 0
        self.closed = False

    @property
    def config(self) -> SyncConfig:
        """Get the parameters.

        :return: the config the skill's parameters were set from.
        """
        return self._config

    @config.setter
    def config(self, config: SyncConfig) -> None:
        """Point the skill's parameters at new values, as a restarted agent would read them.

        :param config: the period's parameters.
        """
        previous = getattr(self, "_config", None)
        self._config = config
        if previous is not None and previous.rpc_timeout != config.rpc_timeout:
            self.io.set_rpc_timeout(config.rpc_timeout)
        context = self.case.skill.skill_context
        policy = config.policy
        context.params.__dict__.update(
            chain_id=config.sources[0].chain_id,
            registry_sources=config.sources,
            multicall2_address=config.multicall,
            multicall_batch_size=config.batch_size,
            max_ids_per_registry=config.max_ids,
            snapshot_block_interval=config.block_interval,
            marketplace=self.marketplace,
            ipfs_fetch_mode="gateway",
            ipfs_gateway_url=config.gateway_url,
            ipfs_fallback_gateway_urls=tuple(config.fallback_gateway_urls),
            fetch_concurrency=config.fetch_concurrency,
            fetch_timeout_seconds=config.fetch_timeout,
            fetch_retries=policy.retries,
            fetch_backoff_initial_seconds=policy.backoff_initial,
            fetch_backoff_factor=policy.backoff_factor,
            fetch_backoff_max_seconds=policy.backoff_max,
            max_manifest_bytes=policy.max_bytes,
        )
        # the gateway policy's health and 429 settings are not skill parameters: the pool
        # is set up as the behaviour would, with the test's policy (kept while the gateways
        # and fetch_concurrency stay the same, as FetchManifestsBehaviour.gateway_pool does)
        if context.state.gateways is None or context.state.gateways.urls != tuple(
            context.params.ipfs_gateway_urls
        ):
            context.state.gateways = GatewayPool(
                context.params.ipfs_gateway_urls,
                replace(
                    config.gateway_policy, max_concurrency=config.fetch_concurrency
                ),
            )

    def _logger(self) -> logging.Logger:
        logger = self.case.skill.skill_context.logger
        return getattr(logger, "logger", logger)

    @property
    def cache(self) -> ManifestCache:
        """Get the skill's manifest cache.

        :return: ``SharedState.manifest_cache``.
        """
        return self.case.skill.skill_context.state.manifest_cache

    @property
    def gateways(self) -> GatewayPool:
        """Get the skill's gateway pool.

        :return: ``SharedState.gateways``.
        """
        return self.case.skill.skill_context.state.gateways

    def period(self) -> PeriodOutcome:
        """Run RegistrySnapshotBehaviour, FetchManifestsBehaviour and FetchManifestsRound.

        :return: the outcome; ``updated`` when a catalogue was agreed and exposed,
            ``error`` the skill's last ERROR log line when the registry read failed.
        """
        began = time.monotonic()
        self.errors.lines.clear()
        self.errors.splits.clear()
        self.errors.narrowed.clear()
        self.eth_calls = 0
        snapshot = self._run(RegistrySnapshotBehaviour, {})
        if snapshot.snapshot_digest is None:
            error = self.errors.lines[-1] if self.errors.lines else "no snapshot"
            return PeriodOutcome(
                self.catalogue,
                False,
                error,
                eth_calls=self.eth_calls,
                seconds=time.monotonic() - began,
                rpc_splits=tuple(self.errors.splits),
            )
        data = {
            "registry_snapshot_block": snapshot.block_number,
            "registry_snapshot_digest": snapshot.snapshot_digest,
            "catalogue_digest": self.catalogue_digest,
        }
        payload = self._run(FetchManifestsBehaviour, data)
        updated = self._agree(payload)
        return PeriodOutcome(
            self.catalogue,
            updated,
            "" if updated else "no catalogue agreed",
            eth_calls=self.eth_calls,
            seconds=time.monotonic() - began,
            rpc_splits=tuple(self.errors.splits),
        )

    def _agree(self, payload: Any) -> bool:
        """Run the real FetchManifestsRound on this agent's payload (one agent)."""
        context = self.case.skill.skill_context
        db = context.state.round_sequence.abci_app.synchronized_data.db
        fetch_round = FetchManifestsRound(
            synchronized_data=SynchronizedData(db), context=context
        )
        fetch_round.process_payload(payload)
        result = fetch_round.end_block()
        if result is None or result[1] not in (Event.DONE, Event.VIEWS_UNCHANGED):
            return False
        exposed = context.shared_state.get(SHARED_STATE_KEY)
        if exposed is None:
            return False
        self.catalogue = exposed.catalogue
        self.catalogue_digest = payload.catalogue_digest
        return True

    def _run(self, behaviour_class: Type[Any], data: Dict[str, Any]) -> Any:
        """Run one behaviour to its payload, answering its framework calls.

        :param behaviour_class: the behaviour.
        :param data: the synchronized data it starts from.
        :return: the payload it sent.
        :raises AssertionError: the behaviour did not finish within
            :data:`BEHAVIOUR_LIMIT_SECONDS` (a stalled round) or sent no payload.
        """
        self.case.go_to(behaviour_class, data)
        behaviour = self.case.current()
        sent: List[Any] = []

        def send(payload: Any, *_: Any, **__: Any) -> Any:
            sent.append(payload)
            yield from ()

        def round_end(*_: Any, **__: Any) -> Any:
            yield from ()

        behaviour.send_a2a_transaction = send  # type: ignore[method-assign]
        behaviour.wait_until_round_end = round_end  # type: ignore[method-assign]
        limit = time.monotonic() + BEHAVIOUR_LIMIT_SECONDS
        while not behaviour.is_done():
            assert (
                time.monotonic() < limit
            ), f"{behaviour_class.__name__} did not finish"
            behaviour.act_wrapper()
            if not self._pump() and not behaviour.is_done():
                time.sleep(0.002)
        assert len(sent) == 1, sent
        return sent[0]

    def _pump(self) -> bool:
        """Send what the behaviour put in the outbox; deliver the answers that came.

        :return: whether anything moved.
        :raises AssertionError: the behaviour made a framework call this harness cannot answer.
        """
        moved = False
        while True:
            message = self.case.get_message_from_outbox()
            if message is None:
                break
            moved = True
            if isinstance(message, ContractApiMessage):
                self.eth_calls += 1
                self.io.call_contract(message)
            elif isinstance(message, HttpMessage):
                self.io.send_http(message)
            else:
                raise AssertionError(f"unexpected framework call: {message}")
        while True:
            try:
                kind, request, answer = self.io.replies.get_nowait()
            except queue.Empty:
                return moved
            moved = True
            if kind == "http":
                self.case.http_handler.handle(answer)
            else:
                self.case.contract_handler.handle(self._contract_reply(request, answer))

    def _contract_reply(self, request: ContractApiMessage, answer: Any) -> Any:
        common: Dict[str, Any] = {
            "message_type": ContractApiMessage,
            "dialogue_reference": (request.dialogue_reference[0], "ledger"),
            "target": request.message_id,
            "message_id": -1,
            "to": str(self.case.skill.skill_context.skill_id),
            "sender": str(LEDGER_CONNECTION_ID),
        }
        if isinstance(answer, str):
            return self.case.build_incoming_message(
                performative=ContractApiMessage.Performative.ERROR,
                code=1,
                message=answer,
                data=b"",
                **common,
            )
        return self.case.build_incoming_message(
            performative=ContractApiMessage.Performative.STATE,
            state=State(ledger_id="ethereum", body=answer),
            **common,
        )

    def close(self) -> None:
        """Stop the connections and detach the log handler (again: nothing happens)."""
        if self.closed:
            return
        self.closed = True
        self._logger().removeHandler(self.errors)
        self.io.close()
        self.case.teardown_method()
        # setup_class emptied the process-wide payload registry; put back what was there
        # (merged, so closing periods in any order loses nothing)
        _MetaPayload.registry = {**_MetaPayload.registry, **self._payload_classes}
