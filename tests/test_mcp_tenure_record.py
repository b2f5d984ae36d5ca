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

"""A fresh process's tenure walks start where the last one's ended (adv29yp T1).

The record in the state folder (``tenure_record``): round trip, bounds, files that are
not records; a fresh ``TenureReader`` on it asks the last process's unreadable
manifests last and keeps a complete walk's tenure when its own walk is cut short, never
a block the chain's history does not hold. Without a record, services that delivered
since an earlier manifest was set are read first. And ``tenures_of`` (``--agent``) reads
tenures by the same walk from the services' manifests.
"""

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Dict, FrozenSet, List, Mapping, Sequence, Tuple

import pytest
from mech_catalogue_core.model.catalogue import Catalogue, Mech

from mech_catalogue_cli.mcp_server.tenure import ABSENT, TenureReader, definitions
from mech_catalogue_cli.mcp_server.tenure_record import (
    FILE_NAME,
    MAX_UNREADABLE,
    MAX_WALKED_TOOLS,
    TenureRecord,
)
from tests.test_mcp_tenure_fetch_order import (
    HEAD,
    REGISTRY,
    TOOL,
    BudgetedManifests,
    ChainLogs,
    _address,
    _digest,
    _mech,
)

SWAP = definitions([TOOL])["swap"]
HONEST_THEN, HONEST_NOW, FILLER = (_digest(n << 248) for n in (0xA0, 0xA1, 0xB0))


def _delivered(mech: Mech, block: int) -> Mech:
    """The mech with a delivery seen at ``block``."""
    facts = replace(mech.marketplace[0], last_delivery_block=block)
    return replace(mech, marketplace=(facts,))


def _old_pool(strangers: int) -> Tuple[List[Tuple[int, int, str]], List[Mech]]:
    """Dead hashes set *before* the incumbent declared ``swap`` (at 100), then filler.

    :param strangers: hostile services (ids 10..).
    :return: the updates and the mechs (the incumbent delivered at 600).
    """
    updates = [(2 + i, 10 + i, _digest(i + 1)) for i in range(strangers)]
    updates += [(100, 1, HONEST_THEN)]
    updates += [(200 + i, 10 + i, FILLER) for i in range(strangers)]
    updates.append((500, 1, HONEST_NOW))
    mechs = [_delivered(_mech(1, HONEST_NOW), 600)]
    mechs += [_mech(10 + i, FILLER) for i in range(strangers)]
    return updates, mechs


def _reader(
    updates: Sequence[Tuple[int, int, str]],
    manifests: BudgetedManifests,
    folder: Path,
) -> TenureReader:
    return TenureReader(
        ChainLogs(updates), 1, manifests, record=TenureRecord(folder)  # type: ignore[arg-type]
    )


def test_the_record_round_trips(tmp_path: Path) -> None:
    """Saved by one record, loaded by another on the same folder, unreadable in order."""
    settled = {(REGISTRY, 7): ({"swap": SWAP}, {"swap": 10})}
    TenureRecord(tmp_path).save([_digest(2), _digest(1)], settled)
    assert TenureRecord(tmp_path).load() == ([_digest(2), _digest(1)], settled)


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[]",
        {"version": 2, "unreadable": [], "walks": []},
        {"version": 1, "walks": []},
        {"version": 1, "unreadable": ["0x00"], "walks": []},
        {"version": 1, "unreadable": [], "walks": {}},
        {"version": 1, "unreadable": [], "walks": [{"registry": REGISTRY}]},
        {
            "version": 1,
            "unreadable": [],
            "walks": [{"registry": REGISTRY.upper(), "service": 1, "tools": {}}],
        },
        {
            "version": 1,
            "unreadable": [],
            "walks": [{"registry": REGISTRY, "service": -1, "tools": {}}],
        },
        {
            "version": 1,
            "unreadable": [],
            "walks": [{"registry": REGISTRY, "service": True, "tools": {}}],
        },
        {
            "version": 1,
            "unreadable": [],
            "walks": [{"registry": REGISTRY, "service": 1, "tools": {"swap": [SWAP]}}],
        },
        {
            "version": 1,
            "unreadable": [],
            "walks": [
                {"registry": REGISTRY, "service": 1, "tools": {"swap": ["x", 10]}}
            ],
        },
        {
            "version": 1,
            "unreadable": [],
            "walks": [
                {"registry": REGISTRY, "service": 1, "tools": {"swap": [SWAP, -3]}}
            ],
        },
    ],
)
def test_a_file_that_is_not_a_record_is_a_warning_and_empty(
    tmp_path: Path, body: object, caplog: pytest.LogCaptureFixture
) -> None:
    """Whatever else the file holds, the first read walks afresh, and says so."""
    text = body if isinstance(body, str) else json.dumps(body)
    (tmp_path / FILE_NAME).write_text(text, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        assert TenureRecord(tmp_path).load() == ([], {})
    assert FILE_NAME in caplog.text and "ignored" in caplog.text


def test_no_folder_no_file_and_an_unwritable_folder(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing to read: empty; without a folder nothing is written; a blocked one warns."""
    assert TenureRecord(tmp_path).load() == ([], {})
    TenureRecord(None).save([_digest(1)], {})
    assert TenureRecord(None).load() == ([], {})
    assert not list(tmp_path.iterdir())
    blocker = tmp_path / "state"
    blocker.write_text("", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        TenureRecord(blocker).save([_digest(1)], {})
    assert "cannot be written" in caplog.text


def test_an_unchanged_record_is_not_written_again(tmp_path: Path) -> None:
    """The same state: the file keeps its modification time."""
    record = TenureRecord(tmp_path)
    record.save([_digest(1)], {})
    path = tmp_path / FILE_NAME
    path.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    before = path.stat().st_mtime_ns
    record.save([_digest(1)], {})
    assert path.stat().st_mtime_ns == before


def test_the_record_is_bounded(tmp_path: Path) -> None:
    """The newest unreadable digests and the walks up to the tool cap are kept."""
    dead = [_digest(i) for i in range(MAX_UNREADABLE + 5)]
    settled = {
        (REGISTRY, service): (
            {f"t{i}": SWAP for i in range(1000)},
            {f"t{i}": 5 for i in range(1000)},
        )
        for service in range(MAX_WALKED_TOOLS // 1000 + 3)
    }
    settled[(REGISTRY, 0)][0]["x" * 300] = SWAP  # too long a name: left out
    settled[(REGISTRY, 0)][1]["x" * 300] = 5
    TenureRecord(tmp_path).save(dead, settled)
    unreadable, walks = TenureRecord(tmp_path).load()
    assert unreadable == dead[-MAX_UNREADABLE:]
    assert sum(len(d) for d, _ in walks.values()) == MAX_WALKED_TOOLS
    assert "x" * 300 not in walks[(REGISTRY, 0)][0]


def test_without_a_record_services_that_delivered_are_read_first(
    tmp_path: Path,
) -> None:
    """Twelve older dead hashes of services that never delivered; the budget takes two."""
    updates, mechs = _old_pool(12)
    manifests = BudgetedManifests([HONEST_THEN, FILLER], 2)
    tenures = TenureReader(ChainLogs(updates), 1, manifests).tenures(  # type: ignore[arg-type]
        Catalogue.build(mechs), HEAD
    )
    assert manifests.asked[0][0] == HONEST_THEN
    assert tenures[(_address(1), "swap")].declared_block == 100
    assert not list(tmp_path.iterdir())


def test_a_delivery_before_the_manifest_was_set_does_not_count() -> None:
    """The incumbent's last delivery is older than its earlier manifest: age decides."""
    updates, mechs = _old_pool(3)
    mechs[0] = _delivered(mechs[0], 50)  # before HONEST_THEN was set (100)
    manifests = BudgetedManifests([HONEST_THEN, FILLER], 10)
    TenureReader(ChainLogs(updates), 1, manifests).tenures(  # type: ignore[arg-type]
        Catalogue.build(mechs), HEAD
    )
    assert manifests.asked[0][-1] == HONEST_THEN  # set at 100: after the pool's 2..4


def test_each_fresh_process_goes_on_where_the_last_one_ended(tmp_path: Path) -> None:
    """A pool that delivered competes for the budget; no process asks a dead hash twice.

    Twelve dead hashes, two GETs a read, one read a process (a stdio session each):
    without the record every process spends its budget on the same two; with it the
    seventh process reads the incumbent's history, and every later one keeps its
    tenure even when its own budget reaches nothing.

    :param tmp_path: the state folder the processes share.
    """
    updates, mechs = _old_pool(12)
    mechs = [mechs[0]] + [_delivered(m, 300) for m in mechs[1:]]
    catalogue = Catalogue.build(mechs)
    blocks, asked = [], []
    for _ in range(7):
        manifests = BudgetedManifests([HONEST_THEN, FILLER], 2)
        tenures = _reader(updates, manifests, tmp_path).tenures(catalogue, HEAD)
        blocks.append(tenures[(_address(1), "swap")].declared_block)
        asked.append(manifests.asked[0][:2])
    assert blocks == [500] * 6 + [100]
    assert len({digest for pair in asked[:6] for digest in pair}) == 12
    nothing = _reader(updates, BudgetedManifests([], 0), tmp_path)
    assert nothing.tenures(catalogue, HEAD)[(_address(1), "swap")].declared_block == 100
    forgetful = BudgetedManifests([HONEST_THEN, FILLER], 2)
    TenureReader(ChainLogs(updates), 1, forgetful).tenures(catalogue, HEAD)  # type: ignore[arg-type]
    assert forgetful.asked[0][:2] == asked[0]  # the control: no record, the same two


def test_a_fresh_process_keeps_the_last_complete_walk_when_cut_short(
    tmp_path: Path,
) -> None:
    """The incumbent updates again between processes; the new one reads nothing."""
    updates = [(10, 1, HONEST_THEN), (500, 1, HONEST_NOW)]
    manifests = BudgetedManifests([HONEST_THEN, HONEST_NOW], 10)
    _reader(updates, manifests, tmp_path).tenures(
        Catalogue.build([_mech(1, HONEST_NOW)]), 600
    )
    honest_next = _digest(0xA2 << 248)
    updates.append((700, 1, honest_next))
    reader = _reader(updates, BudgetedManifests([], 0), tmp_path)
    cut = reader.tenures(Catalogue.build([_mech(1, honest_next)]), HEAD)
    assert cut[(_address(1), "swap")].declared_block == 10
    without = TenureReader(ChainLogs(updates), 1, BudgetedManifests([], 0))  # type: ignore[arg-type]
    alone = without.tenures(Catalogue.build([_mech(1, honest_next)]), HEAD)
    assert alone[(_address(1), "swap")].declared_block == 700  # the control


@pytest.mark.parametrize("block", [3, 11, 10**9])
def test_a_recorded_block_the_chain_does_not_hold_is_not_used(
    tmp_path: Path, block: int
) -> None:
    """A tampered record dates the tool before any update, or between them: ignored."""
    updates = [(10, 1, HONEST_THEN), (500, 1, HONEST_NOW)]
    TenureRecord(tmp_path).save([], {(REGISTRY, 1): ({"swap": SWAP}, {"swap": block})})
    reader = _reader(updates, BudgetedManifests([], 0), tmp_path)
    cut = reader.tenures(Catalogue.build([_mech(1, HONEST_NOW)]), HEAD)
    assert cut[(_address(1), "swap")].declared_block == 500


def _offer(service: int, name: str = "swap") -> tuple:  # type: ignore[type-arg]
    mech = _mech(service, "")
    return (mech.ref, mech.marketplace[0], name)


def test_an_agent_s_offers_keep_their_tenure_across_a_routine_update() -> None:
    """``tenures_of``: the current manifest is read and the walk goes back through it."""
    updates = [(10, 1, HONEST_THEN), (50, 2, FILLER), (500, 1, HONEST_NOW)]
    manifests = BudgetedManifests([HONEST_THEN, HONEST_NOW, FILLER], 10)
    reader = TenureReader(ChainLogs(updates), 1, manifests)  # type: ignore[arg-type]
    tenures = reader.tenures_of([_offer(1), _offer(2)], HEAD)
    assert tenures[(_address(1), "swap")].declared_block == 10
    assert tenures[(_address(2), "swap")].declared_block == 50
    assert HONEST_NOW in manifests.asked[0]  # the current manifest, then the walk


def test_an_agent_s_offer_whose_manifest_cannot_be_read_starts_at_its_update() -> None:
    """Unreadable now, or no manifests at all: the newest update (cut short)."""
    updates = [(10, 1, HONEST_THEN), (500, 1, HONEST_NOW)]
    for manifests in (BudgetedManifests([HONEST_THEN], 10), None):
        reader = TenureReader(ChainLogs(updates), 1, manifests)  # type: ignore[arg-type]
        tenures = reader.tenures_of([_offer(1)], HEAD)
        assert tenures[(_address(1), "swap")].declared_block == 500


def test_an_agent_s_offer_of_a_tool_the_chain_s_manifest_lacks_has_no_tenure() -> None:
    """The agent says the mech offers ``quote``; its manifest on chain does not."""
    updates = [(10, 1, HONEST_THEN), (500, 1, HONEST_NOW)]

    def manifests(wanted: Mapping[str, FrozenSet[str]]) -> Dict[str, Dict[str, str]]:
        return {
            d: {n: SWAP if n == "swap" else ABSENT for n in wanted[d]} for d in wanted
        }

    reader = TenureReader(ChainLogs(updates), 1, manifests)  # type: ignore[arg-type]
    tenures = reader.tenures_of([_offer(1), _offer(1, "quote")], HEAD)
    assert tenures[(_address(1), "swap")].declared_block == 10
    assert (_address(1), "quote") not in tenures
