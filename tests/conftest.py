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

"""Shared pytest fixtures: a real devnet (anvil + registry stack + kubo) for the whole session.

``devnet`` is started once per session, seeded (:data:`scripts.devnet.seed.SEED_PLAN`),
in a temporary state folder, on free loopback ports, and stopped at the end. Tests that
write to the chain should request ``chain_snapshot`` so their transactions are reverted
afterwards (anvil ``evm_snapshot``/``evm_revert``); whatever a module still writes is
reverted after its last test (``session_devnet_restored``). IPFS content is
content-addressed and needs no cleanup.
"""

import copy
import json
from contextlib import contextmanager
from typing import Callable, Iterator, List, Optional, Tuple

import pytest
from web3.types import RPCEndpoint

from scripts.devnet import Devnet, RegisteredManifest
from scripts.devnet.seed import FIXTURES_DIR
from scripts.loopback_proxy import LoopbackProxy


@pytest.fixture(scope="session")
def devnet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Devnet]:
    """A running, seeded devnet shared by the session.

    :param tmp_path_factory: pytest's temporary folder factory.
    :yield: the devnet; its ``info`` lists addresses, accounts and registered manifests.
    """
    running = Devnet.start(seed=True, state_dir=tmp_path_factory.mktemp("devnet"))
    try:
        yield running
    finally:
        running.stop()


@contextmanager
def _reverted(devnet: Devnet) -> Iterator[Devnet]:
    """Revert every chain change made inside the block (anvil ``evm_snapshot`` / ``evm_revert``).

    :param devnet: the session devnet.
    :yield: the same devnet; afterwards its chain and its registered-manifest lists are
        as they were before the block.
    """
    snapshot_id = devnet.w3.provider.make_request(RPCEndpoint("evm_snapshot"), [])[
        "result"
    ]
    services = copy.deepcopy(devnet.info.services)
    mechs = copy.deepcopy(devnet.info.mechs)
    try:
        yield devnet
    finally:
        devnet.w3.provider.make_request(RPCEndpoint("evm_revert"), [snapshot_id])
        devnet.info.services = services
        devnet.info.mechs = mechs
        devnet.info.save()


@pytest.fixture
def chain_snapshot(devnet: Devnet) -> Iterator[Devnet]:
    """The session devnet, with every chain change of the test reverted afterwards.

    :param devnet: the session devnet.
    :yield: the same devnet.
    """
    with _reverted(devnet) as reverted:
        yield reverted


@pytest.fixture
def proxy(chain_snapshot: Devnet) -> Iterator[LoopbackProxy]:
    """A loopback proxy in front of the devnet's anvil, to answer some calls otherwise.

    :param chain_snapshot: the devnet, reverted afterwards.
    :yield: the proxy (closed after the test).
    """
    with LoopbackProxy(chain_snapshot.info.rpc_url) as running:
        yield running


@pytest.fixture(scope="module", autouse=True)
def session_devnet_restored(request: pytest.FixtureRequest) -> Iterator[None]:
    """Leave the session devnet as each module found it, whatever its tests wrote.

    A module whose agents watch the chain across its tests (four agents, the e2e runs)
    cannot revert per test, and one that did not revert at all left its hashes for the
    next module on the same worker: with ``make soak``'s file order a registry check
    read a legacy mech hash that the four-agent consensus module had moved. Modules that
    do not use the session devnet do not start it.

    :param request: the module's fixture request.
    :yield: nothing; the devnet's chain is reverted after the module's last test.
    """
    if not any(
        getattr(item, "module", None) is request.module
        and "devnet" in getattr(item, "fixturenames", ())
        for item in request.session.items
    ):
        yield
        return
    with _reverted(request.getfixturevalue("devnet")):
        yield


@pytest.fixture
def registered(devnet: Devnet) -> Callable[..., List[RegisteredManifest]]:
    """Look up what the seed registered.

    :param devnet: the session devnet.
    :return: ``find(registry=None, id=None, action=None, shape=None)`` returning the
        matching :class:`RegisteredManifest` entries in seeding order.
    """

    def find(  # pylint: disable=redefined-builtin
        registry: Optional[str] = None,
        id: Optional[int] = None,
        action: Optional[str] = None,
        shape: Optional[str] = None,
    ) -> List[RegisteredManifest]:
        return [
            entry
            for entry in devnet.info.registered
            if (registry is None or entry.registry == registry)
            and (id is None or entry.id == id)
            and (action is None or entry.action == action)
            and (shape is None or entry.shape == shape)
        ]

    return find


@pytest.fixture
def fixture_manifest() -> Callable[[str], bytes]:
    """Read a devnet fixture manifest's bytes by file name (``scripts/devnet/fixtures/``).

    :return: ``read(name) -> bytes``.
    """
    return lambda name: (FIXTURES_DIR / name).read_bytes()


@pytest.fixture
def new_manifest(devnet: Devnet) -> Callable[..., Tuple[str, bytes]]:
    """Add a fresh, valid manifest to kubo.

    :param devnet: the session devnet.
    :return: ``add(name="...", tools=[...], raw_leaves=False) -> (cid, digest)``.
    """

    def add(
        name: str = "Test Mech",
        tools: Tuple[str, ...] = ("prediction-online",),
        raw_leaves: bool = False,
    ) -> Tuple[str, bytes]:
        manifest = {
            "name": name,
            "description": f"{name} for a test",
            "tools": list(tools),
        }
        return devnet.add_manifest(json.dumps(manifest).encode(), raw_leaves=raw_leaves)

    return add


@pytest.fixture(autouse=True)
def registered_urls_of_this_test_only() -> Iterator[None]:
    """Forget the URLs a test's in-process CLI registered for redaction, after it.

    The CLI registers every URL of its command line for the process
    (``mech_catalogue_cli.redaction``); tests run many commands in one process, and a
    fragment one test registered (a path segment of its URL) redacted another test's
    unrelated text (a temporary folder's name).

    :yield: nothing; the test runs in between.
    """
    from mech_catalogue_cli import (  # pylint: disable=import-outside-toplevel
        redaction,
    )

    with redaction._LOCK:  # pylint: disable=protected-access
        urls = set(redaction._URLS)  # pylint: disable=protected-access
        fragments = list(redaction._FRAGMENTS)  # pylint: disable=protected-access
    yield
    with redaction._LOCK:  # pylint: disable=protected-access
        redaction._URLS.clear()  # pylint: disable=protected-access
        redaction._URLS.update(urls)  # pylint: disable=protected-access
        redaction._FRAGMENTS[:] = fragments  # pylint: disable=protected-access
