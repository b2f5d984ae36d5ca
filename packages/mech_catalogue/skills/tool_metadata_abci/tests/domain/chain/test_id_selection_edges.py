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

"""``registry.parse_id_selection``: the edges mutation testing showed no test pinned.

The largest id is accepted as a range's end; a malformed ``ids`` value is refused with a
RegistryConfigError whose sentence names the field and says what to give (never a bare
TypeError).
"""

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.registry import (
    MAX_ID,
    IdSelection,
    RegistryConfigError,
    parse_id_selection,
)

WHERE = "registries[3].ids"


def test_a_range_may_end_at_the_largest_id() -> None:
    """``{'from': 1, 'to': MAX_ID}`` is a valid range; one past it is refused."""
    assert parse_id_selection({"from": 1, "to": MAX_ID}, WHERE) == IdSelection(
        "range", start=1, end=MAX_ID
    )
    with pytest.raises(RegistryConfigError, match="range must satisfy"):
        parse_id_selection({"from": 1, "to": MAX_ID + 1}, WHERE)


@pytest.mark.parametrize(
    "value, sentence",
    [
        ([], f"{WHERE} is an empty list; give ids, a range or 'all'"),
        (["3"], f"{WHERE} must hold positive integer ids; '3' is not one"),
        ([2.5], f"{WHERE} must hold positive integer ids; 2.5 is not one"),
        (
            [MAX_ID + 1],
            f"{WHERE} holds {MAX_ID + 1}, above {MAX_ID} (2**53 - 1, the largest id "
            "the snapshot digest can hold); no registry mints such ids",
        ),
        (
            "some",
            f"{WHERE} must be 'all', a list of ids or {{'from': a, 'to': b}}; got 'some'",
        ),
    ],
)
def test_a_malformed_selection_is_refused_with_a_sentence(
    value: object, sentence: str
) -> None:
    """Each malformed ``ids`` value raises RegistryConfigError with its exact sentence.

    :param value: the configured ``ids``.
    :param sentence: the error's text.
    """
    with pytest.raises(RegistryConfigError) as raised:
        parse_id_selection(value, WHERE)
    assert str(raised.value) == sentence
