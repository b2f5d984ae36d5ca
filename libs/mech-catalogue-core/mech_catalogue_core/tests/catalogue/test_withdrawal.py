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

"""An owner withdraws tools with a valid manifest that declares none; failures keep the last good."""

import hashlib
import json
from typing import Any, Dict

import pytest
from mech_catalogue_core.catalogue.fetching import (
    KEPT_LAST_GOOD,
    FetchResult,
    refresh_catalogue,
)
from mech_catalogue_core.catalogue.views import (
    mech_tools_view,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
    MechRef,
)

REF = MechRef(100, "legacy_mech_registry", "0x" + "ab" * 20, 7)
OTHER = MechRef(100, "legacy_mech_registry", "0x" + "ab" * 20, 8)
GOOD = json.dumps({"name": "m", "tools": ["predict", "summarise"]}).encode()
NEIGHBOUR = json.dumps({"name": "n", "tools": ["translate"]}).encode()


def parse(data: bytes):
    """Parse as the skill does.

    :param data: manifest bytes.
    :return: (manifest, problems).
    """
    result = parse_manifest(data)
    return result.manifest, result.problems


def digest_of(data: bytes) -> str:
    """Raw-codec digest of some bytes.

    :param data: bytes.
    :return: 0x-hex sha256.
    """
    return "0x" + hashlib.sha256(data).hexdigest()


def fetched(*blobs: bytes) -> Dict[str, FetchResult]:
    """Verified fetch results for each blob.

    :param blobs: manifest bytes.
    :return: digest -> ok result.
    """
    return {
        digest_of(b): FetchResult.ok(digest_of(b), f"bafk-{i}", b)
        for i, b in enumerate(blobs)
    }


def period(block: int, data: bytes, previous: Any, results: Any = None) -> Catalogue:
    """One refresh where REF points at ``data`` and OTHER keeps its one good manifest.

    :param block: the snapshot block.
    :param data: REF's manifest bytes.
    :param previous: the last agreed catalogue.
    :param results: fetch results (default: every blob fetched and verified).
    :return: the next catalogue.
    """
    snapshot = RegistrySnapshot.build(
        block,
        [DigestRead(REF, digest_of(data)), DigestRead(OTHER, digest_of(NEIGHBOUR))],
    )
    return refresh_catalogue(
        snapshot, results or fetched(data, NEIGHBOUR), parse, previous
    )


def mech(catalogue: Catalogue) -> Mech:
    """Return REF's entry.

    :param catalogue: a catalogue.
    :return: the entry (fails when absent).
    """
    entry = catalogue.mech(REF)
    assert entry is not None
    return entry


WITHDRAWALS = {
    "empty tools": {"name": "m", "tools": []},
    "empty tools and metadata": {"name": "m", "tools": [], "toolMetadata": {}},
    "metadata only, empty": {"toolMetadata": {}, "description": "retired"},
}


@pytest.mark.parametrize("name", sorted(WITHDRAWALS))
def test_a_manifest_declaring_no_tools_withdraws_them(name: str) -> None:
    """The old tools go; the mech stays ok, offers nothing, and is not a kept entry."""
    first = period(10, GOOD, None)
    assert mech(first).tools
    withdrawn = period(20, json.dumps(WITHDRAWALS[name]).encode(), first)
    entry = mech(withdrawn)
    assert entry.status == STATUS_OK and entry.tools == ()
    assert entry.observed_block == 20 and not withdrawn.stale(20)
    assert KEPT_LAST_GOOD not in [p.code for p in entry.problems]
    assert not entry.errors
    assert "predict" not in withdrawn.tool_names()
    assert withdrawn.tool_names() == ("translate",)
    assert mech_tools_view(withdrawn) == ["translate"]
    again = period(20, json.dumps(WITHDRAWALS[name]).encode(), withdrawn)
    assert again == withdrawn  # the same facts again: nothing accrues


def test_tools_come_back_after_a_withdrawal() -> None:
    """Withdraw, then publish tools again: the new tools are served."""
    first = period(10, GOOD, None)
    withdrawn = period(20, b'{"tools": []}', first)
    back = period(
        30, json.dumps({"tools": ["predict", "forecast"]}).encode(), withdrawn
    )
    assert [t.name for t in mech(back).tools] == ["predict", "forecast"]


FAILURES = {
    "every declared tool invalid": json.dumps({"tools": [1, "", None]}).encode(),
    "one invalid tool name": json.dumps({"tools": ["bad\x00name"]}).encode(),
    "tool objects without names": json.dumps({"tools": [{"x": 1}]}).encode(),
    "tools of the wrong type": json.dumps({"tools": "predict,summarise"}).encode(),
    "not JSON": b'{"tools": [',
    "not an object": b"[]",
}


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_a_manifest_that_fails_to_parse_keeps_the_last_good(name: str) -> None:
    """Declared tools that all fail, or a rejected document, are failures: old tools kept."""
    first = period(10, GOOD, None)
    failed = period(20, FAILURES[name], first)
    entry = mech(failed)
    assert [t.name for t in entry.tools] == ["predict", "summarise"]
    assert KEPT_LAST_GOOD in [p.code for p in entry.problems]
    assert entry.observed_block == 10  # stale: the kept entry is listed as such
    assert entry in failed.stale(20)


def test_fetch_and_verification_failures_keep_the_last_good() -> None:
    """An empty manifest that cannot be fetched or does not verify withdraws nothing."""
    first = period(10, GOOD, None)
    empty = b'{"tools": []}'
    d_empty = digest_of(empty)
    for result in (
        FetchResult.unavailable(d_empty, ["bafy-empty"], "timeout"),
        FetchResult.mismatch(d_empty, "bafy-empty"),
    ):
        results = {**fetched(NEIGHBOUR), d_empty: result}
        entry = mech(period(20, empty, first, results))
        assert [t.name for t in entry.tools] == ["predict", "summarise"]
        assert KEPT_LAST_GOOD in [p.code for p in entry.problems]


def test_withdrawal_without_a_previous_entry_is_ok_and_empty() -> None:
    """A new mech whose first manifest declares no tools is ok with a no_tools warning."""
    entry = mech(period(5, b'{"tools": []}', None))
    assert entry.status == STATUS_OK and entry.tools == ()
    assert [p.code for p in entry.problems] == [P.NO_TOOLS]
