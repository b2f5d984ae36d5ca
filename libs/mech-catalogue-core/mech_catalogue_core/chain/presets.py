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

"""Chain presets: the Olas contracts, first blocks and gateways of each chain, with sources.

Pure data and a lookup, shared by the CLI (``--chain``) and the catalogue skill
(``chain_preset``). Every value names where it was read (:data:`SOURCES`); nothing here
is guessed. A value a chain does not have is ``""`` (address) or ``0`` (block), and
:meth:`ChainPreset.require` turns asking for it into a :class:`PresetValueMissing` that
names the option to pass instead.

Sources (the ids used in :attr:`ChainPreset.sources`):

=====================  ==============================================================
id                     document
=====================  ==============================================================
``registries``         ``valory-xyz/autonolas-registries/docs/configuration.json``
                       (AgentRegistry, ComponentRegistry, RegistriesManager,
                       ComplementaryServiceMetadata per chain)
``legacy_mech``        ``valory-xyz/ai-registry-mech/docs/configuration_v0.json``
                       (the legacy mech AgentRegistry and AgentFactory)
``marketplace``        ``valory-xyz/ai-registry-mech/docs/configuration.json``, commit
                       11414faf (MechMarketplaceProxy and the mech factories)
``mech_client``        mech-client 0.24.1 ``mech_client/configs/mechs.json``
                       (``mech_marketplace_contract``, ``rpc_url``, ``chain_id``)
``subgraph``           valory-xyz/autonolas-subgraph
                       ``subgraphs/marketplace/subgraph.<chain>.yaml`` ``startBlock``
                       of the MechMarketplace / legacy AgentFactory data sources
``multicall3``         mds1/multicall ``README.md`` deployments: Multicall3 at one
                       address on every chain listed (it keeps Multicall2's
                       ``tryBlockAndAggregate``, the call the readers make)
``gateways``           the gateway mech-client and the skill's defaults use
                       (``gateway.autonolas.tech``), then two public ones from
                       ipfs/public-gateway-checker ``gateways.json``
``beacon``             ethereum/consensus-specs ``configs/mainnet.yaml``
                       (``SLOTS_PER_EPOCH: 32``, ``SECONDS_PER_SLOT: 12``) and, for
                       Gnosis, the Gnosis Beacon Chain's launch parameters
                       (forum.gnosis.io, GIP-16: 16 slots per epoch, 5-second
                       slots): a block is final once the checkpoint of the epoch
                       after it is, at most three epochs of slots later, and a chain
                       mines at most one block per slot
``op_finality``        ethereum-optimism docs ``stack/transactions/
                       transaction-finality``: an OP Stack block is final once the
                       L1 block holding its batch is, "typically around 20-30
                       minutes"; 2-second L2 blocks: 30 minutes is 900 blocks
``arbitrum_finality``  OffchainLabs/arbitrum-docs ``how-arbitrum-works/reference/
                       finality-and-reorgs``: an Arbitrum One block is final when the
                       parent-chain block carrying its batch is ("time to post the
                       batch, plus Ethereum finality", ~13 min); 250 ms blocks
                       (``l2BlockTimeMs``). The batch's posting time on Arbitrum One
                       is not documented (Nitro's ``batch-poster.max-delay`` default
                       is an hour): 30 minutes, as the OP Stack's figure, leaves ~11
                       minutes for it beyond three epochs of L1 slots (19.2 min):
                       7,200 blocks at most four a second
``polygon_finality``   Polygon docs ``pos/concepts/finality``: since Heimdall v2 a
                       milestone finalizes Bor blocks "within 2 to 5 seconds";
                       checkpoints to Ethereum cover at least 256 blocks. A stalled
                       milestone has no documented bound: 256 two-second blocks (the
                       checkpoint range, the depth applications waited before
                       milestones, PIP-11), about 8.5 minutes. Bor targets 2-second
                       blocks with no documented floor: 1 second is taken as the
                       least
``celo_finality``      Celo specs ``finality`` (an OP Stack chain since block
                       31,056,500, March 2025: a block is final when derived from
                       finalized Ethereum blocks) and ``specs/deployments`` (block
                       period 1 second): 30 minutes, as ``op_finality``, is 1,800
                       blocks
``default``            none read for the chain: :data:`DEFAULT_FINAL_DEPTH`
``fee_cap``            a design choice, not a reading: the most wei per gas a
                       transaction is signed for by default (``--max-fee-per-gas``),
                       so that one transaction at the default ``--max-gas``
                       (1,000,000) costs at most 0.1 of the coin on Ethereum and
                       Gnosis (100 gwei), 0.001 ETH on the Ethereum L2s (1 gwei),
                       1 POL or CELO (1,000 gwei). No fee history was read for
                       these figures: a fee spike over them is refused, and the
                       user who wants to pay it passes ``--max-fee-per-gas``
``fee_cap_default``    the same rule for a chain without a preset (the devnet, a
                       custom ``--rpc``): :data:`DEFAULT_MAX_FEE_PER_GAS`
``bor_tip``            Polygon PIP-35: Bor's transaction pool refuses a tip
                       (``maxPriorityFeePerGas``) under 25 gwei, whatever its
                       ``txpool.pricelimit`` says (0xPolygon/bor#1280; erigon
                       ``txpoolcfg.BorDefaultTxPoolPriceLimit = 25 * common.GWei``;
                       the node's answer: "transaction gas price below minimum: gas
                       tip cap X, minimum needed 25000000000")
``geth_tip``           go-ethereum ``core/txpool/legacypool`` ``DefaultConfig``
                       ``PriceLimit: 1`` and ``txpool.ValidateTransaction`` (a tip
                       under ``MinTip`` is "underpriced"): a pool of geth's defaults
                       (op-geth on the OP Stack chains, erigon's ``MinFeeCap`` too)
                       refuses a zero tip, so 1 wei is signed
``arbitrum_tip``       OffchainLabs/arbitrum-docs ``chain-config/costs/
                       priority-fees``: Arbitrum One collects no tip (ArbOS 61 makes
                       it possible only after a Constitutional DAO vote) and its
                       sequencer orders first come, first served: a zero tip is taken
``tip_default``        no preset (the devnet's anvil takes a zero tip; a custom
                       ``--rpc`` whose pool wants more refuses the transaction in
                       its own words, said by the call): :data:`DEFAULT_MIN_PRIORITY_FEE_PER_GAS`
=====================  ==============================================================
"""

from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Mapping, Tuple

from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
    REGISTRY_OLAS_AGENT,
)

#: the name ``--chain`` takes for the running local devnet (its values come from the
#: devnet's own ``devnet.json``, not from this table)
DEVNET = "devnet"

SOURCES: Mapping[str, str] = {
    "registries": "valory-xyz/autonolas-registries/docs/configuration.json",
    "legacy_mech": "valory-xyz/ai-registry-mech/docs/configuration_v0.json",
    "marketplace": "valory-xyz/ai-registry-mech/docs/configuration.json (11414faf)",
    "mech_client": "mech-client 0.24.1 mech_client/configs/mechs.json",
    "subgraph": "valory-xyz/autonolas-subgraph/subgraphs/marketplace/"
    "subgraph.<chain>.yaml startBlock",
    "multicall3": "mds1/multicall README.md deployments (Multicall3)",
    "gateways": "gateway.autonolas.tech (mech-client, the skill's default); "
    "ipfs/public-gateway-checker gateways.json",
    "beacon": "ethereum/consensus-specs configs/mainnet.yaml SLOTS_PER_EPOCH; "
    "Gnosis Beacon Chain launch parameters (GIP-16): three epochs of slots",
    "op_finality": "ethereum-optimism docs stack/transactions/transaction-finality "
    "(final with the L1 block of its batch, about 30 min: 900 two-second blocks)",
    "arbitrum_finality": "OffchainLabs/arbitrum-docs how-arbitrum-works/reference/"
    "finality-and-reorgs (final with the L1 block of its batch: the batch's posting "
    "time plus Ethereum finality; 250 ms blocks): 30 min, 7,200 blocks (the posting "
    "time on Arbitrum One is not documented: a conservative allowance)",
    "polygon_finality": "Polygon docs pos/concepts/finality (milestones finalize "
    "within 2-5 s since Heimdall v2; checkpoints every 256 blocks at least): 256 "
    "two-second blocks, a stalled milestone having no documented bound",
    "celo_finality": "Celo specs finality and specs/deployments (an OP Stack L2 since "
    "March 2025, final with finalized Ethereum blocks; 1-second blocks): 30 min, "
    "1,800 blocks",
    "default": "no finality source read for this chain (the default depth)",
    "fee_cap": "design: one transaction at the default --max-gas (1,000,000) costs "
    "at most 0.1 ETH or xDAI (100 gwei), 0.001 ETH on an Ethereum L2 (1 gwei), 1 POL "
    "or CELO (1,000 gwei); no fee history read",
    "fee_cap_default": "design: no preset for this chain (100 gwei, as Ethereum's)",
    "bor_tip": "Polygon PIP-35 (0xPolygon/bor#1280; erigon txpoolcfg "
    "BorDefaultTxPoolPriceLimit = 25 gwei): Bor's pool refuses a tip under 25 gwei",
    "geth_tip": "go-ethereum core/txpool/legacypool DefaultConfig PriceLimit 1 and "
    "txpool.ValidateTransaction: a tip under 1 wei is refused as underpriced",
    "arbitrum_tip": "OffchainLabs/arbitrum-docs chain-config/costs/priority-fees: "
    "Arbitrum One collects no tip; a zero tip is taken",
    "tip_default": "no preset for this chain: no tip (the devnet's anvil takes none)",
}

#: blocks below the head at which a transaction counts as final on a chain no preset
#: (or ``--final-depth``) says more of: the devnet and a custom ``--rpc`` (Ethereum's
#: two epochs of 32 slots)
DEFAULT_FINAL_DEPTH = 64

#: wei in one gwei
GWEI = 10**9
#: the most wei per gas a transaction is signed for on a chain without a preset (the
#: devnet, a custom ``--rpc``), unless ``--max-fee-per-gas`` says otherwise (source
#: ``fee_cap_default``)
DEFAULT_MAX_FEE_PER_GAS = 100 * GWEI
#: the tip (``maxPriorityFeePerGas``) signed on a chain without a preset (source
#: ``tip_default``): none
DEFAULT_MIN_PRIORITY_FEE_PER_GAS = 0

#: Multicall3, deployed at this address on every chain below (source ``multicall3``)
MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11"
#: the Olas gateway, then public fallbacks (source ``gateways``)
OLAS_GATEWAY = "https://gateway.autonolas.tech"
PUBLIC_GATEWAYS = ("https://ipfs.io", "https://dweb.link")


class UnknownChainPreset(ValueError):
    """No preset has this name; the message lists the names there are."""


class PresetValueMissing(ValueError):
    """A preset lacks a contract or value the command needs; the message names the option."""


@dataclass(frozen=True)
class ChainPreset:  # pylint: disable=too-many-instance-attributes
    """What one chain's Olas deployment is, each value with its source.

    Addresses are 0x-prefixed EIP-55 strings as published ("" where the chain has none);
    blocks are block numbers (0: unknown, a log scan would start at genesis).

    :param name: the preset's name (``--chain NAME``).
    :param chain_id: EIP-155 chain id.
    :param rpc_url: a public JSON-RPC URL ("" when no source names one).
    :param multicall2: the Multicall2-compatible contract the readers batch calls through.
    The three registry fields are named by their registry kind
    (:class:`~mech_catalogue_core.model.vocabulary.RegistryKind`), so
    ``preset.require(kind, ...)`` finds the registry of a kind.

    :param olas_agent_registry: Olas AgentRegistry (Ethereum mainnet only).
    :param component_registry: Olas ComponentRegistry (``derive --component``).
    :param registries_manager: RegistriesManager (updates of the AgentRegistry's hashes).
    :param legacy_mech_registry: the legacy mech AgentRegistry.
    :param legacy_mech_factory: the legacy AgentFactory (its ``CreateMech`` events).
    :param legacy_mech_factory_first_block: the block its log scan starts at.
    :param complementary_service_metadata: ComplementaryServiceMetadata.
    :param mech_marketplace: MechMarketplace (the proxy: the address requests go to).
    :param mech_marketplace_first_block: the block its ``CreateMech`` log scan starts at.
    :param mech_factories: ``(factory contract name, address)`` of every mech factory.
    :param ipfs_gateway: the IPFS HTTP gateway manifests are fetched from.
    :param fallback_gateways: further gateways, tried in order.
    :param final_depth: blocks below the head at which a mined transaction counts as
        final (no reorg the chain may still make gives it back): a call pays no
        other request while its own could be mined in a fork within this depth
        (the MCP server's ``--final-depth`` overrides it).
    :param block_seconds: the least seconds between two of the chain's blocks (from the
        same source as ``final_depth``): how soon a final block can come at the
        earliest (0.0: not known, as for a chain mining on demand).
    :param max_fee_per_gas: the most wei per gas a transaction is signed for unless
        ``--max-fee-per-gas`` says otherwise (source ``fee_cap``: a bound on what one
        transaction may cost, not a reading of the chain's fees).
    :param min_priority_fee_wei: the tip (``maxPriorityFeePerGas``) every transaction
        is signed with, wei per gas: the least the chain's nodes take (0 where a zero
        tip is mined; Polygon's Bor refuses under 25 gwei), within
        ``--max-fee-per-gas``.
    :param sources: field name -> source id (a key of :data:`SOURCES`), for every field
        that holds a value.
    """

    name: str
    chain_id: int
    rpc_url: str = ""
    multicall2: str = MULTICALL3
    olas_agent_registry: str = ""
    component_registry: str = ""
    registries_manager: str = ""
    legacy_mech_registry: str = ""
    legacy_mech_factory: str = ""
    legacy_mech_factory_first_block: int = 0
    complementary_service_metadata: str = ""
    mech_marketplace: str = ""
    mech_marketplace_first_block: int = 0
    mech_factories: Tuple[Tuple[str, str], ...] = ()
    ipfs_gateway: str = OLAS_GATEWAY
    fallback_gateways: Tuple[str, ...] = PUBLIC_GATEWAYS
    final_depth: int = DEFAULT_FINAL_DEPTH
    block_seconds: float = 0.0
    max_fee_per_gas: int = DEFAULT_MAX_FEE_PER_GAS
    min_priority_fee_wei: int = DEFAULT_MIN_PRIORITY_FEE_PER_GAS
    sources: Mapping[str, str] = field(default_factory=dict)

    def registries(self) -> List[Dict[str, Any]]:
        """Return the registries to read, as the skill's ``registries`` parameter holds them.

        :return: ``[{"kind", "address", "ids": "all"}, ...]``, one per registry the chain
            has (kind order: Olas AgentRegistry, legacy mech, ComplementaryServiceMetadata).
        """
        kinds = (
            (REGISTRY_OLAS_AGENT, self.olas_agent_registry),
            (REGISTRY_LEGACY_MECH, self.legacy_mech_registry),
            (REGISTRY_COMPLEMENTARY_SERVICE, self.complementary_service_metadata),
        )
        return [
            {"kind": kind, "address": address, "ids": "all"}
            for kind, address in kinds
            if address
        ]

    def require(self, name: str, option: str) -> Any:
        """Return a value the caller cannot do without.

        :param name: a field name (e.g. ``mech_marketplace``).
        :param option: what to pass instead, e.g. ``"--marketplace ADDRESS"``.
        :return: the value.
        :raises PresetValueMissing: when the preset has none, naming ``option``.
        """
        value = getattr(self, name)
        if value:
            return value
        holders = [p.name for p in PRESETS.values() if getattr(p, name)]
        raise PresetValueMissing(
            f"the {self.name} preset has no {name} (none in its sources); pass "
            f"{option}, or use a chain that has one: {', '.join(holders) or 'none'}"
        )

    def rows(self) -> List[Tuple[str, str, str]]:
        """Return every value with its source, for ``--show-preset`` and the docs.

        :return: ``(field, value, source document)`` rows in field order; a missing
            value reads ``"(none)"``.
        """
        rows = []
        for item in fields(self):
            if item.name in ("name", "sources"):
                continue
            value = getattr(self, item.name)
            if item.name == "mech_factories":
                value = ", ".join(f"{n} {a}" for n, a in value)
            elif isinstance(value, tuple):
                value = ", ".join(value)
            source = self.sources.get(item.name, "")
            rows.append(
                (item.name, str(value) if value else "(none)", SOURCES.get(source, ""))
            )
        return rows


def _sourced(**values: Any) -> Dict[str, Any]:
    """Split ``field=(value, source id)`` pairs into values and a ``sources`` map.

    :param values: field name -> ``(value, source id)``.
    :return: keyword arguments for :class:`ChainPreset`, ``sources`` included (the
        multicall and gateway defaults are always sourced).
    """
    sources = {"multicall2": "multicall3", "ipfs_gateway": "gateways"}
    sources["fallback_gateways"] = "gateways"
    sources["final_depth"] = "default"
    sources["max_fee_per_gas"] = "fee_cap_default"
    sources["min_priority_fee_wei"] = "tip_default"
    kwargs: Dict[str, Any] = {}
    for name, (value, source) in values.items():
        kwargs[name] = value
        sources[name] = source
    kwargs["sources"] = sources
    return kwargs


_R, _L, _M, _C, _S = (
    "registries",
    "legacy_mech",
    "marketplace",
    "mech_client",
    "subgraph",
)
#: three epochs of slots (``beacon``): Ethereum's 32 slots, Gnosis's 16
_ETHEREUM_FINAL_DEPTH, _GNOSIS_FINAL_DEPTH = 3 * 32, 3 * 16
#: 30 minutes of 2-second OP Stack blocks (``op_finality``)
_OP_STACK_FINAL_DEPTH = 30 * 60 // 2
#: 30 minutes of Arbitrum One's 250 ms blocks (``arbitrum_finality``): L1's finality
#: of the batch, and an allowance for posting it that no document bounds
_ARBITRUM_FINAL_DEPTH = 30 * 60 * 4
#: the least seconds between blocks: one slot (``beacon``: Ethereum 12 s, Gnosis 5 s);
#: OP Stack's 2-second blocks (``op_finality``); Celo's 1-second block period
#: (``celo_finality``); Arbitrum One's 250 ms (``arbitrum_finality``); Polygon's
#: 2-second target halved, no floor being documented (``polygon_finality``)
_ETHEREUM_BLOCK_SECONDS, _GNOSIS_BLOCK_SECONDS = 12.0, 5.0
_OP_STACK_BLOCK_SECONDS, _CELO_BLOCK_SECONDS = 2.0, 1.0
_ARBITRUM_BLOCK_SECONDS, _POLYGON_BLOCK_SECONDS = 0.25, 1.0
#: a Polygon checkpoint's 256 blocks (``polygon_finality``): milestones finalize in
#: seconds, but one that stalls is bounded by nothing documented
_POLYGON_FINAL_DEPTH = 256
#: 30 minutes of Celo's 1-second OP Stack blocks (``celo_finality``)
_CELO_FINAL_DEPTH = 30 * 60

_PRESETS = (
    ChainPreset(
        "mainnet",
        **_sourced(
            chain_id=(1, _R),
            final_depth=(_ETHEREUM_FINAL_DEPTH, "beacon"),
            block_seconds=(_ETHEREUM_BLOCK_SECONDS, "beacon"),
            max_fee_per_gas=(100 * GWEI, "fee_cap"),
            min_priority_fee_wei=(1, "geth_tip"),
            olas_agent_registry=("0x2F1f7D38e4772884b88f3eCd8B6b9faCdC319112", _R),
            component_registry=("0x15bd56669F57192a97dF41A2aa8f4403e9491776", _R),
            registries_manager=("0x9eC9156dEF5C613B2a7D4c46C383F9B58DfcD6fE", _R),
            complementary_service_metadata=(
                "0x0561cE39A1ab785B02DE0D9903125702559993A1",
                _R,
            ),
        ),
    ),
    ChainPreset(
        "gnosis",
        **_sourced(
            chain_id=(100, _C),
            final_depth=(_GNOSIS_FINAL_DEPTH, "beacon"),
            block_seconds=(_GNOSIS_BLOCK_SECONDS, "beacon"),
            max_fee_per_gas=(100 * GWEI, "fee_cap"),
            min_priority_fee_wei=(1, "geth_tip"),
            rpc_url=(
                "https://rpc.eu-central-2.gateway.fm/v4/gnosis/non-archival/mainnet",
                _C,
            ),
            legacy_mech_registry=("0xE49CB081e8d96920C38aA7AB90cb0294ab4Bc8EA", _L),
            legacy_mech_factory=("0x6D8CbEbCAD7397c63347D44448147Db05E7d17B0", _L),
            legacy_mech_factory_first_block=(36582492, _S),
            complementary_service_metadata=(
                "0x0598081D48FB80B0A7E52FAD2905AE9beCd6fC69",
                _C,
            ),
            mech_marketplace=("0x735FAAb1c4Ec41128c367AFb5c3baC73509f70bB", _C),
            mech_marketplace_first_block=(38661963, _S),
            mech_factories=(
                (
                    (
                        "MechFactoryFixedPriceNative",
                        "0x8b299c20F87e3fcBfF0e1B86dC0acC06AB6993EF",
                    ),
                    (
                        "MechFactoryFixedPriceToken",
                        "0x31ffDC795FDF36696B8eDF7583A3D115995a45FA",
                    ),
                    (
                        "MechFactoryNvmSubscriptionNative",
                        "0x65fd74C29463afe08c879a3020323DD7DF02DA57",
                    ),
                ),
                _M,
            ),
        ),
    ),
    ChainPreset(
        "base",
        **_sourced(
            chain_id=(8453, _C),
            final_depth=(_OP_STACK_FINAL_DEPTH, "op_finality"),
            block_seconds=(_OP_STACK_BLOCK_SECONDS, "op_finality"),
            max_fee_per_gas=(GWEI, "fee_cap"),
            min_priority_fee_wei=(1, "geth_tip"),
            rpc_url=("https://base.llamarpc.com", _C),
            legacy_mech_registry=("0x88DE734655184a09B70700aE4F72364d1ad23728", _L),
            complementary_service_metadata=(
                "0x28C1edC7CEd549F7f80B732fDC19f0370160707d",
                _C,
            ),
            mech_marketplace=("0xf24eE42edA0fc9b33B7D41B06Ee8ccD2Ef7C5020", _C),
            mech_marketplace_first_block=(26642705, _S),
            mech_factories=(
                (
                    (
                        "MechFactoryFixedPriceNative",
                        "0x2E008211f34b25A7d7c102403c6C2C3B665a1abe",
                    ),
                    (
                        "MechFactoryFixedPriceToken",
                        "0x97371B1C0cDA1D04dFc43DFb50a04645b7Bc9BEe",
                    ),
                    (
                        "MechFactoryNvmSubscriptionNative",
                        "0x847bBE8b474e0820215f818858e23F5f5591855A",
                    ),
                    (
                        "mechFactoryNvmSubscriptionTokenUSDC",
                        "0x7beD01f8482fF686F025628e7780ca6C1f0559fc",
                    ),
                ),
                _M,
            ),
        ),
    ),
    ChainPreset(
        "polygon",
        **_sourced(
            chain_id=(137, _C),
            final_depth=(_POLYGON_FINAL_DEPTH, "polygon_finality"),
            block_seconds=(_POLYGON_BLOCK_SECONDS, "polygon_finality"),
            max_fee_per_gas=(1_000 * GWEI, "fee_cap"),
            min_priority_fee_wei=(25 * GWEI, "bor_tip"),
            rpc_url=("https://polygon-bor-rpc.publicnode.com", _C),
            legacy_mech_registry=("0x984cf72FDe8B5aA910e9e508aC5e007ae5BDcC9C", _L),
            complementary_service_metadata=(
                "0xDC175E77d11246c79B23D7088750eb59160DD6b7",
                _C,
            ),
            mech_marketplace=("0x343F2B005cF6D70bA610CD9F1F1927049414B582", _C),
            mech_marketplace_first_block=(81028558, _S),
            mech_factories=(
                (
                    (
                        "MechFactoryFixedPriceNative",
                        "0x87f89F94033305791B6269AE2F9cF4e09983E56e",
                    ),
                    (
                        "MechFactoryFixedPriceToken",
                        "0xa0DA53447C0f6C4987964d8463da7e6628B30f82",
                    ),
                    (
                        "MechFactoryNvmSubscriptionTokenUSDC",
                        "0x43fB32f25dce34EB76c78C7A42C8F40F84BCD237",
                    ),
                ),
                _M,
            ),
        ),
    ),
    ChainPreset(
        "optimism",
        **_sourced(
            chain_id=(10, _C),
            final_depth=(_OP_STACK_FINAL_DEPTH, "op_finality"),
            block_seconds=(_OP_STACK_BLOCK_SECONDS, "op_finality"),
            max_fee_per_gas=(GWEI, "fee_cap"),
            min_priority_fee_wei=(1, "geth_tip"),
            rpc_url=("https://mainnet.optimism.io", _C),
            legacy_mech_registry=("0x75D529FAe220bC8db714F0202193726b46881B76", _L),
            complementary_service_metadata=(
                "0x11949cBC85d8793B360029E26b18ae759708e28b",
                _C,
            ),
            mech_marketplace=("0x46C0D07F55d4F9B5Eed2Fc9680B5953e5fd7b461", _C),
            mech_marketplace_first_block=(145788454, _S),
            mech_factories=(
                (
                    (
                        "MechFactoryFixedPriceNative",
                        "0xf76953444C35F1FcE2F6CA1b167173357d3F5C17",
                    ),
                    (
                        "MechFactoryFixedPriceToken",
                        "0x26Ea2dC7ce1b41d0AD0E0521535655d7a94b684c",
                    ),
                ),
                _M,
            ),
        ),
    ),
    ChainPreset(
        "arbitrum",
        **_sourced(
            chain_id=(42161, _C),
            final_depth=(_ARBITRUM_FINAL_DEPTH, "arbitrum_finality"),
            block_seconds=(_ARBITRUM_BLOCK_SECONDS, "arbitrum_finality"),
            max_fee_per_gas=(GWEI, "fee_cap"),
            min_priority_fee_wei=(0, "arbitrum_tip"),
            rpc_url=("https://arbitrum.llamarpc.com", _C),
            legacy_mech_registry=("0xa4799B083E0068732456EF45ff9fe5c683658327", _L),
            complementary_service_metadata=(
                "0x02C26437B292D86c5F4F21bbCcE0771948274f84",
                _R,
            ),
        ),
    ),
    ChainPreset(
        "celo",
        **_sourced(
            chain_id=(42220, _C),
            final_depth=(_CELO_FINAL_DEPTH, "celo_finality"),
            block_seconds=(_CELO_BLOCK_SECONDS, "celo_finality"),
            max_fee_per_gas=(1_000 * GWEI, "fee_cap"),
            min_priority_fee_wei=(1, "geth_tip"),
            rpc_url=("https://forno.celo.org", _C),
            legacy_mech_registry=("0xE49CB081e8d96920C38aA7AB90cb0294ab4Bc8EA", _L),
            complementary_service_metadata=(
                "0xc096362fa6f4A4B1a9ea68b1043416f3381ce300",
                _R,
            ),
        ),
    ),
)

#: every preset, by name
PRESETS: Mapping[str, ChainPreset] = {preset.name: preset for preset in _PRESETS}
#: what ``--chain`` accepts: the presets, then :data:`DEVNET`
CHAIN_NAMES: Tuple[str, ...] = (*PRESETS, DEVNET)


def chain_preset(name: str) -> ChainPreset:
    """Return the preset of a chain.

    :param name: a key of :data:`PRESETS` (case-insensitive).
    :return: the preset.
    :raises UnknownChainPreset: for any other name (:data:`DEVNET` included: the devnet's
        values are in its ``devnet.json``), listing the names there are.
    """
    preset = PRESETS.get(name.strip().lower()) if isinstance(name, str) else None
    if preset is None:
        raise UnknownChainPreset(
            f"no chain preset named {name!r}; the presets are "
            f"{', '.join(PRESETS)}"
            + (
                " (the devnet's values are read from its devnet.json: use the CLI's "
                "--chain devnet, or set each parameter)"
                if name == DEVNET
                else "; or give each address explicitly"
            )
        )
    return preset


def skill_parameters(preset: ChainPreset) -> Dict[str, Any]:
    """Return the catalogue skill's parameters a preset sets (its ``chain_preset``).

    :param preset: the preset.
    :return: parameter name -> value, for ``chain_id``, ``multicall2_address``,
        ``registries``, ``marketplace_address`` and ``marketplace_first_block``,
        ``legacy_mech_factory_address`` and ``legacy_mech_factory_first_block``,
        ``ipfs_gateway_url`` and ``ipfs_fallback_gateway_urls`` (a contract the chain
        lacks is null, as the skill's own default).
    """
    return {
        "chain_id": preset.chain_id,
        "multicall2_address": preset.multicall2,
        "registries": preset.registries(),
        "marketplace_address": preset.mech_marketplace or None,
        "marketplace_first_block": preset.mech_marketplace_first_block,
        "legacy_mech_factory_address": preset.legacy_mech_factory or None,
        "legacy_mech_factory_first_block": preset.legacy_mech_factory_first_block,
        "ipfs_gateway_url": preset.ipfs_gateway,
        "ipfs_fallback_gateway_urls": list(preset.fallback_gateways),
    }
