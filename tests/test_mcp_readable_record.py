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

"""The record of readable manifests in the state folder (adv29v, kind 2, across restarts).

What a restart asks for first: the record round-trips, an unreadable one is a warning
and empty, it is written only when it changed, and ``CatalogueSync`` keeps in it what a
period verified (and what the budget did not reach), not what failed.
"""

import json
import logging
from pathlib import Path

import pytest
from mech_catalogue_core.catalogue.fetching import FetchResult, still_readable

from mech_catalogue_cli.mcp_server.readable_record import (
    FILE_NAME,
    MAX_DIGESTS,
    ReadableRecord,
)
from tests.adversary.test_dead_digests import dead


def test_the_record_round_trips_and_survives_a_new_process(tmp_path: Path) -> None:
    """Saved by one record, loaded by another on the same folder."""
    ReadableRecord(tmp_path).save([dead(2), dead(1)])
    assert ReadableRecord(tmp_path).load() == {dead(1), dead(2)}


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        json.dumps({"version": 2, "digests": []}),
        json.dumps({"version": 1}),
        json.dumps({"version": 1, "digests": "0x00"}),
        json.dumps({"version": 1, "digests": ["0xZZ" + "0" * 62]}),
        json.dumps({"version": 1, "digests": [dead(1).upper()]}),
        json.dumps({"version": 1, "digests": [7]}),
    ],
)
def test_a_file_that_is_not_a_record_is_a_warning_and_empty(
    tmp_path: Path, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Whatever else the file holds, the first read orders by age alone, and says so."""
    (tmp_path / FILE_NAME).write_text(text, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        assert ReadableRecord(tmp_path).load() == frozenset()
    assert FILE_NAME in caplog.text and "ignored" in caplog.text


def test_no_folder_and_no_file_are_empty_records(tmp_path: Path) -> None:
    """Nothing to read: empty, no warning; without a folder nothing is written."""
    assert ReadableRecord(tmp_path).load() == frozenset()
    ReadableRecord(None).save([dead(1)])
    assert ReadableRecord(None).load() == frozenset()
    assert not list(tmp_path.iterdir())


def test_an_unchanged_record_is_not_written_again(tmp_path: Path) -> None:
    """The same digests: the file keeps its modification time."""
    record = ReadableRecord(tmp_path)
    record.save([dead(1)])
    path = tmp_path / FILE_NAME
    path.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    before = path.stat().st_mtime_ns
    record.save([dead(1)])
    assert path.stat().st_mtime_ns == before


def test_the_record_is_bounded(tmp_path: Path) -> None:
    """More digests than :data:`MAX_DIGESTS`: the first ones in digest order are kept."""
    digests = [dead(i) for i in range(MAX_DIGESTS + 5)]
    ReadableRecord(tmp_path).save(digests)
    assert ReadableRecord(tmp_path).load() == set(digests[:MAX_DIGESTS])


def test_a_folder_that_cannot_be_written_is_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The state folder is a file: the read goes on, the warning names the path."""
    blocker = tmp_path / "state"
    blocker.write_text("", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        ReadableRecord(blocker).save([dead(1)])
    assert "cannot be written" in caplog.text


def test_a_period_keeps_what_it_verified_and_what_it_did_not_reach() -> None:
    """Verified: kept; failed after a GET: dropped; not reached: as it was; gone: dropped."""
    before = {dead(1), dead(2), dead(3), dead(6)}
    fetched = {
        dead(1): FetchResult.ok(dead(1), "bafyone", b"{}"),
        dead(2): FetchResult.unavailable(dead(2), ()),
        dead(3): FetchResult.unavailable(dead(3), (), reached=False),
        dead(4): FetchResult.unavailable(dead(4), (), reached=False),
        dead(5): FetchResult.ok(dead(5), "bafyfive", b"{}"),
    }
    assert still_readable(before, fetched) == {dead(1), dead(3), dead(5)}
