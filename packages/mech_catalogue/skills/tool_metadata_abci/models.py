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

"""Models of the tool metadata skill: parameters (validated at start-up) and shared state."""

import os
import time
from types import NoneType
from typing import Any, Dict, FrozenSet, Optional, Tuple, Type

from mech_catalogue_core.adapters.background import OneWorker
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.catalogue.exposure import (
    SHARED_STATE_KEY,
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.fetching import (
    ManifestCache,
    backoff_delays,
)
from mech_catalogue_core.catalogue.store import (
    CatalogueFile,
    DigestStore,
)
from mech_catalogue_core.catalogue.views import (
    IncumbentViews,
)
from mech_catalogue_core.chain.marketplace import (
    DiscoveryCheckpoint,
    MarketplaceConfigError,
    MarketplaceSource,
)
from mech_catalogue_core.chain.presets import (
    UnknownChainPreset,
    chain_preset,
    skill_parameters,
)
from mech_catalogue_core.chain.read_apart import (
    MechsReadApart,
)
from mech_catalogue_core.chain.registry import (
    HolderCache,
    RegistryConfigError,
    RegistrySource,
    SupplyHints,
    parse_registry_sources,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.derive.from_chain import (
    DerivationCache,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
)
from mech_catalogue_core.ipfs.gateways import (
    GatewayPool,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

from packages.mech_catalogue.skills.tool_metadata_abci.parameters import (
    ParameterError,
    require,
    take,
    take_optional_str,
    take_positive,
)
from packages.mech_catalogue.skills.tool_metadata_abci.rounds import ToolMetadataAbciApp
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    CROSS_PERIOD_DEFAULTS,
    Event,
)
from packages.valory.skills.abstract_round_abci.base import AbciApp
from packages.valory.skills.abstract_round_abci.models import (
    BaseParams,
)
from packages.valory.skills.abstract_round_abci.models import (
    BenchmarkTool as BaseBenchmarkTool,
)
from packages.valory.skills.abstract_round_abci.models import Requests as BaseRequests
from packages.valory.skills.abstract_round_abci.models import (
    SharedState as BaseSharedState,
)

Requests = BaseRequests
BenchmarkTool = BaseBenchmarkTool

FETCH_VIA_GATEWAY = "gateway"
FETCH_VIA_IPFS_CONNECTION = "ipfs_connection"
FETCH_MODES = (FETCH_VIA_GATEWAY, FETCH_VIA_IPFS_CONNECTION)
#: the largest ``tools_page_size`` accepted: one ``GET /tools`` costs O(page size)
MAX_TOOLS_PAGE_SIZE = 1000
#: sub-folders of ``state_dir``: verified manifests by CID, the last agreed catalogue
MANIFESTS_FOLDER = "manifests"
CATALOGUES_FOLDER = "catalogues"
#: sub-folder of ``state_dir``: arguments derived from component code, by package CID
DERIVATIONS_FOLDER = "derivations"


def folder(path: Optional[str], *under: str) -> Optional[DirectoryStore]:
    """Open the store of a folder of the agent's state, created when missing.

    :param path: the folder (``state_dir``, a cache directory), or None.
    :param under: sub-folders of it.
    :return: the store, or None when ``path`` is None (nothing is kept).
    """
    return DirectoryStore(os.path.join(path, *under)) if path else None


class ToolMetadataParams(BaseParams):  # pylint: disable=too-many-instance-attributes
    """Parameters of the tool metadata skill (``models.params.args`` in skill.yaml).

    Every parameter has a default in skill.yaml and an environment override in the service.
    Wrong values raise :class:`ParameterError` at start-up, naming the parameter.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Read and validate the parameters.

        :param args: positional arguments of the model.
        :param kwargs: the ``args`` of the params model.
        :raises ParameterError: a parameter has a wrong value (the message names it).
        """
        self.chain_preset: Optional[str] = self._apply_chain_preset(kwargs)
        self.chain_id: int = take(kwargs, "chain_id", int)
        require(
            self.chain_id > 0,
            f"chain_id must be a positive EIP-155 chain id; got {self.chain_id}",
        )
        self.multicall2_address: str = take(kwargs, "multicall2_address", str)
        require(
            self.multicall2_address.startswith("0x")
            and len(self.multicall2_address) == 42,
            f"multicall2_address must be the 0x-prefixed address of Multicall2 on chain {self.chain_id}; "
            f"got {self.multicall2_address!r}",
        )
        raw_registries = take(kwargs, "registries", list)
        try:
            self.registry_sources: Tuple[RegistrySource, ...] = parse_registry_sources(
                raw_registries, self.chain_id
            )
        except RegistryConfigError as exc:
            raise ParameterError(str(exc)) from exc
        require(
            bool(self.registry_sources),
            "registries is empty; configure at least one registry to read",
        )
        self.marketplace: Optional[MarketplaceSource] = self._marketplace(kwargs)
        self.max_ids_per_registry: int = take_positive(
            kwargs, "max_ids_per_registry", int
        )
        self.multicall_batch_size: int = take_positive(
            kwargs, "multicall_batch_size", int
        )
        self.snapshot_block_interval: int = take_positive(
            kwargs, "snapshot_block_interval", int
        )
        self.ipfs_fetch_mode: str = take(kwargs, "ipfs_fetch_mode", str)
        require(
            self.ipfs_fetch_mode in FETCH_MODES,
            f"ipfs_fetch_mode must be one of {', '.join(FETCH_MODES)}; got {self.ipfs_fetch_mode!r}",
        )
        self.ipfs_gateway_url: str = take(kwargs, "ipfs_gateway_url", str).rstrip("/")
        require(
            self.ipfs_gateway_url.startswith(("http://", "https://")),
            f"ipfs_gateway_url must be an http(s) URL such as http://127.0.0.2:8080; got {self.ipfs_gateway_url!r}",
        )
        fallbacks = take(kwargs, "ipfs_fallback_gateway_urls", list, default=[])
        require(
            all(
                isinstance(url, str) and url.startswith(("http://", "https://"))
                for url in fallbacks
            ),
            "ipfs_fallback_gateway_urls must be a list of http(s) gateway URLs, tried in "
            f"this order after ipfs_gateway_url; got {fallbacks!r}",
        )
        self.ipfs_fallback_gateway_urls: Tuple[str, ...] = tuple(
            str(url).rstrip("/") for url in fallbacks
        )
        self.fetch_timeout_seconds: float = take_positive(
            kwargs, "fetch_timeout_seconds", float
        )
        self.fetch_retries: int = take(kwargs, "fetch_retries", int)
        require(
            self.fetch_retries >= 0,
            f"fetch_retries must be >= 0; got {self.fetch_retries}",
        )
        self.fetch_backoff_initial_seconds: float = take_positive(
            kwargs, "fetch_backoff_initial_seconds", float
        )
        self.fetch_backoff_factor: float = take_positive(
            kwargs, "fetch_backoff_factor", float
        )
        require(
            self.fetch_backoff_factor >= 1.0,
            f"fetch_backoff_factor must be >= 1; got {self.fetch_backoff_factor}",
        )
        self.fetch_backoff_max_seconds: float = take_positive(
            kwargs, "fetch_backoff_max_seconds", float
        )
        self.fetch_concurrency: int = take_positive(kwargs, "fetch_concurrency", int)
        self.max_manifest_bytes: int = take_positive(kwargs, "max_manifest_bytes", int)
        self.manifest_cache_dir: Optional[str] = take_optional_str(
            kwargs, "manifest_cache_dir"
        )
        self.state_dir: Optional[str] = take_optional_str(kwargs, "state_dir")
        if self.manifest_cache_dir is None and self.state_dir:
            self.manifest_cache_dir = os.path.join(self.state_dir, MANIFESTS_FOLDER)
        self.fetch_round_timeout_seconds: float = take_positive(
            kwargs, "fetch_round_timeout_seconds", float
        )
        #: the registry snapshot round's own timeout: its read costs one eth_call per
        #: multicall_batch_size ids, so it grows with max_ids_per_registry (a 30 s round
        #: timeout restarted the read of 20,000 ids for ever on a loaded machine)
        self.snapshot_round_timeout_seconds: float = take_positive(
            kwargs, "snapshot_round_timeout_seconds", float
        )
        self.catalogue_max_age_seconds: float = take_positive(
            kwargs, "catalogue_max_age_seconds", float
        )
        self.tools_page_size: int = take_positive(kwargs, "tools_page_size", int)
        require(
            self.tools_page_size <= MAX_TOOLS_PAGE_SIZE,
            f"tools_page_size must be at most {MAX_TOOLS_PAGE_SIZE} (one GET /tools "
            f"costs O(page size) on the agent's loop); got {self.tools_page_size}",
        )
        require(
            self.worst_fetch_seconds() < self.fetch_round_timeout_seconds,
            f"one manifest may take {self.worst_fetch_seconds():.1f}s to fail (2 CIDs x "
            f"(1 + fetch_retries={self.fetch_retries}) x fetch_timeout_seconds="
            f"{self.fetch_timeout_seconds} plus backoff), not less than "
            f"fetch_round_timeout_seconds={self.fetch_round_timeout_seconds}: the fetch round "
            "would time out every period; lower the retries or timeout, or raise the round timeout",
        )
        super().__init__(*args, **kwargs)

    def worst_fetch_seconds(self) -> float:
        """Compute how long one unfetchable manifest may take before it counts as failed.

        Payload sizes need no such check: every payload of this app is bounded by
        construction (``payloads.MAX_PAYLOAD_BYTES``), whatever ``max_ids_per_registry``,
        the number of mechs or of tools.

        :return: seconds, for both CIDs (dag-pb, raw) with every retry and backoff.
        """
        delays = backoff_delays(
            self.fetch_retries,
            self.fetch_backoff_initial_seconds,
            self.fetch_backoff_factor,
            self.fetch_backoff_max_seconds,
        )
        return 2 * ((1 + self.fetch_retries) * self.fetch_timeout_seconds + sum(delays))

    @property
    def ipfs_gateway_urls(self) -> Tuple[str, ...]:
        """Get the IPFS gateways in order of preference (configuration only, never chain data).

        :return: ``ipfs_gateway_url`` then ``ipfs_fallback_gateway_urls``, without repeats.
        """
        return tuple(
            dict.fromkeys((self.ipfs_gateway_url,) + self.ipfs_fallback_gateway_urls)
        )

    @staticmethod
    def _apply_chain_preset(kwargs: Dict[str, Any]) -> Optional[str]:
        """Replace the chain's parameters by those of ``chain_preset``, when it is set.

        The preset (``mech_catalogue_core.chain.presets``, each value citing Olas's
        published deployment) sets ``chain_id``, ``multicall2_address``, ``registries``,
        the ``marketplace_*`` and ``legacy_mech_factory_*`` addresses and first blocks,
        and the IPFS gateways; null leaves every parameter as configured.

        :param kwargs: the params model's keyword arguments (updated in place).
        :return: the preset's name, or None.
        :raises ParameterError: for a name that is no preset, listing the presets.
        """
        name = take(kwargs, "chain_preset", (str, NoneType), default=None)
        if not name:
            return None
        try:
            preset = chain_preset(name)
        except UnknownChainPreset as exc:
            raise ParameterError(f"chain_preset: {exc}") from exc
        kwargs.update(skill_parameters(preset))
        return preset.name

    def _marketplace(self, kwargs: Dict[str, Any]) -> Optional[MarketplaceSource]:
        """Read the ``marketplace_*`` and ``legacy_mech_factory_*`` parameters.

        :param kwargs: the skill parameters.
        :return: the chain's MechMarketplace and / or legacy mech factory to read facts
            from, None when both addresses are null (no facts are read then).
        :raises ParameterError: naming the bad parameter.
        """
        address = take_optional_str(kwargs, "marketplace_address")
        first_block = take(kwargs, "marketplace_first_block", int)
        confirmations = take(kwargs, "marketplace_confirmations", int)
        max_range = take_positive(kwargs, "marketplace_max_log_range", int)
        legacy = take_optional_str(kwargs, "legacy_mech_factory_address")
        legacy_first = take(kwargs, "legacy_mech_factory_first_block", int)
        if not address and not legacy:
            return None
        try:
            return MarketplaceSource(
                self.chain_id,
                address or "",
                first_block=first_block,
                legacy_factory=legacy or "",
                legacy_first_block=legacy_first,
                confirmations=confirmations,
                max_range=max_range,
            )
        except MarketplaceConfigError as exc:
            raise ParameterError(f"marketplace_* parameters: {exc}") from exc


Params = ToolMetadataParams


class SharedState(BaseSharedState):  # pylint: disable=too-many-instance-attributes
    """Skill-wide state: the ABCI app, the manifest cache and the last agreed catalogue.

    :attr:`exposed` is the FSM's agreed catalogue, set only by :meth:`expose_if_agreed`;
    the HTTP API serves it (through :meth:`catalogue_view`), never the object under the
    agent-wide ``shared_state`` key, which any skill of the agent can overwrite.
    """

    abci_app_cls: Type[AbciApp] = ToolMetadataAbciApp

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Initialise the shared state.

        :param args: positional arguments.
        :param kwargs: keyword arguments.
        """
        super().__init__(*args, **kwargs)
        self.manifest_cache: ManifestCache = ManifestCache()
        #: arguments derived from component code, by package CID (domain.derive.from_chain)
        self.derivations = DerivationCache()
        self.exposed: Optional[ExposedCatalogue] = None
        self.candidate: Optional[Tuple[Catalogue, RegistrySnapshot]] = None
        #: the agreed views the candidate's views were selected after (GET /mechs in_views)
        self.candidate_incumbents: Optional[IncumbentViews] = None
        self._view: Optional[CatalogueView] = None
        #: this agent's snapshots and views documents by digest (payloads carry digests only)
        self.snapshots: DigestStore[RegistrySnapshot] = DigestStore()
        self.views: DigestStore[str] = DigestStore(keep=2)  # may be megabytes each
        self.catalogue_file = CatalogueFile(None)
        #: the last agreed catalogue read from disk at start-up (before this run agreed
        #: one), and its digest (checked on load; kept to avoid hashing it every period)
        self.kept_catalogue: Optional[Catalogue] = None
        self.kept_catalogue_digest = ""
        #: digest -> how fetching it failed on this agent (transport detail; never agreed)
        self.fetch_diagnostics: Dict[str, str] = {}
        #: digests whose fetch failed on this agent, asked for last (not those the
        #: budget never reached: ``fetching.still_failing``)
        self.failing_digests: FrozenSet[str] = frozenset()
        # how far this agent has read MechMarketplace CreateMech logs (rebuilt from
        # marketplace_first_block after a restart; the result does not depend on it)
        self.marketplace_checkpoint: Optional[DiscoveryCheckpoint] = None
        #: which mechs' facts calls are read apart from the others' (learnt from this
        #: agent's facts reads; ``chain.read_apart``): an honest mech left unread beside
        #: strangers' failing getters is read alone the next period. Forgotten when this
        #: agent's last catalogue was not agreed (:meth:`read_afresh`)
        self.mechs_read_apart = MechsReadApart()
        #: the IPFS gateways' health and adaptive limit (``FetchManifestsBehaviour.gateway_pool``)
        self.gateways: Optional[GatewayPool] = None
        #: ServiceRegistry addresses of ComplementaryServiceMetadata sources, read once
        #: (immutable on chain; ``domain.chain.registry.HolderCache``)
        self.supply_holders: HolderCache = {}
        #: each ``all`` source's supply at this agent's last read (a guess that decides
        #: which ids the first batch reads, never which are kept; ``SupplyHints``)
        self.supply_hints: SupplyHints = {}

    def setup(self) -> None:
        """Set up the round sequence, timeouts from the parameters, and the manifest cache."""
        super().setup()
        params = self.context.params
        ToolMetadataAbciApp.event_to_timeout[Event.ROUND_TIMEOUT] = (
            params.round_timeout_seconds
        )
        ToolMetadataAbciApp.event_to_timeout[Event.FETCH_TIMEOUT] = (
            params.fetch_round_timeout_seconds
        )
        ToolMetadataAbciApp.event_to_timeout[Event.SNAPSHOT_TIMEOUT] = (
            params.snapshot_round_timeout_seconds
        )
        self.manifest_cache = ManifestCache(folder(params.manifest_cache_dir))
        self.derivations = DerivationCache(folder(params.state_dir, DERIVATIONS_FOLDER))
        self.load_kept_catalogue(params.state_dir)
        db = self.round_sequence.latest_synchronized_data.db
        missing = {
            k: v for k, v in CROSS_PERIOD_DEFAULTS.items() if db.get(k, None) is None
        }
        if missing:
            db.update(**missing)

    def load_kept_catalogue(self, state_dir: Optional[str]) -> Optional[Catalogue]:
        """Load the last agreed catalogue kept under ``state_dir`` (at start-up).

        It serves as the previous catalogue of the next refresh only once the agents'
        agreed ``catalogue_digest`` is its digest (``FetchManifestsBehaviour``), so an agent
        that restarted builds kept last-good entries as the agents that did not.

        :param state_dir: the ``state_dir`` parameter (None: nothing is kept).
        :return: the catalogue loaded, None when there is none (or it failed its check).
        """
        self.catalogue_file = CatalogueFile(
            folder(state_dir, CATALOGUES_FOLDER), OneWorker("catalogue-file")
        )
        self.kept_catalogue, why = self.catalogue_file.load()
        self.kept_catalogue_digest = ""
        if self.kept_catalogue is not None:
            self.kept_catalogue_digest = self.kept_catalogue.digest()
            self.context.logger.info(
                f"kept catalogue {self.kept_catalogue_digest} loaded from {state_dir}"
            )
        elif state_dir:
            self.context.logger.info(f"no kept catalogue loaded: {why}")
        return self.kept_catalogue

    def read_afresh(self) -> bool:
        """Forget the read-apart memory when this agent's last catalogue was not agreed.

        A getter may answer by the gas it is given (Multicall2 gives each call 63/64 of
        what is left), so the facts read depend on the batches, and the batches on each
        agent's own memory (``chain.read_apart``; a restarted agent has none): agents
        with different memories build different catalogues, and with the last agreed
        facts kept (``chain.facts_kept``) they would never agree again (adv29zv2 P1).
        So an agent whose candidate was not exposed (no majority, the round timed out,
        or the others agreed on another catalogue) reads its next period with a new
        memory and without kept facts (``FetchManifestsBehaviour``): when a period
        fails to agree, every agent reads the next one alike, from the same block
        through nodes answering the same, and agrees; a lone agent out of step joins
        at the latest when its vote is needed.

        :return: True when the memory was forgotten (the caller keeps no facts).
        """
        if self.candidate is None:
            return False
        self.mechs_read_apart = MechsReadApart()
        self.candidate = None
        return True

    def expose_if_agreed(self, catalogue_digest: str, period: int) -> bool:
        """Expose this agent's candidate catalogue agent-wide when it is the agreed one.

        Called by ``FetchManifestsRound`` when it ends with DONE (the behaviour itself is
        replaced as soon as the round ends, so it cannot do this).

        :param catalogue_digest: the digest the agents agreed on.
        :param period: the current period count.
        :return: True when exposed; False when this agent built something else (the
            previously exposed catalogue stays).
        """
        if self.candidate is None:
            return False
        catalogue, snapshot = self.candidate
        digest = catalogue.digest()
        if digest != catalogue_digest:
            self.context.logger.warning(
                f"the agents agreed on catalogue {catalogue_digest}, this agent built {digest}; "
                "keeping the previously exposed catalogue"
            )
            return False
        self.exposed = ExposedCatalogue(
            catalogue=catalogue,
            catalogue_digest=digest,
            snapshot_digest=snapshot.digest(),
            block_number=snapshot.block_number,
            agreed_at=time.time(),
            period=period,
            incumbents=self.candidate_incumbents,
        )
        self.context.shared_state[SHARED_STATE_KEY] = self.exposed
        self.candidate = None
        try:
            self.catalogue_view()
        except Exception as exc:  # pylint: disable=broad-except
            # the HTTP handler builds it again under its guard and answers 500 meanwhile
            self.context.logger.error(
                f"could not index catalogue {digest} for the HTTP API: {exc!r}"
            )
        self.kept_catalogue, self.kept_catalogue_digest = None, ""
        # on a writer thread: this runs while the agent handles Tendermint's block, and
        # serialising 20,000 registrations took a minute (CatalogueFile)
        self.catalogue_file.save_in_background(catalogue, self._not_saved)
        self.context.logger.info(
            f"catalogue {digest} exposed under shared_state[{SHARED_STATE_KEY!r}]: "
            f"{len(catalogue.mechs)} mechs, {len(catalogue.tool_names())} tools, "
            f"{len(catalogue.errors())} errors, {len(catalogue.collisions())} collisions"
        )
        return True

    def _not_saved(self) -> None:
        """Warn that the agreed catalogue could not be written (called on the writer thread)."""
        self.context.logger.warning(
            f"could not write the agreed catalogue to {self.catalogue_file.store!r}; "
            "after a restart this agent may build kept last-good entries differently"
        )

    def catalogue_view(self) -> Optional[CatalogueView]:
        """Get the HTTP API's view of :attr:`exposed`, built once per agreed catalogue.

        :return: the view (None before the first agreement).
        """
        exposed = self.exposed
        if exposed is None:
            return None
        if self._view is None or self._view.exposed is not exposed:
            self._view = CatalogueView.build(exposed)
        return self._view
