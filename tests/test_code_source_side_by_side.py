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

"""``derive_catalogue`` reads ``code_uri`` packages side by side, with a cache (adv29v).

No chain, no gateway: the block fetch is replaced by one that waits its whole timeout
for a CID nobody provides, as a public gateway does.
"""

import json
import threading
import time
from typing import List, Optional

import pytest
from mech_catalogue_core.derive.code_uri import CodeDerivation
from mech_catalogue_core.derive.from_chain import DerivationCache
from mech_catalogue_core.ipfs.cid import candidate_cids
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.model.problems import CODE_OVER_CAPS, error

from mech_catalogue_cli import code_source
from mech_catalogue_cli.code_source import (
    derive_catalogue,
    fetched_side_by_side,
)
from tests.test_mcp_source import _priced_catalogue

TIMEOUT = 0.4


def _cid(index: int) -> str:
    return candidate_cids(b"\x0d" * 31 + bytes([index + 1]))[0]


def _pointing(cids: List[str]) -> Catalogue:
    """Mechs 1..n, each an untyped tool whose ``code_uri`` is one of ``cids``."""
    return _priced_catalogue(
        {
            index
            + 1: json.dumps(
                {
                    "name": f"m{index}",
                    "code_uri": f"ipfs://{cid}",
                    "tools": [f"t{index}"],
                }
            ).encode()
            for index, cid in enumerate(cids)
        }
    )


class _DeadGateway:  # pylint: disable=too-few-public-methods
    """A gateway that holds every block until the request's timeout, counting them."""

    def __init__(self) -> None:
        self.asked: List[str] = []
        self.lock = threading.Lock()

    def raw_block(  # pylint: disable=too-many-arguments,too-many-positional-arguments
        self, _session: object, _gateway: str, cid: str, timeout: float, _cap: int
    ) -> None:
        """Wait ``timeout``, then fail, as a gateway that never finds the CID."""
        with self.lock:
            self.asked.append(cid)
        time.sleep(timeout)


def _derive(catalogue: Catalogue, cache: Optional[DerivationCache] = None) -> float:
    began = time.monotonic()
    derive_catalogue(
        catalogue, "http://rpc.invalid", "0x" + "0" * 40, "g", TIMEOUT, 1, cache
    )
    return time.monotonic() - began


def test_twenty_dead_packages_cost_one_timeout_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twenty distinct dead CIDs: every one asked for, all within about one timeout."""
    gateway = _DeadGateway()
    monkeypatch.setattr(code_source, "raw_block", gateway.raw_block)
    cids = [_cid(i) for i in range(20)]
    took = _derive(_pointing(cids))
    assert sorted(gateway.asked) == sorted(cids)
    assert took < 2.5 * TIMEOUT, f"{took:.2f} s for 20 dead packages"


def test_a_fetch_failure_is_asked_again_at_the_next_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dead package is not cached as dead: it may arrive later."""
    gateway = _DeadGateway()
    monkeypatch.setattr(code_source, "raw_block", gateway.raw_block)
    cache = DerivationCache()
    catalogue = _pointing([_cid(0)])
    _derive(catalogue, cache)
    _derive(catalogue, cache)
    assert gateway.asked == [_cid(0), _cid(0)]


def test_a_derived_package_is_not_fetched_again_while_it_is_pointed_at(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Content-addressed: a CID derived once is not fetched; unpointed, it is dropped."""
    gateway = _DeadGateway()
    monkeypatch.setattr(code_source, "raw_block", gateway.raw_block)
    cache = DerivationCache()
    kept = CodeDerivation(_cid(1), None, (error(CODE_OVER_CAPS, "too big", "/"),))
    cache.put(kept)
    cache.retain_used()
    _derive(_pointing([_cid(1), _cid(2)]), cache)
    assert gateway.asked == [_cid(2)]  # the cached CID costs no fetch
    _derive(_pointing([_cid(2)]), cache)  # nothing points at it any more
    assert cache.get(_cid(1)) is None


def test_side_by_side_keeps_what_arrived_and_drops_what_did_not() -> None:
    """A fast CID's bytes, a slow one's None, a raising one's None: one budget."""

    def fetch(cid: str) -> Optional[bytes]:
        if cid == "slow":
            time.sleep(2.0)
        if cid == "raising":
            raise OSError("reset")
        return cid.encode()

    began = time.monotonic()
    got = fetched_side_by_side(fetch, ["fast", "slow", "raising"], 0.3)
    assert got == {"fast": b"fast", "slow": None, "raising": None}
    assert time.monotonic() - began < 1.0


def test_side_by_side_with_no_budget_left_fetches_nothing() -> None:
    """A read past its total budget: no fetch is started."""
    started: List[str] = []
    assert fetched_side_by_side(started.append, ["a", "b"], 0.0) == {
        "a": None,
        "b": None,
    }
    assert not started
