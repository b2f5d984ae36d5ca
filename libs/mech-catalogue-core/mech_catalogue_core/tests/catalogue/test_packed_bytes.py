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

"""Manifest bytes are held packed from the gateway's reply on: same checks, same results."""

import hashlib
import json
from typing import Dict, List, Optional, Tuple

from mech_catalogue_core.catalogue.arrivals import (
    ParseOnArrival,
)
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    ManifestCache,
    PackedBytes,
    manifest_fetcher,
    pack,
    pack_reply,
    refresh_catalogue,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.ipfs.cid import (
    RAW,
    digest_to_cid,
)
from mech_catalogue_core.ipfs.gateways import (
    FetchWindow,
    GatewayPolicy,
    GatewayPool,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_HASH_MISMATCH,
    STATUS_INVALID,
    STATUS_OK,
    Manifest,
)
from mech_catalogue_core.model.limits import Limits
from mech_catalogue_core.model.problems import (
    Problem,
)
from mech_catalogue_core.model.tool import (
    MechRef,
)

GATEWAY = "http://127.0.0.1:1"
Replies = Dict[str, Tuple[Optional[bytes], str]]


def manifest(*tools: str) -> bytes:
    """A manifest of typed tools (so that it packs well, as real ones do)."""
    metadata = {
        name: {
            "description": f"Tool {name}: answers a question with evidence.",
            "input": {"type": "object", "description": "The request"},
            "arguments": [{"identifier": "prompt", "type": "str"}],
        }
        for name in tools
    }
    return json.dumps({"tools": list(tools), "toolMetadata": metadata}).encode()


def raw_digest(data: bytes) -> str:
    """The raw-block digest of ``data``."""
    return "0x" + hashlib.sha256(data).hexdigest()


def parse(data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
    """The real parser."""
    result = parse_manifest(data, Limits())
    return result.manifest, result.problems


def through_window(
    served: Dict[str, bytes], arrived: List[Tuple[str, bytes]]
) -> Replies:
    """Answer every CID through a real FetchWindow that packs what it keeps."""
    window = FetchWindow(
        list(served),
        GatewayPool([GATEWAY], GatewayPolicy()),
        lambda cid, data: arrived.append((cid, data)),
        pack_reply,
    )
    while not window.done:
        for cid, _ in window.sendable(0.0):
            window.answer(cid, served[cid], "", 200, None, 0.0, 1_000_000.0)
    return window.replies


def fetch(
    digests: List[str], cache: ManifestCache, serve, max_bytes: int = 1 << 20
) -> Dict:
    """Drive manifest_fetcher, each wave answered by ``serve``."""
    policy = FetchPolicy(retries=0, max_bytes=max_bytes)
    fetcher = manifest_fetcher(digests, cache, policy)
    try:
        _, cids = next(fetcher)
        while True:
            _, cids = fetcher.send(serve(cids))
    except StopIteration as done:
        return done.value


def test_a_window_packs_bodies_and_the_catalogue_is_the_same() -> None:
    """Packed replies verify, parse on arrival and build the catalogue raw replies build."""
    first, second = manifest("alpha", "beta"), manifest("gamma")
    digests = [raw_digest(first), raw_digest(second)]
    served = {digest_to_cid(raw_digest(d), RAW): d for d in (first, second)}
    arrived: List[Tuple[str, bytes]] = []
    early = ParseOnArrival(parse, 1 << 20)

    def packed_wave(cids: List[str]) -> Replies:
        replies = through_window({c: served.get(c, b"") for c in cids}, arrived)
        for cid, data in arrived:
            early.arrived(cid, data)
        return replies

    packed_cache = ManifestCache()
    results = fetch(digests, packed_cache, packed_wave)
    # the window kept and handed over packed bodies only
    assert arrived and all(isinstance(data, PackedBytes) for _, data in arrived)
    assert early.parsed_early == 2
    assert results[digests[0]].data == first and results[digests[1]].data == second
    assert packed_cache.get_packed(digest_to_cid(digests[0], RAW)) == pack(first)
    raw_results = fetch(
        digests,
        ManifestCache(),
        lambda cids: {c: (served[c], "") if c in served else (None, "x") for c in cids},
    )
    reads = [
        DigestRead(MechRef(1, "legacy_mech_registry", "0x" + "ab" * 20, i + 1), d)
        for i, d in enumerate(digests + digests[:1])  # two registrations share one
    ]
    snapshot = RegistrySnapshot.build(7, reads)
    packed_catalogue = refresh_catalogue(snapshot, results, early.parse)
    assert len(early) == 0 and early.parsed_early == 2  # both results were used
    raw_catalogue = refresh_catalogue(snapshot, raw_results, parse)
    assert packed_catalogue.digest() == raw_catalogue.digest()
    assert [len(m.tools) for m in packed_catalogue.mechs] == [2, 1, 2]
    assert all(m.status == STATUS_OK for m in packed_catalogue.mechs)


def test_packed_replies_are_checked_as_the_bytes_they_hold() -> None:
    """Size cap and digest apply to the unpacked bytes: a body that packs small is still too large."""
    big = b'{"tools": []}' + b" " * 500  # packs to a few dozen bytes
    assert len(pack(big)) < 64 < len(big)
    wrong_for = b'{"tools": ["honest"]}'
    digests = [raw_digest(big), raw_digest(wrong_for)]
    answers = {
        digest_to_cid(digests[0], RAW): big,
        digest_to_cid(digests[1], RAW): b'{"tools": ["other"]}',
    }

    def serve(cids: List[str]) -> Replies:
        return {
            c: (pack_reply(answers[c]), "") if c in answers else (None, "no")
            for c in cids
        }

    cache = ManifestCache()
    results = fetch(digests, cache, serve, max_bytes=64)
    assert results[digests[0]].status == STATUS_INVALID
    assert results[digests[0]].problem.code == "too_large"
    assert results[digests[1]].status == STATUS_HASH_MISMATCH
    assert len(cache) == 0


def test_a_mechs_tools_share_one_provenance() -> None:
    """Mech.from_manifest gives every tool of one shape the same Provenance object."""
    data = manifest("alpha", "beta", "gamma")
    digest = raw_digest(data)
    snapshot = RegistrySnapshot.build(
        7, [DigestRead(MechRef(1, "legacy_mech_registry", "0x" + "ab" * 20, 1), digest)]
    )
    results = fetch(
        [digest], ManifestCache(), lambda cids: {c: (data, "") for c in cids}
    )
    (mech,) = refresh_catalogue(snapshot, results, parse).mechs
    provenances = {id(tool.provenance) for tool in mech.tools}
    assert len(mech.tools) == 3 and len(provenances) == 1
    assert mech.tools[0].provenance.mech == mech.ref
    assert mech.tools[0].provenance.digest == digest
