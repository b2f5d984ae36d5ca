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

"""Helpers for the publish devnet tests: the reader's view, counting and failing I/O.

Seeded mechs as targets, owner accounts, the publisher and a generated manifest come from
``scripts/devnet/publishing.py`` (shared with scripts/bench_publish.py) and are
re-exported here.
"""

import json
from typing import Any, Dict, List, Optional, Tuple

from hexbytes import HexBytes
from mech_catalogue_core.catalogue.fetching import (
    ManifestCache,
    refresh_catalogue,
)
from mech_catalogue_core.publish.publish import (
    PublishTarget,
)
from web3 import Web3
from web3.providers.rpc import HTTPProvider

from mech_catalogue_cli.publisher.ipfs import IpfsApi
from scripts.devnet import Devnet

# pylint: disable-next=unused-import
from scripts.devnet.publishing import (  # noqa: F401  (re-exported for the tests)
    REGISTRY_CONTRACTS,
    SEED_SHAPES,
    TOOL_PACKAGES,
    SeededMech,
    account,
    deployed_service,
    generated_manifest,
    publisher,
    seeded,
    target_for,
)
from tests.test_tool_metadata_devnet import fetch, parse, read_snapshot, sources_of


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

    def add(self, data: bytes, raw_leaves: bool = False) -> str:
        """Record, then add for real.

        :param data: the bytes.
        :param raw_leaves: as :meth:`IpfsApi.add`.
        :return: kubo's CID.
        """
        self.adds.append(data)
        return super().add(data, raw_leaves=raw_leaves)


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
