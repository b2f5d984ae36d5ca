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

"""adv29yp T1: dead hashes set *before* the incumbent declared still cut its tenure short.

Severity: MEDIUM (redirects payments: the default offer goes to a copy on every fresh
server start, each stdio session of an MCP client being one, until the process's
second read: ``--poll`` 30 s after the first read, which itself takes the fetch
budget, 60 s by default; the calls of a session's first minute or two pay the copy).

fix29va made the tenure walk spend its shared fetch budget "manifests that were
unreadable before last, then by the block the manifest was set at (the oldest first)",
and a walk the budget cut short keeps "the tenure the service's last complete walk
gave". Both defences are memory of this process (``TenureReader._dead_before``,
``_settled``): a fresh process knows no unreadable manifest and no complete walk. So a
stranger who prepared, once, a pool of services whose earlier hash nobody serves,
set at blocks older than a later incumbent's declaration, has those hashes asked for
first on the first read of every new server process; each hangs a gateway until the
fetch timeout, the budget is spent, the incumbent's earlier manifest is "not read
yet", its walk is cut short with no complete walk to fall back on, its tenure starts
at its last routine update, and a copy that delivered once ranks first.

Observed on main c8221b19 (devnet: anvil with the real registry and marketplace
bytecode, kubo behind a loopback proxy holding the unprovided CIDs 3 s as a public
gateway does, read through ``DirectSource`` as ``mcp --devnet`` reads; the budget
scaled to 2 s and the fetch timeout to 1 s as in adv29v's reproduction; 12 hostile
services made before the incumbent): the fresh source ranks the copy first; the
incumbent's tenure is its last update's. The same set-up with the hostile services
made after the incumbent (adv29v's, fixed) keeps the incumbent first, and so does the
same process's second read (the pool's hashes are then "unreadable before": last).

Expected: the incumbent ranks first on the first read of a fresh process too (e.g.
persist the last complete walks and the unreadable digests in the state folder, as
``readable-manifests.json`` persists the catalogue's readable digests; or give the
walk's budget to the services whose offers compete for a tool before anyone else's).
"""

from pathlib import Path
from typing import Any, Dict, List, Optional

from scripts.devnet import Devnet
from tests.adversary.test_adv29v_tenure_fetch_budget import (
    BESIDE,
    FILLER,
    HOSTILE,
    TOOL,
    _delivered,
    _manifest,
    _read,
    _scaled_source,
    _service,
    _set,
    _unprovided,
    hanging_gateway,
)


def _pool_then_incumbent(
    devnet: Devnet, pool: int = HOSTILE, delivering: bool = False
) -> Dict[str, Any]:
    """The stranger's pool of dead hashes first, then the incumbent, the copy, the update.

    :param devnet: the devnet.
    :param pool: the stranger's services with an unresolvable earlier hash.
    :param delivering: each hostile mech delivers one request to the stranger.
    :return: the mechs' addresses and the incumbent's tenure blocks.
    """
    owner, stranger = devnet.address("owner_2"), devnet.address("owner_3")
    filler = _manifest(devnet, FILLER)
    for index in range(pool):  # made once, long before: usable against any later
        hostile_service = devnet.register_service(stranger, deploy=True)
        _set(devnet, hostile_service, _unprovided(index))
        _set(devnet, hostile_service, filler)
        hostile = devnet.create_mech(hostile_service, 10**15, stranger)
        if delivering:
            _delivered(devnet, hostile, stranger, 100 + index)
    honest = _manifest(devnet, TOOL)
    service, declared, incumbent = _service(devnet, owner, honest)
    first = _delivered(devnet, incumbent, owner, 1)
    _, _, copy = _service(devnet, stranger, _manifest(devnet, TOOL))
    _delivered(devnet, copy, stranger, 2)
    # the incumbent's routine update: a tool beside the unchanged one, then it delivers
    _set(devnet, service, _manifest(devnet, TOOL, BESIDE))
    _delivered(devnet, incumbent, owner, 4)
    mechs = {"incumbent": incumbent.lower(), "copy": copy.lower()}
    return dict(mechs, declared=declared, first=first)


def test_an_old_pool_of_dead_hashes_cuts_a_fresh_process_s_incumbent_tenure(
    chain_snapshot: Devnet,
) -> None:
    """A fresh source's first read: the incumbent stays first, declared at its block."""
    mechs = _pool_then_incumbent(chain_snapshot)
    tool = _read(chain_snapshot)
    ranked = [offer.address for offer in tool.offers]
    assert ranked.index(mechs["incumbent"]) < ranked.index(mechs["copy"]), (
        f"default offer {ranked[0]} (the copy is {mechs['copy']}); tenures "
        f"{[(o.address, o.declared_block, o.first_delivery_block) for o in tool.offers]}"
        f", the incumbent declared at {mechs['declared']}, first delivery "
        f"{mechs['first']}"
    )
    assert tool.offers[0].declared_block == mechs["declared"]


def test_control_without_the_pool_the_incumbent_ranks_first(
    chain_snapshot: Devnet,
) -> None:
    """Control: the same chain without the stranger's pool: the incumbent first."""
    mechs = _pool_then_incumbent(chain_snapshot, 0)
    tool = _read(chain_snapshot)
    assert tool.offers[0].address == mechs["incumbent"]
    assert tool.offers[0].declared_block == mechs["declared"]


def test_the_same_process_s_second_read_gives_the_incumbent_back(
    chain_snapshot: Devnet,
) -> None:
    """What bounded T1: the pool's hashes, unreadable once, go last in the next read.

    Observed on main: the first read ranked the copy first, the second the incumbent.
    Now the pool's services, which never delivered, wait for the incumbent's history
    (fix29yg), so both reads rank the incumbent first.

    :param chain_snapshot: the devnet, reverted afterwards.
    """
    mechs = _pool_then_incumbent(chain_snapshot)
    reads = _reads(chain_snapshot, [None, None])
    assert [ranked[0] for ranked in reads] == [mechs["incumbent"]] * 2, reads


def test_a_pool_that_delivered_is_forgotten_by_no_later_process(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A pool whose mechs delivered once competes for the budget; the state folder ends it.

    Each hostile mech delivers a request after its dead hash was set, so its walk is
    asked for among the incumbent's (a walk that could make a delivering incumbent),
    oldest first. A first process ever has nothing to go on but the chain: the copy may
    rank first for it. It keeps the unreadable hashes and the complete walks in
    ``--state-dir`` (``tenure-walks.json``), so the next process (the next stdio
    session) asks for the pool's hashes last and ranks the incumbent first at once.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the ``--state-dir`` both processes share.
    """
    mechs = _pool_then_incumbent(chain_snapshot, delivering=True)
    first, second = _reads(chain_snapshot, [tmp_path, tmp_path])
    assert (tmp_path / "tenure-walks.json").exists()
    assert second[0] == mechs["incumbent"], (first, second)
    # what is left (measured): the first process ever, and any without the folder
    assert first[0] == mechs["copy"]
    assert _reads(chain_snapshot, [None])[0][0] == mechs["copy"]


def _reads(devnet: Devnet, folders: List[Optional[Path]]) -> List[List[str]]:
    """Reads by one process (``None`` folders) or one process per folder given.

    :param devnet: the devnet.
    :param folders: a ``--state-dir`` per read: all None, one source reads them all;
        else each read is a fresh source on its folder.
    :return: each read's offers of ``TOOL``, ranked (addresses).
    """
    with hanging_gateway(devnet) as gateway:
        if all(folder is None for folder in folders):
            source = _scaled_source(devnet, gateway.url)
            try:
                reads = [source.read() for _ in folders]
            finally:
                source.close()
        else:
            reads = []
            for folder in folders:
                source = _scaled_source(devnet, gateway.url, folder)
                try:
                    reads.append(source.read())
                finally:
                    source.close()
    return [
        [o.address for o in next(t for t in r.tools if t.mech_tool == TOOL).offers]
        for r in reads
    ]
