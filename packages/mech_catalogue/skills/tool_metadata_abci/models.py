"""Models of the tool metadata skill: parameters (validated at start-up) and shared state."""

import os
import time
from typing import Any, Dict, Optional, Tuple, Type

from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.exposure import (
    SHARED_STATE_KEY,
    PublishedCatalogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.fetching import (
    ManifestCache,
    backoff_delays,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.store import (
    CatalogueFile,
    DigestStore,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.registry import (
    RegistryConfigError,
    RegistrySource,
    parse_registry_sources,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.snapshot import (
    RegistrySnapshot,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.http_api.routes import (
    CatalogueView,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.ipfs.gateways import (
    GatewayPool,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.catalogue import (
    Catalogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.publish_params import (
    PublishSettings,
    read_publish_settings,
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


class ParameterError(ValueError):
    """A skill parameter is wrong; the message names it and says what to set."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ParameterError(message)


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
        self.chain_id: int = self._ensure("chain_id", kwargs, int)
        _require(
            self.chain_id > 0,
            f"chain_id must be a positive EIP-155 chain id; got {self.chain_id}",
        )
        self.multicall2_address: str = self._ensure("multicall2_address", kwargs, str)
        _require(
            self.multicall2_address.startswith("0x")
            and len(self.multicall2_address) == 42,
            f"multicall2_address must be the 0x-prefixed address of Multicall2 on chain {self.chain_id}; "
            f"got {self.multicall2_address!r}",
        )
        raw_registries = self._ensure("registries", kwargs, list)
        try:
            self.registry_sources: Tuple[RegistrySource, ...] = parse_registry_sources(
                raw_registries, self.chain_id
            )
        except RegistryConfigError as exc:
            raise ParameterError(str(exc)) from exc
        _require(
            bool(self.registry_sources),
            "registries is empty; configure at least one registry to read",
        )
        self.max_ids_per_registry: int = self._positive_int(
            "max_ids_per_registry", kwargs
        )
        self.multicall_batch_size: int = self._positive_int(
            "multicall_batch_size", kwargs
        )
        self.snapshot_block_interval: int = self._positive_int(
            "snapshot_block_interval", kwargs
        )
        self.ipfs_fetch_mode: str = self._ensure("ipfs_fetch_mode", kwargs, str)
        _require(
            self.ipfs_fetch_mode in FETCH_MODES,
            f"ipfs_fetch_mode must be one of {', '.join(FETCH_MODES)}; got {self.ipfs_fetch_mode!r}",
        )
        self.ipfs_gateway_url: str = self._ensure(
            "ipfs_gateway_url", kwargs, str
        ).rstrip("/")
        _require(
            self.ipfs_gateway_url.startswith(("http://", "https://")),
            f"ipfs_gateway_url must be an http(s) URL such as http://127.0.0.2:8080; got {self.ipfs_gateway_url!r}",
        )
        fallbacks = kwargs.pop("ipfs_fallback_gateway_urls", None) or []
        _require(
            isinstance(fallbacks, list)
            and all(
                isinstance(url, str) and url.startswith(("http://", "https://"))
                for url in fallbacks
            ),
            "ipfs_fallback_gateway_urls must be a list of http(s) gateway URLs, tried in "
            f"this order after ipfs_gateway_url; got {fallbacks!r}",
        )
        self.ipfs_fallback_gateway_urls: Tuple[str, ...] = tuple(
            str(url).rstrip("/") for url in fallbacks
        )
        self.fetch_timeout_seconds: float = self._positive_float(
            "fetch_timeout_seconds", kwargs
        )
        self.fetch_retries: int = self._ensure("fetch_retries", kwargs, int)
        _require(
            self.fetch_retries >= 0,
            f"fetch_retries must be >= 0; got {self.fetch_retries}",
        )
        self.fetch_backoff_initial_seconds: float = self._positive_float(
            "fetch_backoff_initial_seconds", kwargs
        )
        self.fetch_backoff_factor: float = self._positive_float(
            "fetch_backoff_factor", kwargs
        )
        _require(
            self.fetch_backoff_factor >= 1.0,
            f"fetch_backoff_factor must be >= 1; got {self.fetch_backoff_factor}",
        )
        self.fetch_backoff_max_seconds: float = self._positive_float(
            "fetch_backoff_max_seconds", kwargs
        )
        self.fetch_concurrency: int = self._positive_int("fetch_concurrency", kwargs)
        self.max_manifest_bytes: int = self._positive_int("max_manifest_bytes", kwargs)
        self.manifest_cache_dir: Optional[str] = self._ensure(
            "manifest_cache_dir", kwargs, Optional[str]
        )
        self.state_dir: Optional[str] = self._ensure("state_dir", kwargs, Optional[str])
        if self.manifest_cache_dir is None and self.state_dir:
            self.manifest_cache_dir = os.path.join(self.state_dir, MANIFESTS_FOLDER)
        self.fetch_round_timeout_seconds: float = self._positive_float(
            "fetch_round_timeout_seconds", kwargs
        )
        self.catalogue_max_age_seconds: float = self._positive_float(
            "catalogue_max_age_seconds", kwargs
        )
        self.tools_page_size: int = self._positive_int("tools_page_size", kwargs)
        _require(
            self.tools_page_size <= MAX_TOOLS_PAGE_SIZE,
            f"tools_page_size must be at most {MAX_TOOLS_PAGE_SIZE} (one GET /tools "
            f"costs O(page size) on the agent's loop); got {self.tools_page_size}",
        )
        self.mech_addresses: Dict[str, str] = self._ensure(
            "mech_addresses", kwargs, dict
        )
        for key, value in self.mech_addresses.items():
            _require(
                isinstance(value, str) and value.startswith("0x") and len(value) == 42,
                f"mech_addresses[{key!r}] must be a 0x-prefixed 20-byte address; got {value!r}",
            )
        _require(
            self.worst_fetch_seconds() < self.fetch_round_timeout_seconds,
            f"one manifest may take {self.worst_fetch_seconds():.1f}s to fail (2 CIDs x "
            f"(1 + fetch_retries={self.fetch_retries}) x fetch_timeout_seconds="
            f"{self.fetch_timeout_seconds} plus backoff), not less than "
            f"fetch_round_timeout_seconds={self.fetch_round_timeout_seconds}: the fetch round "
            "would time out every period; lower the retries or timeout, or raise the round timeout",
        )
        # publish_* parameters (publish_params.py); on_chain_service_id stays for BaseParams
        self.publish: PublishSettings = read_publish_settings(
            kwargs, kwargs.get("on_chain_service_id")
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

    def _positive_int(self, key: str, kwargs: Dict[str, Any]) -> int:
        value = self._ensure(key, kwargs, int)
        _require(value > 0, f"{key} must be a positive integer; got {value}")
        return value

    def _positive_float(self, key: str, kwargs: Dict[str, Any]) -> float:
        value = self._ensure(key, kwargs, float)
        _require(
            value > 0,
            f"{key} must be a positive number of seconds or a factor; got {value}",
        )
        return float(value)


Params = ToolMetadataParams


class SharedState(BaseSharedState):
    """Skill-wide state: the ABCI app, the manifest cache and the last agreed catalogue.

    :attr:`published` is the FSM's agreed catalogue, set only by :meth:`publish_if_agreed`;
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
        self.published: Optional[PublishedCatalogue] = None
        self.candidate: Optional[Tuple[Catalogue, RegistrySnapshot]] = None
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
        #: the IPFS gateways' health and adaptive limit (``FetchManifestsBehaviour.gateway_pool``)
        self.gateways: Optional[GatewayPool] = None

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
        self.manifest_cache = ManifestCache(params.manifest_cache_dir)
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
            os.path.join(state_dir, CATALOGUES_FOLDER) if state_dir else None
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

    def publish_if_agreed(self, catalogue_digest: str, period: int) -> bool:
        """Expose this agent's candidate catalogue agent-wide when it is the agreed one.

        Called by ``FetchManifestsRound`` when it ends with DONE (the behaviour itself is
        replaced as soon as the round ends, so it cannot do this).

        :param catalogue_digest: the digest the agents agreed on.
        :param period: the current period count.
        :return: True when published; False when this agent built something else (the
            previously published catalogue stays).
        """
        if self.candidate is None:
            return False
        catalogue, snapshot = self.candidate
        digest = catalogue.digest()
        if digest != catalogue_digest:
            self.context.logger.warning(
                f"the agents agreed on catalogue {catalogue_digest}, this agent built {digest}; "
                "keeping the previously published catalogue"
            )
            return False
        self.published = PublishedCatalogue(
            catalogue=catalogue,
            catalogue_digest=digest,
            snapshot_digest=snapshot.digest(),
            block_number=snapshot.block_number,
            agreed_at=time.time(),
            period=period,
        )
        self.context.shared_state[SHARED_STATE_KEY] = self.published
        self.candidate = None
        try:
            self.catalogue_view()
        except Exception as exc:  # pylint: disable=broad-except
            # the HTTP handler builds it again under its guard and answers 500 meanwhile
            self.context.logger.error(
                f"could not index catalogue {digest} for the HTTP API: {exc!r}"
            )
        self.kept_catalogue, self.kept_catalogue_digest = None, ""
        if (
            self.catalogue_file.save(catalogue) is None
            and self.catalogue_file.directory
        ):
            self.context.logger.warning(
                f"could not write the agreed catalogue to {self.catalogue_file.directory}; "
                "after a restart this agent may build kept last-good entries differently"
            )
        self.context.logger.info(
            f"catalogue {digest} published under shared_state[{SHARED_STATE_KEY!r}]: "
            f"{len(catalogue.mechs)} mechs, {len(catalogue.tool_names())} tools, "
            f"{len(catalogue.errors())} errors, {len(catalogue.collisions())} collisions"
        )
        return True

    def catalogue_view(self) -> Optional[CatalogueView]:
        """Get the HTTP API's view of :attr:`published`, built once per agreed catalogue.

        :return: the view (None before the first agreement).
        """
        published = self.published
        if published is None:
            return None
        if self._view is None or self._view.published is not published:
            self._view = CatalogueView.build(published)
        return self._view
