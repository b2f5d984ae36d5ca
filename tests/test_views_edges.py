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

"""The mech-interact views list every ok mech, wherever the others sit in ref order.

Found by mutation testing (docs/testing.md): stopping at the first mech that is not ok,
instead of skipping it, passed every test, because no catalogue had an ok mech after one
that was not.
"""

from dataclasses import replace

from eth_utils import to_checksum_address
from mech_catalogue_core.catalogue.fetching import (
    FetchResult,
)
from mech_catalogue_core.catalogue.views import (
    mech_tools_view,
    mechs_info_view,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)

from tests.test_contract_guards import build, manifest, raw_digest, ref


def rankable(mech_id: int) -> MechFacts:
    """Complete, confirmed facts of a mech contract (checksummed address).

    :param mech_id: names the contract.
    :return: the facts.
    """
    return MechFacts(
        address=to_checksum_address("0x" + f"{mech_id:040x}"),
        service_id=mech_id,
        block=20,
        confirmed=True,
        max_delivery_rate=10,
        requests=1,
        deliveries=1,
        karma=0,
    )


def test_ok_mechs_after_a_failed_one_are_listed() -> None:
    """Mechs 1 and 3 are not ok, 2 and 4 are: both ok mechs appear, in ref order, with their addresses."""
    good_a, good_b, bad = manifest("a"), manifest("b", "c"), manifest(7)
    fetched = {
        raw_digest(d): FetchResult.ok(raw_digest(d), f"bafk{i}", d)
        for i, d in enumerate((good_a, good_b, bad))
    }
    catalogue = build(
        20,
        [
            DigestRead(ref(1), raw_digest(bad)),
            DigestRead(ref(2), raw_digest(good_a)),
            DigestRead(ref(3), ""),
            DigestRead(ref(4), raw_digest(good_b)),
        ],
        fetched,
    )
    assert not mechs_info_view(catalogue)  # no marketplace facts: nothing rankable
    catalogue = Catalogue.build(
        (
            replace(m, marketplace=(rankable(m.ref.mech_id),))
            if m.ref.mech_id in (1, 2, 4)
            else m
        )
        for m in catalogue.mechs
    )
    info = mechs_info_view(catalogue)
    assert [(i["id"], i["address"], i["relevant_tools"]) for i in info] == [
        ("2", rankable(2).address, ["a"]),
        ("4", rankable(4).address, ["b", "c"]),
    ]
    assert info[0]["service"] == {
        "metadata": [{"metadata": raw_digest(good_a)}],
        "deliveries": [],
    }
    assert mech_tools_view(catalogue) == ["a", "b", "c"]
