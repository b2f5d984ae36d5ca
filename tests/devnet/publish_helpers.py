"""Helpers for the publish devnet tests: accounts, targets from the seed, the reader's view.

The seed (``scripts/devnet/seed.py``) already registers a deployed service whose multisig
is a real Gnosis Safe 1.3.0 (threshold 1, owned by the service's agent instance), so
``isAbleChangeHash`` holds for that Safe and not for the owner; :func:`deployed_service`
finds it and the agent instance key.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from eth_account import Account
from eth_account.signers.local import LocalAccount
from hexbytes import HexBytes
from web3 import Web3
from web3.providers.rpc import HTTPProvider

from packages.mech_catalogue.skills.tool_metadata_abci.domain.catalogue.fetching import (
    ManifestCache,
    refresh_catalogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.derive import (
    derive_package,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.derive.generate import (
    generate_manifest,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
    REGISTRY_OLAS_AGENT,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.publish.publish import (
    PublishTarget,
)

from scripts.devnet import Devnet
from scripts.publish.ipfs import IpfsApi
from scripts.publish.publisher import Publisher
from tests.test_tool_metadata_devnet import fetch, parse, read_snapshot, sources_of

TOOL_PACKAGES = (
    Path(__file__).resolve().parents[2]
    / "packages/mech_catalogue/skills/tool_metadata_abci/tests/fixtures/tool_packages"
)

#: seed shape -> the mech each publish test updates (see scripts/devnet/seed.py SEED_PLAN)
SEED_SHAPES = {
    "olas": (REGISTRY_OLAS_AGENT, "tools+toolMetadata"),
    "legacy": (REGISTRY_LEGACY_MECH, "typed-kwargs"),
    "service": (REGISTRY_COMPLEMENTARY_SERVICE, "empty-template"),
    "safe_service": (
        REGISTRY_COMPLEMENTARY_SERVICE,
        "tools+toolMetadata+input.schema:set-by-safe",
    ),
}
REGISTRY_CONTRACTS: Dict[str, str] = {
    REGISTRY_OLAS_AGENT: "AgentRegistry",
    REGISTRY_LEGACY_MECH: "LegacyMechAgentRegistry",
    REGISTRY_COMPLEMENTARY_SERVICE: "ComplementaryServiceMetadata",
}


@dataclass(frozen=True)
class SeededMech:
    """A mech of the seed to publish to.

    :param target: the registry and id.
    :param owner: the owner's account (the service owner for services).
    """

    target: PublishTarget
    owner: LocalAccount


def account(devnet: Devnet, role: str) -> LocalAccount:
    """Return the signing account of a devnet role.

    :param devnet: the devnet.
    :param role: e.g. ``owner_1``, ``stranger``.
    :return: the account.
    """
    return Account.from_key(  # pylint: disable=no-value-for-parameter
        devnet.info.accounts[role]["private_key"]
    )


def _role_of(devnet: Devnet, address: str) -> str:
    return next(
        role
        for role, entry in devnet.info.accounts.items()
        if entry["address"].lower() == address.lower()
    )


def target_for(devnet: Devnet, kind: str, mech_id: int) -> PublishTarget:
    """Build a target on the devnet's registry of ``kind``.

    :param devnet: the devnet.
    :param kind: a registry kind.
    :param mech_id: the id.
    :return: the target.
    """
    contracts = devnet.info.contracts
    return PublishTarget(
        kind,
        contracts[REGISTRY_CONTRACTS[kind]],
        mech_id,
        contracts["RegistriesManager"] if kind == REGISTRY_OLAS_AGENT else "",
    )


def seeded(devnet: Devnet, key: str) -> SeededMech:
    """Find a seeded mech by its key in :data:`SEED_SHAPES`.

    :param devnet: the devnet.
    :param key: ``olas``, ``legacy``, ``service`` or ``safe_service``.
    :return: the mech.
    """
    kind, shape = SEED_SHAPES[key]
    entry = next(
        e for e in devnet.info.registered if e.registry == kind and e.shape == shape
    )
    owner = entry.owner
    if kind == REGISTRY_COMPLEMENTARY_SERVICE:
        owner = devnet.info.services[str(entry.id)]["owner"]
    return SeededMech(
        target_for(devnet, kind, entry.id), account(devnet, _role_of(devnet, owner))
    )


def deployed_service(devnet: Devnet) -> Tuple[SeededMech, str, LocalAccount]:
    """Find the seed's deployed service, its Safe and the Safe's owner (the agent instance).

    :param devnet: the devnet.
    :return: (the service, its multisig address, the agent instance account).
    """
    mech = seeded(devnet, "safe_service")
    record = devnet.info.services[str(mech.target.mech_id)]
    safe = devnet.service_multisig(mech.target.mech_id)
    assert safe is not None and record["multisig"]
    instance = Account.from_key(  # pylint: disable=no-value-for-parameter
        record["agent_instances"][0]["private_key"]
    )
    return mech, safe, instance


def publisher(
    devnet: Devnet, w3: Optional[Web3] = None, ipfs: Optional[IpfsApi] = None
) -> Publisher:
    """Build a publisher on the devnet's anvil and kubo.

    :param devnet: the devnet.
    :param w3: another Web3 (e.g. a failing provider).
    :param ipfs: another IPFS API.
    :return: the publisher.
    """
    return Publisher(
        w3 or devnet.w3, ipfs or IpfsApi(devnet.info.ipfs_api_url), receipt_timeout=5
    )


def generated_manifest(
    name: str, overrides: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """Generate a manifest from the fixture tool packages (derive + generate, as the CLI does).

    :param name: the mech name (makes each test's manifest, hence digest, distinct).
    :param overrides: more overrides.
    :return: the manifest.
    """
    packages = [derive_package(TOOL_PACKAGES / n) for n in ("echo_tool", "typed_tool")]
    document, _ = generate_manifest(packages, {"name": name, **(overrides or {})})
    return document


def reader_tools(devnet: Devnet, target: PublishTarget) -> Tuple[str, List[str]]:
    """Run the reader's next period (snapshot, fetch, verify, parse) and return one mech's view.

    :param devnet: the devnet.
    :param target: the mech.
    :return: (status, tool names) of that mech in the fresh catalogue.
    """
    snapshot, _ = read_snapshot(devnet, sources_of(devnet))
    results, _ = fetch(devnet, snapshot, ManifestCache())
    catalogue = refresh_catalogue(snapshot, results, parse)
    source = next(s for s in sources_of(devnet) if s.kind == target.kind)
    mech = catalogue.mech(source.ref(target.mech_id))
    assert mech is not None, f"the reader has no mech for {target.describe}"
    return mech.status, [tool.name for tool in mech.tools]


class CountingIpfs(IpfsApi):
    """The devnet's kubo, recording every ``add`` (to prove a refusal came before any upload)."""

    def __init__(self, api_url: str) -> None:
        """Bind.

        :param api_url: kubo's RPC API URL.
        """
        super().__init__(api_url)
        self.adds: List[bytes] = []

    def add(self, data: bytes) -> str:
        """Record, then add for real.

        :param data: the bytes.
        :return: kubo's CID.
        """
        self.adds.append(data)
        return super().add(data)


def nonce(devnet: Devnet, address: str) -> int:
    """Read an account's transaction count.

    :param devnet: the devnet.
    :param address: the account.
    :return: its nonce.
    """
    return int(devnet.w3.eth.get_transaction_count(Web3.to_checksum_address(address)))


def wait_mined(devnet: Devnet, tx_hash: Optional[str]) -> Dict[str, Any]:
    """Wait for a transaction's receipt on the devnet, before reading what it changed.

    anvil answers ``eth_sendRawTransaction`` before it has mined the block (automine is
    asynchronous), so a read at ``latest`` right after the send may not see it yet.

    :param devnet: the devnet.
    :param tx_hash: the transaction hash (``0x...``); None fails the test.
    :return: the receipt.
    """
    assert tx_hash, "no transaction was sent"
    return dict(
        devnet.w3.eth.wait_for_transaction_receipt(
            HexBytes(tx_hash), timeout=30, poll_latency=0.02
        )
    )


class FailingProvider(HTTPProvider):
    """An HTTP provider to anvil that fails chosen JSON-RPC methods like a dead RPC would.

    Mock: a real RPC that dies between two given calls cannot be arranged on demand, so
    this raises ``requests.ConnectionError`` for ``fail_methods`` (every other call reaches
    anvil). ``after_send`` makes it fail every call once a transaction was sent.
    ``sent_hash`` keeps the hash anvil answered, so a test can wait for that receipt
    (:func:`wait_mined`) before reading what the transaction changed.
    """

    def __init__(
        self, url: str, fail_methods: Tuple[str, ...], after_send: bool = False
    ) -> None:
        """Bind.

        :param url: anvil's URL.
        :param fail_methods: JSON-RPC methods to fail.
        :param after_send: also fail every call after ``eth_sendRawTransaction`` succeeded.
        """
        super().__init__(url, request_kwargs={"timeout": 10})
        self.fail_methods = fail_methods
        self.after_send = after_send
        self.sent = False
        self.sent_hash: Optional[str] = None
        self.calls: List[str] = []

    def make_request(self, method: Any, params: Any) -> Any:
        """Forward or fail.

        :param method: the JSON-RPC method.
        :param params: its params.
        :return: anvil's answer.
        :raises ConnectionError: for failed methods.
        """
        import requests  # pylint: disable=import-outside-toplevel

        self.calls.append(str(method))
        if method in self.fail_methods or (self.after_send and self.sent):
            raise requests.ConnectionError(f"simulated RPC outage on {method}")
        answer = super().make_request(method, params)
        if method == "eth_sendRawTransaction":
            self.sent = True
            self.sent_hash = answer.get("result")
        return answer


def dumps(data: Any) -> str:
    """JSON for test output.

    :param data: a value.
    :return: compact JSON.
    """
    return json.dumps(data, sort_keys=True, default=str)
