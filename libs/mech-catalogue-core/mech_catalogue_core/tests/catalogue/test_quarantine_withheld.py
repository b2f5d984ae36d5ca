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

"""A manifest whose every tool is withheld for an error is quarantined, naming the tools.

Found by mutation testing (issue 18): the quarantined entry built without its
``withheld`` names passed every test; /mechs would then list an invalid mech with no
trace of the tools its owner declared.
"""

import hashlib
import json

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
)
from mech_catalogue_core.model.tool import MechRef

REF = MechRef(100, "legacy_mech_registry", "0x" + "6c" * 20, 4)
# `amount` declared twice with different types: an error that withholds the only tool
CLASH = json.dumps(
    {
        "name": "transfer",
        "kwargs": [
            {"identifier": "to", "type": "hexAddress"},
            {"identifier": "amount", "type": "int"},
            {"identifier": "amount", "type": "str"},
        ],
    }
).encode()
DIGEST = "0x" + hashlib.sha256(CLASH).hexdigest()


def _parse(data: bytes):
    result = parse_manifest(data)
    return result.manifest, result.problems


def test_every_tool_withheld_quarantines_the_mech_and_names_them() -> None:
    """A first sight (nothing to keep): status invalid, withheld ('transfer',), the error kept."""
    catalogue = refresh_catalogue(
        RegistrySnapshot.build(10, [DigestRead(REF, DIGEST)]),
        {DIGEST: FetchResult.ok(DIGEST, "bafk-clash", CLASH)},
        _parse,
    )
    mech = catalogue.mech(REF)
    assert mech is not None and mech.status == STATUS_INVALID
    assert mech.tools == () and mech.withheld == ("transfer",)
    assert any(p.is_error for p in mech.problems)
