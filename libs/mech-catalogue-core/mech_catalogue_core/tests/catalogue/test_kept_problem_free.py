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

"""A manifest without problems of its own, kept last-good: its entry says only why, once.

Found by mutation testing (issue 18): ``served_problems`` cut a kept entry's problems at
``max(1, index - 1)`` and no test noticed, because every kept manifest in the suite had
warnings of its own; with none, the failure was counted as the served manifest's own and
the entry grew by one problem every period.
"""

import hashlib
import json

from mech_catalogue_core.catalogue.fetching import (
    FETCH_FAILED,
    KEPT_LAST_GOOD,
    FetchResult,
    refresh_catalogue,
    served_problems,
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
    STATUS_OK,
)
from mech_catalogue_core.model.tool import MechRef

REF = MechRef(100, "legacy_mech_registry", "0x" + "4b" * 20, 3)
CLEAN = json.dumps(
    {
        "specVersion": "1",
        "name": "swap mech",
        "description": "Builds swap transactions.",
        "tools": ["build-swap"],
        "toolMetadata": {
            "build-swap": {
                "name": "build-swap",
                "description": "Builds an unsigned swap transaction.",
                "input": {"type": "text", "description": "notes"},
                "output": {
                    "type": "object",
                    "description": "the transaction",
                    "schema": {"type": "object"},
                },
                "arguments": [
                    {"identifier": "amount", "type": "uint256", "description": "sold"}
                ],
            }
        },
    }
).encode()
D_CLEAN = "0x" + hashlib.sha256(CLEAN).hexdigest()
D_GONE = "0x" + "77" * 32


def _parse(data: bytes):
    result = parse_manifest(data)
    return result.manifest, result.problems


def test_a_problem_free_manifest_kept_three_periods_carries_the_failure_once() -> None:
    """Kept three periods by the same fetch failure: (failure, note), the same entry each time."""
    assert parse_manifest(CLEAN).problems == ()  # the premise: nothing of its own
    catalogue = refresh_catalogue(
        RegistrySnapshot.build(10, [DigestRead(REF, D_CLEAN)]),
        {D_CLEAN: FetchResult.ok(D_CLEAN, "bafk-clean", CLEAN)},
        _parse,
    )
    failing = {D_GONE: FetchResult.unavailable(D_GONE, ["bafy-gone"], "timeout")}
    entries = []
    for block in (20, 30, 40):
        catalogue = refresh_catalogue(
            RegistrySnapshot.build(block, [DigestRead(REF, D_GONE)]),
            failing,
            _parse,
            catalogue,
        )
        entries.append(catalogue.mech(REF))
    first = entries[0]
    assert first is not None and first.status == STATUS_OK
    assert [p.code for p in first.problems] == [FETCH_FAILED, KEPT_LAST_GOOD]
    assert served_problems(first) == ()
    assert entries[1] is first and entries[2] is first  # unchanged, not regrown
