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

"""``registry.parse_id_selection`` and the snapshot's block: edges mutation testing showed.

The largest id is accepted as a range's end; a malformed ``ids`` value is refused with a
RegistryConfigError whose sentence names the field and says what to give (never a bare
TypeError). ``snapshot_reader`` aligns the block for any interval above 1 and asks the
Multicall2 for the block even when there is nothing to read.
"""

import pytest
from eth_abi import encode
from mech_catalogue_core.chain.registry import (
    MAX_ID,
    IdSelection,
    RegistryConfigError,
    RegistrySource,
    block_number_call,
    parse_id_selection,
    snapshot_reader,
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


MULTICALL = "0x00000000000000000000000000000000000000ff"
LEGACY = "0x00000000000000000000000000000000000000aa"


def test_an_interval_of_two_aligns_the_block() -> None:
    """``block_interval=2``: ``getBlockNumber()`` alone at latest, then reads at the even block."""
    source = RegistrySource(
        "legacy_mech_registry", 31337, LEGACY, IdSelection("list", (1,))
    )
    reader = snapshot_reader([source], MULTICALL, 10, 100, 2)
    calls, block = next(reader)
    assert calls == [block_number_call(MULTICALL)] and block is None
    _, block = reader.send((21, [(True, encode(["uint256"], [21]))]))
    assert block == 20


def test_nothing_to_read_still_names_the_block() -> None:
    """No source: one ``getBlockNumber()`` of the Multicall2 at latest gives the block."""
    reader = snapshot_reader([], MULTICALL, 10, 100, 1)
    calls, block = next(reader)
    assert calls == [block_number_call(MULTICALL)] and block is None
    with pytest.raises(StopIteration) as done:
        reader.send((33, [(True, encode(["uint256"], [33]))]))
    assert done.value.value == (33, [])


def test_later_batches_are_pinned_to_the_first_replys_block() -> None:
    """``block_interval=1``: the first batch goes at latest, every later one at its block."""
    source = RegistrySource(
        "legacy_mech_registry", 31337, LEGACY, IdSelection("list", (1, 2, 3))
    )
    reader = snapshot_reader([source], MULTICALL, 1, 100, 1)
    calls, block = next(reader)
    assert block is None
    blocks = []
    no_hash = (True, encode(["uint256", "bytes32[]"], [0, []]))
    try:
        while True:
            calls, block = reader.send((40, [no_hash] * len(calls)))
            blocks.append(block)
    except StopIteration as done:
        assert done.value[0] == 40
    assert blocks and set(blocks) == {40}
