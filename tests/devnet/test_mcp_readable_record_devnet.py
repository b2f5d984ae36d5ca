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

"""A restart asks first for the manifests the server read before (adv29v, kind 2).

Registration age orders a fresh read, so services registered before the incumbent that
later set hashes nobody serves still spend a fresh process's budget ahead of it. The
state folder's record of readable manifests (``readable_record``) puts what the server
read before first. Devnet, the budget scaled as in ``test_adv29v_catalogue_fetch_order``.
"""

from dataclasses import replace
from pathlib import Path
from typing import List, Optional

from mech_catalogue_core.ipfs.cid import candidate_cids

from mech_catalogue_cli.mcp_server.source import DirectSource
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.adversary.test_adv29v_catalogue_fetch_order import _dead, _manifest_bytes
from tests.adversary.test_adv29v_tenure_fetch_budget import (
    TOOL,
    _delivered,
    _scaled_source,
    _service,
)

#: older services that later set hashes nobody serves (the scaled budget takes ~16)
OLDER_DEAD = 24


def _fresh_read(devnet: Devnet, gateway: str, state_dir: Optional[Path]) -> List[str]:
    scaled = _scaled_source(devnet, gateway)
    config, market = scaled.config, scaled.marketplace
    scaled.close()
    source = DirectSource(replace(config), market, state_dir)
    try:
        tool = next((t for t in source.read().tools if t.mech_tool == TOOL), None)
    finally:
        source.close()
    return [offer.address for offer in tool.offers] if tool else []


def _offers_after_a_restart(devnet: Devnet, state_dir: Optional[Path]) -> List[str]:
    """Older services, the incumbent, a first read; dead hashes; a fresh read again."""
    owner, stranger = devnet.address("owner_2"), devnet.address("owner_3")
    older = [devnet.register_service(stranger, deploy=True) for _ in range(OLDER_DEAD)]
    honest = devnet.add_manifest(_manifest_bytes("budget"))[1]
    _, _, incumbent = _service(devnet, owner, honest)
    _delivered(devnet, incumbent, owner, 1)
    with LoopbackProxy(devnet.info.ipfs_gateway_url.rstrip("/")) as gateway:
        gateway.hang_seconds = 3.0
        gateway.path_modes = {
            cid: "timeout"
            for index in range(OLDER_DEAD)
            for cid in candidate_cids(_dead(index))
        }
        assert _fresh_read(devnet, gateway.url, state_dir) == [incumbent.lower()]
        for index, service in enumerate(older):
            devnet.change_service_hash(service, _dead(index))
        return _fresh_read(devnet, gateway.url, state_dir)


def test_a_restart_reads_what_it_read_before_first(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """With the state folder's record the incumbent is read and offered after a restart."""
    assert len(_offers_after_a_restart(chain_snapshot, tmp_path)) == 1


def test_without_a_record_older_dead_hashes_go_first(chain_snapshot: Devnet) -> None:
    """Control: no state folder, the older services' dead hashes spend the budget."""
    assert not _offers_after_a_restart(chain_snapshot, None)
