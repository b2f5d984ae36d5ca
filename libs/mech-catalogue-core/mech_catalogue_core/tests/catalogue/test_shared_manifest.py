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

"""Many registrations of one manifest cost one parse (an adversary registered one 80 times)."""

import hashlib
import json
from typing import Dict, List, Optional, Tuple

from mech_catalogue_core.catalogue.fetching import (
    FetchResult,
    refresh_catalogue,
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
from mech_catalogue_core.model.catalogue import (
    STATUS_INVALID,
    STATUS_OK,
    Manifest,
)
from mech_catalogue_core.model.problems import (
    Problem,
)
from mech_catalogue_core.model.tool import MechRef

REGISTRY = "0x" + "cd" * 20
SHARED = json.dumps(
    {
        "name": "shared",
        "tools": [
            {"name": "swap", "kwargs": [{"identifier": "amount", "type": "int"}]}
        ],
    }
).encode()
BROKEN = b'{"tools": ['
OWN = json.dumps({"name": "own", "tools": ["predict"]}).encode()


def digest_of(data: bytes) -> str:
    """Raw-codec digest of some bytes.

    :param data: bytes.
    :return: 0x-hex sha256.
    """
    return "0x" + hashlib.sha256(data).hexdigest()


class CountingParser:  # pylint: disable=too-few-public-methods
    """The real parser, counting the bytes it was given."""

    def __init__(self) -> None:
        """Start with no calls."""
        self.calls: List[bytes] = []

    def __call__(self, data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
        """Parse as the skill does, recording the call.

        :param data: manifest bytes.
        :return: (manifest, problems).
        """
        self.calls.append(data)
        result = parse_manifest(data)
        return result.manifest, result.problems


def build(copies: int, blob: bytes, parser: CountingParser):
    """Refresh a snapshot where ``copies`` agents point at ``blob`` and one at OWN.

    :param copies: registrations sharing the blob.
    :param blob: their manifest bytes.
    :param parser: the parser to count.
    :return: the catalogue.
    """
    reads = [
        DigestRead(MechRef(1, "olas_agent_registry", REGISTRY, i), digest_of(blob))
        for i in range(1, copies + 1)
    ]
    reads.append(
        DigestRead(
            MechRef(1, "olas_agent_registry", REGISTRY, copies + 1), digest_of(OWN)
        )
    )
    fetched: Dict[str, FetchResult] = {
        digest_of(b): FetchResult.ok(digest_of(b), f"bafk-{n}", b)
        for n, b in enumerate((blob, OWN))
    }
    return refresh_catalogue(RegistrySnapshot.build(9, reads), fetched, parser)


def test_a_manifest_registered_many_times_is_parsed_once() -> None:
    """80 registrations of one manifest: 1 parse for them, 1 for the other mech; 81 entries, each its own."""
    parser = CountingParser()
    catalogue = build(80, SHARED, parser)
    assert sorted(parser.calls) == sorted([SHARED, OWN])
    shared = [m for m in catalogue.mechs if m.digest == digest_of(SHARED)]
    assert len(shared) == 80 and all(m.status == STATUS_OK for m in shared)
    for mech in shared:  # provenance names each registration, not the first one parsed
        (tool,) = mech.tools
        assert tool.provenance.mech == mech.ref
        assert [a.identifier for a in tool.arguments] == ["amount"]


def test_a_rejected_manifest_registered_many_times_is_parsed_once() -> None:
    """A broken manifest shared by 30 registrations: one parse, 30 quarantined entries with its problem."""
    parser = CountingParser()
    catalogue = build(30, BROKEN, parser)
    assert parser.calls.count(BROKEN) == 1
    broken = [m for m in catalogue.mechs if m.digest == digest_of(BROKEN)]
    assert len(broken) == 30 and {m.status for m in broken} == {STATUS_INVALID}
    assert all(m.problems == broken[0].problems and m.problems for m in broken)
